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
    // Navigation, views and newsboat's actions: default keys in Action+Newsboat.swift.
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
    // The article's commands and macros.
    case save
    case pipeTo = "pipe-to"
    case bookmark
    case macroPrefix = "macro-prefix"
    // newsboat's remaining actions: default keys in Action+Commands.swift.
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
    // newsboat's actions on a list's unread items, without a default key (ReaderApp+UnreadLinks.swift).
    case openAllUnreadInBrowser = "open-all-unread-in-browser"
    case openAllUnreadInBrowserAndMarkRead = "open-all-unread-in-browser-and-mark-read"
    case markAllAboveAsRead = "mark-all-above-as-read"
    // Zeader's own: the full article of the item's web page (ArticleScreen.swift).
    case fullArticle = "full-article"
    // Zeader's own: the item's own tags (ReaderApp+ItemTags.swift).
    case editTags = "edit-tags"
    // Zeader's own: the feed's title, pushed to its account (FeedListScreen.swift).
    case renameFeed = "rename-feed"
    // newsboat's digits: a list position's first digit (default keys in Action+Positions.swift).
    case one, two, three, four, five, six, seven, eight, nine, zero
    // The podcast queue as podboat shows it, and podboat's actions there (Action+Podboat.swift).
    case podcasts
    case pbDownload = "pb-download"
    case pbCancel = "pb-cancel"
    case pbDelete = "pb-delete"
    case pbPurge = "pb-purge"
    case pbPlay = "pb-play"
    case pbMarkAsFinished = "pb-mark-as-finished"
    case pbToggleDownloadAll = "pb-toggle-download-all"
    case pbIncreaseMaxDownloads = "pb-increase-max-dls"
    case pbDecreaseMaxDownloads = "pb-decrease-max-dls"

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
        case .prevUnread: return "Go to the previous unread item (across feeds)"
        case .next: return "Next item in the article view; next feed in the item list"
        case .prev: return "Previous item in the article view; previous feed in the item list"
        case .nextFeed: return "Go to the next feed's items"
        case .prevFeed: return "Go to the previous feed's items"
        case .nextUnreadFeed: return "Go to the next feed with unread items"
        case .prevUnreadFeed: return "Go to the previous feed with unread items"
        case .randomUnread: return "Go to a random unread item"
        case .openInBrowserAndMarkRead: return "Open the link in the browser and mark the item read"
        case .toggleShowReadFeeds: return "Show or hide feeds without unread items"
        case .toggleShowReadArticles: return "Show or hide read items"
        case .sort: return "Sort the list (asks how)"
        case .revSort: return "Sort the list in reverse (asks how)"
        case .setTag: return "Show only the feeds of a tag (asks which)"
        case .clearTag: return "Show the feeds of every tag"
        case .setFilter: return "Filter the list with a predicate (as --where)"
        case .clearFilter: return "Remove the list's filter"
        case .showUrls: return "List the article's links"
        case .save: return "Save the article to a file (.md: Markdown)"
        case .pipeTo: return "Pipe the article's text to a command"
        case .bookmark: return "Run bookmark-cmd with the item's link"
        case .macroPrefix: return "Start a macro (the next key picks it)"
        case .deleteArticle: return "Delete the item (a refresh does not bring it back; undo does)"
        case .deleteAllArticles: return "Delete every item of the list (asks first; undo brings them back)"
        case .editFlags: return "Edit the item's flag letters (A-Z, a-z; any letter flags it)"
        case .cmdline: return "Command line: quit, save, set, tag, goto, exec, a number"
        case .viewDialogs: return "List the open screens (ENTER goes back to one, ^X closes it)"
        case .closeDialog: return "Close the screen on top"
        case .nextDialog: return "Go forward to the screen ^G stepped back from"
        case .prevDialog: return "Step back to the screen below, keeping this one for ^V"
        case .toggleSourceView: return "Show the article's HTML source, or its rendering"
        case .gotoURL: return "Open the article's link number N (asks for N)"
        case .selectFilter: return "Filter the item list by a smart feed's predicate (asks which)"
        case .editURLs: return "Edit the feeds as a urls file in $VISUAL/$EDITOR (undo puts them back)"
        case .openAllUnreadInBrowser: return "Open the unread items' links in the browser (at most max-browser-tabs)"
        case .openAllUnreadInBrowserAndMarkRead: return "Open the unread items' links in the browser and mark them read"
        case .markAllAboveAsRead: return "Mark the items above the cursor read"
        case .fullArticle: return "Show the full article from the item's web page (fetched once, kept), or the feed's text"
        case .editTags: return "Edit the item's own tags (separated by commas)"
        case .renameFeed: return "Rename the feed (asks for the title; empty: the feed's own)"
        case .one, .two, .three, .four, .five, .six, .seven, .eight, .nine, .zero:
            return "Type a list position from this digit on (ENTER goes to that entry)"
        case .podcasts: return "Show the podcast queue (podboat's view: d downloads, p plays, D deletes)"
        case .pbDownload: return "Download the selected episode (podcast queue)"
        case .pbCancel: return "Cancel the selected episode's download (podcast queue)"
        case .pbDelete: return "Take the selected episode out of the queue (podcast queue; undo puts it back)"
        case .pbPurge: return "Take the finished episodes out of the queue (podcast queue)"
        case .pbPlay: return "Play the selected episode with player (podcast queue)"
        case .pbMarkAsFinished: return "Mark the selected played episode finished (podcast queue)"
        case .pbToggleDownloadAll: return "Download every queued episode, max-downloads at a time, or stop (podcast queue)"
        case .pbIncreaseMaxDownloads: return "One more download at a time (podcast queue)"
        case .pbDecreaseMaxDownloads: return "One download fewer at a time, down to 1 (podcast queue)"
        }
    }
}
