import Foundation
import Testing

@testable import ObjectGraph

/// The context's internal bookkeeping that the save path's speed depends on: inserted
/// objects kept in insertion order, look-ups by temporary ID, name tables for the property
/// wrappers, and the ObjectID hash.
@Suite struct BookkeepingTests {
    @Test func nameTableFindsLiteralsAndLeavesOtherSpellingsToTheDictionary() throws {
        let long = "aVeryLongAttributeNameIndeed"  // more than 15 UTF-8 bytes: not stored inline
        let table = NameTable(["id", "title", long])
        #expect(table.index(of: "id") == 0)
        #expect(table.index(of: "title") == 1)
        #expect(table.index(of: "nope") == nil)
        // Short strings built at run time are stored inline too: same bytes, found.
        let built = String(["t", "i", "t", "l", "e"])
        #expect(table.index(of: built) == 1)
        // A long name spelled by other storage is not found by identity (never a wrong
        // answer), and the entity falls back to its dictionary.
        let heapLong = String(long.reversed().reversed())
        #expect(table.index(of: heapLong) == nil || table.index(of: heapLong) == 2)

        let model = try ManagedObjectModel(
            name: "Names", version: 1,
            entities: [EntityDescription("Thing", attributes: [.string("id"), .integer(long, defaultValue: 0)])])
        let entity = try model.entity(named: "Thing")
        #expect(entity.attributeIndex(forManagedKey: heapLong, type: .integer) == 1)
        #expect(entity.attributeIndex(forManagedKey: String(["i", "d"]), type: .string) == 0)
    }

