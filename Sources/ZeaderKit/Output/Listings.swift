import Feeds
import Foundation
import ObjectGraph

/// One feed as `zeader list` shows it: plain values, safe to pass between queues.
///
/// ```swift
/// let feeds = try library.servers()
/// print(ServerSummary.json(feeds))
/// ```
public struct ServerSummary: Sendable, Equatable {
    public var url: String
    public var title: String?
    public var unread: Int
    public var total: Int
    public var lastError: String?
    public var lastRefresh: Date?
    public var disabled: Bool
    /// The feed's tags, sorted (see ``FeedTags``).
    public var tags: [String]
    /// Whether the store's sync account syncs the feed; false for a local one (refused by
    /// the server, a command or a file), nil when the store has no account.
    public var synced: Bool?
    /// The feed's own settings (``FeedSettings``), shown with their secrets masked.
    public var settings = FeedSettings()
    /// Whether each refresh fetches the full articles of its new items (`Server.fullArticle`).
    public var fullArticle = false

    public init(
        url: String, title: String?, unread: Int, total: Int, lastError: String? = nil, lastRefresh: Date? = nil,
        disabled: Bool = false, tags: [String] = [], synced: Bool? = nil
    ) {
        self.synced = synced
        self.tags = tags
        self.url = url
        self.title = title
        self.unread = unread
        self.total = total
        self.lastError = lastError
        self.lastRefresh = lastRefresh
        self.disabled = disabled
    }

    /// Reads a server's values (on its context's queue); `syncing`: the store has a sync account.
    init(_ server: Server, syncing: Bool = false) {
        self.init(
            url: server.url, title: server.title, unread: Int(server.unreadCount), total: Int(server.totalCount),
            lastError: server.lastError, lastRefresh: server.lastRefresh, disabled: server.disabled,
            tags: FeedTags.list(server.tags), synced: syncing ? server.syncID != nil : nil)
        settings = FeedSettings(stored: server.settings)
        fullArticle = server.fullArticle
    }

    /// One JSON array of `{"url", "title", "unread", "total", "lastError"}` (docs/ARCHITECTURE.md, "Contracts"),
    /// plus `"lastRefresh"`, `"disabled"`, `"tags"` (an array of strings), `"synced"` (null
    /// without a sync account) and `"settings"` (the feed's own, an object of strings, each
    /// secret masked, `full-article` among them when on), ending with a newline. A password
    /// in a URL is masked (``RedactedURL``).
    ///
    /// ```swift
    /// ServerSummary.json([feed])   // [{"url":"https://…","title":"Ex","unread":3,"total":9,"lastError":null,…}]
    /// ```
    public static func json(_ servers: [ServerSummary]) -> String {
        var out = "["
        for (index, server) in servers.enumerated() {
            out += index == 0 ? "\n" : ",\n"
            out += "{\"url\":"
            JSONText.appendString(RedactedURL.text(server.url), to: &out)
            out += ",\"title\":"
            JSONText.appendString(server.title, to: &out)
            out += ",\"unread\":\(server.unread),\"total\":\(server.total),\"lastError\":"
            JSONText.appendString(server.lastError, to: &out)
            out += ",\"lastRefresh\":"
            JSONText.appendDate(server.lastRefresh, to: &out)
            out += ",\"disabled\":\(server.disabled),\"synced\":"
            out += server.synced.map { $0 ? "true" : "false" } ?? "null"
            out += ",\"tags\":"
            JSONText.appendStrings(server.tags, to: &out)
            out += ",\"settings\":{"
            for (index, pair) in server.shownSettings.enumerated() {
                if index > 0 { out += "," }
                JSONText.appendString(pair.key, to: &out)
                out += ":"
                JSONText.appendString(pair.value, to: &out)
            }
            out += "}}"
        }
        out += servers.isEmpty ? "]\n" : "\n]\n"
        return out
    }
}

/// One item as `zeader items` shows it.
///
/// ```swift
/// let items = try library.items(ItemQuery(limit: 5))
/// print(ItemSummary.json(items), terminator: "")
/// ```
public struct ItemSummary: Sendable, Equatable {
    /// The URL of the item's feed.
    public var feed: String
    /// The item's id (``ItemID``): `greader:` and the server's id for a synced item, the same
    /// on every device of the account; the guid otherwise.
    public var id: String
    public var title: String?
    public var link: String?
    public var author: String?
    public var published: Date?
    public var updated: Date?
    /// The date the item is listed by (published, else updated, else first seen).
    public var sortDate: Date?
    public var read: Bool
    /// Flagged (starred) by the user.
    public var flagged: Bool
    /// The feed's title as the feed list shows it (its URL when it has none); the text
    /// listing's feed column, not part of the JSON.
    public var feedTitle: String?
    /// The item's enclosure (podcast media), nil when it has none.
    public var enclosure: EnclosureSummary? = nil
    /// The item's own tags (``FeedItem/tags``), in order.
    public var tags: [String] = []

