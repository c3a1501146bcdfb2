/// What Zeader does with one of newsboat's configuration directives or actions.
///
/// ```swift
/// NewsboatCompatibility.directive("notify-beep")   // .honoured
/// NewsboatCompatibility.directive("ttrss-url")     // .ignored("Zeader does not speak Tiny Tiny RSS's API; …")
/// ```
public enum NewsboatSupport: Equatable, Sendable {
    /// Read and followed as newsboat follows it.
    case honoured
    /// Followed through Zeader's own feature of another name, named here.
    case honouredAs(String)
    /// Read and left without effect: why, and what to do instead (the config check's warning).
    case ignored(String)

    /// Whether a line naming it does something.
    ///
    /// ```swift
    /// NewsboatSupport.ignored("…").isHonoured   // false
    /// ```
    public var isHonoured: Bool {
        if case .ignored = self { false } else { true }
    }
}

/// One table of every newsboat directive and action (its manual's "Configuration Commands",
/// podboat's directives, "Available Operations" and the actions of newer versions) and what
/// Zeader does with each: the config check's warnings come from it, and the man page's
/// COMING FROM NEWSBOAT lists it.
///
/// ```swift
/// for entry in NewsboatCompatibility.directives where !entry.support.isHonoured { print(entry.name) }
/// ```
public enum NewsboatCompatibility {
    /// A directive's or action's name and what Zeader does with it.
    public struct Entry: Equatable, Sendable {
        public let name: String
        public let support: NewsboatSupport
    }

    /// What Zeader does with directive `name`; nil when newsboat has no such directive.
    ///
    /// ```swift
    /// NewsboatCompatibility.directive("scrolloff")?.isHonoured   // true
    /// ```
    public static func directive(_ name: String) -> NewsboatSupport? { directiveTable[name] }

    /// What Zeader does with action `name`; nil when newsboat has no such action.
    ///
    /// ```swift
    /// NewsboatCompatibility.action("save-all")   // .ignored("…")
    /// ```
    public static func action(_ name: String) -> NewsboatSupport? { actionTable[name] }

    private static let directiveTable = Dictionary(uniqueKeysWithValues: directives.map { ($0.name, $0.support) })
    private static let actionTable = Dictionary(uniqueKeysWithValues: actions.map { ($0.name, $0.support) })

    // MARK: - Directives

    /// Every directive, in the manual's order, podboat's last.
    public static let directives: [Entry] =
        readerDirectives + syncDirectives + networkDirectives + podboatDirectives

    private static func honoured(_ names: String...) -> [Entry] {
        names.map { Entry(name: $0, support: .honoured) }
    }

    private static func entry(_ name: String, _ support: NewsboatSupport) -> Entry {
        Entry(name: name, support: support)
    }

