/// The actions newsboat has and Zeader added for it: their help lines, newsboat's names
/// for Zeader's older actions (so a newsboat `bind-key` line works), and their default keys.
extension Action {
    /// The help line of the actions added for newsboat's users (``summary`` covers the rest).
    var newsboatSummary: String {
        switch self {
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
        default: return commandSummary
        }
    }

    /// newsboat's names for actions Zeader names otherwise, accepted by `bind-key`.
    static let newsboatNames: [String: Action] = [
        "reload": .refreshFeed, "reload-all": .refreshAll, "pageup": .pageUp, "pagedown": .pageDown,
        "home": .top, "end": .bottom, "toggle-article-read": .toggleRead, "mark-all-feeds-read": .markAllRead,
        "open-search": .search,
    ]

    /// The action a config file names: Zeader's name or newsboat's.
    ///
    /// ```swift
    /// Action(configName: "reload-all")   // .refreshAll
    /// ```
    public init?(configName name: String) {
        guard let action = Action(rawValue: name) ?? Action.newsboatNames[name] else { return nil }
        self = action
    }
}

extension KeyMap {
    /// newsboat's default keys for the actions added for its users (merged into ``default``).
    static let newsboatNavigationKeys: [Key: Action] = [
        .character("p"): .prevUnread, .character("J"): .next, .character("K"): .prev,
        .control("n"): .nextUnreadFeed, .control("p"): .prevUnreadFeed, .control("k"): .randomUnread,
        .character("O"): .openInBrowserAndMarkRead, .character("l"): .toggleShowReadFeeds,
        .character("L"): .toggleShowReadArticles, .character("g"): .sort, .character("G"): .revSort,
        .character("t"): .setTag, .control("t"): .clearTag, .character("F"): .setFilter, .control("f"): .clearFilter,
        .character("U"): .showUrls, .character("s"): .save, .character("|"): .pipeTo, .control("b"): .bookmark,
        .character(","): .macroPrefix,
    ]
}
