import Foundation

/// What a subscription list yielded: its feeds, and a note for each line or entry that
/// was left out or changed (query feeds, exec and filter commands, hidden tags).
///
/// ```swift
/// let list = try SubscriptionImport.read(data: Data(opml.utf8), source: "feeds.opml")
/// list.notes.forEach { print("note:", $0) }
/// ```
public struct SubscriptionImport: Sendable, Equatable {
    /// The feeds, in file order, each URL once.
    public var subscriptions: [OPMLSubscription]
    /// One line per entry left out or changed, naming the file and line (`urls:6: …`).
    public var notes: [String]
    /// One line per entry that could not be imported although it was meant to be (an
    /// OPML outline whose feed URL holds control characters, the part of a file the XML
    /// parser could not read): the import is incomplete.
    public var rejected: [String] = []
    /// The format the list was read as: an importer trusts a newsboat `urls` file (the
    /// user's own, which may name commands) and not an OPML file (a list anyone shares).
    ///
    /// ```swift
    /// let list = try SubscriptionImport.read(data: Data("exec:~/bin/feed\n".utf8), source: "urls")
    /// list.format   // .newsboatURLs
    /// ```
    public var format: Format = .opml
    /// The `query:` lines of a newsboat `urls` file, in file order.
    public var queryFeeds: [QueryFeed] = []

    /// A newsboat query feed: `"query:NAME:FILTER" [TAG…]`, its filter in newsboat's language.
    ///
    /// ```swift
    /// let query = SubscriptionImport.QueryFeed(line: "query:Unread:unread = \"yes\"", tags: [], place: "urls:3")
    /// query.name   // "Unread"
    /// ```
    public struct QueryFeed: Sendable, Equatable {
        /// The title it is listed under (text between the first two colons).
        public var name: String
        /// The filter as written (after the second colon); empty when the line has none.
        public var filter: String
        public var tags: [String]
        /// `FILE:LINE`, for notes.
        public var place: String

        /// Reads `query:NAME:FILTER` (the word as the urls file's quotes leave it).
        public init(line: String, tags: [String], place: String) {
            let parts = line.dropFirst(6).split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            name = parts.first.map(String.init) ?? ""
            filter = parts.count > 1 ? String(parts[1]) : ""
            self.tags = tags
            self.place = place
        }
    }

    /// The two formats of a subscription list.
    ///
    /// ```swift
    /// let trusted = SubscriptionImport(subscriptions: []).format == .newsboatURLs   // false
    /// ```
    public enum Format: Sendable, Equatable {
        case opml
        case newsboatURLs
    }

    /// A result made of these feeds and notes.
    ///
    /// ```swift
    /// let list = SubscriptionImport(subscriptions: [OPMLSubscription(url: "https://a.example/feed")])
    /// ```
    public init(subscriptions: [OPMLSubscription], notes: [String] = []) {
        self.subscriptions = subscriptions
        self.notes = notes
    }

    /// Reads an OPML file or a newsboat `urls` file, told apart by content: a file whose
    /// first non-blank character is `<` is OPML. `source` (a file name) is only used in
    /// error messages and notes.
    ///
    /// ```swift
    /// let list = try SubscriptionImport.read(data: Data(contentsOf: fileURL), source: fileURL.path)
    /// for feed in list.subscriptions { print(feed.url) }
    /// ```
    public static func read(data: Data, source: String) throws -> SubscriptionImport {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let first = bytes.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D })
        if first == UInt8(ascii: "<") || data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
            let (subscriptions, rejected) = try OPML.read(data: data, source: source)
            var list = SubscriptionImport(subscriptions: subscriptions)
            list.rejected = rejected
            return list
        }
        guard let text = String(data: Data(bytes), encoding: .utf8) else {
            throw OPMLError.unreadableText(source: source)
        }
        return NewsboatURLs.parse(text, source: source)
    }
}
