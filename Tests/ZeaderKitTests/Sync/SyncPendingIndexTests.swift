import Foundation
import GRDB
import ObjectGraph
import Testing

@testable import ZeaderKit

/// The items with a read or flag change not yet pushed (`sync status`'s count, each sync's
/// push) are found through the index of the marked items (model version 5; partial since 6):
/// SQLite's plan reads the index, never the whole item table, and finds the same items the
/// plain condition finds.
@Suite("Sync: the pending marks' index")
struct SyncPendingIndexTests {
    /// The plain condition the indexed predicate must agree with.
    static let plain = "syncID != nil AND (syncReadPending == YES OR syncFlagPending == YES)"

    @Test func pendingItemsAreFoundThroughTheIndexNotByAScan() throws {
        let (store, context) = try SyncQueueTests.store(account: true, items: 40)
        _ = store
        try context.performAndWait {
            for idsOnly in [false, true] {
                let steps = try context.queryPlan(
                    for: FetchRequest<FeedItem>(predicate: SyncQueue.pendingItems), idsOnly: idsOnly)
                #expect(
                    steps.contains { $0.contains("INDEX \(ZeaderModel.itemIndexName(ZeaderModel.pendingMarksIndex))") },
                    "\(steps)")
                #expect(!steps.contains { $0.hasPrefix("SCAN") }, "\(steps)")
            }
        }
    }

    @Test func theIndexedPredicateFindsWhatThePlainConditionFinds() throws {
        let (_, context) = try SyncQueueTests.store(account: true, items: 12)
        try context.performAndWait {
            let items = try FeedItem.findAll(sortedBy: "guid", in: context)
            // Every combination of the two marks, on synced items and on one not synced.
            for (n, item) in items.enumerated() {
                item.syncReadPending = n % 2 == 1
                item.syncFlagPending = n % 3 == 1
                if n == 7 { item.syncID = nil }
            }
            try context.save()
            let indexed = Set(try context.fetch(FetchRequest<FeedItem>(predicate: SyncQueue.pendingItems)).map(\.guid))
            let plain = Set(try FeedItem.findAll(where: try ObjectPredicate(format: Self.plain), in: context).map(\.guid))
            #expect(indexed == plain)
            #expect(indexed.count == 7)  // n in 1, 3, 4, 5, 9, 10, 11 (7 is not synced)
            #expect(try SyncQueue.pendingCount(in: context) == 7)
        }
    }

    @Test("a version 4 store gains the index when it is opened, keeping its pending marks")
    func aVersion4StoreGainsTheIndex() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("z.sqlite")
        let old = try PersistentContainer(model: ZeaderModel.version4, store: .file(url))
        let context = old.newBackgroundContext(name: "v4")
        try context.performAndWait {
            let server = context.insert(Server.self)
            server.url = "https://example.org/feed"
            for n in 1...3 {
                let item = context.insert(FeedItem.self)
                item.guid = "g\(n)"
                item.syncID = String(n)
                item.syncFlagPending = n == 2
                item.server = server
            }
            let account = context.insert(SyncAccount.self)
            account.apiURL = "http://127.0.0.1:1/api/greader.php"
            account.user = "alice"
            try context.save()
        }
        try old.store.close()

        let store = try ZeaderStore.open(at: url)
        #expect(try store.container.store.metadata(forKey: "objectgraph.version") == String(ZeaderModel.current.version))
        #expect(try FeedSync(store: store).status()?.pending == 1)
        try store.container.store.close()
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        let indexes = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'FeedItem'")
        }
        #expect(indexes.contains(ZeaderModel.itemIndexName(ZeaderModel.pendingMarksIndex)), "\(indexes)")
    }
}
