import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// The one routing of the reader's actions and prompt keys. Each ``Action`` has exactly one
/// case below, which hands it to the handler of the screen it acts on or to one every screen
/// shares; each handler that depends on the screen switches over every screen, so where an
/// action does nothing is a visible decision (``notHere(_:)``). No `default:` covers an action,
/// a screen or a prompt: one without a handler does not compile.
extension ReaderApp {
    /// Runs one action: the `update` of the reader.
    ///
    /// ```swift
    /// app.perform(.nextUnread)
    /// ```
    public func perform(_ action: Action) {
        switch action {
        // Every screen: moving, leaving, help, and the whole reader.
        case .up: move(.up)
        case .down: move(.down)
        case .pageUp: move(.pageUp)
        case .pageDown: move(.pageDown)
        case .top: move(.top)
        case .bottom: move(.bottom)
        case .quit: back()
        case .hardQuit: quit()
        case .help: showHelp()
        case .redraw: backend.updateSize()
        case .refreshAll: refresh([])
        case .markAllRead: markRead(all: true)
        case .search: state.prompt = state.searchPrompt()
        case .addFeed: state.prompt = .addFeed(text: "")
        case .cmdline: state.prompt = .cmdline(text: "")
        case .undo: undo()
        case .redo: redo()
        case .macroPrefix: startMacro()
        case .nextUnread: jumpToUnread(forward: true)
        case .prevUnread: jumpToUnread(forward: false)
        case .nextUnreadFeed: goToFeed(forward: true, unreadOnly: true)
        case .prevUnreadFeed: goToFeed(forward: false, unreadOnly: true)
        case .randomUnread: randomUnread()
        case .toggleShowReadFeeds: toggleShowReadFeeds()
        case .toggleShowReadArticles: toggleShowReadArticles()
        case .setTag: showTagList()
        case .clearTag: clearTag()
        // The dialogs (ReaderApp+Dialogs.swift).
        case .viewDialogs: showDialogList()
        case .closeDialog: closeDialog()
        case .nextDialog: nextDialog()
        case .prevDialog: prevDialog()
        // The screen on top decides.
        case .open: open()
        case .refreshFeed: refreshFeedShown()
        case .next: nextOrPrevious(forward: true)
        case .prev: nextOrPrevious(forward: false)
        case .nextFeed: goToFeed(forward: true, unreadOnly: false)
        case .prevFeed: goToFeed(forward: false, unreadOnly: false)
        case .sort: askSort(reverse: false)
        case .revSort: askSort(reverse: true)
        case .setFilter: askFilter()
        case .clearFilter: clearFilter()
        // The feed list's own.
        case .deleteFeed: askDeleteFeed()
        case .moveFeedUp: moveFeed(by: -1)
        case .moveFeedDown: moveFeed(by: 1)
        case .editURLs: editURLs()
        // The item under the cursor or the article shown (``currentItemID()``).
        case .toggleRead: toggleRead()
        case .toggleFlag: toggleFlag()
        case .enqueue: enqueue()
        case .deleteArticle: deleteArticle()
        case .editFlags: askFlags()
        case .gotoURL: askURLNumber()
        case .openInBrowser: openInBrowser()
        case .openInBrowserAndMarkRead: openInBrowserAndMarkRead()
        case .showUrls: showLinkList()
        case .save: save()
        case .pipeTo: askPipeCommand()
        case .bookmark: bookmark()
        // The item list's and the article's own.
        case .markFeedRead: markRead(all: false)
        case .deleteAllArticles: confirmDeleteAllArticles()
        case .selectFilter: showFilterList()
        case .toggleSourceView: toggleSourceView()
        }
        if modelChanged { reloadFromModel() }
    }

    /// Says that `action` does nothing on the screen on top.
    func notHere(_ action: Action) {
        state.say(.reader(.notOnThisScreen(action: action.rawValue, screen: state.screen)))
    }

    // MARK: Every screen

    func move(_ movement: Movement) {
        if movement == .bottom, state.screen == .items { loadRestOfItemList() }
        state.move(movement)
    }

