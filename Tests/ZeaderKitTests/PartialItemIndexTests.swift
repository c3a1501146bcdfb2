import Feeds
import Foundation
import GRDB
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Model version 6's partial indexes of FeedItem (``ZeaderModel/rowsVersion6Additions(to:)``):
/// the look-ups they serve are read through them, a refresh's new items get no entry in them,
/// and a version 5 store gains them when opened and answers its lists as before.
@Suite struct PartialItemIndexTests {
    static let partialIndexes = [
        ZeaderModel.flaggedItemsIndex, ZeaderModel.queuedEnclosuresIndex, ZeaderModel.syncedItemsIndex,
        ZeaderModel.pendingMarksIndex,
    ]

    /// Items 0..<n of one feed: every third flagged, every fourth queued (with an enclosure),
    /// every other synced, every fifth synced one with a pending mark.
    static func fill(_ context: ManagedObjectContext, count: Int = 30) throws {
        let server = context.insert(Server.self)
        server.url = "https://a.example/feed"
        for n in 0..<count {
            let item = context.insert(FeedItem.self)
            item.guid = "g\(n)"
            item.server = server
            item.sortDate = Date(timeIntervalSince1970: Double(n * 7 % count) * 60)
            item.read = n % 2 == 1
            item.flagged = n % 3 == 0
            if n % 4 == 0 {
                item.enclosureURL = "https://a.example/\(n).mp3"
                item.enclosureQueued = true
            }
            if n % 2 == 0 {
                item.syncID = String(1000 + n)
                item.syncReadPending = n % 10 == 0
            }
        }
        try context.save()
    }

    @Test func theLookUpsTheyServeAreReadThroughThem() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            try Self.fill(context)
            let name = ZeaderModel.itemIndexName
            let requests: [(ObjectGraph.FetchRequest<FeedItem>, String)] = [
                (
                    ObjectGraph.FetchRequest(
                        predicate: try ObjectPredicate(format: "enclosureQueued == YES"),
                        sortDescriptors: [ObjectSortDescriptor("sortDate"), ObjectSortDescriptor("guid")]),
                    name(ZeaderModel.queuedEnclosuresIndex)
                ),
                (
                    ObjectGraph.FetchRequest(predicate: try ObjectPredicate(format: "syncID IN %@", ["1002", "1004"])),
                    name(ZeaderModel.syncedItemsIndex)
                ),
                (
                    ObjectGraph.FetchRequest(
                        predicate: try ObjectPredicate(format: "syncID != nil AND syncID > %@", "1010"),
                        sortDescriptors: [ObjectSortDescriptor("syncID")]),
                    name(ZeaderModel.syncedItemsIndex)
                ),
                (ObjectGraph.FetchRequest(predicate: SyncQueue.pendingItems), name(ZeaderModel.pendingMarksIndex)),
                (
                    ItemOrder.newestFirst(try ObjectPredicate(format: "flagged == YES"), limit: 5),
                    name(ZeaderModel.flaggedItemsIndex)
                ),
            ]
            for (request, index) in requests {
                let steps = try context.queryPlan(for: request)
                #expect(
                    steps.contains { $0.contains("INDEX \(index)") },
                    "\(request.predicate.map(String.init(describing:)) ?? ""): \(steps)")
                #expect(!steps.contains { $0.hasPrefix("SCAN t0") && !$0.contains("INDEX") }, "\(steps)")
            }
            #expect(try PodcastQueue.episodes(in: context).count == 8)
            #expect(try SyncQueue.pendingCount(in: context) == 3)
        }
    }

    @Test func aRefreshedItemHasNoEntryInThem() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("z.sqlite")
        let store = try ZeaderStore.open(at: url)
        let context = store.container.newBackgroundContext(name: "import")
        try context.performAndWait { () throws in
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            let items = (0..<20).map {
                ParsedItem(id: "g\($0)", title: "Item \($0)", published: Date(timeIntervalSince1970: Double($0)))
            }
            _ = try ItemImport.upsert(items, into: server, in: context, now: Date())
            try context.save()
        }
        try store.container.store.close()
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        try queue.read { (db: Database) throws in
            // An index's entries: the cells of its b-tree's leaf pages (SQLite's `dbstat`).
            func entries(_ index: String) throws -> Int? {
                try Int.fetchOne(
                    db, sql: "SELECT SUM(ncell) FROM dbstat WHERE name = ? AND pagetype = 'leaf'", arguments: [index])
            }
            #expect(try entries("Z_FeedItem_server_sortDate") == 20)
            for index in Self.partialIndexes {
                #expect(try entries(ZeaderModel.itemIndexName(index)) == 0, "\(index)")
            }
        }
    }

    @Test("a version 5 store gains the partial indexes when opened and lists the same items")
    func aVersion5StoreGainsThem() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("z.sqlite")
        let old = try PersistentContainer(model: ZeaderModel.version5, store: .file(url))
        try old.viewContext.performAndWait { () throws in
            try Self.fill(old.viewContext)
            let account = old.viewContext.insert(SyncAccount.self)
            account.apiURL = "http://127.0.0.1:1/api/greader.php"
            account.user = "alice"
            try old.viewContext.save()
        }
        try old.store.close()

        let store = try ZeaderStore.open(at: url)
        #expect(try store.container.store.metadata(forKey: "objectgraph.version") == String(ZeaderModel.current.version))
        let library = FeedLibrary(store: store)
        let flagged = try library.items(ItemQuery(flaggedOnly: true, limit: 4)).map(\.id)
        // Flagged: n % 3 == 0, newest first by n * 7 % 30; listed by their ids (ItemID: the
        // server's for the synced ones, n even).
        let expected = (0..<30).filter { $0 % 3 == 0 }.sorted { ($0 * 7 % 30) > ($1 * 7 % 30) }.prefix(4).map {
            $0 % 2 == 0 ? "greader:\(1000 + $0)" : "g\($0)"
        }
        #expect(flagged == expected)
        #expect(try library.items(ItemQuery(unreadOnly: true)).count == 15)
        #expect(try library.podcasts().count == 8)
        #expect(try FeedSync(store: store).status()?.pending == 3)
        try store.container.store.close()

        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        let indexes = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'FeedItem'")
        }
        for index in Self.partialIndexes { #expect(indexes.contains(ZeaderModel.itemIndexName(index)), "\(indexes)") }
        for gone in [
            "Z_FeedItem_flagged_sortDate", "Z_FeedItem_enclosureQueued", "Z_FeedItem_syncID",
            "Z_FeedItem_syncReadPending_syncFlagPending",
        ] {
            #expect(!indexes.contains(gone), "\(indexes)")
        }
    }
}
