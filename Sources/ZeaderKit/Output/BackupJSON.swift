import Foundation

/// Writes backup documents (see ``FeedLibrary/exportBackup(batchSize:write:)``): JSON with
/// text exactly as stored — every control character escaped, none dropped — and dates
/// with microseconds, so that a restore gives back the same values.
///
/// ```swift
/// var out = ""
/// BackupJSON.appendString("a\u{1B}b", to: &out)   // "a\u001bb"
/// ```
public enum BackupJSON {
    /// Appends `value` as a JSON string (or `null`), escaping quotes, backslashes, C0 and
    /// C1 control characters and the line separators, so the text is safe on a terminal.
    ///
    /// ```swift
    /// BackupJSON.appendString(item.content, to: &out)
    /// ```
    public static func appendString(_ value: String?, to out: inout String) {
        guard let value else {
            out += "null"
            return
        }
        JSONText.appendEscaped(value, to: &out)
    }

    /// Appends a date as `"YYYY-MM-DDTHH:MM:SSZ"`, or `"YYYY-MM-DDTHH:MM:SS.ffffffZ"` when it
    /// has a fraction of a second, or `null` when there is none or it lies outside
    /// ``DateBounds`` (what a restore would make of it).
    ///
    /// ```swift
    /// BackupJSON.appendDate(Date(timeIntervalSince1970: 0.5), to: &out)   // "1970-01-01T00:00:00.500000Z"
    /// ```
    public static func appendDate(_ value: Date?, to out: inout String) {
        guard let value, DateBounds.contains(value) else {
            out += "null"
            return
        }
        var seconds = value.timeIntervalSince1970.rounded(.down)
        var micros = ((value.timeIntervalSince1970 - seconds) * 1_000_000).rounded()
        if micros >= 1_000_000 {
            seconds += 1
            micros = 0
        }
        let stamp = JSONText.timestamp(Date(timeIntervalSince1970: seconds))
        if micros == 0 {
            out += "\"" + stamp + "\""
        } else {
            out += "\"" + stamp.dropLast() + String(format: ".%06dZ", Int(micros)) + "\""
        }
    }

    /// One feed of a backup, as plain values (from a Server, or read straight from a
    /// damaged store's rows by ``FeedLibrary/exportBackup(batchSize:salvaging:write:)``).
    struct Feed {
        var url: String
        var title: String?
        var siteLink: String?
        var displayOrder: Int64
        var tags: String?
        var etag: String?
        var lastModified: String?
        /// The feed's own settings as a backup writes them (``BackupSettings/exported(_:)``).
        var settings: String? = nil

        init(_ server: Server) {
            self.init(
                url: server.url, title: server.title, siteLink: server.siteLink, displayOrder: server.displayOrder,
                tags: server.tags, etag: server.etag, lastModified: server.lastModified)
            settings = BackupSettings.exported(server.settings)
        }

        init(
            url: String, title: String?, siteLink: String?, displayOrder: Int64, tags: String?, etag: String?,
            lastModified: String?
        ) {
            self.url = url
            self.title = title
            self.siteLink = siteLink
            self.displayOrder = displayOrder
            self.tags = tags
            self.etag = etag
            self.lastModified = lastModified
        }
    }

    /// One item of a backup, as plain values.
    struct Item {
        var guid: String
        var title: String?
        var link: String?
        var author: String?
        var summary: String?
        var content: String?
        var published: Date?
        var updated: Date?
        var read: Bool
        var flagged: Bool
        var firstSeen: Date?
        /// newsboat's flag letters (backup version 2).
        var flagLetters: String? = nil
        /// The enclosure with its queue and download state (backup version 2).
        var enclosure: EnclosureSummary? = nil
        /// The item's own tags, as stored (``FeedItem/tags``).
        var tags: String? = nil
    }

    static func appendFeed(_ server: Server, to out: inout String) {
        appendFeed(Feed(server), to: &out)
    }

    static func appendFeed(_ feed: Feed, to out: inout String) {
        out += "{\"url\":"
        appendString(feed.url, to: &out)
        out += ",\"title\":"
        appendString(feed.title, to: &out)
        out += ",\"siteLink\":"
        appendString(feed.siteLink, to: &out)
        out += ",\"displayOrder\":\(feed.displayOrder),\"tags\":["
        for (n, tag) in FeedTags.list(feed.tags).enumerated() {
            if n > 0 { out += "," }
            appendString(tag, to: &out)
        }
        out += "],\"etag\":"
        appendString(feed.etag, to: &out)
        out += ",\"lastModified\":"
        appendString(feed.lastModified, to: &out)
        out += ",\"settings\":"
        appendString(feed.settings, to: &out)
        out += "}"
    }

    static func appendItem(_ item: FeedItem, feedURL: String, to out: inout String) {
        appendItem(
            Item(
                guid: item.guid, title: item.title, link: item.link, author: item.author, summary: item.summary,
                content: item.content, published: item.published, updated: item.updated, read: item.read,
                flagged: item.flagged, firstSeen: item.firstSeen, flagLetters: item.flagLetters,
                enclosure: EnclosureSummary(item), tags: item.tags), feedURL: feedURL, to: &out)
    }

    static func appendItem(_ item: Item, feedURL: String, to out: inout String) {
        out += "{\"feed\":"
        appendString(feedURL, to: &out)
        out += ",\"guid\":"
        appendString(item.guid, to: &out)
        out += ",\"title\":"
        appendString(item.title, to: &out)
        out += ",\"link\":"
        appendString(item.link, to: &out)
        out += ",\"author\":"
        appendString(item.author, to: &out)
        out += ",\"summary\":"
        appendString(item.summary, to: &out)
        out += ",\"content\":"
        appendString(item.content, to: &out)
        out += ",\"published\":"
        appendDate(item.published, to: &out)
        out += ",\"updated\":"
        appendDate(item.updated, to: &out)
        out += ",\"read\":\(item.read),\"flagged\":\(item.flagged),\"firstSeen\":"
        appendDate(item.firstSeen, to: &out)
        out += ",\"flagLetters\":"
        appendString(item.flagLetters, to: &out)
        out += ",\"tags\":["
        for (n, tag) in FeedTags.list(item.tags).enumerated() {
            if n > 0 { out += "," }
            appendString(tag, to: &out)
        }
        out += "],\"enclosure\":"
        appendEnclosure(item.enclosure, to: &out)
        out += "}"
    }

    /// `{"url","type","length","queued","file"}` as stored (the shape of `items --json`,
    /// text unsanitized), or `null`.
    static func appendEnclosure(_ enclosure: EnclosureSummary?, to out: inout String) {
        guard let enclosure else {
            out += "null"
            return
        }
        out += "{\"url\":"
        appendString(enclosure.url, to: &out)
        out += ",\"type\":"
        appendString(enclosure.type, to: &out)
        out += ",\"length\":" + (enclosure.length.map { String($0) } ?? "null")
        out += ",\"queued\":\(enclosure.queued),\"file\":"
        appendString(enclosure.file, to: &out)
        out += "}"
    }
}
