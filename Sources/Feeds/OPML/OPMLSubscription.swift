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
    /// The feed's own settings as a newsboat `urls` line writes them after `<` (newsraft's
    /// `key value; key value`), unread here; nil when the line has none (and for OPML).
    public var settings: String?

    /// A subscription to `url`, optionally named, with its site and categories.
    ///
    /// ```swift
    /// let feed = OPMLSubscription(url: "https://lwn.net/headlines/rss", title: "LWN", categories: ["Linux"])
    /// ```
    public init(url: String, title: String? = nil, siteLink: String? = nil, categories: [String] = []) {
        self.url = url
        self.title = title
        self.siteLink = siteLink
        self.categories = categories
    }
}