    func showHelp() {
        guard state.screen != .help else { return notHere(.help) }
        state.stack.append(.help(scroll: 0))
    }

    func undo() {
        attempt { state.say(try model.undo().map(StatusMessage.undid) ?? .nothingToUndo) }
    }

    func redo() {
        attempt { state.say(try model.redo().map(StatusMessage.redid) ?? .nothingToRedo) }
    }

    // MARK: By screen

    /// ENTER: the feed's items, the item's article, the entry picked in a list.
    func open() {
        switch state.screen {
        case .feeds:
            guard let row = state.selectedFeed else { return notHere(.open) }
            let source: ItemSource
            switch row.kind {
            case .server(let id): source = .server(id)
            case .smart(let format, _): source = .smart(predicateFormat: format)
            }
            showItems(source, title: row.title)
        case .items:
            guard let id = state.items?.selectedID else { return notHere(.open) }
            showArticle(id)
        case .article, .help: notHere(.open)
        case .picker: pick()
        }
    }

    /// `r`: the feed selected in the feed list, the feed whose items are listed, else every feed.
    func refreshFeedShown() {
        switch state.screen {
        case .feeds:
            refresh(state.selectedFeed?.serverID.map { [$0] } ?? [])
        case .items, .article, .help, .picker:
            if case .server(let id)? = state.items?.source { refresh([id]) } else { refresh([]) }
        }
    }

    /// `g`/`G`: asks how to sort the feed list or the item list.
    func askSort(reverse: Bool) {
        switch state.screen {
        case .feeds, .items: state.prompt = .sort(reverse: reverse, feeds: state.screen == .feeds)
        case .article, .help, .picker: notHere(reverse ? .revSort : .sort)
        }
    }

    /// `F`: asks for the predicate that filters the feed list or the item list.
    func askFilter() {
        switch state.screen {
        case .feeds: state.prompt = .filter(text: state.views.feedFilter ?? "", error: nil)
        case .items: state.prompt = .filter(text: state.items?.filter ?? "", error: nil)
        case .article, .help, .picker: notHere(.setFilter)
        }
    }

    /// `D` on the feed list: asks before deleting the selected subscription.
    func askDeleteFeed() {
        guard state.screen == .feeds, let row = state.selectedFeed, let id = row.serverID else {
            return state.say(.selectFeedToDelete)
        }
        state.prompt = .confirmDelete(title: row.title, id: id)
    }

    /// Moves the selected subscription up or down the feed list.
    func moveFeed(by offset: Int) {
        switch state.screen {
        case .feeds:
            guard let id = state.selectedFeed?.serverID else { return state.say(.reader(.smartFeedsStayLast)) }
            attempt {
                try model.moveServer(id, by: offset)
                reloadFromModel()
                if let index = state.feeds.firstIndex(where: { $0.serverID == id }) {
                    state.feedPosition.set(index, count: state.feeds.count, height: state.listHeight)
                }
            }
        case .items, .article, .help, .picker: notHere(offset < 0 ? .moveFeedUp : .moveFeedDown)
        }
    }

    /// The item on screen: the article shown, or the item under the cursor of the list.
    func currentItemID() -> ObjectID? {
        switch state.screen {
        case .article: return state.article?.itemID
        case .items: return state.items?.selectedID
        case .feeds, .help, .picker: return nil
        }
    }

    /// The item on screen, or nil after saying that the key needs one.
    func requireItem() -> ObjectID? {
        guard let id = currentItemID() else {
            state.say(.reader(.needsItem))
            return nil
        }
        return id
    }

    /// The picker's ENTER: what it means depends on the list.
    func pick() {
        guard let picker = state.picker else { return notHere(.open) }
        switch picker.kind {
        case .tags:
            state.views.tag = picker.selectedValue
            back()
            rearrangeFeeds()
            state.feedPosition.set(0, count: state.feeds.count, height: state.listHeight)
            state.say(.reader(.showingTag(state.views.tag)))
        case .links:
            if let link = picker.selectedValue { open(link: link) }
        case .discoveredFeeds: pickDiscoveredFeed()
        case .dialogs: goToDialog(at: picker.position.cursor)
        case .filters: applyPickedFilter()
        }
    }

