import Foundation

/// The syntax a feed was written in, as reported by `zeader parse`.
public enum FeedFormat: String, Sendable, Codable, Equatable {
    case rss2, rss1, rss09, atom10, atom03, jsonfeed
}

/// A feed as the parser found it: plain values, safe to pass between queues.
///
/// ```swift
/// let feed = try FeedParser.parse(data: bytes, url: URL(string: "https://example.org/feed"))
/// print(feed.title ?? "untitled", feed.items.count)
/// ```
public struct ParsedFeed: Sendable, Equatable {
    public var format: FeedFormat
    public var title: String?
    /// The site's link (not the feed's own URL), absolute where it could be resolved.
    public var link: String?
    public var items: [ParsedItem]
    /// Problems the parser recovered from (malformed XML read in recover mode), as
    /// "line L, column C: message"; empty for a clean document.
    public var warnings: [String]

    public init(
        format: FeedFormat, title: String? = nil, link: String? = nil, items: [ParsedItem] = [],
        warnings: [String] = []
    ) {
        self.format = format
        self.title = title
        self.link = link
        self.items = items
        self.warnings = warnings
    }
}

/// One entry of a ``ParsedFeed``.
///
/// ```swift
/// for item in feed.items { print(item.id, item.title ?? "") }
/// ```
public struct ParsedItem: Sendable, Equatable {
    /// The guid/id from the feed, or a stable id derived from the item's content.
    public var id: String
    public var title: String?
    public var link: String?
    public var author: String?
    public var published: Date?
    public var updated: Date?
    /// Plain text.
    public var summary: String?
    /// HTML.
    public var content: String?
    public var enclosures: [Enclosure]
    public var categories: [String]

    public init(
        id: String, title: String? = nil, link: String? = nil, author: String? = nil,
        published: Date? = nil, updated: Date? = nil, summary: String? = nil, content: String? = nil,
        enclosures: [Enclosure] = [], categories: [String] = []
    ) {
        self.id = id
        self.title = title
        self.link = link
        self.author = author
        self.published = published
        self.updated = updated
        self.summary = summary
        self.content = content
        self.enclosures = enclosures
        self.categories = categories
    }
}

/// A media file attached to an item (podcast audio, images).
public struct Enclosure: Sendable, Equatable {
    public var url: String
    public var type: String?
    public var length: Int64?

    public init(url: String, type: String? = nil, length: Int64? = nil) {
        self.url = url
        self.type = type
        self.length = length
    }
}
