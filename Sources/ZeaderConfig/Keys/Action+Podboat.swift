/// podboat's actions, which act in the podcast queue's view (the `podboat` view of
/// `bind-key`): as in newsboat, a `bind-key KEY pb-…` line without a view binds the key there
/// only, so that `bind-key D pb-download` leaves `D` deleting items in the item list.
///
/// ```swift
/// Action.pbDownload.isPodboat               // true
/// Action.podboatView(for: .pbDelete, in: nil)   // .podboat
/// ```
extension Action {
    /// Whether the action is one of podboat's `pb-…` actions.
    public var isPodboat: Bool {
        switch self {
        case .pbDownload, .pbCancel, .pbDelete, .pbPurge, .pbPlay, .pbMarkAsFinished, .pbToggleDownloadAll,
            .pbIncreaseMaxDownloads, .pbDecreaseMaxDownloads:
            return true
        default:
            return false
        }
    }

    /// The view a binding of `action` holds in when the line names `view` (nil: every view):
    /// podboat's actions without a view hold in podboat's.
    ///
    /// ```swift
    /// Action.podboatView(for: .open, in: nil)   // nil (every view)
    /// ```
    public static func podboatView(for action: Action, in view: KeyView?) -> KeyView? {
        view == nil && action.isPodboat ? .podboat : view
    }
}

extension KeyMap {
    /// podboat's default keys in its view (newsboat's keymap), and `P` opening it.
    static let podboatKeys: [Key: Action] = [
        .character("d"): .pbDownload, .character("c"): .pbCancel, .character("D"): .pbDelete,
        .character("P"): .pbPurge, .character("a"): .pbToggleDownloadAll, .character("p"): .pbPlay,
        .character("m"): .pbMarkAsFinished, .character("+"): .pbIncreaseMaxDownloads,
        .character("-"): .pbDecreaseMaxDownloads,
    ]

    /// Binds podboat's keys in its view; `P` elsewhere opens the queue (newsboat leaves it unbound).
    mutating func bindPodboatKeys() {
        bind(.character("P"), to: .podcasts)
        for (key, action) in Self.podboatKeys { bind(key, to: action, in: .podboat) }
    }
}
