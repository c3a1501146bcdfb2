import Foundation
import GRDB
import ObjectGraph
import Testing

@testable import ZeaderKit

/// "Mark read" on the command line (no undo manager) works in batches, so that its memory
/// does not grow with the number of unread items: each batch keeps the feeds' unread
/// counts, the smart feeds' kept counts and the sync marks as one big update would, and
/// finds its rows through an index.
@Suite("Mark read in batches", .serialized)
struct ItemMarkingBatchTests {
    /// Two feeds of 13 and 12 items (two thirds unread, every fifth flagged, some titled
    /// "Swift"), and a sync account so that marking read sets the pending marks.
    static func makeStore() throws -> (ZeaderStore, [ObjectID]) {
        let store = try ZeaderStore.inMemory()
        let context = store.container.newBackgroundContext()
        let servers = try context.performAndWait { () throws -> [ObjectID] in
            var servers: [Server] = []
            for (n, count) in [13, 12].enumerated() {
                let server = context.insert(Server.self)
                server.url = "https://\(n).example/feed"
                server.title = n == 1 ? "Two" : "One"
                server.displayOrder = Int64(n)
                for i in 0..<count {
                    let item = context.insert(FeedItem.self)
                    item.guid = "\(n)-\(i)"
                    item.syncID = "\(n * 100 + i)"
                    item.title = i % 4 == 0 ? "Swift \(i)" : "Item \(i)"
                    item.read = i % 3 == 0
                    item.flagged = i % 5 == 0
                    item.sortDate = Date(timeIntervalSince1970: Double(n * 100 + i))
                    item.server = server
                }
                servers.append(server)
            }
            let account = context.insert(SyncAccount.self)
            account.apiURL = "http://127.0.0.1:1/api/greader.php"
            account.user = "alice"
            account.name = "127.0.0.1"
            for server in servers { server.account = account.name }
            try context.save()
            return servers.map(\.objectID)
        }
        return (store, servers)
    }

    static func unreadKeys(_ context: ManagedObjectContext) throws -> Set<Int64> {
        Set(try FeedItem.findAll(where: try ObjectPredicate(format: "read == NO"), in: context).compactMap(\.objectID.primaryKey))
    }

    static func pendingKeys(_ context: ManagedObjectContext) throws -> Set<Int64> {
        Set(
            try FeedItem.findAll(where: try ObjectPredicate(format: "syncReadPending == YES"), in: context).compactMap(
                \.objectID.primaryKey))
    }

    @Test func batchesKeepCountsSyncMarksAndSmartFeedCounts() throws {
        let (store, servers) = try Self.makeStore()
        try SmartFeedCountTests.check(store, "before")
        let context = store.container.newBackgroundContext(name: "command line")  // no undo manager
        let (firstFeed, everything) = try context.performAndWait { () throws -> (Set<Int64>, Set<Int64>) in
            let all = try Self.unreadKeys(context)
            let first = Set(
                try FeedItem.findAll(
                    where: try ObjectPredicate(format: "read == NO AND server == %@", servers[0]), in: context
                ).compactMap(\.objectID.primaryKey))
            return (first, all)
        }
        #expect(firstFeed.count == 8 && everything.count == 16)

        // One feed in batches of 3 (8 items: 3 + 3 + 2), then the rest in batches of 4 (8: 4 + 4 + an empty one).
        try context.performAndWait { () throws in
            #expect(try ItemMarking.markRead(.feed(servers[0]), in: context, batchSize: 3) == 8)
            #expect(try Self.unreadKeys(context) == everything.subtracting(firstFeed))
            #expect(try Self.pendingKeys(context) == firstFeed)
            #expect(try FeedEditing.servers(in: context).map(\.unreadCount) == [0, 8])
        }
        try SmartFeedCountTests.check(store, "one feed read in batches")
        try context.performAndWait { () throws in
            #expect(try ItemMarking.markRead(.all, in: context, batchSize: 4) == 8)
            #expect(try Self.unreadKeys(context).isEmpty)
            #expect(try Self.pendingKeys(context) == everything)
            #expect(try FeedEditing.servers(in: context).map(\.unreadCount) == [0, 0])
            #expect(try SyncQueue.pendingCount(in: context) == 17)  // the items and one mark (all replaced feed)
            #expect(try ItemMarking.markRead(.all, in: context, batchSize: 4) == 0)
        }
        try SmartFeedCountTests.check(store, "everything read in batches")

        // The reader's view context (an undo manager): one step, undone whole.
        let view = store.container.viewContext
        try view.performAndWait { () throws in
            view.undoManager = ContextUndoManager()
            try view.execute(
                BatchUpdateRequest(entityName: "FeedItem", predicate: nil, propertiesToUpdate: ["read": .bool(false)]))
            view.undoManager = ContextUndoManager()
            #expect(try ItemMarking.markRead(.all, in: view, batchSize: 2) == 25)
            #expect(try Self.unreadKeys(view).isEmpty)
            #expect(view.undo())
            #expect(try Self.unreadKeys(view).count == 25)
        }
        try SmartFeedCountTests.check(store, "the reader's mark all read, undone")
    }

    /// Each batch's query reads an index from where the unread items start: no scan of
    /// the item table, no sort of every match (which would make each batch cost the whole).
    @Test func eachBatchFindsItsRowsThroughAnIndex() throws {
        let (store, servers) = try Self.makeStore()
        let context = store.container.newBackgroundContext(name: "command line")
        let (_, plans) = try SmartFeedCountTests.tracingStatements(of: store) {
            try context.performAndWait { () throws in
                #expect(try ItemMarking.markRead(.feed(servers[1]), in: context, batchSize: 3) == 8)
                #expect(try ItemMarking.markRead(.all, in: context, batchSize: 3) == 8)
            }
        }
        let batches = plans.filter { $0.0.contains("LIMIT 3") }
        #expect(batches.count == 6, "\(plans.map(\.0))")
        for (sql, plan) in batches {
            #expect(plan.contains { $0.contains("USING") && $0.contains("INDEX") }, "\(sql): \(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(sql): \(plan)")
        }
    }
}