    // MARK: Prompts

    /// A key typed while a prompt is open: every prompt has its case.
    func handlePromptKey(_ key: Key, _ prompt: Prompt) {
        switch prompt {
        case .search(let text):
            if let text = edit(text, with: key, submit: nonEmpty(search)) { state.prompt = .search(text: text) }
        case .searchFeed(let text, let server, let title):
            if key == .tab {
                state.prompt = .search(text: text)
            } else if let text = edit(text, with: key, submit: nonEmpty { self.search($0, in: server, title: title) }) {
                state.prompt = .searchFeed(text: text, server: server, title: title)
            }
        case .addFeed(let text):
            if let text = edit(text, with: key, submit: nonEmpty { self.startPreview(url: $0) }) {
                state.prompt = .addFeed(text: text)
            }
        case .savePath(let text):
            if let text = edit(text, with: key, submit: nonEmpty(save(to:))) { state.prompt = .savePath(text: text) }
        case .pipeCommand(let text):
            if let text = edit(text, with: key, submit: nonEmpty(pipe(to:))) { state.prompt = .pipeCommand(text: text) }
        case .filter(let text, _):
            if let text = edit(text, with: key, submit: applyFilter) { state.prompt = .filter(text: text, error: nil) }
        case .writeLinks(let text):
            if let text = edit(text, with: key, submit: writeLinks(to:)) { state.prompt = .writeLinks(text: text) }
        case .cmdline(let text):
            if let text = edit(text, with: key, submit: runCommandLine) { state.prompt = .cmdline(text: text) }
        case .editFlags(let text, let id):
            if let text = edit(text, with: key, submit: { self.setFlags($0, on: id) }) {
                state.prompt = .editFlags(text: text, id: id)
            }
        case .gotoURL(let text):
            if let text = edit(text, with: key, submit: gotoURL) { state.prompt = .gotoURL(text: text) }
        case .sort(let reverse, let feeds):
            state.prompt = nil
            guard case .character(let c) = key, let name = Prompt.sortField(for: c, feeds: feeds) else { return }
            applySort(name, reverse: reverse, feeds: feeds)
        case .confirmDelete(let title, let id):
            guard let yes = answer(key) else { return }
            state.prompt = nil
            if yes {
                attempt {
                    try model.deleteServer(id)
                    state.say(.deleted(title))
                }
            }
        case .addFeedPreview(_, let title, _):
            guard let yes = answer(key) else { return }
            state.prompt = nil
            decidePreview(keep: yes, title: title)
        case .confirmDeleteItems(_, let ids):
            guard let yes = answer(key) else { return }
            state.prompt = nil
            if yes { attempt { state.say(.reader(.deletedItems(try ItemDeletion.delete(ids, in: model.context)))) } }
        }
    }

    /// A y/n prompt's answer: true for `y`, false for `n` or ESC, nil for any other key
    /// (the prompt stays).
    func answer(_ key: Key) -> Bool? {
        switch key {
        case .character("y"), .character("Y"): return true
        case .character("n"), .character("N"), .escape: return false
        default: return nil
        }
    }

    /// `submit`, skipped for an empty line: ENTER on an empty prompt just closes it.
    func nonEmpty(_ submit: @escaping (String) -> Void) -> (String) -> Void {
        { text in if !text.isEmpty { submit(text) } }
    }

    /// Edits a prompt's text with `key`; nil when the prompt closed (ESC, or ENTER after
    /// `submit` with the text trimmed). Every one-line prompt edits its text this way.
    func edit(_ text: String, with key: Key, submit: (String) -> Void) -> String? {
        var text = text
        switch key {
        case .escape:
            state.prompt = nil
            return nil
        case .enter:
            state.prompt = nil
            submit(text.trimmingCharacters(in: .whitespaces))
            return nil
        case .backspace, .delete: if !text.isEmpty { text.removeLast() }
        case .control("u"): text = ""
        case .character(let c): text.append(c)
        default: break  // other keys do not edit a line
        }
        return text
    }
}
