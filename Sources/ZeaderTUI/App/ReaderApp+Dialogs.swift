import Foundation
import ObjectGraph
import ZeaderConfig

/// newsboat's dialog keys on Zeader's stack of screens (feed list, item list, article,
/// help, tag/link list): `v` lists the open screens (ENTER goes back to one, `^X` closes
/// one with those above it), `^X` closes the screen on top, `^G` steps back to the screen
/// below keeping the top one, and `^V` steps forward to it again. The feed list is never closed.
extension ReaderApp {
    /// `^X`: closes the screen on top; in the dialog list, the dialog under the cursor (and
    /// those opened over it).
    func closeDialog() {
        if case .picker(let picker) = state.top, picker.kind == .dialogs {
            let index = picker.position.cursor
            guard index > 0 else { return state.say(.reader(.feedListCannotClose)) }
            back()  // the dialog list
            state.forwardDialogs = []
            while state.stack.count > index { back() }
            return
        }
        guard state.stack.count > 1 else { return state.say(.reader(.feedListCannotClose)) }
        state.forwardDialogs = []
        back()
    }

    /// `^G`: steps back to the screen below, keeping the top one, with its state, for
    /// ``nextDialog()``.
    func prevDialog() {
        guard state.stack.count > 1 else {
            state.say(.reader(.noPreviousDialog))
            return
        }
        if state.screens != state.forwardDialogsBelow { state.forwardDialogs = [] }
        let top = state.top
        back()
        state.forwardDialogs.append(top)
        state.forwardDialogsBelow = state.screens
    }

    /// `^V`: shows again the screen ``prevDialog()`` stepped back from.
    func nextDialog() {
        guard state.screens == state.forwardDialogsBelow, let screen = state.forwardDialogs.popLast() else {
            state.forwardDialogs = []
            state.say(.reader(.noNextDialog))
            return
        }
        switch screen {
        case .items:
            state.stack.append(screen)
            if let error = reloadItemList() { state.say(.failed("\(error)")) }
        case .article(var article):
            guard model.item(article.itemID) != nil else {
                state.forwardDialogs = []
                state.say(.reader(.itemGone))
                return
            }
            article.renderedWidth = 0
            state.stack.append(.article(article))
        case .feeds, .help, .picker:
            state.stack.append(screen)
        }
        state.forwardDialogsBelow = state.screens
    }

    /// ENTER in the dialog list: back to the dialog at `index` (closing those above it).
    func goToDialog(at index: Int) {
        back()  // the dialog list
        state.forwardDialogs = []
        while state.stack.count > index + 1 { back() }
    }

    /// The open screens' names, bottom first.
    func dialogNames() -> [String] {
        state.stack.map { screen in
            switch screen {
            case .feeds: return "Feed list"
            case .items(let list): return "Items: " + list.title
            case .article(let article): return "Article: " + article.title
            case .help: return "Help"
            case .picker(let picker): return picker.title
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
        state.stack.append(.picker(picker))
    }
}