    /// The reader's own directives: lists, keys, colours, commands, formats.
    private static let readerDirectives: [Entry] = [
        entry("always-display-description", .honoured),
        entry("always-download", .honoured),
        entry("article-sort-order", .honoured),
        entry("articlelist-format", .honoured),
        entry("articlelist-title-format", .honoured),
        entry("auto-reload", .honoured),
        entry("bind-key", .honoured),
        entry("bookmark-autopilot", .honouredAs("^B, which runs bookmark-cmd at once with the link and title")),
        entry("bookmark-cmd", .honoured),
        entry("bookmark-interactive", .honouredAs("^B, which hands the terminal to bookmark-cmd until it ends")),
        entry("browser", .honoured),
        entry("cache-file", .ignored("the store is --db PATH or $ZEADER_DB; zeader import reads newsboat's cache.db")),
        entry("cleanup-on-quit", .honouredAs("cleanup-on-quit: max-items and keep-days applied when the reader quits")),
        entry("color", .honoured),
        entry("confirm-exit", .honoured),
        entry("cookie-cache", .honoured),
        entry("datetime-format", .honoured),
        entry("define-filter", .honoured),
        entry("delete-read-articles-on-quit", .ignored("cleanup-on-quit with max-items or keep-days trims old items")),
        entry("dialogs-title-format", .honoured),
        entry("dirbrowser-title-format", .ignored("Zeader has no folder browser: s asks for a path")),
        entry("display-article-progress", .ignored("the article's status line shows its position")),
        entry("download-full-page", .honouredAs("full-article * (every new item's full article, from its page)")),
        entry("download-retries", .honoured),
        entry("download-timeout", .honoured),
        entry("error-log", .honoured),
        entry("external-url-viewer", .honoured),
        entry("feed-sort-order", .honoured),
        entry("feedlist-format", .honoured),
        entry("feedlist-title-format", .honoured),
        entry("filebrowser-title-format", .honouredAs("title bar while s asks for a file to save to")),
        entry("goto-first-unread", .honoured),
        entry("goto-next-feed", .honoured),
        entry("help-title-format", .honoured),
        entry("highlight", .honoured),
        entry("highlight-article", .honoured),
        entry("history-limit", .honoured),
        entry("html-renderer", .honoured),
        entry("ignore-article", .honoured),
        entry("ignore-mode", .honouredAs("an ignore rule, which keeps matching items out in either mode")),
        entry("include", .honoured),
        entry("itemview-title-format", .honoured),
        entry("keep-articles-days", .honouredAs("keep-days (see RETENTION)")),
        entry("macro", .honoured),
        entry("mark-as-read-on-hover", .honoured),
        entry("max-browser-tabs", .honoured),
        entry("max-items", .honoured),
        entry("notify-always", .honoured),
        entry("notify-beep", .honoured),
        entry("notify-format", .honoured),
        entry("notify-program", .honoured),
        entry("notify-screen", .honoured),
        entry("notify-xterm", .honoured),
        entry("openbrowser-and-mark-jumps-to-next-unread", .honoured),
        entry("pager", .honoured),
        entry("podcast-auto-enqueue", .ignored("e queues an item's enclosure; zeader podcasts lists the queue")),
        entry("prepopulate-query-feeds", .honoured),
        entry("refresh-on-startup", .honoured),
        entry("reload-only-visible-feeds", .honoured),
        entry("reload-threads", .honoured),
        entry("reload-time", .honoured),
        entry("reset-unread-on-update", .ignored("an item keeps its read state when its feed changes its text")),
        entry("run-on-startup", .honoured),
        entry("save-path", .honoured),
        entry("scrolloff", .honoured),
        entry("search-highlight-colors", .honoured),
        entry("searchresult-title-format", .honoured),
        entry("selectfilter-title-format", .honoured),
        entry("selecttag-format", .ignored("the tag picker lists each tag with its feeds' unread count")),
        entry("selecttag-title-format", .honoured),
        entry("show-keymap-hint", .honoured),
        entry("show-title-bar", .ignored("the title bar is always shown")),
        entry("show-read-articles", .honoured),
        entry("show-read-feeds", .honoured),
        entry("suppress-first-reload", .honoured),
        entry("swap-title-and-hints", .honoured),
        entry("text-width", .honoured),
        entry("toggleitemread-jumps-to-next-unread", .honoured),
        entry("unbind-key", .honoured),
        entry(
            "urls-source",
            .honouredAs(
                "local: the feeds in Zeader's store; a service: a warning naming zeader sync add or saying Zeader does not speak it"
            )),
        entry("opml-url", .ignored("zeader import FILE reads an OPML file once")),
        entry("urlview-title-format", .honoured),
        entry("user-agent", .honoured),
        entry("wrap-scroll", .honoured),
        // newsboat's directives after 2.21.
        entry("bind", .honoured),
        entry("confirm-delete-all-articles", .honoured),
    ]

    /// Each sync service's directives: Zeader speaks the Google Reader API only.
    private static let syncDirectives: [Entry] = {
        let services: [(prefix: String, name: String, suffixes: [String])] = [
            (
                "feedhq", "FeedHQ",
                [
                    "flag-share", "flag-star", "login", "min-items", "password", "passwordfile", "passwordeval",
                    "show-special-feeds", "url",
                ]
            ),
            (
                "inoreader", "Inoreader",
                [
                    "app-id", "app-key", "flag-share", "flag-star", "login", "min-items", "password", "passwordfile",
                    "passwordeval", "show-special-feeds",
                ]
            ),
            ("miniflux", "Miniflux", ["login", "password", "passwordfile", "passwordeval", "url"]),
            ("newsblur", "NewsBlur", ["login", "min-items", "password", "passwordfile", "passwordeval", "url"]),
            ("ocnews", "Nextcloud News", ["flag-star", "login", "password", "passwordfile", "passwordeval", "url"]),
            (
                "oldreader", "The Old Reader",
                [
                    "flag-share", "flag-star", "login", "min-items", "password", "passwordfile", "passwordeval",
                    "show-special-feeds",
                ]
            ),
            (
                "ttrss", "Tiny Tiny RSS",
                ["flag-publish", "flag-star", "login", "mode", "password", "passwordfile", "passwordeval", "url"]
            ),
        ]
        return services.flatMap { service in
            service.suffixes.map { suffix in
                entry(
                    "\(service.prefix)-\(suffix)",
                    .ignored(
                        "Zeader does not speak \(service.name)'s own API; zeader sync add API_URL --user NAME syncs"
                            + " with a Google Reader API server (FreshRSS, Miniflux, Inoreader)"))
            }
        }
    }()

