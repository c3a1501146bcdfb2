/// newsboat's `toggleitemread-jumps-to-next-unread` and `openbrowser-and-mark-jumps-to-next-unread`:
/// after the mark, the item list's cursor goes to the next unread item below it, without
/// opening it; it stays where it is when there is none.
extension ReaderApp {
    func moveToNextUnreadInList() {
        guard state.screen == .items, let list = state.items,
            let index = model.firstUnread(in: list.ids, from: list.position.cursor + 1, forward: true)
        else { return }
        select(index, openArticle: false)
    }
}