    public init(
        feed: String, id: String, title: String? = nil, link: String? = nil, author: String? = nil,
        published: Date? = nil, updated: Date? = nil, sortDate: Date? = nil, read: Bool = false, flagged: Bool = false,
        feedTitle: String? = nil
    ) {
        self.flagged = flagged
        self.feedTitle = feedTitle
        self.feed = feed
        self.id = id
        self.title = title
        self.link = link
        self.author = author
        self.published = published
        self.updated = updated
        self.sortDate = sortDate
        self.read = read
    }

    init(_ item: FeedItem, feedURL: String, feedTitle: String?) {
        self.init(
            feed: feedURL, id: ItemID.printed(guid: item.guid, syncID: item.syncID), title: item.title, link: item.link,
            author: item.author,
            published: item.published, updated: item.updated, sortDate: item.sortDate, read: item.read,
            flagged: item.flagged, feedTitle: feedTitle)
        enclosure = EnclosureSummary(item)
        tags = FeedTags.list(item.tags)
    }

    /// One JSON array of `{"feed", "id", "title", "link", "author", "published", "read"}`
    /// (docs/ARCHITECTURE.md, "Contracts"), plus `"updated"`, `"flagged"`, `"tags"` (the
    /// item's own, an array) and `"enclosure"` (``EnclosureSummary/appendJSON(_:to:)``),
    /// ending with a newline.
    ///
    /// ```swift
    /// ItemSummary.json(items)   // [{"feed":"https://…","id":"42","title":"Hello",…,"read":false}]
    /// ```
    public static func json(_ items: [ItemSummary]) -> String {
        var out = "["
        out.reserveCapacity(items.count * 256)
        for (index, item) in items.enumerated() {
            out += index == 0 ? "\n" : ",\n"
            appendJSON(item, to: &out)
        }
        out += items.isEmpty ? "]\n" : "\n]\n"
        return out
    }

    /// One item's JSON object (no separator), as ``json(_:)`` writes each: what a listing
    /// written page by page appends.
    ///
    /// ```swift
    /// var out = "["
    /// ItemSummary.appendJSON(item, to: &out)
    /// ```
    public static func appendJSON(_ item: ItemSummary, to out: inout String) {
        out += "{\"feed\":"
        JSONText.appendString(RedactedURL.text(item.feed), to: &out)
        out += ",\"id\":"
        JSONText.appendString(item.id, to: &out)
        out += ",\"title\":"
        JSONText.appendString(item.title, to: &out)
        out += ",\"link\":"
        JSONText.appendString(item.link, to: &out)
        out += ",\"author\":"
        JSONText.appendString(item.author, to: &out)
        out += ",\"published\":"
        JSONText.appendDate(item.published, to: &out)
        out += ",\"updated\":"
        JSONText.appendDate(item.updated, to: &out)
        out += ",\"read\":\(item.read),\"flagged\":\(item.flagged),\"tags\":"
        JSONText.appendStrings(item.tags, to: &out)
        out += ",\"enclosure\":"
        EnclosureSummary.appendJSON(item.enclosure, to: &out)
        out += "}"
    }
}

extension ServerSummary {
    /// The feed's settings as listings show them: each key once (the values of a repeated
    /// key joined with `; `), secrets masked, `full-article` when on.
    ///
    /// ```swift
    /// summary.shownSettings   // [(key: "cookie", value: "***"), (key: "reload-interval", value: "30")]
    /// ```
    public var shownSettings: [(key: String, value: String)] {
        var keys: [String] = []
        var values: [String: [String]] = [:]
        for pair in settings.masked {
            if values[pair.key] == nil { keys.append(pair.key) }
            values[pair.key, default: []].append(pair.value)
        }
        var shown = keys.map { (key: $0, value: values[$0, default: []].joined(separator: "; ")) }
        if fullArticle { shown.append((key: FeedSettingKey.fullArticle.rawValue, value: "yes")) }
        return shown
    }
}
