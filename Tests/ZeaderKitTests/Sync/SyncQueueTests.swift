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
            if account { server.account = "127.0.0.1" }
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
                row.name = "127.0.0.1"
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
                    where: try ObjectPredicate(format: "syncReadPending == YES OR syncFlagPending == YES"), in: context)
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
            #expect(try SyncQueue.pendingCount(in: context) == 4)  // the mark, and its items until it is pushed
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

    /// What a sync does once the server accepted the changes: clears the pending marks in
    /// another context, by one batch statement (the view context merges it).
    static func pushed(_ store: ZeaderStore) throws {
        let other = store.container.newBackgroundContext()
        try other.performAndWait {
            _ = try other.execute(
                BatchUpdateRequest(
                    entityName: "FeedItem", predicate: .true,
                    propertiesToUpdate: ["syncReadPending": .bool(false), "syncFlagPending": .bool(false)]))
            for change in try SyncChange.findAll(in: other) { other.delete(change) }
            try other.save()
        }
    }

    @Test func undoAndRedoOfChangesAlreadyPushedArePendingAgain() throws {
        let (store, _) = try Self.store(account: true)
        let view = store.container.viewContext
        let bus = store.container.bus
        // The pushes run in another context between the reader's steps, as a sync does; the
        // view context merges them (its queue runs them after each block).
        let items = try view.performAndWait {
            view.undoManager = ContextUndoManager()
            let items = try FeedItem.findAll(sortedBy: "guid", in: view)
            try ItemMarking.setRead([items[0].objectID], true, in: view)
            try ItemMarking.setFlagged([items[1].objectID], true, in: view)
            return items
        }
        try Self.pushed(store)
        try view.performAndWait { () throws in
            #expect(try SyncQueue.pendingCount(in: view) == 0)
            #expect(!items[0].syncReadPending && !items[1].syncFlagPending)  // merged
            // Each undo is pending again, and stays one step of its own (redo works).
            #expect(try ItemMarking.undo(in: view, bus: bus) == "Flag")
            #expect(!items[1].flagged && items[1].syncFlagPending)
            #expect(try ItemMarking.undo(in: view, bus: bus) == "Mark Read")
            #expect(!items[0].read && items[0].syncReadPending)
            #expect(try SyncQueue.pendingCount(in: view) == 2)
        }
        try Self.pushed(store)
        try view.performAndWait {
            #expect(try ItemMarking.redo(in: view, bus: bus) == "Mark Read")
            #expect(items[0].read && items[0].syncReadPending)
            #expect(view.undoManager?.undoActionName == "Mark Read")
            #expect(view.undoManager?.redoActionName == "Flag")
            // Mark all read is one batch statement.
            try ItemMarking.markRead(.all, in: view)
        }
        try Self.pushed(store)
        try view.performAndWait {
            #expect(try SyncQueue.pendingCount(in: view) == 0)
            // Its undo, in the store too, is pending: items 2 and 3 were unread before it.
            #expect(try ItemMarking.undo(in: view, bus: bus) == "Mark All Read")
            let unread = try FeedItem.findAll(
                where: try ObjectPredicate(format: "read == NO AND syncReadPending == YES"), in: view)
            #expect(Set(unread.map(\.guid)) == ["g2", "g3"])
            #expect(try SyncQueue.pendingCount(in: view) == 2)
        }
    }

    /// What a sync does once the server accepted the subscription changes: empties the
    /// queue in another context.
    static func pushedSubscriptions(_ store: ZeaderStore) throws {
        let other = store.container.newBackgroundContext()
        try other.performAndWait {
            for change in try SyncChange.findAll(in: other) { other.delete(change) }
            try other.save()
        }
    }

    @Test func undoAndRedoOfFeedChangesAlreadyPushedAreQueuedAgain() throws {
        let (store, _) = try Self.store(account: true)
        let view = store.container.viewContext
        let bus = store.container.bus
        let url = "http://127.0.0.1/feed.xml"
        func queued() throws -> [String] { try SyncChange.findAll(sortedBy: "created", in: view).map(\.kind) }
        try view.performAndWait { () throws in
            view.undoManager = ContextUndoManager()
            try FeedEditing.tag(try FeedEditing.server(url: url, in: view).objectID, add: ["News", "Tech"], in: view)
            try FeedEditing.delete(try FeedEditing.server(url: url, in: view).objectID, in: view)
            #expect(try queued() == ["unsubscribe"])
        }
        try Self.pushedSubscriptions(store)
        try view.performAndWait { () throws in
            #expect(try queued() == [])
            // The removal undone after the server had it: subscribed again, its tags with it.
            #expect(try ItemMarking.undo(in: view, bus: bus) == "Delete Feed")
            let server = try FeedEditing.server(url: url, in: view)
            #expect(FeedTags.list(server.tags) == ["News", "Tech"])
            // (The tag change the removal had replaced is queued again too: the step's queue rows come back.)
            #expect(try queued().contains("subscribe") && !queued().contains("unsubscribe"))
            #expect(try FeedItem.count(in: view) == 3)
            // The server dropped its items: they are matched again by link, not kept under ids gone.
            #expect(server.syncID == nil)
            #expect(try FeedItem.findAll(in: view).allSatisfy { $0.syncID == nil })
        }
        try Self.pushedSubscriptions(store)
        // The subscription pushed: the sync links the feed to its new server id.
        let other = store.container.newBackgroundContext()
        try other.performAndWait {
            try FeedEditing.server(url: url, in: other).syncID = "feed/2"
            try other.save()
        }
        try view.performAndWait { () throws in
            // Redone: unsubscribed again, with the feed's server id.
            #expect(try ItemMarking.redo(in: view, bus: bus) == "Delete Feed")
            let changes = try SyncChange.findAll(in: view)
            #expect(changes.map(\.kind) == ["unsubscribe"])
            #expect(changes.first?.feedSyncID == "feed/2")
            #expect(try ItemMarking.undo(in: view, bus: bus) == "Delete Feed")
        }
        try Self.pushedSubscriptions(store)
        try view.performAndWait { () throws in
            // A tag change undone after it was pushed: the tags as they are now are queued.
            #expect(try ItemMarking.undo(in: view, bus: bus) == "Tag Feed")
            #expect(FeedTags.list(try FeedEditing.server(url: url, in: view).tags).isEmpty)
            #expect(try queued() == ["tags"])
            #expect(view.undoManager?.canUndo == false)
        }
    }

    @Test func withoutAnAccountUndoMarksNothing() throws {
        let (store, _) = try Self.store(account: false)
        let view = store.container.viewContext
        try view.performAndWait {
            view.undoManager = ContextUndoManager()
            let items = try FeedItem.findAll(sortedBy: "guid", in: view)
            try ItemMarking.setRead([items[0].objectID], true, in: view)
            try ItemMarking.markRead(.all, in: view)
            #expect(try ItemMarking.undo(in: view, bus: store.container.bus) == "Mark All Read")
            #expect(try ItemMarking.undo(in: view, bus: store.container.bus) == "Mark Read")
            #expect(try ItemMarking.undo(in: view, bus: store.container.bus) == nil)
            #expect(
                try FeedItem.count(
                    where: try ObjectPredicate(format: "syncReadPending == YES OR syncFlagPending == YES"), in: view)
                    == 0)
        }
    }

    @Test func serverIDListsRoundTripCompactly() {
        let ids: Set<UInt64> = [1_795_539_385_141_732, 1_795_539_385_141_733, 1_795_539_385_200_000, 7]
        let text = SyncIDList.encode(ids)
        #expect(SyncIDList.decode(text) == ids)
        #expect(text.count < 30)
        #expect(SyncIDList.encode([]) == "")
        #expect(SyncIDList.decode("") == [])
        #expect(SyncIDList.decode("1,zz-") == nil)
        #expect(SyncIDList.decode("3w5e11264sgsf,3w5e11264sgsf") == nil)  // overflows
    }

    @Test func itemIDListsAreReadStraightFromTheirBytes() {
        func scan(_ text: String) -> ItemRefScanner.Page? { ItemRefScanner.scan(Array(text.utf8)) }
        #expect(
            scan(#"{"itemRefs":[{"id":"31"},{"id":"1795539385141732"}],"continuation":"c2"}"#)
                == ItemRefScanner.Page(ids: [31, 1_795_539_385_141_732], continuation: "c2"))
        // Other members, nested values, escapes, space and the long form are all fine.
        let full = #"""
             { "id" : "user/-/state/com.google/reading-list", "updated": 1.5e9, "x": [true, false, null, {"a": [1, -2]}],
              "itemRefs": [ {"directStreamIds": [], "timestampUsec": "17", "id": "tag:google.com,2005:reader/item/000000000000001f"},
                           {"id": "x\"y"}, {} ],
              "continuation": "a\/b" }
            """#
        #expect(scan(full) == ItemRefScanner.Page(ids: [31], continuation: "a/b"))
        #expect(scan(#"{"itemRefs":null}"#) == ItemRefScanner.Page())
        #expect(scan("{}") == ItemRefScanner.Page())
        for bad in [
            "", "[]", #"{"itemRefs":[{"id":31}]}"#, #"{"itemRefs":[{"id":"1"}]"#, #"{"itemRefs":[{"id":"1"}]} x"#,
            #"{"a":nul}"#, #"{"a":"tab\#there"}"#,
            #"{"a":"# + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}", #"{"a":"unterminated}"#,
        ] {
            #expect(scan(bad) == nil, "\(bad)")
        }
    }

    @Test func itemIDsInEitherFormBecomeDecimal() {
        #expect(GReaderClient.decimalID("tag:google.com,2005:reader/item/000000000000001f") == "31")
        #expect(GReaderClient.decimalID("1795539385141732") == "1795539385141732")
        #expect(GReaderClient.decimalID("tag:google.com,2005:reader/item/zz") == nil)
        #expect(GReaderClient.number("tag:google.com,2005:reader/item/000000000000001f") == 31)
        #expect(GReaderClient.number("1795539385141732") == 1_795_539_385_141_732)
        #expect(GReaderClient.number("x") == nil)
    }
}
