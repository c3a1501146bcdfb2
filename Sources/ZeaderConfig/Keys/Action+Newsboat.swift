/// The actions newsboat has: newsboat's names for Zeader's own actions (so a newsboat
/// `bind-key` line works), and their default keys.
extension Action {
    /// newsboat's names for actions Zeader names otherwise, accepted by `bind-key`.
    static let newsboatNames: [String: Action] = [
        "reload": .refreshFeed, "reload-all": .refreshAll, "pageup": .pageUp, "pagedown": .pageDown,
        "home": .top, "end": .bottom, "toggle-article-read": .toggleRead, "mark-all-feeds-read": .markAllRead,
        "open-search": .search,
        // newsboat has both for its tag dialog; `open-in-browser-noninteractively` opens as Zeader always does.
        "select-tag": .setTag, "open-in-browser-noninteractively": .openInBrowser,
        // podboat's names of the actions every view has.
        "pb-quit": .quit, "pb-hard-quit": .hardQuit, "pb-help": .help,
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
        .character("u"): .showUrls, .character("U"): .showUrls, .character("s"): .save, .character("|"): .pipeTo,
        .control("b"): .bookmark,
        .character(","): .macroPrefix,
    ]
}
