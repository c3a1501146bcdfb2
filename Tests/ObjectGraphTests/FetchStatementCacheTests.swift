import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import ObjectGraph

/// Fetches whose text does not change with their values keep their statement prepared
/// (FetchStatementCache): the same lookup run again with other values must still answer
/// exactly as a fresh statement, and as the predicate evaluated in memory does.
@Suite struct FetchStatementCacheTests {
    /// `folder == %@ AND title IN %@`, built in code as a repeated lookup builds it.
    func lookup(_ titles: [String], in folder: ObjectID) -> ObjectPredicate {
        .comparison(.keyPath("folder"), .equalTo, .object(folder))
            && .comparison(.keyPath("title"), .in, .aggregate(titles.map { .constant(.string($0)) }))
    }

    /// The texts of the statements the store's connection holds prepared.
    func preparedTexts(_ container: PersistentContainer) throws -> [String] {
        try container.store.read { db in
            var texts: [String] = []
            var statement = sqlite3_next_stmt(db.sqliteConnection, nil)
            while let current = statement {
                if let sql = sqlite3_sql(current) { texts.append(String(cString: sql)) }
                statement = sqlite3_next_stmt(db.sqliteConnection, current)
            }
            return texts
        }
    }

    @Test func aReusedLookupWithNewValuesReturnsTheRightRows() throws {
        let container = try TestModel.twoFolders(notes: 400, inA: 200, ratings: 5)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let folders = try ctx.fetch(FetchRequest<Folder>(sortDescriptors: [ObjectSortDescriptor("name")]))
            let all = try ctx.fetch(FetchRequest<Note>())
            // 0, 1 and 10,000 values, present and absent, in each folder, twice over so that the
            // second round runs on kept statements.
            let many = (0..<10_000).map { "note \($0 * 7 % 1_000)" }
            let lists: [[String]] = [[], ["note 3"], ["note 250"], ["nothing"], many, ["note 3", "note 399", "x"]]
            for _ in 0..<2 {
                for folder in folders {
                    for titles in lists {
                        var request = FetchRequest<Note>(predicate: lookup(titles, in: folder.objectID))
                        request.includesPendingChanges = false
                        let fetched = Set(try ctx.fetch(request).map(\.objectID))
                        let expected = Set(try all.filter { try request.predicate!.evaluate(with: $0) }.map(\.objectID))
                        #expect(fetched == expected, "\(titles.prefix(3)) in \(folder.name)")
                        let wanted = Set(titles)
                        #expect(expected.count == all.filter { $0.folder === folder && wanted.contains($0.title ?? "") }.count)
                    }
                }
            }
            // Rows saved after the statement was kept are seen by its next run.
            let late = ctx.insert(Note.self)
            late.title = "late"
            late.folder = folders[0]
            try ctx.save()
            #expect(try ctx.fetch(FetchRequest<Note>(predicate: lookup(["late", "note 3"], in: folders[0].objectID))).count == 2)
            #expect(try ctx.fetch(FetchRequest<Note>(predicate: lookup(["late"], in: folders[1].objectID))).isEmpty)
        }
    }

    @Test func aLookupKeepsItsStatementAndAPageDoesNot() throws {
        let container = try TestModel.twoFolders(notes: 20, inA: 10, ratings: 5)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let folder = try ctx.fetch(FetchRequest<Folder>(predicate: try ObjectPredicate(format: "name == 'A'")))[0]
            let request = FetchRequest<Note>(
                predicate: lookup(["note 1"], in: folder.objectID) && .comparison("body", .equalTo, .null),
                sortDescriptors: [ObjectSortDescriptor("created")])
            #expect(try ctx.fetch(request).map(\.title) == ["note 1"])
            let kept = try preparedTexts(container).filter { $0.contains("\"body\" IS NULL") && $0.contains("json_each") }
            #expect(kept.count == 1)
            #expect(try ctx.fetch(request).map(\.title) == ["note 1"])
            #expect(try ctx.fetch(FetchRequest<Note>(predicate: request.predicate)).map(\.title) == ["note 1"])
            #expect(
                try preparedTexts(container).filter { $0.contains("\"body\" IS NULL") && $0.contains("json_each") }.count == 2)

            var page = request
            page.fetchLimit = 1
            page.fetchOffset = 0
            #expect(try ctx.fetch(page).map(\.title) == ["note 1"])
            #expect(try preparedTexts(container).filter { $0.contains("\"body\" IS NULL") && $0.contains("LIMIT") }.isEmpty)
        }
    }

    @Test func anInListMixingPlainAndEscapedStringsMatchesAsInMemory() throws {
        let container = try TestModel.twoFolders(notes: 4, inA: 4, ratings: 1)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let folder = try ctx.fetch(FetchRequest<Folder>(predicate: try ObjectPredicate(format: "name == 'A'")))[0]
            let tricky = ["quote \" in", "back\\slash", "tab\there", "nul\u{0}inside", "é accent", "line\nbreak", ""]
            // A NUL cannot be stored and compared back through GRDB's string binding (it binds
            // up to the first NUL), so that member is asked for but never stored: it must not
            // disturb the JSON array of the others around it.
            for title in tricky where !title.contains("\u{0}") {
                let note = ctx.insert(Note.self)
                note.title = title
                note.folder = folder
            }
            try ctx.save()
            let all = try ctx.fetch(FetchRequest<Note>())
            // Escaped, unescaped and unbindable-as-JSON members in every order, first and last.
            let lists: [[String]] = [
                tricky, tricky.reversed(), ["nul\u{0}inside"], ["nul\u{0}inside", "note 1"], ["note 2", "nul\u{0}inside"],
                ["note 0", "quote \" in", "note 3", "line\nbreak"], [""], ["absent", "tab\there"],
            ]
            for titles in lists {
                let predicate = lookup(titles, in: folder.objectID)
                let fetched = Set(try ctx.fetch(FetchRequest<Note>(predicate: predicate)).map(\.objectID))
                let expected = Set(try all.filter { try predicate.evaluate(with: $0) }.map(\.objectID))
                #expect(fetched == expected, "\(titles)")
                #expect(expected.count == Set(titles).intersection(all.compactMap(\.title)).count)
            }
        }
    }

    @Test func onlyRequestsWithoutValuesInTheirTextAreAdmitted() {
        func request(limit: Int = 0, offset: Int = 0, search: String? = nil, window: Int? = nil) -> ObjectGraph.AnyFetchRequest {
            ObjectGraph.AnyFetchRequest(
                predicate: nil, sortDescriptors: [], fetchLimit: limit, fetchOffset: offset, searchText: search,
                searchWindow: window)
        }
        let cache = FetchStatementCache()
        let text = "SELECT 1 -- FetchStatementCacheTests"
        #expect(!cache.admits(text, for: request(limit: 5)))
        #expect(!cache.admits(text, for: request(offset: 5)))
        #expect(!cache.admits(text, for: request(search: "word")))
        #expect(!cache.admits(text, for: request(window: 10)))
        #expect(cache.admits(text, for: request()))
    }

    /// A store admits at most ``FetchStatementCache/limit`` texts, and another store's texts
    /// take none of its room (the full suite's stores once filled a process-wide set, and a
    /// later store's lookups were prepared per fetch).
    @Test func eachStoreAdmitsItsOwnTexts() {
        let request = ObjectGraph.AnyFetchRequest(
            predicate: nil, sortDescriptors: [], fetchLimit: 0, fetchOffset: 0, searchText: nil, searchWindow: nil)
        let full = FetchStatementCache()
        for n in 0..<FetchStatementCache.limit { #expect(full.admits("SELECT \(n)", for: request)) }
        #expect(!full.admits("SELECT -1", for: request))
        #expect(full.admits("SELECT 0", for: request))  // an admitted text stays admitted
        #expect(FetchStatementCache().admits("SELECT -1", for: request))
    }
}
