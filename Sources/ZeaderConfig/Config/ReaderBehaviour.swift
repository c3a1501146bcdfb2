import Foundation

/// newsboat's directives about how the reader behaves, with newsboat's names: the questions
/// before quitting and marking, where `n` and opening a feed go, what happens at start, the
/// hint line, the fetcher's patience and name; and Zeader's own `mouse`.
///
/// ```swift
/// let config = try ReaderConfig.parse("confirm-exit yes\nuser-agent \"Mozilla/5.0\"", file: "config")
/// config.behaviour.confirmExit   // true
/// ```
public struct ReaderBehaviour: Equatable, Sendable {
    /// `confirm-exit`: `q` on the feed list asks before quitting.
    public var confirmExit = false
    /// `confirm-mark-all-feeds-read`: `C` asks first. Off unless set: undo (`z`) reverts a mark.
    public var confirmMarkAllFeedsRead = false
    /// `confirm-mark-feed-read`: `A` asks first. Off unless set: undo (`z`) reverts a mark.
    public var confirmMarkFeedRead = false
    /// `refresh-on-startup`: every feed is refreshed when the reader starts.
    public var refreshOnStartup = false
    /// `suppress-first-reload`: with `auto-reload`, no refresh at start (newsboat refreshes
    /// at start when auto-reload is on and this is no).
    public var suppressFirstReload = false
    /// `show-keymap-hint`: the line of keys at the bottom of the screen.
    public var showKeymapHint = true
    /// `goto-next-feed`: `n` and `p` go on to the next feed's unread items when the list
    /// shown has none left; with no they stop at the end of the list.
    public var gotoNextFeed = true
    /// `goto-first-unread`: opening a list puts the cursor on its first unread item. Off
    /// unless set: Zeader's lists open at the top.
    public var gotoFirstUnread = false
    /// `prepopulate-query-feeds`: Zeader counts smart feeds' items with the feed list either
    /// way (after the first frame), so yes and no both read.
    public var prepopulateQueryFeeds = true
    /// `download-retries`: a feed whose fetch fails (no answer, a broken connection, a
    /// server error) is fetched again this many times before its error is kept.
    public var downloadRetries = 1
    /// `download-timeout`: seconds a feed's fetch may take; nil: the fetcher's own limits.
    public var downloadTimeoutSeconds: Int?
    /// `user-agent`: the `User-Agent` header of every fetch; nil: `zeader/VERSION`.
    public var userAgent: String?
    /// `mouse`: clicks and the wheel in the reader; nil: on where the terminal reports the mouse.
    public var mouse: Bool?
    /// `always-display-description`: the article shows the feed's description (summary) above
    /// its content when it has both.
    public var alwaysDisplayDescription = false
    /// `reload-only-visible-feeds`: `R` refreshes the feeds the list shows (a tag, a filter,
    /// read feeds hidden), not every feed.
    public var reloadOnlyVisibleFeeds = false
    /// `error-log`: each refresh's failures are added to this file (`~/` is the home folder).
    public var errorLog: String?
    /// `confirm-delete-all-articles`: `^D` asks before deleting the list's items.
    public var confirmDeleteAllArticles = true
    /// `max-browser-tabs`: the most links `open-all-unread-in-browser` opens at a time.
    public var maxBrowserTabs = 10
    /// `mark-as-read-on-hover`: an item is marked read when the item list's cursor comes to it.
    public var markAsReadOnHover = false
    /// `history-limit`: the searches and command lines kept in the history files (0: none
    /// saved; Up and Down in the prompt recall them either way). newsboat's default.
    public var historyLimit = 100
    /// `max-host-connections`: a fixed number of fetches at once to one host; nil: a few,
    /// more for a host that answers slowly but surely (``FetcherConfiguration/maxHostConnections``).
    public var maxHostConnections: Int?
    /// `toggleitemread-jumps-to-next-unread`, `openbrowser-and-mark-jumps-to-next-unread`:
    /// after `N`, or `O`, in the item list the cursor goes on to the next unread item.
    public var toggleReadJumpsToNextUnread = false
    public var openAndMarkJumpsToNextUnread = false

    public init() {}
}

extension ReaderConfig {
    /// Whether the reader refreshes every feed when it starts: `refresh-on-startup yes`, or
    /// `auto-reload yes` (whose first reload newsboat runs at start) without
    /// `suppress-first-reload yes`.
    ///
    /// ```swift
    /// try ReaderConfig.parse("auto-reload yes", file: "config").refreshesAtStart   // true
    /// ```
    public var refreshesAtStart: Bool {
        behaviour.refreshOnStartup || (autoReload && !behaviour.suppressFirstReload)
    }
}

