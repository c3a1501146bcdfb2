import Foundation
import GRDB
import ObjectGraph
import Testing

@testable import ZeaderKit

/// The lists a screen or a page shows — unread, flagged, one feed's, everything, newest
/// first with a limit — are read through an index in their order: SQLite's plan has no
/// scan of the item table and no sorting step (`USE TEMP B-TREE`), so a page costs its
/// length whatever the store's size (issue 18).
@Suite struct ItemListIndexTests {
    func plan(_ predicate: ObjectPredicate?, in store: ZeaderStore, idsOnly: Bool = false) throws -> [String] {
        let context = store.container.viewContext
        return try context.performAndWait { () throws in
            try context.queryPlan(for: ItemOrder.newestFirst(predicate, limit: 50), idsOnly: idsOnly)
        }
    }

    func makeStore() throws -> (ZeaderStore, Int64) {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        let key = try context.performAndWait { () throws -> Int64 in
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            for n in 0..<20 {
                let item = context.insert(FeedItem.self)
                item.guid = "\(n)"
                item.read = n % 3 == 0
                item.flagged = n % 5 == 0
                item.sortDate = Date(timeIntervalSince1970: Double(n))
                item.server = server
            }
            try context.save()
            return server.objectID.primaryKey!
        }
        return (store, key)
    }

    @Test func pagesOfTheListsAreReadThroughAnIndexWithoutSorting() throws {
        let (store, key) = try makeStore()
        let lists: [(String, ObjectPredicate?, String)] = [
            ("unread", try ObjectPredicate(format: "read == NO"), "Z_FeedItem_read_sortDate"),
            ("flagged", try ObjectPredicate(format: "flagged == YES"), ZeaderModel.itemIndexName(ZeaderModel.flaggedItemsIndex)),
            (
                "one feed", .comparison(.keyPath("server"), .equalTo, .objectReference(entity: "Server", rawValue: key)),
                "Z_FeedItem_server_sortDate"
            ),
            ("everything", nil, "Z_FeedItem_sortDate"),
        ]
        for (name, predicate, index) in lists {
            for idsOnly in [false, true] {
                let steps = try plan(predicate, in: store, idsOnly: idsOnly)
                #expect(steps.count == 1, "\(name): \(steps)")
                #expect(steps.allSatisfy { $0.contains("USING") && $0.contains("INDEX \(index)") }, "\(name): \(steps)")
                #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(name): \(steps)")
            }
            // With IDs only, the index alone answers (covering).
            #expect(try plan(predicate, in: store, idsOnly: true).allSatisfy { $0.contains("COVERING INDEX") }, "\(name)")
        }
    }

    @Test func aPageOfSearchResultsIsReadFromTheMostRecentMatches() throws {
        // Fewer matches than ObjectGraph's window of recent matches: the page is sorted from
        // them (FTS5 reads its lists from the newest key down and stops), not found by
        // walking the date index, which visits every item when a word matches few.
        let (store, _) = try makeStore()
        let context = store.container.viewContext
        for predicate in [nil, try ObjectPredicate(format: "read == NO")] as [ObjectPredicate?] {
            let steps = try context.performAndWait { () throws in
                try context.queryPlan(for: ItemOrder.newestFirst(predicate, searchText: "linux", limit: 50))
            }
            #expect(steps.first?.contains("CO-ROUTINE m") == true, "\(steps)")
            #expect(steps.contains { $0.contains("SCAN ZSEARCH VIRTUAL TABLE") }, "\(steps)")
            #expect(steps.contains { $0.contains("SEARCH t0 USING INTEGER PRIMARY KEY") }, "\(steps)")
            #expect(!steps.contains { $0.contains("SCAN t0") }, "\(steps)")
        }
    }

