/// What a key asks the reader to do. The key map binds keys to actions; help lists them.
///
/// ```swift
/// keyMap.action(for: .character("r"))   // .refreshFeed
/// ```
public enum Action: String, CaseIterable, Sendable {
    case up, down
    case pageUp = "page-up"
    case pageDown = "page-down"
    case top, bottom
    case open, quit
    case hardQuit = "hard-quit"
    case refreshFeed = "refresh"
    case refreshAll = "refresh-all"
    case nextUnread = "next-unread"
    case toggleRead = "toggle-read"
    case toggleFlag = "toggle-flag"
    case markFeedRead = "mark-feed-read"
    case markAllRead = "mark-all-read"
    case search
    case openInBrowser = "open-in-browser"
    case addFeed = "add-feed"
    case deleteFeed = "delete-feed"
    case moveFeedUp = "move-feed-up"
    case moveFeedDown = "move-feed-down"
    case enqueue
    case undo, redo, help, redraw
    // Navigation, views and newsboat's actions: summaries in Action+Newsboat.swift.
    case prevUnread = "prev-unread"
    case next, prev
    case nextFeed = "next-feed"
    case prevFeed = "prev-feed"
    case nextUnreadFeed = "next-unread-feed"
    case prevUnreadFeed = "prev-unread-feed"
    case randomUnread = "random-unread"
    case openInBrowserAndMarkRead = "open-in-browser-and-mark-read"
    case toggleShowReadFeeds = "toggle-show-read-feeds"
    case toggleShowReadArticles = "toggle-show-read-articles"
    case sort
    case revSort = "rev-sort"
    case setTag = "set-tag"
    case clearTag = "clear-tag"
    case setFilter = "set-filter"
    case clearFilter = "clear-filter"
    case showUrls = "show-urls"
    // The article's commands (ReaderApp's articleCommand) and macros.
    case save
    case pipeTo = "pipe-to"
    case bookmark
    case macroPrefix = "macro-prefix"
    // newsboat's remaining actions: summaries and keys in Action+Commands.swift.
    case deleteArticle = "delete-article"
    case deleteAllArticles = "delete-all-articles"
    case editFlags = "edit-flags"
    case cmdline
    case viewDialogs = "view-dialogs"
    case closeDialog = "close-dialog"
    case nextDialog = "next-dialog"
    case prevDialog = "prev-dialog"
    case toggleSourceView = "toggle-source-view"
    case gotoURL = "goto-url"
    case editURLs = "edit-urls"
    case selectFilter = "select-filter"

    /// One line for the help screen.
    public var summary: String {
        switch self {
        case .up: return "Move up"
        case .down: return "Move down"
        case .pageUp: return "Page up"
        case .pageDown: return "Page down"
        case .top: return "Go to the first line"
        case .bottom: return "Go to the last line"
        case .open: return "Open the feed or item"
        case .quit: return "Go back; quit from the feed list"
        case .hardQuit: return "Quit at once"
        case .refreshFeed: return "Refresh the selected feed"
        case .refreshAll: return "Refresh all feeds"
        case .nextUnread: return "Go to the next unread item"
        case .toggleRead: return "Toggle the item's read state"
        case .toggleFlag: return "Flag (star) or unflag the item"
        case .markFeedRead: return "Mark the feed read"
        case .markAllRead: return "Mark every feed read"
        case .search: return "Search the feed shown, or all items"
        case .openInBrowser: return "Open the link in the browser"
        case .addFeed: return "Add a feed (preview first)"
        case .deleteFeed: return "Delete the feed and its items"
        case .moveFeedUp: return "Move the feed up the list"
        case .moveFeedDown: return "Move the feed down the list"
        case .enqueue: return "Queue the item's enclosure (podcast) for download"
        case .undo: return "Undo"
        case .redo: return "Redo"
        case .help: return "Show this help"
        case .redraw: return "Redraw the screen"
        default: return newsboatSummary
        }
    }
}
