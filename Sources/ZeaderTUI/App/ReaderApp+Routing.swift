import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// The one routing of the reader's actions and prompt keys. Each ``Action`` has exactly one
/// case below: an action every screen shares is handled here; one whose meaning depends on the
/// screen becomes a ``ScreenAction`` for the handler of the screen on top (Screens/), which
/// has a case for each, so where an action does nothing is a visible decision
/// (``notHere(_:)``). No `default:` covers an action, a screen or a prompt: one without a
/// handler does not compile.
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
        case .refreshAll: refresh(feedsToRefreshAll())
        case .markAllRead: if !asksBeforeMarkingAllRead() { markAllRead() }
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
        // The screen on top decides (Screens/).
        case .open: onScreen(.open)
        case .refreshFeed: onScreen(.refreshFeed)
        case .next: onScreen(.step(forward: true))
        case .prev: onScreen(.step(forward: false))
        case .nextFeed: onScreen(.goToFeed(forward: true))
        case .prevFeed: onScreen(.goToFeed(forward: false))
        case .sort: onScreen(.sort(reverse: false))
        case .revSort: onScreen(.sort(reverse: true))
        case .setFilter: onScreen(.setFilter)
        case .clearFilter: onScreen(.clearFilter)
        case .selectFilter: onScreen(.selectFilter)
        case .deleteFeed: onScreen(.deleteFeed)
        case .moveFeedUp: onScreen(.moveFeed(by: -1))
        case .moveFeedDown: onScreen(.moveFeed(by: 1))
        case .editURLs: onScreen(.editURLs)
        case .renameFeed: onScreen(.renameFeed)
        case .markFeedRead: if !asksBeforeMarkingFeedRead() { onScreen(.markFeedRead) }
        case .deleteAllArticles: onScreen(.deleteAllArticles)
        case .toggleSourceView: onScreen(.toggleSourceView)
        // The item under the cursor or the article shown (Screens/ItemActions.swift).
        case .toggleRead: onScreen(.item(.toggleRead))
        case .toggleFlag: onScreen(.item(.toggleFlag))
        case .enqueue: onScreen(.item(.enqueue))
        case .deleteArticle: onScreen(.item(.deleteArticle))
        case .editFlags: onScreen(.item(.editFlags))
        case .gotoURL: onScreen(.item(.gotoURL))
        case .openInBrowser: onScreen(.item(.openInBrowser))
        case .openInBrowserAndMarkRead: onScreen(.item(.openInBrowserAndMarkRead))
        case .showUrls: onScreen(.item(.showUrls))
        case .save: onScreen(.item(.save))
        case .pipeTo: onScreen(.item(.pipeTo))
        case .bookmark: onScreen(.item(.bookmark))
        case .fullArticle: onScreen(.item(.fullArticle))
        case .editTags: onScreen(.item(.editTags))
        // newsboat's digits: the position prompt (ReaderApp+Positions.swift).
        case .one, .two, .three, .four, .five, .six, .seven, .eight, .nine, .zero: startPosition(action)
        // A list's unread items (ReaderApp+UnreadLinks.swift).
        case .openAllUnreadInBrowser: openAllUnreadInBrowser(markingRead: false)
        case .openAllUnreadInBrowserAndMarkRead: openAllUnreadInBrowser(markingRead: true)
        case .markAllAboveAsRead: markAllAboveAsRead()
        // podboat's view (ReaderApp+Podcasts.swift).
        case .podcasts: showPodcasts()
        case .pbDownload, .pbCancel, .pbDelete, .pbPurge, .pbPlay, .pbMarkAsFinished, .pbToggleDownloadAll,
            .pbIncreaseMaxDownloads, .pbDecreaseMaxDownloads:
            onPodcasts(action)
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
        markHoveredItemRead()
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

    /// Says where an action that belongs to another screen works: the feed list's (delete,
    /// edit-urls), an item list's (filters, delete-all), or an item's.
    func belongsElsewhere(_ action: ScreenAction) {
        switch action {
        case .deleteFeed: state.say(.selectFeedToDelete)
        case .editURLs: state.say(.reader(.editURLsNeedsTheFeedList))
        case .renameFeed: state.say(.reader(.renameNeedsAFeed))
        case .selectFilter: state.say(.reader(.selectFilterNeedsAList))
        case .deleteAllArticles: state.say(.reader(.deleteAllNeedsAList))
        case .clearFilter: state.say(.reader(.noFilter))
        case .item: state.say(.reader(.needsItem))
        case .open, .refreshFeed, .step, .goToFeed, .sort, .setFilter, .moveFeed, .markFeedRead, .toggleSourceView:
            notHere(action.action)
        }
    }

    /// Hands `action` to the handler of the screen on top.
    func onScreen(_ action: ScreenAction) {
        switch state.top {
        case .feeds: feedList(action)
        case .items: itemList(action)
        case .article: articleView(action)
        case .help: helpScreen(action)
        case .picker(let picker): pickerScreen(action, picker)
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
        case .editTags(let text, let id):
            if let text = edit(text, with: key, submit: { self.setItemTags($0, on: id) }) {
                state.prompt = .editTags(text: text, id: id)
            }
        case .renameFeed(let text, let id):
            if let text = edit(text, with: key, submit: { self.renameFeed(id, to: $0) }) {
                state.prompt = .renameFeed(text: text, id: id)
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
        case .confirm(let question): answer(question, key: key)
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
            if let kind = PromptHistory.Kind(state.prompt) {
                promptHistory.remember(text.trimmingCharacters(in: .whitespaces), in: kind)
            }
            state.prompt = nil
            submit(text.trimmingCharacters(in: .whitespaces))
            return nil
        case .up, .down:
            // newsboat's history of searches and command lines (PromptHistory.swift).
            if let kind = PromptHistory.Kind(state.prompt) { text = promptHistory.recall(key == .up, in: kind, typed: text) }
        case .backspace, .delete: if !text.isEmpty { text.removeLast() }
        case .control("u"): text = ""
        case .character(let c): text.append(c)
        default: break  // other keys do not edit a line
        }
        return text
    }
}