    /// Numbers, flags, dates and keys are stored before the (long) strings, so reading an
    /// item's date or flags, or marking it read, does not go through its content's overflow
    /// pages.
    @Test func anItemsFlagsAndDatesComeBeforeItsTexts() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-columns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("store.sqlite")
        try ZeaderStore.open(at: url).container.store.close()
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        let columns = try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('FeedItem')") }
        let firstText = try #require(columns.firstIndex(of: "guid"))
        for name in ["read", "flagged", "sortDate", "published", "server"] {
            #expect(try #require(columns.firstIndex(of: name)) < firstText, "\(columns)")
        }
        // The content (the long text) is in its own table since model version 4 (ItemBodyTests).
        #expect(!columns.contains("content"), "\(columns)")
    }

    /// Model version 4 dropped FeedItem's single-column `flagged` and `server` indexes: the
    /// look-ups they served go through the list indexes and the `(server, guid)` constraint.
    @Test func lookUpsOfTheDroppedIndexesStillUseAnIndex() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-dropped-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("store.sqlite")
        try ZeaderStore.open(at: url).container.store.close()
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        let indexes = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'FeedItem'")
        }
        #expect(!indexes.contains("Z_FeedItem_flagged") && !indexes.contains("Z_FeedItem_server"), "\(indexes)")
        let queries = [
            // A feed's items (delete rules, counts, retention), by feed and guid (refresh).
            "SELECT Z_PK FROM FeedItem WHERE server = 1",
            "SELECT Z_PK, server FROM FeedItem WHERE server IN (SELECT value FROM json_each('[1,2]'))",
            "SELECT COUNT(*) FROM FeedItem WHERE server = 1 AND read = 0",
            "SELECT Z_PK FROM FeedItem WHERE server = 1 AND guid IN ('a', 'b')",
            // Flagged items (the smart feed's counts), as ObjectGraph compiles `flagged == YES`:
            // the partial index of the flagged items (model version 6).
            "SELECT COUNT(*) FROM FeedItem WHERE flagged IS 1",
            "SELECT COUNT(*) FROM FeedItem WHERE read IS 0 AND flagged IS 1",
            // An item's body, and the body's item.
            "SELECT Z_PK FROM FeedItem WHERE body = 1",
        ]
        for sql in queries {
            let plan = try queue.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
            }
            #expect(plan.allSatisfy { !$0.hasPrefix("SCAN FeedItem") || $0.contains("INDEX") }, "\(sql): \(plan)")
            #expect(plan.contains { $0.contains("INDEX") }, "\(sql): \(plan)")
        }
    }

    @Test func aFeedsItemsOnTheCommandLineGoThroughTheFeedsKey() throws {
        let (store, _) = try makeStore()
        let library = FeedLibrary(store: store)
        let items = try library.items(ItemQuery(feed: "https://a.example/feed", unreadOnly: true, limit: 3))
        #expect(items.map(\.id) == ["19", "17", "16"])
        #expect(throws: ZeaderError.notSubscribed("https://b.example/feed")) {
            try library.items(ItemQuery(feed: "https://b.example/feed"))
        }
    }
}

/// ``ItemOrder/forEachPage(matching:searchText:limit:pageSize:timeLimit:in:_:)`` gives the
/// list ``ItemOrder/items(matching:limit:timeLimit:in:)`` gives, page by page: ties of a
/// date split across pages, undated items last, limits, filters and search.
@Suite struct ItemPagingTests {
    @Test func pagesJoinIntoTheWholeList() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            for n in 0..<103 {
                let item = context.insert(FeedItem.self)
                item.guid = "\(n)"
                item.title = n % 2 == 0 ? "common even" : "common odd"
                item.read = n % 3 == 0
                // Ties in sevens, and every eleventh item undated.
                item.sortDate = n % 11 == 0 ? nil : Date(timeIntervalSince1970: Double(n / 7))
                item.server = server
            }
            try context.save()
        }
        let unread = try ObjectPredicate(format: "read == NO")
        try context.performAndWait { () throws in
            for (filter, search, limit) in [
                (nil, nil, nil), (unread, nil, nil), (unread, nil, 40), (nil, "even", nil), (nil, nil, 5),
            ]
                as [(ObjectPredicate?, String?, Int?)]
            {
                let expected =
                    if let search {
                        try ItemSearch.itemIDs(search, filter: filter, limit: limit, in: context)
                    } else {
                        try ItemOrder.itemIDs(matching: filter, limit: limit, in: context)
                    }
                for pageSize in [1, 3, 7, 10, 500] {
                    var pages: [[ObjectID]] = []
                    try ItemOrder.forEachPage(
                        matching: filter, searchText: search, limit: limit, pageSize: pageSize, in: context
                    ) { pages.append($0.map(\.objectID)) }
                    #expect(pages.flatMap { $0 } == expected, "\(String(describing: filter)) \(search ?? "") \(pageSize)")
                    #expect(pages.allSatisfy { !$0.isEmpty && $0.count <= pageSize })
                }
            }
        }
        // The command line's JSON listing walks the same pages.
        var streamed: [String] = []
        try FeedLibrary(store: store).forEachItems(ItemQuery(unreadOnly: true), pageSize: 4) { streamed += $0.map(\.id) }
        #expect(streamed == (try FeedLibrary(store: store).items(ItemQuery(unreadOnly: true))).map(\.id))
        #expect(streamed.count == 103 - 35)
    }

    @Test func unsavedItemsComeInTheSameOrder() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            var items: [FeedItem] = []
            for n in 0..<6 {
                let item = context.insert(FeedItem.self)
                item.guid = "\(n)"
                item.sortDate = n == 5 ? nil : Date(timeIntervalSince1970: Double(n / 2))
                item.server = server
                items.append(item)
                if n == 2 { try context.save() }
            }
            // Saved 0-2, unsaved 3-5: the fetch merges both in the one order.
            let expected = items.sorted(by: ItemOrder.precedes).map(\.objectID)
            #expect(try ItemOrder.itemIDs(in: context) == expected)
            #expect(try ItemOrder.itemIDs(limit: 2, in: context) == Array(expected.prefix(2)))
        }
    }
}
