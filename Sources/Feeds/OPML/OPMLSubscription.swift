import Foundation

/// One feed of a subscription list (OPML or a newsboat `urls` file).
///
/// ```swift
/// let subscription = OPMLSubscription(url: "https://example.org/feed", title: "Example", categories: ["Tech"])
/// print(subscription.url, subscription.categories)
/// ```
public struct OPMLSubscription: Sendable, Equatable, Hashable {
    /// The feed's URL (`xmlUrl`).
    public var url: String
    /// The feed's name (`title`, else `text`), nil when the list gives none.
    public var title: String?
    /// The site the feed belongs to (`htmlUrl`).
    public var siteLink: String?
    /// Folders and tags, outermost folder first, without duplicates.
    public var categories: [String]

    public init(url: String, title: String? = nil, siteLink: String? = nil, categories: [String] = []) {
        self.url = url
        self.title = title
        self.siteLink = siteLink
        self.categories = categories
    }
}

/// What a subscription list yielded: its feeds, and a note for each line or entry that
/// was left out or changed (query feeds, exec and filter commands, hidden tags).
///
/// ```swift
/// let list = try SubscriptionImport.read(data: bytes, source: "feeds.opml")
/// list.notes.forEach { print("note:", $0) }
/// ```
public struct SubscriptionImport: Sendable, Equatable {
    public var subscriptions: [OPMLSubscription]
    public var notes: [String]

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
            return SubscriptionImport(subscriptions: try OPML.parse(data: data, source: source))
        }
        guard let text = String(data: Data(bytes), encoding: .utf8) else {
            throw OPMLError.unreadableText(source: source)
        }
        return NewsboatURLs.parse(text, source: source)
    }
}
