import Foundation
import ObjectGraph
import ZeaderKit

/// Every line the reader shows on its status line, as data; `text` is the one place with
/// their words (ZeaderKit's errors bring their own, from its `Messages.swift`). The prompts
/// and their words are at the end of this file (``Prompt``).
///
/// ```swift
/// state.say(.markedItemsRead(3))   // "Marked 3 items read (z to undo)"
/// ```
enum StatusMessage: Equatable {
    case cannotReadFeeds(String)
    case selectFeedToDelete
    case undid(String)
    case nothingToUndo
    case redid(String)
    case nothingToRedo
    /// A use case's error, in ZeaderKit's words.
    case failed(String)
    case cannotList(title: String, String)
    case noUnreadItems, noMoreUnreadItems
    case markedRead(Bool)
    case flagged(Bool)
    case enqueued(Bool)
    /// A page added names several feeds: their URLs, to choose from by number at the next `a`.
    case chooseFeed(page: String, count: Int)
    case noEnclosure
    case markReadNeedsAFeed
    case markedItemsRead(Int)
    case deleted(String)
    case added(String)
    case discarded(String)
    case cannotAdd(url: String, String)
    case searchMatches(count: Int, milliseconds: Int)
    case addingNotAvailable
    case fetching(String)
    case refreshNotAvailable, refreshRunning
    /// A feed's refresh problem (``FeedRefreshResult/problem``).
    case refreshProblem(String)
    /// The refresh's totals, and the first failed feed's problem (named, not only counted).
    case refreshed(RefreshProgress, firstProblem: String?)
    /// A refresh that was a sync: what it pulled and pushed.
    case synced(FeedSync.Report)
    /// How a refresh ended, and the first thing that went wrong with the folder sync run
    /// around it (``RefreshSummary/folderSyncProblems``), and how many more.
    indirect case withFolderSync(StatusMessage, problem: String, more: Int)
    case cannotRefresh(String)
    /// A push of the changes made here failed: ``Messages/syncFailed(_:pending:localFeeds:)``'s line.
    case pushFailed(String)
    case noLinkToOpen
    case noLink(Int)
    case opened(String)
    /// A program the reader ran (browser, editor, pipe-to, bookmark-cmd) ended badly.
    case programExited(command: String, status: Int32)
    /// Navigation, views, dialogs, commands: ``ReaderMessage`` below.
    case reader(ReaderMessage)

