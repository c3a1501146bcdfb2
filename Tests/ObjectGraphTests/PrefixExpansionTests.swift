import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// A search word's prefix is asked as the few words of the index it begins
/// (PrefixExpansion.swift): same matches as the prefix, read lazily.
@Suite struct PrefixExpansionTests {
    static let titles = [
        "Linux news", "linuxes compared", "The LinuxFoundation report", "lin", "Kernel release", "kernels released",
        "Café release notes", "cafeteria menu", "releases of the week", "nothing",
    ]

    func makeStore(_ location: StoreLocation = .inMemory) throws -> PersistentContainer {
        let container = try PersistentContainer(model: FullTextSearchTests.indexedModel, store: location)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            for (n, title) in Self.titles.enumerated() {
                let article = ctx.insert(Article.self)
                article.title = title
                article.position = Int64(n)
            }
            // Many words beginning "word": more than an expansion takes.
            for n in 0...FullTextSearch.maximumPrefixExpansion {
                let article = ctx.insert(Article.self)
                article.title = "word\(n) filler"
                article.position = Int64(100 + n)
            }
            try ctx.save()
        }
        return container
    }

    func expanded(_ text: String, in container: PersistentContainer) throws -> String? {
        try container.store.database.read { db in
            try FullTextSearch.expandedMatchExpression(for: text, vocabulary: "Z_Article_FTS_vocab", in: db)
        }
    }

    /// The keys FTS5 matches for `expression`.
    func keys(_ expression: String, in container: PersistentContainer) throws -> [Int64] {
        try container.store.database.read { db in
            try Int64.fetchAll(
                db, sql: "SELECT rowid FROM Z_Article_FTS WHERE Z_Article_FTS MATCH ? ORDER BY rowid DESC",
                arguments: [expression])
        }
    }

    @Test func fewLongerWordsAreListedManyStayAPrefix() throws {
        let container = try makeStore()
        #expect(try expanded("Linux", in: container) == #"("linux" OR "linuxes" OR "linuxfoundation")"#)
        #expect(try expanded("nothing", in: container) == #""nothing""#)
        #expect(
            try expanded("kern REL", in: container)
                == #"("kern" OR "kernel" OR "kernels") AND ("rel" OR "release" OR "released" OR "releases")"#)
        #expect(try expanded("word", in: container) == #""word"*"#)
        #expect(try expanded("café", in: container) == #""café"*"#)  // not ASCII: as the tokenizer folds it
        #expect(try expanded("\"release notes\" caf", in: container) == #""release notes" AND ("caf" OR "cafe" OR "cafeteria")"#)
        #expect(try expanded("--", in: container) == nil)
    }

    @Test func expandedSearchesMatchWhatThePrefixMatches() throws {
        let container = try makeStore()
        for text in [
            "linux", "Linux", "lin", "l", "kern rel", "release", "releases", "caf", "café", "word", "word1", "the",
            "\"kernel release\"", "zzz", "notes caf", "n",
        ] {
            let plain = try #require(FullTextSearch.matchExpression(for: text))
            let wide = try #require(try expanded(text, in: container))
            #expect(try keys(wide, in: container) == keys(plain, in: container), "\(text): \(wide)")
        }
        // And through a fetch, newest first with a limit (the search window's path).
        let ctx = container.viewContext
        let found = try ctx.performAndWait { () throws in
            var request = FetchRequest<Article>(
                sortDescriptors: [ObjectSortDescriptor("position", ascending: false)], fetchLimit: 3)
            request.searchText = "lin"
            return try ctx.fetch(request).compactMap(\.title)
        }
        #expect(found == ["lin", "The LinuxFoundation report", "linuxes compared"])
    }

    @Test func theVocabularyIsMadeWithTheIndexAndForAnOlderStore() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("vocab.sqlite")
        do {
            let container = try PersistentContainer(model: FullTextSearchTests.indexedModel, store: .file(url))
            try container.store.database.write { db in try db.execute(sql: "DROP TABLE Z_Article_FTS_vocab") }
            try container.store.close()
        }
        let container = try PersistentContainer(model: FullTextSearchTests.indexedModel, store: .file(url))
        let exists = try container.store.database.read { db in try db.tableExists("Z_Article_FTS_vocab") }
        #expect(exists)
    }

    /// A store made when the vocabulary was of type `row` (which counts every entry of a
    /// word before returning it) gets the `instance` one at open, and expands the same.
    @Test func anOlderRowVocabularyIsMadeAgainAsInstances() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("vocab-row.sqlite")
        do {
            let container = try makeStore(.file(url))
            try container.store.database.write { db in
                try db.execute(sql: "DROP TABLE Z_Article_FTS_vocab")
                try db.execute(sql: "CREATE VIRTUAL TABLE \"Z_Article_FTS_vocab\" USING fts5vocab(\"Z_Article_FTS\", 'row')")
            }
            #expect(
                try expanded("kern rel", in: container)
                    == #"("kern" OR "kernel" OR "kernels") AND ("rel" OR "release" OR "released" OR "releases")"#)
            try container.store.close()
        }
        let container = try PersistentContainer(model: FullTextSearchTests.indexedModel, store: .file(url))
        let sql = try container.store.database.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'Z_Article_FTS_vocab'")
        }
        #expect(sql?.hasSuffix("fts5vocab(\"Z_Article_FTS\", 'instance')") == true)
        #expect(
            try expanded("kern rel", in: container)
                == #"("kern" OR "kernel" OR "kernels") AND ("rel" OR "release" OR "released" OR "releases")"#)
        #expect(try expanded("Linux", in: container) == #"("linux" OR "linuxes" OR "linuxfoundation")"#)
        // Opened again, nothing is left to do.
        let pending = try container.store.database.read { db in
            try FullTextIndexSchema.needsWork(model: FullTextSearchTests.indexedModel, in: db)
        }
        #expect(!pending)
    }
}
