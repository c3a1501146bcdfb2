import Foundation
import GRDB
import Testing

@testable import ObjectGraph

final class Article: ManagedObject {
    @Managed("title") var title: String?
    @Managed("author") var author: String?
    @Managed("body") var body: String?
    @Managed("read") var read: Bool
    @Managed("position") var position: Int64
}

@Suite struct FullTextSearchTests {
    enum Kind: CaseIterable { case memory, file }

    static func model(indexed: Bool) -> ManagedObjectModel {
        try! ManagedObjectModel(
            name: "Search", version: 1,
            entities: [
                EntityDescription(
                    "Article", managedClass: Article.self,
                    attributes: [
                        .string("title"), .string("author"), .string("body"), .bool("read", defaultValue: false),
                        .integer("position", defaultValue: 0),
                    ],
                    fullTextIndex: indexed ? FullTextIndexDescription(attributes: ["title", "author", "body"]) : nil)
            ])
    }
    static let indexedModel = model(indexed: true)
    static let plainModel = model(indexed: false)

    static let articles: [(String, String?, String)] = [
        ("Swift on Linux", "Zoë", "A café in Paris serves Swift developers."),
        ("Rust and Swift", "Ann", "Comparing two languages."),
        ("Cafe culture", nil, "Coffee, again: café au lait."),
        ("ÉTÉ À PARIS", "Jean", "Summer notes."),
        ("Nothing here", "Bob", "Plain text without the words."),
    ]

    func fill(_ ctx: ManagedObjectContext) throws {
        try ctx.performAndWait { () throws in
            for (n, (title, author, body)) in Self.articles.enumerated() {
                let article = ctx.insert(Article.self)
                article.title = title
                article.author = author
                article.body = body
                article.position = Int64(n)
                article.read = n == 1
            }
            try ctx.save()
        }
    }

    func titles(
        _ ctx: ManagedObjectContext, _ text: String, predicate: String? = nil,
        sort: [ObjectSortDescriptor] = [ObjectSortDescriptor("position")], limit: Int = 0
    )
        throws -> [String]
    {
        try ctx.performAndWait { () throws in
            var request = FetchRequest<Article>(
                predicate: try predicate.map { try ObjectPredicate(format: $0) }, sortDescriptors: sort, fetchLimit: limit)
            request.searchText = text
            return try ctx.fetch(request).compactMap(\.title)
        }
    }

    func location(_ kind: Kind, _ directory: TemporaryDirectory) -> StoreLocation {
        kind == .memory ? .inMemory : .file(directory.file("search.sqlite"))
    }

    @Test(arguments: Kind.allCases) func everyWordMustStartAWordIgnoringCaseAndDiacritics(kind: Kind) throws {
        let directory = TemporaryDirectory()
        let container = try PersistentContainer(model: Self.indexedModel, store: location(kind, directory))
        let ctx = container.viewContext
        try fill(ctx)
        #expect(try titles(ctx, "swift") == ["Swift on Linux", "Rust and Swift"])
        #expect(try titles(ctx, "CAFE swi") == ["Swift on Linux"])
        #expect(try titles(ctx, "café") == ["Swift on Linux", "Cafe culture"])
        #expect(try titles(ctx, "ete paris") == ["ÉTÉ À PARIS"])
        #expect(try titles(ctx, "zoe") == ["Swift on Linux"])  // the author
        #expect(try titles(ctx, "swift python").isEmpty)
        #expect(try titles(ctx, "wift").isEmpty)  // prefixes only
        #expect(try titles(ctx, " ,;! ").isEmpty)  // no words: nothing
        // With a predicate, a limit and count.
        #expect(try titles(ctx, "swift", predicate: "read == NO") == ["Swift on Linux"])
        #expect(try titles(ctx, "café", limit: 1) == ["Swift on Linux"])
        let count = try ctx.performAndWait { try ctx.count(for: FetchRequest<Article>().matching("caf")) }
        #expect(count == 2)
        let ids = try ctx.performAndWait { try ctx.fetchObjectIDs(FetchRequest<Article>().matching("swift")) }
        #expect(ids.count == 2)
    }