    var text: String {
        switch self {
        case .cannotReadFeeds(let error): return "Cannot read the feeds: \(error)"
        case .selectFeedToDelete: return "Select a feed in the feed list to delete it"
        case .undid(let name): return "Undid \(name)"
        case .nothingToUndo: return "Nothing to undo"
        case .redid(let name): return "Redid \(name)"
        case .nothingToRedo: return "Nothing to redo"
        case .failed(let error): return error
        case .cannotList(let title, let error): return "\(title): \(error)"
        case .noUnreadItems: return "No unread items"
        case .noMoreUnreadItems: return "No more unread items"
        case .markedRead(let read): return read ? "Marked read" : "Marked unread"
        case .flagged(let flagged): return flagged ? "Flagged" : "Unflagged"
        case .enqueued(let new):
            return new ? "Queued for download (zeader podcasts download)" : "Already in the podcast queue"
        case .noEnclosure: return "This item has no enclosure"
        case .chooseFeed(let page, let count):
            return "\(page) names \(count) feeds: ENTER previews the one under the cursor (or press a, type its number)"
        case .markReadNeedsAFeed: return "Mark read works on a feed"
        case .markedItemsRead(let count): return count == 0 ? "Nothing unread" : "Marked \(count) items read (z to undo)"
        case .deleted(let title): return "Deleted \(title) (z to undo)"
        case .added(let title): return "Added \(title)"
        case .discarded(let title): return "Discarded \(title)"
        case .cannotAdd(let url, let error): return "Cannot add \(url): \(error)"
        case .searchMatches(let count, let milliseconds): return "\(count) items match (\(milliseconds) ms)"
        case .addingNotAvailable: return "Adding feeds is not available here"
        case .fetching(let url): return "Fetching \(url) …"
        case .refreshNotAvailable: return "Refreshing is not available here (the demo's feeds are offline)"
        case .refreshRunning: return "A refresh is already running"
        case .refreshProblem(let problem): return problem
        case .refreshed(let progress, let problem):
            let feeds = progress.total == 1 ? "1 feed" : "\(progress.total) feeds"
            guard progress.failed > 0 else { return "Refreshed \(feeds)" }
            let failed = "Refreshed \(feeds), \(progress.failed) failed"
            guard let problem else { return failed }
            return failed + ": " + problem + (progress.failed > 1 ? " (and \(progress.failed - 1) more)" : "")
        case .synced(let report):
            func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
            var parts = [
                "pulled " + count(report.newItems, "new item", "new items"),
                "pushed " + count(report.pushed, "change", "changes"),
            ]
            if report.stateChanges > 0 {
                parts.append(count(report.stateChanges, "read/flag state", "read/flag states") + " changed")
            }
            if report.feedsAdded > 0 { parts.append(count(report.feedsAdded, "feed", "feeds") + " added") }
            if report.feedsRemoved > 0 { parts.append(count(report.feedsRemoved, "feed", "feeds") + " removed") }
            if !report.refused.isEmpty {
                parts.append(count(report.refused.count, "feed", "feeds") + " refused by the server (zeader sync names them)")
            }
            return "Synced: " + parts.joined(separator: ", ")
        case .withFolderSync(let outcome, let problem, let more):
            return outcome.text + "; " + problem + (more > 0 ? " (and \(more) more: zeader sync status folder)" : "")
        case .cannotRefresh(let error): return "Cannot refresh: \(error)"
        case .pushFailed(let line): return line.prefix(1).uppercased() + line.dropFirst()
        case .noLinkToOpen: return "No link to open"
        case .noLink(let number): return "No link \(number)"
        case .opened(let link): return "Opened \(link)"
        case .programExited(let command, let status): return "\(command) exited with status \(status)"
        case .reader(let message): return message.text
        }
    }

    /// Errors are highlighted.
    var isError: Bool {
        switch self {
        case .cannotReadFeeds, .selectFeedToDelete, .failed, .cannotList, .markReadNeedsAFeed, .cannotAdd,
            .addingNotAvailable, .refreshNotAvailable, .refreshProblem, .cannotRefresh, .pushFailed, .noLinkToOpen, .noLink,
            .programExited:
            return true
        case .refreshed(let progress, _): return progress.failed > 0
        case .synced(let report): return !report.refused.isEmpty
        case .withFolderSync: return true
        case .reader(let message): return message.isError
        default: return false
        }
    }
}

extension AppState {
    /// Shows `message` on the status line.
    mutating func say(_ message: StatusMessage) {
        self.message = message.text
        messageIsError = message.isError
    }
}

