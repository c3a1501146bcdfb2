import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Mark a feed, a smart feed or everything read: one batch update, over exactly the
/// scope's unread items, with exact unread counts and one undo step.
@Suite struct ItemMarkingTests {
    /// Two feeds ("linux"-tagged a: 4 items, b: 3 items); items 0 of each already read.
    func makeStore() throws -> (ZeaderStore, [ObjectID]) {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        let ids = try context.performAndWait { () throws -> [ObjectID] in
            var servers: [Server] = []
            for (n, (name, count)) in [("a", 4), ("b", 3)].enumerated() {
                let server = context.insert(Server.self)
                server.url = "https://\(name).example/feed"
                server.displayOrder = Int64(n)
                server.tags = name == "a" ? "linux" : nil
                for i in 0..<count {
                    let item = context.insert(FeedItem.self)
                    item.guid = "\(name)\(i)"
                    item.title = i == 1 ? "Swift news \(i)" : "Other news \(i)"
                    item.read = i == 0
                    item.sortDate = Date(timeIntervalSince1970: Double(i))
                    item.server = server
                }
                servers.append(server)
            }
            try context.save()
            return servers.map(\.objectID)
        }
        return (store, ids)
    }

    func unread(_ context: ManagedObjectContext) throws -> [Int64] {
        try FeedEditing.servers(in: context).map(\.unreadCount)
    }

    func unreadGuids(_ context: ManagedObjectContext) throws -> [String] {
        try context.fetch(
            FetchRequest<FeedItem>(
                predicate: try ObjectPredicate(format: "read == NO"), sortDescriptors: [ObjectSortDescriptor("guid")])
        )
        .map(\.guid)
    }

    @Test func eachScopeMarksOnlyItsUnreadItems() throws {
        let (store, servers) = try makeStore()
        let context = store.container.newBackgroundContext(name: "command line")  // no undo manager
        try context.performAndWait { () throws in
            #expect(try unread(context) == [3, 2])
            #expect(try ItemMarking.markRead(.matching(predicateFormat: #"title BEGINSWITH "Swift""#), in: context) == 2)
            #expect(try unreadGuids(context) == ["a2", "a3", "b2"])
            #expect(try ItemMarking.markRead(.matching(predicateFormat: #"server.tags CONTAINS[c] "LINUX""#), in: context) == 2)
            #expect(try unread(context) == [0, 1])
            #expect(try ItemMarking.markRead(.feed(servers[1]), in: context) == 1)
            #expect(try ItemMarking.markRead(.all, in: context) == 0)
            #expect(try unread(context) == [0, 0])
            #expect(!context.hasChanges)
        }
        // Written to the store: a fresh context sees it.
        let fresh = store.container.newBackgroundContext(name: "fresh")
        try fresh.performAndWait { () throws in
            #expect(try unread(fresh) == [0, 0])
            #expect(try unreadGuids(fresh).isEmpty)
        }
    }

    @Test func undoPutsBackExactlyWhatItChangedInOneStep() throws {
        let (store, servers) = try makeStore()
        let context = store.container.viewContext
        context.undoManager = ContextUndoManager()
        try context.performAndWait { () throws in
            #expect(try ItemMarking.markRead(.feed(servers[0]), in: context) == 3)
            #expect(context.undoManager?.undoActionName == "Mark Feed Read")
            #expect(try ItemMarking.markRead(.all, in: context) == 2)
            #expect(context.undoManager?.undoActionName == "Mark All Read")
            #expect(try unread(context) == [0, 0])
            #expect(context.undo())
            #expect(try unread(context) == [0, 2])
            #expect(try unreadGuids(context) == ["b1", "b2"])
            #expect(context.undo())
            #expect(try unread(context) == [3, 2])
            #expect(try unreadGuids(context) == ["a1", "a2", "a3", "b1", "b2"])  // a0 and b0 were read before
            #expect(!context.undo())
            #expect(context.redo())
            #expect(try unread(context) == [0, 2])
        }
    }

    @Test func aBadSmartFeedPredicateChangesNothing() throws {
        let (store, _) = try makeStore()
        let context = store.container.viewContext
        context.undoManager = ContextUndoManager()
        try context.performAndWait { () throws in
            #expect(throws: (any Error).self) {
                try ItemMarking.markRead(.matching(predicateFormat: "nosuchkey == 1"), in: context)
            }
            #expect(throws: (any Error).self) { try ItemMarking.markRead(.matching(predicateFormat: "title =="), in: context) }
            #expect(try unread(context) == [3, 2])
            #expect(context.undoManager?.canUndo == false)
        }
    }
}
