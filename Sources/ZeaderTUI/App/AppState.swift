import Feeds
import Foundation
import ObjectGraph
import ZeaderConfig

/// One line of the feed list: a subscription or a smart feed, as plain values.
///
/// ```swift
/// let row = FeedRow(kind: .server(id), title: "Swift.org", unread: 3, total: 10)
/// ```
public struct FeedRow: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case server(ObjectID)
        /// A smart feed and its predicate (stored ones carry their object ID).
        case smart(predicateFormat: String, id: ObjectID?)
    }

    public var kind: Kind
    public var title: String
    public var unread: Int
    public var total: Int
    public var lastRefresh: Date?
    /// The last refresh's error: the row gets a `!` and the status line shows it.
    public var lastError: String?
    public var url: String?
    /// The feed's tags (``FeedTags``), for the tag list and `firsttag` order.
    public var tags: [String] = []
    /// The sync account that syncs the feed (``Server/account``), shown `[name]` before its
    /// title; nil for a feed refreshed here (a local one, or one its server has not taken:
    /// refused, or not pushed yet), which shows nothing.
    public var account: String?

    public init(
        kind: Kind, title: String, unread: Int, total: Int, lastRefresh: Date? = nil, lastError: String? = nil,
        url: String? = nil, tags: [String] = [], account: String? = nil
    ) {
        self.account = account
        self.tags = tags
        self.kind = kind
        self.title = title
        self.unread = unread
        self.total = total
        self.lastRefresh = lastRefresh
        self.lastError = lastError
        self.url = url
    }

    /// What goes before the title: `[name] ` for a feed of the sync account `name`, nothing
    /// for a local feed or a smart feed.
    ///
    /// ```swift
    /// let title = row.sourceTag + row.title   // "[work] Swift.org"
    /// ```
    public var sourceTag: String { account.map { "[\(ReaderView.clean($0))] " } ?? "" }

    public var serverID: ObjectID? {
        // Out of line: inlined into ReaderApp.perform, Swift 6.3.1's release optimizer
        // (CopyPropagation) fails its ownership check and the build stops.
        @inline(never) get {
            if case .server(let id) = kind { return id }
            return nil
        }
    }
}

/// One line of an item list.
public struct ItemRow: Equatable, Sendable {
    public var id: ObjectID
    public var title: String
    public var author: String?
    public var date: Date?
    public var read: Bool
    /// The feed's title, shown in search results and smart feeds.
    public var feedTitle: String?
    /// Flagged (starred): a `*` beside the read marker.
    public var flagged: Bool
    /// Has an enclosure (podcast media): a `♪` before the title.
    public var hasEnclosure = false
    /// The 1-based highlight a `highlight-article` line paints the row with; 0: none.
    public var highlight = 0

    public init(
        id: ObjectID, title: String, author: String?, date: Date?, read: Bool, feedTitle: String? = nil, flagged: Bool = false
    ) {
        self.flagged = flagged
        self.id = id
        self.title = title
        self.author = author
        self.date = date
        self.read = read
        self.feedTitle = feedTitle
    }
}

/// Which items an item list shows.
public enum ItemSource: Equatable, Sendable {
    case server(ObjectID)
    case smart(predicateFormat: String)
    case search(String)
    /// A search within one feed (``AppState/searchPrompt()``).
    case feedSearch(String, server: ObjectID)
}

/// A scrolling list position.
public struct ListPosition: Equatable, Sendable {
    public var cursor = 0
    public var top = 0

    public init(cursor: Int = 0, top: Int = 0) {
        self.cursor = cursor
        self.top = top
    }

    /// Moves the cursor by `delta` within `count` rows and scrolls so it stays in a
    /// window of `height` rows.
    public mutating func move(by delta: Int, count: Int, height: Int) {
        set(cursor + delta, count: count, height: height)
    }

    public mutating func set(_ row: Int, count: Int, height: Int) {
        cursor = count == 0 ? 0 : min(max(0, row), count - 1)
        clamp(count: count, height: height)
    }