/// The status lines of navigation and the views (hidden read feeds, sort, tags, filter,
/// links), as data; ``text`` holds their words.
enum ReaderMessage: Equatable {
    case keyNotBound(String)
    /// An action that does nothing on the screen on top (its name as `bind-key` names it).
    case notOnThisScreen(action: String, screen: AppState.Screen.Kind)
    /// A key that acts on one item, pressed with no item open or selected.
    case needsItem
    /// A key that closes a screen, pressed on the feed list (the first screen).
    case feedListCannotClose
    case noNextFeed, noPreviousFeed
    case noNextItem, noPreviousItem
    case noPreviousUnreadItems
    case showingReadFeeds(Bool)
    case showingReadArticles(Bool)
    case sortedBy(String)
    case noTags
    case showingTag(String?)
    case filtered(count: Int, milliseconds: Int)
    case filterCleared
    case noFilter
    case noLinks
    /// open-all-unread-in-browser on a list without unread items.
    case noUnreadLinks
    case wroteLinks(count: Int, path: String)
    case cannotWrite(path: String, String)
    /// The config file's first warning, and how many more `zeader config check` lists.
    case configWarning(String, more: Int)
    /// Quitting pushes this many changes first (nil: waits for the running sync to end).
    case pushingOnQuit(Int?)
    /// Why quitting did not push: the push had not ended in time.
    case pushTimedOut(seconds: TimeInterval)
    /// Why quitting did not push: a key asked to quit before the push ended.
    case quitBeforePush
    /// Why a signal's end did not push: the signal's number.
    case stoppedBySignal(Int32)
    // Dialogs, item commands, edit-urls, macros, the command line, select-filter, programs.
    case noPreviousDialog, noNextDialog
    /// move-feed-up/down on a smart feed, which the feed list keeps after the subscriptions.
    case smartFeedsStayLast
    /// ^V to an article whose item was deleted meanwhile.
    case itemGone
    case showingSource(Bool)
    /// `w`: the full article shown (true) or the feed's text again.
    case showingFullArticle(Bool)
    /// `w`: the item's page is being fetched.
    case fetchingFullArticle(String)
    /// `w` on an item without an http(s) link, or where nothing can be fetched (the demo).
    case noPageToFetch
    case fullArticlesNotAvailable
    /// `w`: the page gave no article (one line, kept with the item).
    case noFullArticle(String)
    /// A picture of the article stays its alt text.
    case pictureNotShown(alt: String, PictureProblem)
    case deletedItem(title: String)
    case deletedItems(Int)
    case deleteAllNeedsAList
    case noItemsToDelete
    /// The item's flag letters after `^E` (empty: none).
    case flagsSet(String)
    case tagsSet([String])
    case notALinkNumber(String)
    case editURLsNeedsTheFeedList
    case renameNeedsAFeed
    /// The feed's title after `i` (nil: its own, at the next refresh or sync).
    case feedRenamed(String?)
    case editorExited(command: String, status: Int32)
    case cannotReadBack(path: String)
    /// What edit-urls changed (nil: nothing).
    case feedsEdited(FeedURLsEditing.Report?)
    case feedsUnchanged(String)
    case noMacros
    case pressMacroKey(String)
    case noMacro(String)
    /// A command of the command line (`:`) given without its argument.
    case commandNeedsArgument(String)
    case unknownAction(String)
    case configCommandNotAvailable(String)
    case dumpformNotAvailable
    case unknownCommand(String)
    case numberNeedsAList
    /// `:N` beyond the list: N as typed, and how many entries the list has.
    case noEntry(String, count: Int)
    case cannotSetInReader(String)
    case unknownVariable(String)
    case cannotSet(String, String)
    /// `:set NAME`: the variable's value.
    case variable(String, String)
    case noFeedTagged(String)
    case noFeedTitled(String)
    case selectFilterNeedsAList
    case noSmartFeeds
    case cannotFilter(by: String, String)
    /// `notify-program` could not start or failed.
    case notifyFailed(String)
    case saved(to: String)
    case piped(to: String)
    case bookmarked(String)
    case edited(String)
    case noBookmarkCommand
    case noLinkToBookmark
    /// The podcast queue's (ReaderApp+Podcasts.swift).
    case podcast(PodcastMessage)