extension ReaderBehaviour {

    /// The directives read here.
    static let directives: Set<String> = [
        "confirm-exit", "confirm-mark-all-feeds-read", "confirm-mark-feed-read", "refresh-on-startup",
        "suppress-first-reload", "show-keymap-hint", "download-retries", "download-timeout", "user-agent",
        "goto-next-feed", "goto-first-unread", "prepopulate-query-feeds", "mouse", "always-display-description",
        "reload-only-visible-feeds", "error-log", "max-browser-tabs", "confirm-delete-all-articles",
        "mark-as-read-on-hover", "history-limit", "max-host-connections", "toggleitemread-jumps-to-next-unread",
        "openbrowser-and-mark-jumps-to-next-unread",
    ]

    /// The widest ranges the numbers are brought into (with a warning): more retries or a longer
    /// wait than these only keep a dead feed's refresh from ending.
    static let retriesRange = 1...10
    static let timeoutRange = 1...3600
    static let browserTabsRange = 1...100
    static let hostConnectionsRange = 1...64

    /// Applies one of ``directives``; a number out of range comes back as the warning to give.
    mutating func apply(_ directive: String, _ arguments: [String]) throws(ReaderConfigError.Message)
        -> ReaderConfigError.Message?
    {
        guard arguments.count == 1, let value = arguments.first else { throw .init("\(directive) needs one value") }
        func yesNo() throws(ReaderConfigError.Message) -> Bool {
            switch value.lowercased() {
            case "yes", "true": return true
            case "no", "false": return false
            default: throw .init("\(directive) needs yes or no")
            }
        }
        var warning: ReaderConfigError.Message?
        func number(_ range: ClosedRange<Int>) throws(ReaderConfigError.Message) -> Int {
            guard let number = Int(value) else {
                throw .init("\(directive) needs a number from \(range.lowerBound) to \(range.upperBound)")
            }
            let inRange = min(max(number, range.lowerBound), range.upperBound)
            if inRange != number {
                warning = .init("\(directive) \(number) is outside \(range.lowerBound)–\(range.upperBound); \(inRange) is used")
            }
            return inRange
        }
        switch directive {
        case "confirm-exit": confirmExit = try yesNo()
        case "confirm-mark-all-feeds-read": confirmMarkAllFeedsRead = try yesNo()
        case "confirm-mark-feed-read": confirmMarkFeedRead = try yesNo()
        case "refresh-on-startup": refreshOnStartup = try yesNo()
        case "suppress-first-reload": suppressFirstReload = try yesNo()
        case "show-keymap-hint": showKeymapHint = try yesNo()
        case "goto-next-feed": gotoNextFeed = try yesNo()
        case "goto-first-unread": gotoFirstUnread = try yesNo()
        case "prepopulate-query-feeds": prepopulateQueryFeeds = try yesNo()
        case "mouse": mouse = try yesNo()
        case "always-display-description": alwaysDisplayDescription = try yesNo()
        case "reload-only-visible-feeds": reloadOnlyVisibleFeeds = try yesNo()
        case "error-log": errorLog = value.isEmpty ? nil : value
        case "max-browser-tabs": maxBrowserTabs = try number(Self.browserTabsRange)
        case "max-host-connections": maxHostConnections = try number(Self.hostConnectionsRange)
        case "confirm-delete-all-articles": confirmDeleteAllArticles = try yesNo()
        case "mark-as-read-on-hover": markAsReadOnHover = try yesNo()
        case "toggleitemread-jumps-to-next-unread": toggleReadJumpsToNextUnread = try yesNo()
        case "openbrowser-and-mark-jumps-to-next-unread": openAndMarkJumpsToNextUnread = try yesNo()
        case "history-limit":
            guard let limit = Int(value), limit >= 0 else { throw .init("history-limit needs a number of lines (0 or more)") }
            historyLimit = limit
        case "download-retries": downloadRetries = try number(Self.retriesRange)
        case "download-timeout": downloadTimeoutSeconds = try number(Self.timeoutRange)
        case "user-agent":
            // A header value holds no line break; an empty one means the default.
            guard !value.contains(where: { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false) })
            else { throw .init("user-agent holds a control character") }
            userAgent = value.isEmpty ? nil : value
        default: throw .init("\(directive) is not a reader setting")
        }
        return warning
    }
}