    /// Keeps `top` so that the cursor is visible and no empty rows show below the list.
    public mutating func clamp(count: Int, height: Int) {
        let height = max(1, height)
        cursor = count == 0 ? 0 : min(max(0, cursor), count - 1)
        if cursor < top { top = cursor }
        if cursor >= top + height { top = cursor - height + 1 }
        top = max(0, min(top, max(0, count - height)))
    }
}

/// The item list's state: the IDs in order and the rows loaded for display.
public struct ItemListState: Equatable, Sendable {
    public var source: ItemSource
    public var title: String
    public var ids: [ObjectID]
    /// Rows loaded for the visible window (filled by the controller before drawing).
    public var rows: [ObjectID: ItemRow] = [:]
    public var position = ListPosition()
    /// The filter typed with `F` (a FeedItem predicate), until the list is left.
    public var filter: String?
    /// False while `ids` holds only the first pages of the list (the rest loads as the cursor nears it).
    public var isComplete = true

    public init(source: ItemSource, title: String, ids: [ObjectID]) {
        self.source = source
        self.title = title
        self.ids = ids
    }

    public var selectedID: ObjectID? { ids.indices.contains(position.cursor) ? ids[position.cursor] : nil }
}

/// The article view's state: the item's header and its body rendered at a width.
public struct ArticleState: Equatable, Sendable {
    public var itemID: ObjectID
    public var feedTitle: String
    public var title: String
    public var author: String?
    public var date: Date?
    public var link: String?
    public var bodyHTML: String
    public var baseURL: URL?
    /// Attached media, listed in the header with type and size.
    public var enclosures: [ArticleEnclosure] = []
    /// `bodyHTML` rendered at `renderedWidth` (lines, then the numbered links).
    public var lines: [String] = []
    public var links: [String] = []
    /// The bold and underlined runs of `lines` (none for the HTML source).
    public var spans: [TextSpan] = []
    /// The pictures' places in `lines` (empty when pictures are not drawn).
    public var pictures: [PicturePlacement] = []
    public var renderedWidth = 0
    /// `^U`: the body's HTML source instead of its rendering.
    public var showsSource = false
    /// The article extracted from the item's web page, when it was fetched (`w`).
    public var fullArticleHTML: String?
    /// The feed's own text, kept while `bodyHTML` shows ``fullArticleHTML``.
    public var feedBodyHTML: String?
    /// Whether the body shown is the full article.
    public var showsFullArticle: Bool { feedBodyHTML != nil }
    /// newsboat's flag letters (`^E`), shown in the header.
    public var flagLetters: String?
    /// The item's own tags (``FeedItem/tags``), shown in the header.
    public var tags: String?
    public var scroll = 0

    public init(
        itemID: ObjectID, feedTitle: String, title: String, author: String?, date: Date?, link: String?,
        bodyHTML: String, baseURL: URL?
    ) {
        self.itemID = itemID
        self.feedTitle = feedTitle
        self.title = title
        self.author = author
        self.date = date
        self.link = link
        self.bodyHTML = bodyHTML
        self.baseURL = baseURL
    }
}

/// A cursor movement on the list or article on top (``AppState/move(_:)``): the actions
/// `up`, `down`, `page-up`, `page-down`, `top` and `bottom`.
///
/// ```swift
/// state.move(.pageDown)
/// ```
public enum Movement: Equatable, Sendable {
    case up, down, pageUp, pageDown, top, bottom
}

/// Everything the views draw: the reader's whole state as values.
///
/// ```swift
/// var state = AppState(width: 80, height: 24)
/// state.feeds = rows
/// let buffer = ReaderView.render(state, keyMap: .default)
/// ```
public struct AppState: Equatable, Sendable {
    /// A screen of the reader, holding its own state: the stack of them is the one record of
    /// what is open, so closing a screen drops its state with it.
    ///
    /// ```swift
    /// state.stack = [.feeds, .items(list), .help(scroll: 0)]
    /// ```
    public enum Screen: Equatable, Sendable {
        case feeds
        case items(ItemListState)
        case article(ArticleState)
        case help(scroll: Int)
        /// The tag, link, discovered-feed, dialog or filter list.
        case picker(PickerState)