    var text: String {
        switch self {
        case .keyNotBound(let key): return "Key \(key) is not bound (? lists the keys)"
        case .notOnThisScreen(let action, let screen):
            let name: String
            switch screen {
            case .feeds: name = "the feed list"
            case .items: name = "an item list"
            case .article: name = "the article view"
            case .help: name = "the help screen"
            case .picker: name = "this list"
            }
            return "\(action) does nothing in \(name)"
        case .needsItem: return "Open or select an item first"
        case .feedListCannotClose: return "The feed list cannot be closed (q quits)"
        case .noNextFeed: return "No next feed"
        case .noPreviousFeed: return "No previous feed"
        case .noNextItem: return "No next item"
        case .noPreviousItem: return "No previous item"
        case .noPreviousUnreadItems: return "No previous unread items"
        case .showingReadFeeds(let shown): return shown ? "Showing read feeds" : "Hiding read feeds"
        case .showingReadArticles(let shown): return shown ? "Showing read items" : "Hiding read items"
        case .sortedBy(let order): return "Sorted by \(order)"
        case .noTags: return "No feed has a tag (zeader tag FEED TAG)"
        case .showingTag(let tag): return tag.map { "Showing the feeds tagged \($0)" } ?? "Showing every feed"
        case .filtered(let count, let milliseconds): return "\(count) match the filter (\(milliseconds) ms)"
        case .filterCleared: return "Filter removed"
        case .noFilter: return "No filter to remove"
        case .noLinks: return "The article has no links"
        case .noUnreadLinks: return "No unread items to open"
        case .wroteLinks(let count, let path): return "Wrote \(count) links to \(path)"
        case .cannotWrite(let path, let reason): return "Cannot write \(path): \(reason)"
        case .configWarning(let warning, let more):
            return more == 0 ? warning : "\(warning) (and \(more) more: zeader config check)"
        case .pushingOnQuit(let count?):
            return "Pushing \(count) change\(count == 1 ? "" : "s") to the sync server… (any key quits now)"
        case .pushingOnQuit(nil): return "Finishing the sync… (any key quits now)"
        case .pushTimedOut(let seconds):
            // Not the locale's decimal separator: the line is the same in every locale.
            let shown = seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
            return "the push did not end within \(shown) s"
        case .quitBeforePush: return "the reader quit before the push ended"
        case .stoppedBySignal(let number): return "the reader was stopped by signal \(number) before pushing"
        case .noPreviousDialog: return "No previous dialog"
        case .smartFeedsStayLast: return "Smart feeds stay after the feeds: only a feed moves"
        case .noNextDialog: return "No next dialog"
        case .itemGone: return "That item is gone"
        case .showingSource(let source): return source ? "Showing the HTML source (^U: rendered)" : "Showing the rendered article"
        case .showingFullArticle(let full):
            return full ? "Showing the full article from the web page (w: the feed's text)" : "Showing the feed's text"
        case .fetchingFullArticle(let url): return "Fetching the full article from \(url)…"
        case .noPageToFetch: return "This item has no web page to fetch"
        case .fullArticlesNotAvailable: return "Full articles cannot be fetched here"
        case .noFullArticle(let problem): return "No full article: \(problem)"
        case .pictureNotShown(let alt, let problem): return "Picture '\(alt)' not shown: \(Self.words(problem))"
        case .deletedItem(let title): return "Deleted \(title.isEmpty ? "the item" : "'\(title)'") (z to undo)"
        case .deletedItems(let count): return "Deleted \(count) items (z to undo)"
        case .deleteAllNeedsAList: return "Open a feed's item list to delete its items"
        case .noItemsToDelete: return "No items to delete"
        case .flagsSet(let letters): return letters.isEmpty ? "Flags cleared" : "Flags: \(letters)"
        case .tagsSet(let tags): return tags.isEmpty ? "Tags cleared" : "Tags: \(tags.joined(separator: ", "))"
        case .notALinkNumber(let text): return "Not a link number: \(text)"
        case .editURLsNeedsTheFeedList: return "E edits the feeds from the feed list"
        case .renameNeedsAFeed: return "Select a feed in the feed list to rename it"
        case .feedRenamed(let title): return "Renamed: " + (title ?? "its own title at the next refresh or sync")
        case .editorExited(let command, let status): return "\(command) exited with status \(status): the feeds are unchanged"
        case .cannotReadBack(let path): return "Cannot read \(path) back: the feeds are unchanged"
        case .feedsEdited(let report):
            guard let report, !report.isEmpty else { return "No changes to the feeds" }
            var summary = "Feeds: \(report.added.count) added, \(report.removed.count) removed, \(report.changed) changed"
            if report.reordered { summary += ", reordered" }
            summary += " (z to undo)"
            if let note = report.notes.first {
                let more = report.notes.count - 1
                summary += "; " + note + (more > 0 ? " (and \(more) more)" : "")
            }
            return summary
        case .feedsUnchanged(let error): return "The feeds are unchanged: \(error)"
        case .noMacros: return "No macro in the config file (macro KEY ACTION…)"
        case .pressMacroKey(let keys): return "Macro: press its key (\(keys)), Esc to cancel"
        case .noMacro(let key): return "No macro on \(key)"
        case .commandNeedsArgument(let command):
            let what: String
            switch command {
            case "save": what = "a file name"
            case "set": what = "a variable (\(ReaderApp.commandLineVariables.joined(separator: ", ")))"
            case "tag": what = "a tag"
            case "goto": what = "part of a feed's title"
            case "exec": what = "an action"
            default: what = "an argument"
            }
            return ":\(command) needs \(what)"
        case .unknownAction(let name): return ":exec: unknown action '\(name)' (? lists them)"
        case .configCommandNotAvailable(let command):
            return ":\(command) is not available: Zeader reads its config file at start (zeader config check FILE checks one)"
        case .dumpformNotAvailable: return ":dumpform is not available: newsboat's debugging dump has no Zeader form"
        case .unknownCommand(let command):
            return "Unknown command '\(command)' (commands: quit, q, save, set, tag, goto, exec, or a number)"
        case .numberNeedsAList: return "A number goes to that entry of a list"
        case .noEntry(let number, let count): return "No entry \(number) (the list has \(count))"
        case .cannotSetInReader(let name):
            let settable = ReaderApp.commandLineVariables.joined(separator: ", ")
            return ":set: newsboat's '\(name)' cannot be changed in the reader (it can: \(settable))"
        case .unknownVariable(let name): return ":set: unknown variable '\(name)'"
        case .cannotSet(let name, let reason): return ":set \(name): \(reason)"
        case .variable(let name, let value): return "\(name)=\(value)"
        case .noFeedTagged(let tag): return ":tag: no feed has the tag '\(tag)'"
        case .noFeedTitled(let text): return ":goto: no feed's title contains '\(text)'"
        case .selectFilterNeedsAList: return "f filters an item list by a smart feed's predicate: open a feed first"
        case .noSmartFeeds: return "No smart feeds to filter by (zeader smart add, or smart-feed in the config)"
        case .cannotFilter(let format, let error): return "Cannot filter by \(format): \(error)"
        case .notifyFailed(let problem): return problem
        case .saved(let path): return "Saved to \(path)"
        case .piped(let command): return "Piped to \(command)"
        case .bookmarked(let link): return "Bookmarked \(link)"
        case .edited(let path): return "Edited \(path)"
        case .noBookmarkCommand: return "No bookmark-cmd in the config file"
        case .noLinkToBookmark: return "The item has no link to bookmark"
        case .podcast(let message): return message.text
        }
    }

