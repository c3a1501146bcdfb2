import Foundation
import ObjectGraph

/// A screen `^G` (prev-dialog) stepped back from, with its state, until `^V` (next-dialog)
/// shows it again. `below` is the stack it sat on: once the stack changes otherwise, the
/// stashed screens are dropped.
public struct StashedDialog: Equatable, Sendable {
    public var screen: AppState.Screen
    public var below: [AppState.Screen]
    public var items: ItemListState?
    public var article: ArticleState?
    public var picker: PickerState?
}

/// newsboat's dialog keys on Zeader's stack of screens (feed list, item list, article,
/// help, tag/link list): `v` lists the open screens (ENTER goes back to one, `^X` closes
/// one with those above it), `^X` closes the screen on top, `^G` steps back to the screen
/// below keeping the top one, and `^V` steps forward to it again. The feed list is never closed.
extension ReaderApp {
    /// `^X`: closes the screen on top; in the dialog list, the dialog under the cursor (and
    /// those opened over it).
    func closeDialog() {
        if state.screen == .picker, let picker = state.picker, picker.kind == .dialogs {
            let index = picker.position.cursor
            guard index > 0 else { return state.say(.reader(.feedListCannotClose)) }
            back()  // the dialog list
            state.forwardDialogs = []
            while state.screens.count > index { back() }
            return
        }
        guard state.screens.count > 1 else { return state.say(.reader(.feedListCannotClose)) }
        state.forwardDialogs = []
        back()
    }

    /// `^G`: steps back to the screen below, keeping the top one for ``nextDialog()``.
    func prevDialog() {
        guard state.screens.count > 1, let top = state.screens.last else {
            state.say("No previous dialog", error: true)
            return
        }
        if state.forwardDialogs.last.map({ $0.below != state.screens }) ?? false {
            state.forwardDialogs = []
        }
        let stash = StashedDialog(
            screen: top, below: Array(state.screens.dropLast()), items: top == .items ? state.items : nil,
            article: top == .article ? state.article : nil, picker: top == .picker ? state.picker : nil)
        back()
        state.forwardDialogs.append(stash)
    }

    /// `^V`: shows again the screen ``prevDialog()`` stepped back from.
    func nextDialog() {
        guard let stash = state.forwardDialogs.popLast(), stash.below == state.screens else {
            state.forwardDialogs = []
            state.say("No next dialog", error: true)
            return
        }
        restore(stash)
    }

    /// ENTER in the dialog list: back to the dialog at `index` (closing those above it).
    func goToDialog(at index: Int) {
        back()  // the dialog list
        state.forwardDialogs = []
        while state.screens.count > index + 1 { back() }
    }

    private func restore(_ stash: StashedDialog) {
        switch stash.screen {
        case .items:
            state.items = stash.items
            state.screens.append(.items)
            if let error = reloadItemList() { state.say(.failed("\(error)")) }
        case .article:
            guard var article = stash.article, model.item(article.itemID) != nil else {
                state.forwardDialogs = []
                state.say("That item is gone", error: true)
                return
            }
            article.renderedWidth = 0
            state.article = article
            state.screens.append(.article)
        case .picker:
            state.picker = stash.picker
            state.screens.append(.picker)
        case .help, .feeds:
            state.screens.append(stash.screen)
        }
    }

    /// The open screens' names, bottom first.
    func dialogNames() -> [String] {
        state.screens.map { screen in
            switch screen {
            case .feeds: return "Feed list"
            case .items: return "Items: " + (state.items?.title ?? "")
            case .article: return "Article: " + (state.article?.title ?? "")
            case .help: return "Help"
            case .picker: return state.picker?.title ?? "List"
            }
        }
    }

    func showDialogList() {
        if state.screen == .picker, state.picker?.kind == .dialogs { return notHere(.viewDialogs) }
        if state.screen == .picker { back() }  // one list at a time: the tag or link list closes
        let names = dialogNames()
        var picker = PickerState(
            kind: .dialogs, title: "Dialogs",
            entries: names.enumerated().map { "\($0.offset + 1)  \($0.element)" }, values: names)
        picker.position.set(names.count - 1, count: names.count, height: state.listHeight)
        state.picker = picker
        state.screens.append(.picker)
    }
}