    @Test(arguments: Kind.allCases) func relevanceOrdersBestFirst(kind: Kind) throws {
        let directory = TemporaryDirectory()
        let container = try PersistentContainer(model: Self.indexedModel, store: location(kind, directory))
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            for (n, body) in ["swift", "swift swift swift swift", "swift swift"].enumerated() {
                let article = ctx.insert(Article.self)
                article.title = "t\(n)"
                article.body = body + " and a lot of other words that dilute the match in this body text"
            }
            try ctx.save()
        }
        #expect(try titles(ctx, "swift", sort: [.relevance]) == ["t1", "t2", "t0"])
        #expect(
            try titles(
                ctx, "swift", sort: [ObjectSortDescriptor(ObjectSortDescriptor.relevanceKey, ascending: false)]) == [
                    "t0", "t2", "t1",
                ])
        #expect(try titles(ctx, "swift", sort: [.relevance], limit: 1) == ["t1"])
        // Relevance without a search is refused.
        _ = ctx.performAndWait {
            #expect(throws: ObjectGraphError.unknownKey(entity: "Article", key: "@relevance")) {
                try ctx.fetch(FetchRequest<Article>(sortDescriptors: [.relevance]))
            }
        }
    }

    @Test func unsavedChangesAgreeWithTheIndex() throws {
        let container = try PersistentContainer(model: Self.indexedModel, store: .inMemory)
        let ctx = container.viewContext
        try fill(ctx)
        try ctx.performAndWait { () throws in
            let new = ctx.insert(Article.self)
            new.title = "Swiftly unsaved"
            new.position = 10
            let edited = try ctx.fetch(FetchRequest<Article>(predicate: try ObjectPredicate(format: "position == 1"))).first!
            edited.title = "Rust only"
            edited.body = "no more"
        }
        #expect(try titles(ctx, "swift") == ["Swift on Linux", "Swiftly unsaved"])
        // The same queries in memory (every object) and through the index (after saving) agree.
        let queries = ["swift", "café", "ete", "zo", "rust only", "paris", "nothing words", "again lait", "x"]
        let inMemory = try ctx.performAndWait { () throws in
            let all = try ctx.fetch(FetchRequest<Article>(sortDescriptors: [ObjectSortDescriptor("position")]))
            return queries.map { q in
                all.filter { FullTextSearch.matches(q, in: [$0.title, $0.author, $0.body]) }.compactMap(\.title)
            }
        }
        try ctx.performAndWait { try ctx.save() }
        for (query, expected) in zip(queries, inMemory) {
            #expect(try titles(ctx, query) == expected, "\(query)")
        }
    }

    @Test func writesByAnotherConnectionAreIndexed() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("search.sqlite")
        let container = try PersistentContainer(model: Self.indexedModel, store: .file(url))
        let ctx = container.viewContext
        try fill(ctx)
        // Another connection (as another process would) writes plain SQL.
        let other = try DatabaseQueue(path: url.path)
        try other.write { db in
            try db.execute(
                sql:
                    "INSERT INTO Article (Z_PK, Z_OPT, title, body, read, position) VALUES (100, 1, 'Kotlin news', 'Brand new', 0, 100)"
            )
            try db.execute(sql: "UPDATE Article SET title = 'Renamed piece' WHERE title = 'Cafe culture'")
            try db.execute(sql: "DELETE FROM Article WHERE title = 'Rust and Swift'")
            try db.execute(sql: "UPDATE Article SET read = 1")  // not an indexed column
        }
        try other.close()
        #expect(try titles(ctx, "kotlin brand") == ["Kotlin news"])
        #expect(try titles(ctx, "renamed") == ["Renamed piece"])
        #expect(try titles(ctx, "culture").isEmpty)
        #expect(try titles(ctx, "swift") == ["Swift on Linux"])
        let integrity = try container.store.database.read { db in
            try Bool.fetchOne(db, sql: "SELECT COUNT(*) = (SELECT COUNT(*) FROM Article) FROM Z_Article_FTS")
        }
        #expect(integrity == true)
        try container.store.database.write { db in
            try db.execute(sql: "INSERT INTO Z_Article_FTS(Z_Article_FTS, rank) VALUES ('integrity-check', 1)")
        }
    }

    @Test func aSaveIndexesItsRowsInOneStatement() throws {
        // One row at a time through the insert trigger, FTS5 wrote a segment per row (19
        // data rows for these 300 titles); the save's one statement writes one segment.
        let container = try PersistentContainer(model: Self.indexedModel, store: .inMemory)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            for n in 0..<300 {
                let article = ctx.insert(Article.self)
                article.title = "Article number \(n) about swift\(n % 7)"
                article.position = Int64(n)
            }
            try ctx.save()
        }
        let dataRows = try container.store.database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Z_Article_FTS_data") ?? 0
        }
        #expect(dataRows <= 6)
        #expect(try titles(ctx, "swift3").count == 43)
        #expect(try titles(ctx, "article number 299") == ["Article number 299 about swift5"])
        // Rows a later save inserts, updates and deletes, mixed with batch requests.
        try ctx.performAndWait { () throws in
            let all = try ctx.fetch(FetchRequest<Article>(sortDescriptors: [ObjectSortDescriptor("position")]))
            all[0].title = "Renamed kotlin piece"
            ctx.delete(all[1])
            let added = ctx.insert(Article.self)
            added.title = "Added kotlin piece"
            added.position = 1000
            try ctx.save()
            try ctx.execute(BatchDeleteRequest(entityName: "Article", predicate: try ObjectPredicate(format: "position == 2")))
        }
        #expect(try titles(ctx, "kotlin") == ["Renamed kotlin piece", "Added kotlin piece"])
        #expect(try titles(ctx, "number 1").count == 110)  // 1, 10-19, 100-199 less the deleted 1
        let documents = try container.store.database.write { db in
            try db.execute(sql: "INSERT INTO Z_Article_FTS(Z_Article_FTS, rank) VALUES ('integrity-check', 1)")
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Z_Article_FTS_docsize")
        }
        #expect(documents == 299)
        // Outside a save, the function the insert trigger asks answers as SQLite's own does.
        let answers = try container.store.database.read { db in
            try Row.fetchOne(
                db,
                sql:
                    "SELECT sqlite_compileoption_used('OBJECTGRAPH_SAVE_INDEXES_INSERTS'), sqlite_compileoption_used('ENABLE_FTS5')"
            )
        }
        #expect(answers?[0] == 0)
        #expect(answers?[1] == 1)
    }

    @Test func triggersOfAnOlderBuildAreReplacedWithoutReindexing() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("search.sqlite")
        do {
            let container = try PersistentContainer(model: Self.indexedModel, store: .file(url))
            try fill(container.viewContext)
            // The insert trigger as builds before saves indexed their own rows made it.
            try container.store.database.write { db in
                try db.execute(sql: "DROP TRIGGER Z_Article_FTS_insert")
                try db.execute(
                    sql: """
                        CREATE TRIGGER "Z_Article_FTS_insert" AFTER INSERT ON "Article" BEGIN INSERT INTO \
                        "Z_Article_FTS"(rowid, "title", "author", "body") VALUES (new."Z_PK", new."title", new."author", new."body"); END
                        """)
                // A marker row the index holds but the table does not: a rebuild would drop it.
                try db.execute(sql: "INSERT INTO Z_Article_FTS(rowid, title) VALUES (999, 'marker')")
            }
            try container.store.close()
        }
        let container = try PersistentContainer(model: Self.indexedModel, store: .file(url))
        let sql = try container.store.database.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'Z_Article_FTS_insert'")
        }
        #expect(sql?.contains("OBJECTGRAPH_SAVE_INDEXES_INSERTS") == true)
        let marker = try container.store.database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Z_Article_FTS_docsize WHERE id = 999")
        }
        #expect(marker == 1)
    }

    @Test func anExistingStoreGetsTheIndexAtOpenAndLostTriggersAreRebuilt() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("search.sqlite")
        do {
            let container = try PersistentContainer(model: Self.plainModel, store: .file(url))
            try fill(container.viewContext)
            try container.store.close()
        }
        do {
            let container = try PersistentContainer(model: Self.indexedModel, store: .file(url))
            #expect(try titles(container.viewContext, "swift") == ["Swift on Linux", "Rust and Swift"])
            // A migration that rebuilds the table drops its triggers; rows written meanwhile…
            try container.store.database.write { db in
                for name in ["Z_Article_FTS_insert", "Z_Article_FTS_delete", "Z_Article_FTS_update"] {
                    try db.execute(sql: "DROP TRIGGER \(name)")
                }
                try db.execute(
                    sql:
                        "INSERT INTO Article (Z_PK, Z_OPT, title, read, position) VALUES (50, 1, 'Written without triggers', 0, 50)"
                )
            }
            try container.store.close()
        }
        do {
            // …are indexed at the next open.
            let container = try PersistentContainer(model: Self.indexedModel, store: .file(url))
            #expect(try titles(container.viewContext, "triggers") == ["Written without triggers"])
            let triggers = try container.store.database.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
            }
            #expect(triggers == ["Z_Article_FTS_delete", "Z_Article_FTS_insert", "Z_Article_FTS_update"])
            try container.store.close()
        }
        do {
            // A model without the index drops it.
            let container = try PersistentContainer(model: Self.plainModel, store: .file(url))
            let tables = try container.store.database.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'Z_Article_FTS%'")
            }
            #expect(tables.isEmpty)
            _ = container.viewContext.performAndWait {
                #expect(throws: ObjectGraphError.noFullTextIndex(entity: "Article")) {
                    try container.viewContext.fetch(FetchRequest<Article>().matching("swift"))
                }
            }
        }
    }

    @Test func aMigrationThatRebuildsTheTableKeepsTheIndex() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("search.sqlite")
        do {
            let container = try PersistentContainer(model: Self.indexedModel, store: .file(url))
            try fill(container.viewContext)
            try container.store.close()
        }
        // Version 2 adds an attribute: the table is rebuilt (and its triggers go with the old one).
        let v2 = try ManagedObjectModel(
            name: "Search", version: 2,
            entities: [
                EntityDescription(
                    "Article", managedClass: Article.self,
                    attributes: [
                        .string("title"), .string("author"), .string("body"), .bool("read", defaultValue: false),
                        .integer("position", defaultValue: 0), .string("language", optional: false, defaultValue: "en"),
                    ],
                    fullTextIndex: FullTextIndexDescription(attributes: ["title", "author", "body"]))
            ])
        let container = try PersistentContainer(
            model: v2, store: .file(url), migrator: try MigrationPlan(versions: [Self.indexedModel, v2]))
        #expect(try titles(container.viewContext, "swift") == ["Swift on Linux", "Rust and Swift"])
        try container.viewContext.performAndWait { () throws in
            let article = container.viewContext.insert(Article.self)
            article.title = "Swift after the migration"
            article.position = 9
            try container.viewContext.save()
        }
        #expect(try titles(container.viewContext, "swift") == ["Swift on Linux", "Rust and Swift", "Swift after the migration"])
    }

    @Test func batchUpdatesAndDeletesKeepTheIndex() throws {
        let container = try PersistentContainer(model: Self.indexedModel, store: .inMemory)
        let ctx = container.viewContext
        try fill(ctx)
        try ctx.performAndWait { () throws in
            try ctx.execute(
                BatchUpdateRequest(
                    entityName: "Article", predicate: try ObjectPredicate(format: "position == 4"),
                    propertiesToUpdate: ["title": .string("Swift everywhere")]))
            try ctx.execute(BatchDeleteRequest(entityName: "Article", predicate: try ObjectPredicate(format: "position == 0")))
        }
        #expect(try titles(ctx, "swift") == ["Rust and Swift", "Swift everywhere"])
    }

    @Test func invalidIndexesAreRefused() {
        #expect(throws: ModelError.self) {
            try ManagedObjectModel(
                name: "Bad", version: 1,
                entities: [
                    EntityDescription(
                        "A", attributes: [.integer("n")], fullTextIndex: FullTextIndexDescription(attributes: ["n"]))
                ])
        }
        #expect(throws: ModelError.self) {
            try ManagedObjectModel(
                name: "Bad", version: 1,
                entities: [
                    EntityDescription("A", attributes: [.string("s")], fullTextIndex: FullTextIndexDescription(attributes: ["t"]))
                ])
        }
    }
}
