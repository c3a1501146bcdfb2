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
    /// The syntax the feed was written in (`rss2`, `atom10` …).
    public var format: FeedFormat
    /// The feed's title, as plain text.
    public var title: String?
    /// The site's link (not the feed's own URL), absolute where it could be resolved.
    public var link: String?
    /// The entries, in document order.
    public var items: [ParsedItem]
    /// Problems the parser recovered from (malformed XML read in recover mode), as
    /// "line L, column C: message"; empty for a clean document.
    public var warnings: [String]
    /// Problems that may have cost content, though what was read is usable (a document cut
    /// off before its end): a refresh stores the items and records these as the feed's
    /// error. Empty for a complete document.
    ///
    /// ```swift
    /// if let problem = feed.problems.first { server.lastError = "\(url): \(problem)" }
    /// ```
    public var problems: [String]

    /// A feed; `ParsedFeed(format: .rss2, title: "T", items: [])`.
    public init(
        format: FeedFormat, title: String? = nil, link: String? = nil, items: [ParsedItem] = [],
        warnings: [String] = [], problems: [String] = []
    ) {
        self.format = format
        self.title = title
        self.link = link
        self.items = items
        self.warnings = warnings
        self.problems = problems
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
    /// The item's title, as plain text.
    public var title: String?
    /// The item's web page, absolute where a base was known.
    public var link: String?
    /// The author's name (else e-mail address).
    public var author: String?
    /// When the item was first published.
    public var published: Date?
    /// When the item was last changed.
    public var updated: Date?
    /// A plain-text preview (at most 300 characters, cut at a word, ending in "…" when
    /// cut) of the item's description/summary, else of its content.
    public var summary: String?
    /// The item's body as HTML (`content:encoded`, Atom `content`, else the description).
    public var content: String?
    /// Attached media: RSS enclosures, `media:content`, Atom `rel="enclosure"` links.
    public var enclosures: [Enclosure]
    /// Category names (RSS `category`, `dc:subject`, Atom `category@term`).
    public var categories: [String]

    /// An item; `ParsedItem(id: "guid-1", title: "Hello")`.
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
    /// Absolute URL of the media file.
    public var url: String
    /// MIME type, e.g. `audio/mpeg`.
    public var type: String?
    /// Size in bytes, when the feed gives it.
    public var length: Int64?

    /// An enclosure; `Enclosure(url: "https://x.example/a.mp3", type: "audio/mpeg")`.
    public init(url: String, type: String? = nil, length: Int64? = nil) {
        self.url = url
        self.type = type
        self.length = length
    }
}
