import Feeds
import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// newsboat's delete-article (`D`) and edit-flags (`^E`) as use cases: a deleted item leaves
/// a `deleted` tombstone a refresh respects, and each edit is one undo step.
@Suite struct ItemDeletionTests {
    /// One feed with items g1…g3 in the view context (which gets an undo manager).
    func makeStore() throws -> (ZeaderStore, ObjectID) {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        let serverID = try context.performAndWait { () throws -> ObjectID in
            context.undoManager = ContextUndoManager()
            let server = try FeedSubscription.add(url: "https://example.org/feed", in: context)
            _ = try ItemImport.upsert(
                (1...3).map { ParsedItem(id: "g\($0)", title: "Item \($0)") }, into: server, in: context, now: Date())
            try context.save()
            context.undoManager?.removeAllActions()
            return server.objectID
        }
        return (store, serverID)
    }

    func guids(_ context: ManagedObjectContext) throws -> [String] {
        try context.fetch(FetchRequest<FeedItem>(sortDescriptors: [ObjectSortDescriptor("guid")])).map(\.guid)
    }

    func tombstones(_ context: ManagedObjectContext) throws -> [String] {
        try context.fetch(FetchRequest<RemovedItem>(sortDescriptors: [ObjectSortDescriptor("guid")])).map {
            "\($0.guid):\($0.reason)"
        }
    }

    func item(_ guid: String, _ context: ManagedObjectContext) throws -> FeedItem {
        try #require(
            context.fetch(FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "guid == %@", guid))).first)
    }

    @Test func deletedItemLeavesATombstoneARefreshRespectsAndUndoBringsItBack() throws {
        let (store, serverID) = try makeStore()
        let context = store.container.viewContext
        try context.performAndWait {
            let g2 = try item("g2", context).objectID
            #expect(try ItemDeletion.delete([g2], in: context) == 1)
            #expect(try guids(context) == ["g1", "g3"])
            #expect(try tombstones(context) == ["g2:deleted"])
            #expect(context.undoManager?.undoActionName == "Delete Item")
            #expect(try ItemDeletion.delete([g2], in: context) == 0)  // gone already

            // The feed still carries g1…g3: a refresh stores only g4.
            let server = try #require(context.object(with: serverID) as? Server)
            let (new, _) = try ItemImport.upsert(
                (1...4).map { ParsedItem(id: "g\($0)", title: "Item \($0)") }, into: server, in: context, now: Date())
            try context.save()
            #expect(new == 1)
            #expect(try guids(context) == ["g1", "g3", "g4"])
            #expect(server.totalCount == 3)
        }
        // Another context (the command line) sees the same.
        let other = store.container.newBackgroundContext(name: "cli")
        #expect(try other.performAndWait { try guids(other) } == ["g1", "g3", "g4"])

        try context.performAndWait {
            context.undoManager?.removeAllActions()
            let ids = try context.fetch(FetchRequest<FeedItem>()).map(\.objectID)
            #expect(try ItemDeletion.delete(ids, in: context) == 3)
            #expect(context.undoManager?.undoActionName == "Delete 3 Items")
            #expect(try guids(context).isEmpty)
            #expect(try tombstones(context) == ["g1:deleted", "g2:deleted", "g3:deleted", "g4:deleted"])
            #expect(context.undo())
            try context.save()
            #expect(try guids(context) == ["g1", "g3", "g4"])
            #expect(try tombstones(context) == ["g2:deleted"])
        }
    }

    @Test func flagLettersAreLettersAndFlagTheItem() throws {
        #expect(try ItemFlagLetters.normalized("b A a b") == "Aab")
        #expect(try ItemFlagLetters.normalized("") == "")
        #expect(throws: ItemFlagLetters.InvalidFlags(character: "1")) { try ItemFlagLetters.normalized("a1") }
        #expect(throws: ItemFlagLetters.InvalidFlags(character: "é")) { try ItemFlagLetters.normalized("é") }

        let (store, _) = try makeStore()
        let context = store.container.viewContext
        try context.performAndWait {
            let g1 = try item("g1", context)
            #expect(try ItemFlagLetters.set("ba", on: g1.objectID, in: context) == "ab")
            #expect(g1.flagLetters == "ab" && g1.flagged)
            #expect(ItemFlagLetters.letters(of: g1.objectID, in: context) == "ab")
            #expect(context.undoManager?.undoActionName == "Edit Flags")
            #expect(throws: ItemFlagLetters.InvalidFlags.self) { try ItemFlagLetters.set("a!", on: g1.objectID, in: context) }
            #expect(g1.flagLetters == "ab")
            #expect(try ItemFlagLetters.set(" ", on: g1.objectID, in: context) == "")
            #expect(g1.flagLetters == nil && !g1.flagged)
            #expect(context.undo())
            try context.save()
            #expect(g1.flagLetters == "ab" && g1.flagged)
        }
    }
}
