import ZeaderKit

/// newsboat's notification directives: `notify-format` (the message, with newsboat's fields),
/// `notify-always` (a message after every refresh, new items or not), and the terminal's own
/// signals, `notify-screen` (a GNU screen privacy message), `notify-xterm` (the window's
/// title) and `notify-beep` (the bell). `notify-program` runs the message (``RefreshNotifier``).
///
/// ```swift
/// let config = try ReaderConfig.parse("notify-format \"%d new, %n unread\"\nnotify-beep yes", file: "config")
/// config.notify.message(NotifyCounts(unreadItems: 9, unreadFeeds: 2, newItems: 3, newFeeds: 1))   // "3 new, 9 unread"
/// ```
public struct NotifySettings: Equatable, Sendable {
    /// `notify-format`: the message; nil: ``RefreshNotifier/message(for:)``'s words.
    public var format: FormatString?
    /// `notify-always`: a message after every refresh, not only one that stored new items.
    public var always = false
    /// `notify-screen`: the message as a GNU screen privacy message.
    public var screen = false
    /// `notify-xterm`: the message as the terminal window's title.
    public var xterm = false
    /// `notify-beep`: the terminal's bell.
    public var beep = false

    public init() {}

    /// The directives read here.
    static let directives: Set<String> = ["notify-format", "notify-always", "notify-screen", "notify-xterm", "notify-beep"]

    /// newsboat's fields of `notify-format`.
    static let fields: Set<Character> = ["n", "f", "d", "D"]

    /// Applies one of ``directives``; a field newsboat does not have is a warning (shown empty).
    mutating func apply(_ directive: String, _ arguments: [String]) throws(ReaderConfigError.Message)
        -> [ReaderConfigError.Message]
    {
        guard arguments.count == 1, let value = arguments.first else { throw .init("\(directive) needs one value") }
        func yesNo() throws(ReaderConfigError.Message) -> Bool {
            switch value.lowercased() {
            case "yes", "true": return true
            case "no", "false": return false
            default: throw .init("\(directive) needs yes or no")
            }
        }
        switch directive {
        case "notify-format":
            let format = FormatString(value)
            self.format = format
            let unknown = format.fields.subtracting(Self.fields).sorted().map { "%\($0)" }
            return format.problems.map { .init("notify-format: \($0)") }
                + (unknown.isEmpty
                    ? [] : [.init("notify-format: \(unknown.joined(separator: ", ")) is not one of its fields (shown empty)")])
        case "notify-always": always = try yesNo()
        case "notify-screen": screen = try yesNo()
        case "notify-xterm": xterm = try yesNo()
        default: beep = try yesNo()
        }
        return []
    }

    /// The message after a refresh: nil when it stored no new items, unless `notify-always`;
    /// `notify-format` with the counts, else Zeader's words (``RefreshNotifier/message(newItems:inFeeds:)``)
    /// or, with no new items, ``NotifyCounts/noNewItems``. Control characters are dropped: the
    /// message goes to a terminal's title.
    ///
    /// ```swift
    /// config.notify.message(counts)   // "Zeader: 3 new items in 1 feed"
    /// ```
    public func message(_ counts: NotifyCounts) -> String? {
        guard counts.newItems > 0 || always else { return nil }
        let text: String
        if let format {
            text = format.render(width: 0) { field in
                switch field {
                case "n": String(counts.unreadItems)
                case "f": String(counts.unreadFeeds)
                case "d": String(counts.newItems)
                case "D": String(counts.newFeeds)
                default: nil
                }
            }
        } else {
            text = RefreshNotifier.message(newItems: counts.newItems, inFeeds: counts.newFeeds) ?? NotifyCounts.noNewItems
        }
        return String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && !(0x80..<0xA0).contains($0.value) })
    }

    /// What to write to the terminal for `message`: screen's privacy message, xterm's title,
    /// the bell, as the config asks; empty when it asks for none.
    ///
    /// ```swift
    /// config.notify.terminalSignals(for: "Zeader: 1 new item")   // "\u{1B}]2;Zeader: 1 new item\u{07}" with notify-xterm
    /// ```
    public func terminalSignals(for message: String) -> String {
        var signals = ""
        if screen { signals += "\u{1B}^" + message + "\u{1B}\\" }
        if xterm { signals += "\u{1B}]2;" + message + "\u{07}" }
        if beep { signals += "\u{07}" }
        return signals
    }
}

/// The numbers of `notify-format`'s fields after a refresh.
///
/// ```swift
/// NotifyCounts(unreadItems: 9, unreadFeeds: 2, newItems: 3, newFeeds: 1)
/// ```
public struct NotifyCounts: Equatable, Sendable {
    /// `%n`: unread items in every feed.
    public var unreadItems: Int
    /// `%f`: feeds with unread items.
    public var unreadFeeds: Int
    /// `%d`: items the refresh stored.
    public var newItems: Int
    /// `%D`: feeds the refresh stored items in.
    public var newFeeds: Int

    public init(unreadItems: Int, unreadFeeds: Int, newItems: Int, newFeeds: Int) {
        self.unreadItems = unreadItems
        self.unreadFeeds = unreadFeeds
        self.newItems = newItems
        self.newFeeds = newFeeds
    }

    /// The counts of `summary`, with the unread counts of `feeds` (each feed's unread items);
    /// the new items of the feeds `quiet` (their setting `notify no`) are not counted.
    ///
    /// ```swift
    /// NotifyCounts(summary, unreadPerFeed: try library.servers().map(\.unread))
    /// ```
    public init(_ summary: RefreshSummary, unreadPerFeed feeds: [Int], quiet: Set<String> = []) {
        unreadItems = feeds.reduce(0, +)
        unreadFeeds = feeds.count { $0 > 0 }
        var quietItems = 0
        newFeeds = 0
        for result in summary.results {
            guard case .updated(let newItems, _) = result.status, newItems > 0 else { continue }
            if quiet.contains(result.url) { quietItems += newItems } else { newFeeds += 1 }
        }
        // The total, less the quiet feeds': a sync's new items come without a result per feed.
        newItems = max(0, summary.progress.newItems - quietItems)
    }

    /// The message of `notify-always` after a refresh without new items, when there is no `notify-format`.
    public static let noNewItems = "Zeader: no new items"
}
