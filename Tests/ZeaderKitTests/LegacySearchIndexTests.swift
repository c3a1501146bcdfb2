import Foundation
import GRDB
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Stores written before search moved into ObjectGraph carry the reader's own FTS5 index:
/// a table `ZSEARCH` over title, author, summary and content, with three triggers on
/// FeedItem. Opened now, that index is replaced by the one the model declares
/// (``ZeaderModel/searchIndex``): one table, one set of triggers, so an insert is indexed
/// once, and search works at once.
@Suite struct LegacySearchIndexTests {
    /// The reader's index as `SearchIndex` created it (its SQL, verbatim).
    static let legacySchema = [
        """
        CREATE VIRTUAL TABLE ZSEARCH USING fts5(
            title, author, summary, content, content='FeedItem', content_rowid='Z_PK',
            tokenize='unicode61 remove_diacritics 2');
        """,
        """
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
        """,
        "INSERT INTO ZSEARCH(ZSEARCH) VALUES('rebuild')",
    ]

    /// Adds the reader's old index to the (closed) store at `url`.
    static func addLegacyIndex(to url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in for sql in legacySchema { try db.execute(sql: sql) } }
        try queue.close()
    }

    struct Schema: Equatable {
        var searchTables: [String]
        var triggers: [String: String]
        var indexedColumns: [String]
    }

    /// What the file at `url` holds of full-text indexes, read as another process would.
    static func schema(at url: URL) throws -> Schema {
        var config = Configuration()
        config.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: config)
        defer { try? queue.close() }
        return try queue.read { db in
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name")
            var triggers: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'") {
                triggers[row[0]] = row[1]
            }
            let columns = try db.columns(in: "ZSEARCH").map(\.name)
            return Schema(searchTables: tables, triggers: triggers, indexedColumns: columns)
        }
    }

    /// Checks that `url`'s store has exactly the model's index, and that search and the
    /// triggers work on it.
    static func expectTheModelsIndex(at url: URL) throws {
        let store = try ZeaderStore.open(at: url)
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            // The opening of the summary and the whole text of the body, which the migration
            // made from the stored content ("Zürich" stands far into some of them).
            let all = try context.fetch(FetchRequest<FeedItem>())
            #expect(all.filter { $0.body?.text != nil }.count == all.filter { $0.content != nil }.count)
            for words in ["privacy recipe привет", "zurich"] {
                let expected = all.filter { item in
                    let extract = item.summary.map { String($0.prefix(ZeaderModel.searchExtractLength)) }
                    return FullTextSearch.matches(words, in: [item.title, item.author, extract, item.body?.text])
                }.count
                #expect(expected > 1, "\(words)")
                #expect(try ItemSearch.itemIDs(words, in: context).count == expected, "\(words)")
            }
            let server = try #require(try Server.findFirst(where: .true, in: context))
            let item = context.insert(FeedItem.self)
            item.guid = "after-the-change"
            item.title = "Xylophonic news"
            item.server = server
            try context.save()
            #expect(try ItemSearch.itemIDs("xylophonic", in: context) == [item.objectID])
            context.delete(item)
            try context.save()
            #expect(try ItemSearch.itemIDs("xylophonic", in: context).isEmpty)
        }
        try store.container.store.close()
        let schema = try schema(at: url)
        // The index and its vocabulary (no rows of its own: PrefixExpansion.swift).
        #expect(schema.searchTables == ["ZSEARCH", "ZSEARCH_vocab"])
        #expect(schema.indexedColumns == ["title", "author", "summary", "body.text"])
        #expect(
            Set(schema.triggers.keys) == [
                "ZSEARCH_insert", "ZSEARCH_delete", "ZSEARCH_update", "ZSEARCH_body_insert", "ZSEARCH_body_delete",
                "ZSEARCH_body_update",
            ])
        // The triggers are ObjectGraph's: the content column is gone from them too.
        #expect(schema.triggers.values.allSatisfy { !$0.contains("content") })
        // The index agrees with its table (FTS5's own check).
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "INSERT INTO ZSEARCH(ZSEARCH, rank) VALUES ('integrity-check', 1)") }
        try queue.close()
    }

    @Test func aVersionOneStoreWithTheOldIndexIsMigratedAndGetsTheModelsIndex() throws {
        let url = try StoreFixtureTests.copyOfFixture()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try Self.addLegacyIndex(to: url)
        #expect(try Self.schema(at: url).indexedColumns == ["title", "author", "summary", "content"])
        try Self.expectTheModelsIndex(at: url)
    }

    @Test func aVersionTwoStoreWithTheOldIndexGetsTheModelsIndex() throws {
        let url = try StoreFixtureTests.copyOfFixture()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        // Migrated to version 2 by a build without the model's index, then searched by the old reader.
        // Made after the current version (as the other versions are), so that it counts as older.
        _ = ZeaderModel.current
        let plain = ZeaderModel.version2Entities(fullTextIndex: nil)
        let v2 = try ManagedObjectModel(name: ZeaderModel.name, version: 2, entities: plain)
        let old = try PersistentContainer(
            model: v2, store: .file(url),
            migrator: try MigrationPlan(versions: [ZeaderModel.version1, v2], backupRetention: .remove))
        try old.store.close()
        try Self.addLegacyIndex(to: url)
        try Self.expectTheModelsIndex(at: url)
        // Opening again changes nothing.
        let before = try Self.schema(at: url)
        try ZeaderStore.open(at: url).container.store.close()
        #expect(try Self.schema(at: url) == before)
    }
}