    /// Why a picture stays its alt text, in words.
    static func words(_ problem: PictureProblem) -> String {
        switch problem {
        case .notFetched(let reason): return reason
        case .notDecoded(.tooManyBytes(let bytes)): return "\(ByteCount.text(Int64(bytes))), over the limit"
        case .notDecoded(.tooManyPixels(let width, let height)): return "\(width) × \(height) pixels, over the limit"
        case .notDecoded(.tooManyFrames(let frames)): return "\(frames - 1)+ frames, over the limit"
        case .notDecoded(.unsupportedFormat): return "not a PNG, JPEG, GIF or still WebP picture"
        case .notDecoded(.vectorImage): return "SVG pictures show as their text"
        case .notDecoded(.truncated): return "the file is cut short"
        case .notDecoded(.corrupt(let reason)): return "it cannot be decoded (\(reason))"
        }
    }

    var isError: Bool {
        switch self {
        case .keyNotBound, .notOnThisScreen, .needsItem, .feedListCannotClose, .noNextFeed, .noPreviousFeed, .noTags, .noLinks,
            .noUnreadLinks,
            .cannotWrite, .configWarning, .smartFeedsStayLast, .noPreviousDialog, .noNextDialog, .itemGone, .deleteAllNeedsAList,
            .noItemsToDelete,
            .notALinkNumber, .editURLsNeedsTheFeedList, .renameNeedsAFeed, .editorExited, .cannotReadBack, .feedsUnchanged,
            .noMacros, .noMacro,
            .commandNeedsArgument, .unknownAction, .configCommandNotAvailable, .dumpformNotAvailable, .unknownCommand,
            .numberNeedsAList, .noEntry, .cannotSetInReader, .unknownVariable, .cannotSet, .noFeedTagged, .noFeedTitled,
            .selectFilterNeedsAList, .noSmartFeeds, .cannotFilter, .notifyFailed, .noBookmarkCommand, .noLinkToBookmark,
            .noPageToFetch, .fullArticlesNotAvailable, .noFullArticle, .pictureNotShown:
            return true
        case .podcast(let message): return message.isError
        case .feedsEdited(let report): return !(report?.notes.isEmpty ?? true)
        case .noPreviousItem, .noNextItem, .noPreviousUnreadItems, .showingReadFeeds, .showingReadArticles, .sortedBy,
            .showingTag, .filtered, .filterCleared, .noFilter, .wroteLinks, .pushingOnQuit, .pushTimedOut, .quitBeforePush,
            .stoppedBySignal, .showingSource, .deletedItem, .deletedItems, .flagsSet, .tagsSet, .feedRenamed, .pressMacroKey,
            .variable, .saved,
            .piped,
            .bookmarked, .edited, .showingFullArticle, .fetchingFullArticle:
            return false
        }
    }
}

