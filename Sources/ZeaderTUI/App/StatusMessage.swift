import Foundation
import ZeaderKit

/// Every line the reader shows on its status line, as data; `text` is the one place with
/// their words (ZeaderKit's errors bring their own, from its `Messages.swift`).
///
/// ```swift
/// state.say(.markedItemsRead(3))   // "Marked 3 items read (u to undo)"
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
    case refreshed(RefreshProgress)
    /// A refresh that was a sync: what it pulled and pushed.
    case synced(FeedSync.Report)
    case cannotRefresh(String)
    /// A push of the changes made here failed: ``Messages/syncFailed(_:pending:localFeeds:)``'s line.
    case pushFailed(String)
    case noLinkToOpen
    case noLink(Int)
    case opened(String)
    case browserExited(command: String, status: Int32)
    /// Navigation and views: ReaderMessage.swift.
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
        case .markedItemsRead(let count): return count == 0 ? "Nothing unread" : "Marked \(count) items read (u to undo)"
        case .deleted(let title): return "Deleted \(title) (u to undo)"
        case .added(let title): return "Added \(title)"
        case .discarded(let title): return "Discarded \(title)"
        case .cannotAdd(let url, let error): return "Cannot add \(url): \(error)"
        case .searchMatches(let count, let milliseconds): return "\(count) items match (\(milliseconds) ms)"
        case .addingNotAvailable: return "Adding feeds is not available here"
        case .fetching(let url): return "Fetching \(url) …"
        case .refreshNotAvailable: return "Refreshing is not available here (the demo's feeds are offline)"
        case .refreshRunning: return "A refresh is already running"
        case .refreshProblem(let problem): return problem
        case .refreshed(let progress):
            let feeds = progress.total == 1 ? "1 feed" : "\(progress.total) feeds"
            return progress.failed == 0 ? "Refreshed \(feeds)" : "Refreshed \(feeds), \(progress.failed) failed"
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
        case .cannotRefresh(let error): return "Cannot refresh: \(error)"
        case .pushFailed(let line): return line.prefix(1).uppercased() + line.dropFirst()
        case .noLinkToOpen: return "No link to open"
        case .noLink(let number): return "No link \(number)"
        case .opened(let link): return "Opened \(link)"
        case .browserExited(let command, let status): return "\(command) exited with status \(status)"
        case .reader(let message): return message.text
        }
    }

    /// Errors are highlighted.
    var isError: Bool {
        switch self {
        case .cannotReadFeeds, .selectFeedToDelete, .failed, .cannotList, .markReadNeedsAFeed, .cannotAdd,
            .addingNotAvailable, .refreshNotAvailable, .refreshProblem, .cannotRefresh, .pushFailed, .noLinkToOpen, .noLink,
            .browserExited:
            return true
        case .refreshed(let progress): return progress.failed > 0
        case .synced(let report): return !report.refused.isEmpty
        case .reader(let message): return message.isError
        default: return false
        }
    }
}

extension AppState {
    /// Shows `message` on the status line.
    mutating func say(_ message: StatusMessage) {
        say(message.text, error: message.isError)
    }
}