    @Test func insertedObjectsKeepInsertionOrderThroughDeletionsAndCompaction() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var notes: [Note] = []
            for i in 0..<300 {
                let note = ctx.insert(Note.self)
                note.title = "n\(i)"
                notes.append(note)
            }
            // Delete most of them (forces the list to close its holes), keeping every 7th.
            for (i, note) in notes.enumerated() where i % 7 != 0 { ctx.delete(note) }
            let kept = notes.enumerated().filter { $0.offset % 7 == 0 }.map(\.element)
            #expect(ctx.insertedObjects.count == kept.count)
            #expect(kept.allSatisfy { $0.isInserted })
            #expect(!notes[1].isInserted)
            // Still found by temporary ID after the compaction.
            for note in kept { #expect(ctx.object(with: note.objectID) === note) }
            let late = ctx.insert(Note.self)
            late.title = "late"
            #expect(ctx.registeredObject(for: late.objectID) === late)
            try ctx.save()
            // Primary keys follow insertion order.
            let keys = (kept + [late]).map { $0.objectID.primaryKey ?? -1 }
            #expect(keys == keys.sorted() && Set(keys).count == keys.count && !keys.contains(-1))
            let fetched = try ctx.fetch(FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]))
            #expect(fetched.count == kept.count + 1)
            #expect(fetched.allSatisfy { f in (kept + [late]).contains { $0 === f } })  // uniquing after save
        }
    }

    @Test func temporaryIDsResolveUntilSavedAndRollbackEmptiesTheList() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let folder = ctx.insert(Folder.self)
            folder.name = "A"
            let temporary = folder.objectID
            #expect(ctx.registeredObjects.contains { $0 === folder })
            #expect(ctx.object(with: temporary) === folder)
            ctx.rollback()
            #expect(!ctx.hasChanges)
            #expect(ctx.insertedObjects.isEmpty)
            #expect(!folder.isInserted)
            let again = ctx.insert(Folder.self)
            again.name = "B"
            try ctx.save()
            #expect(ctx.object(with: again.objectID) === again)
            #expect(try ctx.count(for: FetchRequest<Folder>()) == 1)
        }
    }

    @Test func objectsDidChangeListsTheIDsOfInsertedObjects() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        let seen = LockedBox<[Set<ObjectID>]>([])
        let token = container.bus.observeObjectsDidChange(in: ctx) { note in
            seen.update { $0.append(note.insertedObjectIDs) }
        }
        defer { token.cancel() }
        var ids: Set<ObjectID> = []
        ctx.performAndWait {
            let a = ctx.insert(Note.self)
            let b = ctx.insert(Note.self)
            let c = ctx.insert(Note.self)
            ctx.delete(c)
            ids = [a.objectID, b.objectID]
        }
        #expect(seen.value.first == ids)
    }

    @Test func lifecycleHooksRunInTheContextOnItsQueue() throws {
        let model = try ManagedObjectModel(
            name: "Hooks", version: 1,
            entities: [EntityDescription("Hooked", managedClass: Hooked.self, attributes: [.string("name")])])
        let container = try PersistentContainer(model: model, store: .inMemory)
        let writer = container.newBackgroundContext()
        let kept = try writer.performAndWait { () throws -> [Hooked] in
            let objects = (0..<3).map { i in
                let object = writer.insert(Hooked.self)
                object.name = "h\(i)"
                return object
            }
            try writer.save()
            return objects
        }
        #expect(Hooked.events.value.filter { $0 == "insert" }.count == 3)
        #expect(Hooked.events.value.filter { $0 == "save" }.count == 3)
        // A fresh context (nothing registered) and one that already holds the objects.
        for context in [container.newBackgroundContext(), writer] {
            Hooked.events.update { $0 = [] }
            let fetched = try context.performAndWait { try context.fetch(FetchRequest<Hooked>()) }
            #expect(fetched.count == 3)
            let expected = context === writer ? 0 : 3  // registered, loaded objects are not fetched again
            #expect(Hooked.events.value == Array(repeating: "fetch", count: expected))
        }
        #expect(!Hooked.offQueue.value)
        withExtendedLifetime(kept) {}
    }

    @Test func resetAndTheContextsEndDetachTheirObjects() throws {
        let container = try TestModel.container()
        var context: ManagedObjectContext? = container.newBackgroundContext()
        let (before, after, inserted) = try context!.performAndWait { () throws -> (Note, Note, Note) in
            let ctx = context!
            let note = ctx.insert(Note.self)
            note.title = "kept"
            try ctx.save()
            let unsaved = ctx.insert(Note.self)
            #expect(note.managedObjectContext === ctx && unsaved.managedObjectContext === ctx)
            ctx.reset()
            #expect(note.managedObjectContext == nil && unsaved.managedObjectContext == nil)
            // A detached object refuses changes (ResetUseTests), and the context records none.
            #expect(throws: ObjectGraphError.self) { try note.setValue("changed after reset", forKey: "title") }
            #expect(!ctx.hasChanges)
            let again = try ctx.fetch(FetchRequest<Note>())[0]
            #expect(again !== note && again.managedObjectContext === ctx && again.title == "kept")
            // Objects inserted after a reset still take the fast path and are announced.
            let fresh = ctx.insert(Note.self)
            fresh.title = "fresh"
            #expect(ctx.insertedObjects.count == 1)
            return (note, again, fresh)
        }
        context = nil
        // The context is gone: its objects say so instead of pointing at freed memory.
        #expect(before.managedObjectContext == nil)
        #expect(after.managedObjectContext == nil)
        #expect(inserted.managedObjectContext == nil)
    }

    @Test func rowsSharingTargetsStayIndependent() throws {
        let container = try TestModel.container()
        try container.viewContext.performAndWait { () throws in
            let ctx = container.viewContext
            let a = ctx.insert(Folder.self)
            a.name = "A"
            let b = ctx.insert(Folder.self)
            b.name = "B"
            for i in 0..<3 {
                let note = ctx.insert(Note.self)
                note.title = "n\(i)"
                note.folder = a
            }
            try ctx.save()
        }
        let other = container.newBackgroundContext()
        try other.performAndWait { () throws in
            let notes = try other.fetch(FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]))
            let b = try #require(
                try other.fetch(FetchRequest<Folder>(predicate: try ObjectPredicate(format: "name == 'B'"))).first)
            notes[1].folder = b
            #expect(notes.map { $0.folder?.name } == ["A", "B", "A"])
            try other.save()
        }
        let check = container.newBackgroundContext()
        try check.performAndWait { () throws in
            let notes = try check.fetch(FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]))
            #expect(notes.map { $0.folder?.name } == ["A", "B", "A"])
        }
    }

    @Test func objectIDHashSpreadsSequentialKeys() throws {
        let entity = try TestModel.model.entity(named: "Note")
        // Sequential row numbers land in distinct low bits (what a table indexes with).
        var buckets = Set<Int>()
        for pk in 1...1024 { buckets.insert(ObjectID(entity: entity, primaryKey: Int64(pk))._rawHashValue(seed: 0) & 4095) }
        #expect(buckets.count > 800)
        // Equal IDs hash equally; the seed changes the hash.
        let id = ObjectID(entity: entity, primaryKey: 7)
        #expect(id._rawHashValue(seed: 1) == ObjectID(entity: entity, primaryKey: 7)._rawHashValue(seed: 1))
        #expect(id._rawHashValue(seed: 1) != id._rawHashValue(seed: 2))
    }
}

/// Records its lifecycle hooks, and whether any ran off its context's queue.
final class Hooked: ManagedObject {
    @Managed("name") var name: String?
    static let events = LockedBox<[String]>([])
    static let offQueue = LockedBox(false)
    private func record(_ event: String) {
        let onQueue = managedObjectContext?.isOnQueue ?? false
        Self.events.update { $0.append(event) }
        if !onQueue { Self.offQueue.update { $0 = true } }
    }
    override func awakeFromInsert() { record("insert") }
    override func awakeFromFetch() { record("fetch") }
    override func willSave() { record("save") }
}

/// A value shared with a notification handler.
// Unchecked sendability is sound: every access to `stored` goes through `lock`.
final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T { lock.withLock { stored } }
    func update(_ body: (inout T) -> Void) { lock.withLock { body(&stored) } }
}