extension StatusMessage {
    static func keyNotBound(_ name: String) -> StatusMessage { .reader(.keyNotBound(name)) }
}

/// A question on the bottom line.
public enum Prompt: Equatable, Sendable {
    case search(text: String)
    /// A search within one feed; TAB widens it to every feed.
    case searchFeed(text: String, server: ObjectID, title: String)
    case addFeed(text: String)
    /// `s`: the file to save the article to.
    case savePath(text: String)
    /// `|`: the command to pipe the article to.
    case pipeCommand(text: String)
    /// The fetched feed, waiting for keep (y) or discard (n).
    case addFeedPreview(url: String, title: String, itemCount: Int)
    case confirmDelete(title: String, id: ObjectID)
    // The lists' views (ReaderApp+Views.swift).
    case filter(text: String, error: String?)
    case sort(reverse: Bool, feeds: Bool)
    case writeLinks(text: String)
    // newsboat's command line, flags, URL number, delete-all.
    case cmdline(text: String)
    case editFlags(text: String, id: ObjectID)
    case editTags(text: String, id: ObjectID)
    /// `i`: the selected feed's new title.
    case renameFeed(text: String, id: ObjectID)
    case gotoURL(text: String)
    case confirmDeleteItems(count: Int, ids: [ObjectID])
    /// newsboat's `confirm-…` questions (ReaderApp+Confirm.swift).
    case confirm(Confirmation)

    /// The line as shown.
    public var line: String {
        switch self {
        case .search(let text): return "Search: " + text
        case .searchFeed(let text, _, let title): return "Search \(title) (TAB: all): " + text
        case .addFeed(let text): return "Add feed URL: " + text
        case .savePath(let text): return "Save to: " + text
        case .pipeCommand(let text): return "Pipe to command: " + text
        case .addFeedPreview(let url, let title, let count):
            return "\(title) (\(count) items, \(url)) - keep it? [y/n]"
        case .confirmDelete(let title, _): return "Delete \(title) and all its items? [y/n]"
        case .filter(let text, _): return "Filter: " + text
        case .sort(let reverse, let feeds):
            let fields =
                feeds
                ? "(n)one/(t)itle/(f)irsttag/(a)rticlecount/(u)nreadarticlecount/(l)astupdated"
                : "(d)ate/(t)itle/(a)uthor/fe(e)d/(f)lags/(l)ink/(g)uid"
            return (reverse ? "Reverse sort by " : "Sort by ") + fields + "?"
        case .writeLinks(let text): return "Write the links to file: " + text
        case .cmdline(let text): return ":" + text
        case .editFlags(let text, _): return "Flags (letters A-Z, a-z): " + text
        case .editTags(let text, _): return "Tags (separated by commas): " + text
        case .renameFeed(let text, _): return "Title (empty: the feed's own): " + text
        case .gotoURL(let text): return "Go to URL #" + text
        case .confirmDeleteItems(let count, _): return "Delete all \(count) items of this list? [y/n]"
        case .confirm(let question): return question.question
        }
    }

