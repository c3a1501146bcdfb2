import ZeaderConfig

/// newsboat's `mark-as-read-on-hover`: the item the item list's cursor comes to is marked
/// read, as opening it would (one undo step each; `N` marks it unread again).
extension ReaderApp {
    /// Marks the item under the item list's cursor read when the config asks for it.
    func markHoveredItemRead() {
        guard config.behaviour.markAsReadOnHover, state.screen == .items, let id = state.items?.selectedID,
            !model.isRead(id)
        else { return }
        attempt { try model.setRead(id, true) }
    }
}
