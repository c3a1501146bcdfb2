import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// During a bulk write, saves leave their rows for the full-text index to one statement
/// over many saves (FullTextIndex.swift): the rows are indexed once the batch is full and
/// when the bulk write ends, exactly once, whoever changes or deletes them meanwhile.
@Suite struct FullTextBulkIndexTests {
    let model = FullTextSearchTests.indexedModel

    /// Saves `count` articles titled "`word` n", positions from `start`.
    func insert(_ count: Int, word: String, from start: Int, in ctx: ManagedObjectContext) throws {
        try ctx.performAndWait { () throws in
            for n in start..<(start + count) {
                let article = ctx.insert(Article.self)
                article.title = "\(word) \(n)"
                article.body = "body of article \(n)"
                article.position = Int64(n)
            }
            try ctx.save()
        }
    }

    func titles(_ ctx: ManagedObjectContext, _ text: String) throws -> [String] {
        try FullTextSearchTests().titles(ctx, text)
    }

    func indexedRows(_ store: PersistentStore) throws -> Int {
        try store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Z_Article_FTS_docsize") ?? -1 }
    }

    func pending(_ store: PersistentStore) throws -> String? {
        try store.metadata(forKey: FullTextIndexSchema.pendingKey("Article"))
    }

    /// The index holds every row of the table once, with its current text.
    func expectConsistent(_ store: PersistentStore) throws {
        let (rows, indexed) = try store.database.write { db in
            try db.execute(sql: "INSERT INTO Z_Article_FTS(Z_Article_FTS, rank) VALUES ('integrity-check', 1)")
            return (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Article") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Z_Article_FTS_docsize") ?? -2
            )
        }
        #expect(rows == indexed)
        #expect(try pending(store) == nil)
    }

    @Test func aBulkWriteIndexesItsSavesRowsWhenItEnds() throws {
        let directory = TemporaryDirectory()
        let container = try PersistentContainer(model: model, store: .file(directory.file("bulk.sqlite")))
        let store = container.store
        let ctx = container.newBackgroundContext(name: "bulk")
        try insert(3, word: "early", from: 0, in: ctx)  // outside: indexed by its save
        #expect(try indexedRows(store) == 3)
        try store.withBulkWrites {
            for save in 0..<5 { try insert(20, word: "kotlin", from: 100 + 20 * save, in: ctx) }
            // Waiting: recorded in the store, not yet searchable.
            #expect(try indexedRows(store) == 3)
            #expect(try pending(store) == "4-103")
            #expect(try titles(ctx, "kotlin").isEmpty)
            // Waiting rows changed and deleted by a save, by batch requests and by another
            // connection: the triggers leave the index alone for rows it does not hold.
            try ctx.performAndWait { () throws in
                let first = try ctx.fetch(
                    FetchRequest<Article>(predicate: try ObjectPredicate(format: "position == 100")))
                first[0].title = "renamed swift piece"
                let second = try ctx.fetch(
                    FetchRequest<Article>(predicate: try ObjectPredicate(format: "position == 101")))
                ctx.delete(second[0])
                try ctx.save()
                try ctx.execute(
                    BatchUpdateRequest(
                        entityName: "Article", predicate: try ObjectPredicate(format: "position == 102"),
                        propertiesToUpdate: ["title": .string("batch swift title")]))
                try ctx.execute(
                    BatchDeleteRequest(entityName: "Article", predicate: try ObjectPredicate(format: "position == 103")))
            }
            let other = try DatabaseQueue(path: directory.file("bulk.sqlite").path)
            try other.write { db in
                try db.execute(sql: "UPDATE Article SET title = 'other swift title' WHERE position = 104")
                try db.execute(sql: "DELETE FROM Article WHERE position = 105")
                try db.execute(sql: "UPDATE Article SET title = 'early renamed' WHERE position = 0")
            }
            try other.close()
        }
        #expect(try titles(ctx, "kotlin").count == 94)
        #expect(try titles(ctx, "swift") == ["renamed swift piece", "batch swift title", "other swift title"])
        #expect(try titles(ctx, "early") == ["early renamed", "early 1", "early 2"])
        #expect(try titles(ctx, "kotlin 105").isEmpty)
        #expect(try titles(ctx, "article 104") == ["other swift title"])
        try expectConsistent(store)
    }

    @Test func aFullBatchIsIndexedAtOnce() throws {
        let container = try PersistentContainer(model: model, store: .inMemory)
        let store = container.store
        store.fullTextBatchLimit = 50
        #expect(store.fullTextBatchLimit == 50)
        let ctx = container.newBackgroundContext(name: "bulk")
        try store.withBulkWrites {
            try insert(20, word: "swift", from: 0, in: ctx)
            try insert(20, word: "swift", from: 20, in: ctx)
            #expect(try indexedRows(store) == 0)
            try insert(20, word: "swift", from: 40, in: ctx)  // 60 wait: all indexed
            #expect(try indexedRows(store) == 60)
            #expect(try pending(store) == nil)
            try insert(5, word: "swift", from: 60, in: ctx)
            #expect(try indexedRows(store) == 60)
        }
        #expect(try titles(ctx, "swift").count == 65)
        try expectConsistent(store)
        // A limit of 1 indexes each save's rows as it commits.
        store.fullTextBatchLimit = 0
        #expect(store.fullTextBatchLimit == 1)
        try store.withBulkWrites {
            try insert(5, word: "rust", from: 100, in: ctx)
            #expect(try indexedRows(store) == 70)
            #expect(try pending(store) == nil)
        }
    }

    @Test func rowsLeftWaitingAreIndexedByTheNextOpenOnce() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("bulk.sqlite")
        let container = try PersistentContainer(model: model, store: .file(url))
        let ctx = container.newBackgroundContext(name: "bulk")
        try container.store.withBulkWrites {
            try insert(30, word: "swift", from: 0, in: ctx)
            #expect(try pending(container.store) == "1-30")
            // A process that opens the store meanwhile (or after this one stopped) indexes
            // the waiting rows; the bulk write's end then finds nothing left to index.
            let second = try PersistentContainer(model: model, store: .file(url))
            #expect(try indexedRows(second.store) == 30)
            #expect(try pending(second.store) == nil)
            try insert(10, word: "swift", from: 30, in: ctx)
            #expect(try pending(container.store) == "31-40")
            try second.store.close()
        }
        #expect(try titles(ctx, "swift").count == 40)
        try expectConsistent(container.store)
        // Keys recorded for rows the index already holds: each row stays indexed once.
        try container.store.setMetadata("1-40", forKey: FullTextIndexSchema.pendingKey("Article"))
        try container.store.close()
        let reopened = try PersistentContainer(model: model, store: .file(url))
        try expectConsistent(reopened.store)
        #expect(try titles(reopened.viewContext, "swift").count == 40)
    }

    func pendingEntryBytes(_ store: PersistentStore) throws -> Int? {
        try store.database.read { db in
            try Int.fetchOne(db, sql: "SELECT v FROM Z_Article_FTS_config WHERE k = 'hashsize'")
        }
    }

    /// The index gathers ``FullTextIndexSchema/pendingEntryBytes`` of entries before writing
    /// a segment: set when the index is made, and at open for an index made without it; every
    /// row a bulk write indexes is then found.
    @Test func theIndexGathersMoreEntriesBeforeWritingASegment() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("hashsize.sqlite")
        do {
            let container = try PersistentContainer(model: model, store: .file(url))
            #expect(try pendingEntryBytes(container.store) == FullTextIndexSchema.pendingEntryBytes)
            try container.store.database.write { db in
                try db.execute(sql: "DELETE FROM Z_Article_FTS_config WHERE k = 'hashsize'")
            }
            #expect(try pendingEntryBytes(container.store) == nil)
            try container.store.close()
        }
        let container = try PersistentContainer(model: model, store: .file(url))
        let store = container.store
        #expect(try pendingEntryBytes(store) == FullTextIndexSchema.pendingEntryBytes)
        let pendingWork = try store.database.read { db in try FullTextIndexSchema.needsWork(model: model, in: db) }
        #expect(!pendingWork)
        let ctx = container.newBackgroundContext()
        try store.withBulkWrites {
            try insert(300, word: "gathered", from: 0, in: ctx)
            try insert(300, word: "gathered", from: 300, in: ctx)
        }
        #expect(try indexedRows(store) == 600)
        #expect(try titles(ctx, "gathered").count == 600)
        try expectConsistent(store)
    }
}