    /// Whether the prompt takes typed text (else one y/n key).
    public var isTextEntry: Bool {
        switch self {
        case .search, .searchFeed, .addFeed, .filter, .writeLinks, .savePath, .pipeCommand: return true
        case .cmdline, .editFlags, .editTags, .renameFeed, .gotoURL: return true
        case .sort, .addFeedPreview, .confirmDelete, .confirmDeleteItems, .confirm: return false
        }
    }
}

/// The podcast queue's status lines (podboat's view in the reader), and its title.
enum PodcastMessage: Equatable {
    case queueEmpty
    case alreadyDownloading(String)
    case alreadyDownloaded(String)
    case downloaded(String)
    case downloadFailed(String, String)
    case notDownloading(String)
    case canceled(String)
    case cancelFirst(String)
    case removed(String)
    case notPlayed(String)
    case notDownloaded(String)
    case played(String)
    case downloadsRunning
    case purged(Int)
    case automaticDownload(Bool, at: Int)
    case maxDownloads(Int)
    case cannotDeleteFile(String, String)

    var text: String {
        switch self {
        case .queueEmpty: return "The podcast queue is empty (e queues an item's enclosure)"
        case .alreadyDownloading(let title): return "\(title) is downloading already"
        case .alreadyDownloaded(let title): return "\(title) is downloaded already (p plays it)"
        case .downloaded(let title): return "Downloaded \(title)"
        case .downloadFailed(let title, let reason): return "\(title) failed: \(reason)"
        case .notDownloading(let title): return "\(title) is not downloading"
        case .canceled(let title): return "Canceled \(title) (d resumes it)"
        case .cancelFirst(let title): return "\(title) is downloading: c cancels it first"
        case .removed(let title): return "Took \(title) out of the queue (z puts it back)"
        case .notPlayed(let title): return "\(title) is not played yet: only a played episode can be marked finished"
        case .notDownloaded(let title): return "\(title) is not downloaded yet (d downloads it)"
        case .played(let file): return "Played \(file)"
        case .downloadsRunning: return "Downloads are running: purge once they end (c cancels one)"
        case .purged(let count): return "Took \(count) finished episode\(count == 1 ? "" : "s") out of the queue"
        case .automaticDownload(let on, let count):
            return on ? "Downloading every queued episode, \(count) at a time" : "Automatic download off"
        case .maxDownloads(let count): return "\(count) download\(count == 1 ? "" : "s") at a time"
        case .cannotDeleteFile(let path, let reason): return "Cannot delete \(path): \(reason)"
        }
    }

    var isError: Bool {
        switch self {
        case .queueEmpty, .alreadyDownloading, .alreadyDownloaded, .downloadFailed, .notDownloading, .cancelFirst,
            .notPlayed, .notDownloaded, .downloadsRunning, .cannotDeleteFile:
            return true
        case .downloaded, .canceled, .removed, .played, .purged, .automaticDownload, .maxDownloads: return false
        }
    }

    /// The queue's title bar, as podboat's: `Queue (1 downloads in progress, 3 total)`.
    static func queueTitle(inProgress: Int, total: Int, automatic: Bool, maxDownloads: Int) -> String {
        "Queue (\(inProgress) downloads in progress, \(total) total)"
            + (maxDownloads > 1 ? " - \(maxDownloads) parallel downloads" : "")
            + (automatic ? " - automatic download" : "")
    }
}