        /// Which screen, without its state: what the views and the routing switch over.
        ///
        /// ```swift
        /// if state.screen == .article { … }
        /// ```
        public enum Kind: Equatable, Sendable { case feeds, items, article, help, picker }

        /// Which screen this is: `Screen.items(list).kind == .items`.
        public var kind: Kind {
            switch self {
            case .feeds: return .feeds
            case .items: return .items
            case .article: return .article
            case .help: return .help
            case .picker: return .picker
            }
        }
    }

    public var width: Int
    public var height: Int
    /// The screens open, each with its state, the last on top (help over whatever was open).
    /// The feed list is always first.
    public var stack: [Screen] = [.feeds]
    public var feeds: [FeedRow] = []
    public var feedPosition = ListPosition()
    /// Set while `feeds` holds only the first screen of the list (FeedListWindow.swift).
    public var feedSummary: FeedListSummary?
    public var prompt: Prompt?
    /// A message for the status line; errors are highlighted.
    public var message: String?
    public var messageIsError = false
    /// Refresh in progress: feeds done and in all.
    public var refreshProgress: (done: Int, total: Int)? {
        get { refreshTotal > 0 ? (refreshDone, refreshTotal) : nil }
        set {
            refreshDone = newValue?.done ?? 0
            refreshTotal = newValue?.total ?? 0
        }
    }
    var refreshDone = 0
    var refreshTotal = 0
    /// The refresh in progress is a sync: its progress counts items, not feeds.
    var refreshIsSync = false
    /// Digits typed in the article view: the link number to open.
    public var pendingLinkNumber = ""
    /// After the macro prefix (`,`): the next key names the macro (ReaderApp+Macros.swift).
    public var awaitingMacroKey = false
    public var colors = true
    /// newsboat's `show-keymap-hint`: the keys on the status line when it has nothing else.
    public var showsKeymapHint = true
    /// The config's `highlight` rules, applied by the lists and the article (HighlightRule.swift).
    public var highlights: [HighlightRule] = []
    /// The config's newsboat format strings and widths (``FormattedRows``).
    public var formats = ListFormats()
    /// `scrolloff` and `wrap-scroll` (``ListScrolling``).
    public var scrolling = ListScrolling()
    /// Hidden read feeds/items, sort orders, tag and feed filter (ViewOptions.swift).
    public var views = ViewOptions()
    /// Screens `^G` (prev-dialog) stepped back from, for `^V` (ReaderApp+Dialogs.swift).
    public var forwardDialogs: [Screen] = []
    /// The screens ``forwardDialogs`` were left on: once the stack differs, they are dropped.
    public var forwardDialogsBelow: [Screen.Kind] = []

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The screen on top, with its state: `if case .article(let article) = state.top { … }`.
    public var top: Screen { stack.last ?? .feeds }

    /// The view of `bind-key`'s contexts the screen on top is: what a key means there.
    ///
    /// ```swift
    /// keyMap.action(for: key, in: state.keyView)
    /// ```
    public var keyView: KeyView? { Self.keyView(of: top) }

    /// The view of `bind-key`'s contexts `screen` is.
    public static func keyView(of screen: Screen) -> KeyView? {
        switch screen {
        case .feeds: return .feedlist
        case .items(let list):
            switch list.source {
            case .search, .feedSearch: return .searchresultslist
            case .server, .smart: return .articlelist
            }
        case .article: return .article
        case .help: return .help
        case .picker(let picker):
            switch picker.kind {
            case .tags: return .tagselection
            case .filters: return .filterselection
            case .links: return .urlview
            case .dialogs: return .dialogs
            case .discoveredFeeds: return nil
            case .podcasts: return .podboat
            }
        }
    }

    /// Which screen is on top: `state.screen == .feeds`.
    public var screen: Screen.Kind { top.kind }

