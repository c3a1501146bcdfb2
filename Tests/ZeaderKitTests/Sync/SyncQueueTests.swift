import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// The queue of local changes: filled in the same save as each change, only when the
/// store has a sync account.
@Suite("Sync queue")
struct SyncQueueTests {
    /// A store with one feed of `items` synced items (server ids "1"…), with or without an account.
    static func store(account: Bool, items: Int = 3) throws -> (ZeaderStore, ManagedObjectContext) {
        let store = try ZeaderStore.inMemory()
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let server = context.insert(Server.self)
            server.url = "http://127.0.0.1/feed.xml"
            server.syncID = "feed/1"
            for n in 1...items {
                let item = context.insert(FeedItem.self)
                item.guid = "g\(n)"
                item.syncID = String(n)
                item.server = server
            }
            if account {
                let row = context.insert(SyncAccount.self)
                row.apiURL = "http://127.0.0.1:1/api/greader.php"
                row.user = "alice"
            }
            try context.save()
        }
        return (store, context)
    }

    @Test func withoutAnAccountNothingIsQueued() throws {
        let (_, context) = try Self.store(account: false)
        try context.performAndWait {
            let items = try FeedItem.findAll(in: context)
            try ItemMarking.setRead([items[0].objectID], true, in: context)
            try ItemMarking.setFlagged([items[1].objectID], true, in: context)
            try ItemMarking.markRead(.all, in: context)
            try FeedSubscription.add(url: "http://127.0.0.1/other.xml", in: context)
            try context.save()
            #expect(try SyncChange.count(in: context) == 0)
            #expect(
                try FeedItem.count(
                    where: try ObjectGraph.Predicate(format: "syncReadPending == YES OR syncFlagPending == YES"), in: context)
                    == 0)
        }
    }

    @Test func readFlagAndMarkAllAreMarkedPendingInTheSameSave() throws {
        let (_, context) = try Self.store(account: true)
        try context.performAndWait {
            let items = try FeedItem.findAll(sortedBy: "guid", in: context)
            try ItemMarking.setFlagged([items[1].objectID], true, in: context)
            #expect(try SyncQueue.pendingCount(in: context) == 1)
            try ItemMarking.markRead(.all, in: context)
            #expect(try SyncQueue.pendingCount(in: context) == 3)
            #expect(items.allSatisfy { $0.syncReadPending })
            #expect(items[1].syncFlagPending)
        }
    }

    @Test func subscribeThenUnsubscribeBeforeASyncLeavesNothing() throws {
        let (_, context) = try Self.store(account: true)
        try context.performAndWait {
            let server = try FeedSubscription.add(url: "http://127.0.0.1/new.xml", in: context)
            try context.save()
            #expect(try SyncChange.count(in: context) == 1)
            try FeedEditing.tag(server.objectID, add: ["news"], in: context)
            #expect(try SyncChange.count(in: context) == 1)  // the subscribe carries the tags
            try FeedEditing.delete(server.objectID, in: context)
            #expect(try SyncChange.count(in: context) == 0)
            // A synced feed removed: one unsubscribe, with its server id.
            let synced = try FeedEditing.server(url: "http://127.0.0.1/feed.xml", in: context)
            try FeedEditing.delete(synced.objectID, in: context)
            let changes = try SyncChange.findAll(in: context)
            #expect(changes.map(\.kind) == ["unsubscribe"])
            #expect(changes.first?.feedSyncID == "feed/1")
        }
    }

    @Test func itemIDsInEitherFormBecomeDecimal() {
        #expect(GReaderClient.decimalID("tag:google.com,2005:reader/item/000000000000001f") == "31")
        #expect(GReaderClient.decimalID("1795539385141732") == "1795539385141732")
        #expect(GReaderClient.decimalID("tag:google.com,2005:reader/item/zz") == nil)
    }
}