    /// The fetcher's network settings (ReaderConfig+FeedSettings.swift), each also a feed's own setting.
    private static let networkDirectives: [Entry] = [
        entry("http-auth-method", .honoured),
        entry("max-download-speed", .honoured),
        entry("proxy", .honouredAs("proxy, used when set unless use-proxy is no")),
        entry("proxy-auth", .honoured),
        entry("proxy-auth-method", .ignored("libcurl picks the proxy's login method")),
        entry("proxy-type", .honoured), entry("use-proxy", .honoured),
        entry("ssl-verifyhost", .honouredAs("ssl-verify (either one set to no turns the checks off)")),
        entry("ssl-verifypeer", .honouredAs("ssl-verify (either one set to no turns the checks off)")),
    ]

    /// podboat's directives, which the podcast queue reads.
    private static let podboatDirectives: [Entry] = [
        entry("delete-played-files", .honoured),
        entry("download-path", .honoured),
        entry("download-filename-format", .honoured),
        entry("max-downloads", .honouredAs("zeader podcasts download's default --jobs")),
        entry("player", .honoured),
        entry("podlist-format", .honoured),
    ]

    // MARK: - Actions

    /// Every action, in the manual's order, then newer newsboat's and podboat's.
    public static let actions: [Entry] = newsboatActions + podboatActions

    private static let newsboatActions: [Entry] =
        honoured(
            "open", "quit", "hard-quit", "reload", "reload-all", "mark-feed-read", "mark-all-feeds-read")
        + [entry("mark-all-above-as-read", .honoured), entry("save", .honoured)]
        + [entry("save-all", .ignored("s saves one article; zeader items --json prints a feed's items"))]
        + honoured(
            "next-unread", "prev-unread", "next", "prev", "random-unread", "open-in-browser",
            "open-in-browser-and-mark-read",
            "help", "toggle-source-view", "toggle-article-read", "toggle-show-read-feeds", "show-urls", "clear-tag",
            "set-tag", "open-search", "goto-url")
        + honoured("open-all-unread-in-browser", "open-all-unread-in-browser-and-mark-read")
        + honoured("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "zero")
        + honoured("enqueue", "edit-urls")
        + [entry("reload-urls", .ignored("Zeader reads its subscriptions from its store; E edits them"))]
        + honoured(
            "redraw", "cmdline", "set-filter", "select-filter", "clear-filter", "bookmark", "edit-flags",
            "next-unread-feed", "prev-unread-feed", "next-feed", "prev-feed", "delete-article", "delete-all-articles")
        + [entry("purge-deleted", .ignored("a deleted item is gone at once (z undoes)"))]
        + honoured(
            "view-dialogs", "close-dialog", "next-dialog", "prev-dialog", "pipe-to", "sort", "rev-sort", "up", "down",
            "pageup", "pagedown", "home", "end", "macro-prefix")
        + [entry("switch-focus", .ignored("Zeader's dialogs have one field each"))]
        // newsboat's actions after 2.21.
        + [
            entry("select-tag", .honouredAs("set-tag")),
            entry("open-in-browser-noninteractively", .honouredAs("open-in-browser")),
            entry("goto-title", .ignored("/ searches the titles of the list shown")),
        ]

    /// podboat's, in the reader's podcast queue (P opens it; the `podboat` view of bind-key).
    private static let podboatActions: [Entry] = honoured(
        "pb-quit", "pb-hard-quit", "pb-help", "pb-download", "pb-cancel", "pb-play", "pb-mark-as-finished", "pb-delete",
        "pb-purge", "pb-toggle-download-all", "pb-increase-max-dls", "pb-decrease-max-dls")
}