    /// Which screens are open, bottom first: `state.screens == [.feeds, .items]`.
    public var screens: [Screen.Kind] { stack.map(\.kind) }

    /// The open item list's state (under an article, help or a list opened over it). Setting
    /// it changes that screen in ``stack``; a screen is opened or closed through the stack,
    /// so setting it when no item list is open, or to nil, changes nothing.
    public var items: ItemListState? {
        get {
            for case .items(let list) in stack.reversed() { return list }
            return nil
        }
        set {
            guard let newValue, let index = stack.lastIndex(where: { $0.kind == .items }) else { return }
            stack[index] = .items(newValue)
        }
    }

    /// The open article's state; set as ``items`` is.
    public var article: ArticleState? {
        get {
            for case .article(let article) in stack.reversed() { return article }
            return nil
        }
        set {
            guard let newValue, let index = stack.lastIndex(where: { $0.kind == .article }) else { return }
            stack[index] = .article(newValue)
        }
    }

    /// The open list's state (tags, links, dialogs…); set as ``items`` is.
    public var picker: PickerState? {
        get {
            for case .picker(let picker) in stack.reversed() { return picker }
            return nil
        }
        set {
            guard let newValue, let index = stack.lastIndex(where: { $0.kind == .picker }) else { return }
            stack[index] = .picker(newValue)
        }
    }

    /// How far the help screen is scrolled (0 when it is not open); set as ``items`` is.
    public var helpScroll: Int {
        get {
            for case .help(let scroll) in stack.reversed() { return scroll }
            return 0
        }
        set {
            guard let index = stack.lastIndex(where: { $0.kind == .help }) else { return }
            stack[index] = .help(scroll: newValue)
        }
    }

    /// Rows available to a list: the screen minus the title and status lines.
    public var listHeight: Int { max(1, height - 2) }

    public var selectedFeed: FeedRow? { feeds.indices.contains(feedPosition.cursor) ? feeds[feedPosition.cursor] : nil }

    public var totalUnread: Int {
        feedSummary?.unread ?? feeds.reduce(0) { $0 + ($1.serverID != nil ? $1.unread : 0) }
    }

    /// Rows in the feed list, read or not yet (``feedSummary``).
    public var feedCount: Int { feedSummary?.count ?? feeds.count }

    /// Applies a cursor movement to the list or article on top. Pure: no model access.
    ///
    /// ```swift
    /// state.move(.down)
    /// ```
    public mutating func move(_ movement: Movement) {
        let page = listHeight
        let delta: Int
        switch movement {
        case .up: delta = -1
        case .down: delta = 1
        case .pageUp: delta = -page
        case .pageDown: delta = page
        case .top: delta = Int.min / 2
        case .bottom: delta = Int.max / 2
        }
        switch screen {
        case .feeds: feedPosition.move(by: delta, count: feeds.count, height: page, scrolling: scrolling)
        case .items:
            if var list = items {
                // A list still loading has no last row to wrap to yet.
                var scrolling = scrolling
                scrolling.wraps = scrolling.wraps && list.isComplete
                list.position.move(by: delta, count: list.ids.count, height: page, scrolling: scrolling)
                items = list
            }
        case .article:
            if var article {
                let header = ArticleHeader.height(article, width: width, rows: page)
                article.scroll = max(0, min(article.scroll + delta, max(0, article.lines.count + header - page)))
                self.article = article
            }
        case .help: helpScroll = max(0, min(helpScroll + delta, Action.allCases.count))
        case .picker:
            if var picker {
                picker.position.move(by: delta, count: picker.entries.count, height: page, scrolling: scrolling)
                self.picker = picker
            }
        }
    }

    /// Re-clamps every list after a resize or a change of contents.
    public mutating func clampPositions() {
        feedPosition.clamp(count: feeds.count, height: listHeight)
        if var list = items {
            list.position.clamp(count: list.ids.count, height: listHeight)
            items = list
        }
    }
}
