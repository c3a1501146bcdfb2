import Foundation
import GRDB

/// Builds newsboat caches (`cache.db`) for tests, with newsboat 2.x's schema (as in
/// `Fixtures/newsboat-cache.db`) or any other the test writes.
enum NewsboatCacheBuilder {
    /// newsboat's own tables.
    static let schema = """
        CREATE TABLE rss_feed (rssurl VARCHAR(1024) PRIMARY KEY NOT NULL, url VARCHAR(1024) NOT NULL,
          title VARCHAR(1024) NOT NULL, lastmodified INTEGER(11) NOT NULL DEFAULT 0, is_rtl INTEGER(1) NOT NULL DEFAULT 0,
          etag VARCHAR(128) NOT NULL DEFAULT "");
        CREATE TABLE rss_item (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, guid VARCHAR(64) NOT NULL,
          title VARCHAR(1024) NOT NULL, author VARCHAR(1024) NOT NULL, url VARCHAR(1024) NOT NULL,
          feedurl VARCHAR(1024) NOT NULL, pubDate INTEGER NOT NULL, content VARCHAR(65535) NOT NULL,
          unread INTEGER(1) NOT NULL, enclosure_url VARCHAR(1024), enclosure_type VARCHAR(1024),
          enqueued INTEGER(1) NOT NULL DEFAULT 0, flags VARCHAR(52), deleted INTEGER(1) NOT NULL DEFAULT 0,
          base VARCHAR(128) NOT NULL DEFAULT "");
        CREATE INDEX idx_guid ON rss_item(guid);
        """

    /// A cache at `url` made by `schema` then `build`.
    static func make(at url: URL, schema: String = schema, _ build: (Database) throws -> Void) throws {
        try? FileManager.default.removeItem(at: url)
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: schema)
            try build(db)
        }
        try queue.close()
    }

    /// Adds a feed.
    static func feed(_ url: String, title: String = "Feed", in db: Database) throws {
        try db.execute(sql: "INSERT INTO rss_feed (rssurl, url, title) VALUES (?, ?, ?)", arguments: [url, url, title])
    }

    /// Adds an item of `feed` with `pubDate` (any SQLite value).
    static func item(
        guid: String, feed: String, pubDate: (any DatabaseValueConvertible)? = 1_700_000_000, unread: Int = 1,
        in db: Database
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO rss_item (guid, title, author, url, feedurl, pubDate, content, unread)
                VALUES (?, ?, '', ?, ?, ?, '<p>text</p>', ?)
                """,
            arguments: [guid, "Item \(guid)", "https://example.org/\(guid)", feed, pubDate, unread])
    }
}
