import Foundation

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
        }
    }

    var isError: Bool {
        switch self {
        case .keyNotBound, .notOnThisScreen, .needsItem, .feedListCannotClose, .noNextFeed, .noPreviousFeed, .noTags, .noLinks,
            .cannotWrite,
            .configWarning:
            return true
        default: return false
        }
    }
}

extension StatusMessage {
    static func keyNotBound(_ name: String) -> StatusMessage { .reader(.keyNotBound(name)) }
}
