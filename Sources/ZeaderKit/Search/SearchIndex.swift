import Foundation
import GRDB
import ObjectGraph

/// Full-text search over items: an FTS5 index (`ZSEARCH`) of every item's title, author,
/// summary and content, kept in step with the `FeedItem` table by SQLite triggers, so that
/// items stored by any process (a cron `zeader refresh`) are indexed in the same
/// transaction. Matching is iTunes-style: every word of the query must occur (as a word
/// prefix) in the title, author or text, ignoring case and diacritics.
///
/// ```swift
/// let index = try SearchIndex(store: store)
/// let ids = try index.search("cafe swift", in: store.container.viewContext)   // newest first
/// ```
public final class SearchIndex: Sendable {
    let store: ZeaderStore

    /// Creates the index and its triggers when the store has none yet (filling it from
    /// the items already stored). When the index exists but its triggers do not — a
    /// migration rebuilt the `FeedItem` table, and SQLite drops a table's triggers with
    /// it — the triggers are recreated and the index rebuilt from the items.
    ///
    /// ```swift
    /// let index = try SearchIndex(store: store)
    /// ```
    public init(store: ZeaderStore) throws {
        self.store = store
        try store.container.store.database.write { db in
            if try !db.tableExists("ZSEARCH") {
                try db.execute(sql: Self.tableSchema)
            } else {
                let triggers = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'FeedItem'")
                guard !Set(Self.triggerNames).isSubset(of: triggers) else { return }
                for name in Self.triggerNames { try db.execute(sql: "DROP TRIGGER IF EXISTS \(name)") }
            }
            try db.execute(sql: Self.triggerSchema)
            try db.execute(sql: "INSERT INTO ZSEARCH(ZSEARCH) VALUES('rebuild')")
        }
    }

    static let triggerNames = ["ZSEARCH_insert", "ZSEARCH_delete", "ZSEARCH_update"]

    static let tableSchema = """
        CREATE VIRTUAL TABLE ZSEARCH USING fts5(
            title, author, summary, content, content='FeedItem', content_rowid='Z_PK',
            tokenize='unicode61 remove_diacritics 2');
        """

    static let triggerSchema = """
        CREATE TRIGGER ZSEARCH_insert AFTER INSERT ON FeedItem BEGIN
            INSERT INTO ZSEARCH(rowid, title, author, summary, content)
            VALUES (new.Z_PK, new.title, new.author, new.summary, new.content);
        END;
        CREATE TRIGGER ZSEARCH_delete AFTER DELETE ON FeedItem BEGIN
            INSERT INTO ZSEARCH(ZSEARCH, rowid, title, author, summary, content)
            VALUES ('delete', old.Z_PK, old.title, old.author, old.summary, old.content);
        END;
        CREATE TRIGGER ZSEARCH_update AFTER UPDATE OF title, author, summary, content ON FeedItem BEGIN
            INSERT INTO ZSEARCH(ZSEARCH, rowid, title, author, summary, content)
            VALUES ('delete', old.Z_PK, old.title, old.author, old.summary, old.content);
            INSERT INTO ZSEARCH(rowid, title, author, summary, content)
            VALUES (new.Z_PK, new.title, new.author, new.summary, new.content);
        END;
        """

    /// The FTS5 query for `text`: each word's tokens as prefix terms, all required; nil
    /// when the text has no word characters.
    ///
    /// ```swift
    /// SearchIndex.matchExpression(for: "Café  swift")   // "\"Café\"* AND \"swift\"*"
    /// ```
    public static func matchExpression(for text: String) -> String? {
        let words = text.split { !($0.isLetter || $0.isNumber) }
        guard !words.isEmpty else { return nil }
        return words.map { "\"\($0)\"*" }.joined(separator: " AND ")
    }

    /// The primary keys of the items matching `text`.
    public func matchingKeys(_ text: String) throws -> Set<Int64> {
        guard let expression = Self.matchExpression(for: text) else { return [] }
        return try store.container.store.database.read { db in
            Set(try Int64.fetchAll(db, sql: "SELECT rowid FROM ZSEARCH WHERE ZSEARCH MATCH ?", arguments: [expression]))
        }
    }

    /// The primary keys of the items matching `text`, newest first (by `sortDate`, undated
    /// last, then newest key first). The cost follows the number of matches, not of items:
    /// FTS5 finds the rows, and only those are looked up and sorted.
    ///
    /// ```swift
    /// let keys = try index.matchingKeysNewestFirst("swift linux")   // [Int64]
    /// ```
    public func matchingKeysNewestFirst(_ text: String) throws -> [Int64] {
        guard let expression = Self.matchExpression(for: text) else { return [] }
        return try store.container.store.database.read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT FeedItem.Z_PK FROM ZSEARCH JOIN FeedItem ON FeedItem.Z_PK = ZSEARCH.rowid
                    WHERE ZSEARCH MATCH ? ORDER BY FeedItem.sortDate IS NULL, FeedItem.sortDate DESC, FeedItem.Z_PK DESC
                    """,
                arguments: [expression])
        }
    }

    /// The IDs of the items matching `text`, newest first, as stored (committed) in the
    /// store. Call on `context`'s queue.
    ///
    /// ```swift
    /// let ids = try index.search("cafe swift", in: store.container.viewContext)
    /// ```
    public func search(_ text: String, in context: ManagedObjectContext) throws -> [ObjectID] {
        let entity = try context.container.model.entity(for: FeedItem.self)
        return try matchingKeysNewestFirst(text).map { ObjectID(entity: entity, primaryKey: $0) }
    }
}
