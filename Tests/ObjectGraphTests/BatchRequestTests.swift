import Foundation
import GRDB
import Synchronization
import Testing

@testable import ObjectGraph

@Suite struct BatchRequestTests {
    enum Kind: CaseIterable { case memory, file }

    /// A container with folders "A" (3 unread notes, 1 read) and "B" (2 unread) and a
    /// person with a pet, saved.
    func makeContainer(_ kind: Kind, directory: TemporaryDirectory) throws -> PersistentContainer {
        let container = try TestModel.container(kind == .memory ? .inMemory : .file(directory.file("batch.sqlite")))
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let a = ctx.insert(Folder.self)
            a.name = "A"
            let b = ctx.insert(Folder.self)
            b.name = "B"
            for (n, (folder, read)) in [(a, false), (a, false), (a, false), (a, true), (b, false), (b, false)].enumerated() {
                let note = ctx.insert(Note.self)
                note.title = "note \(n)"
                note.read = read
                note.folder = folder
            }
            let person = ctx.insert(Person.self)
            person.name = "Ann"
            let pet = ctx.insert(Pet.self)
            pet.name = "Rex"
            pet.owner = person
            try ctx.save()
        }
        return container
    }

    /// Stored counts equal the counts of unread notes, and the context agrees.
    func expectCountsExact(_ container: PersistentContainer, _ step: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let rows = try container.store.database.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT f.name, f.unreadCount, (SELECT COUNT(*) FROM Note n WHERE n.folder = f.Z_PK AND n.read = 0) FROM Folder f"
            )
        }
        for row in rows {
            let name: String = row[0]
            let stored: Int64 = row[1]
            let actual: Int64 = row[2]
            #expect(stored == actual, "\(step): stored count of \(name)", sourceLocation: sourceLocation)
        }
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            for folder in try ctx.fetch(FetchRequest<Folder>()) {
                let unread = try ctx.count(
                    for: FetchRequest<Note>(
                        predicate: try ObjectPredicate(format: "folder.name == %@ AND read == NO", folder.name)))
                #expect(
                    folder.unreadCount == Int64(unread), "\(step): \(folder.name) in the view context",
                    sourceLocation: sourceLocation)
            }
        }
    }

    func unreadCount(_ ctx: ManagedObjectContext, _ name: String) throws -> Int64 {
        try ctx.performAndWait { () throws in
            try ctx.fetch(FetchRequest<Folder>(predicate: try ObjectPredicate(format: "name == %@", name))).first?.unreadCount
                ?? -1
        }
    }

    @Test(arguments: Kind.allCases) func batchUpdateKeepsCountsRefreshesObjectsAndAnnounces(kind: Kind) throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(kind, directory: directory)
        let ctx = container.viewContext
        let changes = Counter()
        let token = container.bus.observeObjectsDidChange(in: ctx) { note in
            for object in note.updated {
                changes.add(note.changedKeys(for: object).sorted().joined(separator: ","))
            }
        }
        defer { token.cancel() }
        let (registeredNote, folderA) = try ctx.performAndWait { () throws in
            let note = try ctx.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'note 0'"))).first!
            let folder = try ctx.fetch(FetchRequest<Folder>(predicate: try ObjectPredicate(format: "name == 'A'"))).first!
            return (note, folder)
        }
        let result = try ctx.performAndWait { () throws in
            try ctx.execute(
                BatchUpdateRequest(
                    entityName: "Note", predicate: try ObjectPredicate(format: "folder.name == 'A'"),
                    propertiesToUpdate: ["read": .bool(true)]))
        }
        // Only the rows whose value changed: the read note of A is not counted.
        #expect(result.changedCount == 3)
        ctx.performAndWait {
            #expect(registeredNote.read == true)
            #expect(folderA.unreadCount == 0)
            #expect(!ctx.hasChanges)
        }
        #expect(changes.values.contains("read"))
        #expect(changes.values.contains("unreadCount"))
        #expect(try unreadCount(ctx, "B") == 2)
        try expectCountsExact(container, "after the batch update")
    }

    @Test(arguments: Kind.allCases) func batchUpdateIsOneUndoStepAndRedoes(kind: Kind) throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(kind, directory: directory)
        let ctx = container.viewContext
        ctx.performAndWait { ctx.undoManager = ContextUndoManager() }
        let note = try ctx.performAndWait { () throws in
            try ctx.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'note 4'"))).first!
        }
        _ = try ctx.performAndWait { () throws in
            try ctx.execute(
                BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["read": .bool(true), "rating": .double(5)]))
        }
        #expect(try unreadCount(ctx, "A") == 0)
        #expect(try unreadCount(ctx, "B") == 0)
        ctx.performAndWait {
            #expect(note.read && note.rating == 5)
            #expect(ctx.undo())
            #expect(ctx.undoManager?.lastError == nil)
            #expect(!note.read && note.rating == 0)
            #expect(ctx.undoManager?.canUndo == false)
        }
        #expect(try unreadCount(ctx, "A") == 3)
        #expect(try unreadCount(ctx, "B") == 2)
        try expectCountsExact(container, "after undo")
        // The note that was read before keeps its value through undo.
        let readNotes = try ctx.performAndWait { () throws in
            try ctx.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "read == YES"))).compactMap(\.title)
        }
        #expect(readNotes == ["note 3"])
        ctx.performAndWait {
            #expect(ctx.redo())
            #expect(note.read && note.rating == 5)
        }
        #expect(try unreadCount(ctx, "A") == 0)
        try expectCountsExact(container, "after redo")
        ctx.performAndWait { #expect(ctx.undo()) }
        try expectCountsExact(container, "after a second undo")
    }

    @Test func theContextThatRanABatchHearsOfItWithNothingRegistered() throws {
        // A user interface keeps rows read from the store, not objects: it must hear of a
        // batch (and of its undo) even when no changed object is registered in the context.
        let directory = TemporaryDirectory()
        let container = try makeContainer(.memory, directory: directory)
        let ctx = container.viewContext
        ctx.undoManager = ContextUndoManager()
        let merges = Counter()
        let token = container.bus.observeObjectsDidChange(in: ctx) { note in merges.add("\(note.isMerge) \(note.updated.count)") }
        defer { token.cancel() }
        try ctx.performAndWait { () throws in
            ctx.reset()
            #expect(ctx.registeredObjects.isEmpty)
            let result = try ctx.execute(
                BatchUpdateRequest(
                    entityName: "Note", predicate: try ObjectPredicate(format: "read == NO"),
                    propertiesToUpdate: ["read": .bool(true)])
            )
            #expect(result.changedCount == 5)
            #expect(ctx.undo())
            // A batch that changes nothing announces nothing.
            try ctx.execute(
                BatchUpdateRequest(
                    entityName: "Note", predicate: try ObjectPredicate(format: "title == 'none'"),
                    propertiesToUpdate: ["read": .bool(true)]))
        }
        // The reset is announced first (all objects invalidated, none updated), then the batch
        // and its undo.
        #expect(merges.values == ["false 0", "true 0", "true 0"])
    }

    /// With a batch size and no undo manager: transactions of at most that many rows, each
    /// announced with its own IDs, counts exact after each; the result can be a count only.
    @Test(arguments: Kind.allCases) func batchUpdateInBatchesAnnouncesEachAndKeepsCounts(kind: Kind) throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(kind, directory: directory)
        let ctx = container.newBackgroundContext()
        #expect(ctx.undoManager == nil)
        let saves = Mutex<[Set<ObjectID>]>([])
        let token = container.bus.observeDidSave { note in
            saves.withLock { $0.append(Set(note.updated.keys.filter { $0.entity.name == "Note" })) }
        }
        defer { token.cancel() }
        var request = BatchUpdateRequest(
            entityName: "Note", predicate: try ObjectPredicate(format: "read == NO"), propertiesToUpdate: ["read": .bool(true)])
        request.batchSize = 2
        request.resultType = .count
        let result = try ctx.performAndWait { () throws in try ctx.execute(request) }
        #expect(result.changedCount == 5)
        #expect(result.changedObjectIDs.isEmpty)
        let announced = saves.withLock { $0 }
        #expect(announced.map(\.count) == [2, 2, 1])
        #expect(Set(announced.flatMap { $0 }).count == 5)
        #expect(try unreadCount(ctx, "A") == 0)
        #expect(try unreadCount(ctx, "B") == 0)
        try expectCountsExact(container, "after the batches")

        // IDs asked for: every changed one, once; a batch size dividing the count exactly
        // ends on the empty batch after the last full one.
        _ = try ctx.performAndWait { () throws in
            try ctx.execute(
                BatchUpdateRequest(entityName: "Note", predicate: nil, propertiesToUpdate: ["read": .bool(false)]))
        }
        request.resultType = .objectIDs
        request.batchSize = 3
        request.predicate = try ObjectPredicate(format: "read == NO AND folder.name == 'A'")
        let byIDs = try ctx.performAndWait { () throws in try ctx.execute(request) }
        #expect(byIDs.changedCount == 4 && Set(byIDs.changedObjectIDs).count == 4)
        #expect(try unreadCount(ctx, "A") == 0)
        #expect(try unreadCount(ctx, "B") == 2)
        try expectCountsExact(container, "after a feed's batches")
    }

    /// An undo manager needs every changed row for its one step: the batch size is ignored.
    @Test func batchUpdateWithAnUndoManagerIsOneStepWhateverTheBatchSize() throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(.file, directory: directory)
        let ctx = container.viewContext
        ctx.performAndWait { ctx.undoManager = ContextUndoManager() }
        let saves = Counter()
        let token = container.bus.observeDidSave { _ in saves.add("save") }
        defer { token.cancel() }
        var request = BatchUpdateRequest(
            entityName: "Note", predicate: try ObjectPredicate(format: "read == NO"), propertiesToUpdate: ["read": .bool(true)])
        request.batchSize = 2
        request.resultType = .count
        let result = try ctx.performAndWait { () throws in try ctx.execute(request) }
        #expect(result.changedCount == 5 && result.changedObjectIDs.isEmpty)
        #expect(saves.values.count == 1)
        ctx.performAndWait {
            #expect(ctx.undo())
            #expect(ctx.undoManager?.lastError == nil)
        }
        #expect(try unreadCount(ctx, "A") == 3)
        #expect(try unreadCount(ctx, "B") == 2)
        try expectCountsExact(container, "after undo of the batched request")
    }

    @Test func batchUpdateKeepsUnsavedChangesOnTop() throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(.memory, directory: directory)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let note = try ctx.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'note 0'"))).first!
            note.title = "edited"
            try ctx.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["read": .bool(true)]))
            #expect(note.title == "edited")
            #expect(note.read)
            #expect(ctx.hasChanges)
            try ctx.save()
        }
        let titles = try container.store.database.read { db in
            try String.fetchAll(db, sql: "SELECT title FROM Note WHERE read = 1")
        }
        #expect(titles.contains("edited") && titles.count == 6)
    }

    @Test func anotherContextsBatchUpdateReachesTheViewContext() throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(.file, directory: directory)
        let view = container.viewContext
        let note = try view.performAndWait { () throws in
            try view.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'note 5'"))).first!
        }
        let background = container.newBackgroundContext()
        _ = try background.performAndWait { () throws in
            try background.execute(
                BatchUpdateRequest(
                    entityName: "Note", predicate: try ObjectPredicate(format: "folder.name == 'B'"),
                    propertiesToUpdate: ["read": .bool(true)]))
        }
        // The merge was queued on the view queue before this block.
        view.performAndWait { #expect(note.read) }
        #expect(try unreadCount(view, "B") == 0)
        try expectCountsExact(container, "after a background batch update")
    }

    @Test func batchUpdateMatchesWhatThePredicateMatchesInMemory() throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(.memory, directory: directory)
        let ctx = container.viewContext
        let formats = [
            "title ENDSWITH '3' OR title CONTAINS[c] 'NOTE 1'", "folder.name == 'B' AND read == NO",
            "NOT title BEGINSWITH 'note 2' AND folder.unreadCount > 2", "title LIKE[c] '*E ?'",
        ]
        for format in formats {
            try ctx.performAndWait { () throws in
                let predicate = try ObjectPredicate(format: format)
                let expected = Set(
                    try ctx.fetch(FetchRequest<Note>()).filter { try predicate.evaluate(with: $0) }.map(\.objectID))
                let result = try ctx.execute(
                    BatchUpdateRequest(entityName: "Note", predicate: predicate, propertiesToUpdate: ["rating": .double(9)]))
                #expect(!expected.isEmpty, "\(format)")
                #expect(Set(result.changedObjectIDs) == expected, "\(format)")
                try ctx.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["rating": .double(0)]))
            }
        }
    }

    @Test func aBatchThatChangesNothingIsNoUndoStep() throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(.memory, directory: directory)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            ctx.undoManager = ContextUndoManager()
            let none = try ctx.execute(
                BatchUpdateRequest(
                    entityName: "Note", predicate: try ObjectPredicate(format: "read == YES"),
                    propertiesToUpdate: ["read": .bool(true)]
                ))
            #expect(none.changedCount == 0)
            #expect(
                try ctx.execute(
                    BatchDeleteRequest(entityName: "Note", predicate: try ObjectPredicate(format: "title == 'absent'"))
                )
                .changedCount == 0)
            #expect(ctx.undoManager?.canUndo == false)
        }
    }

    @Test func badBatchUpdatesAreRefusedWithTheKeyNamed() throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(.memory, directory: directory)
        let ctx = container.viewContext
        ctx.performAndWait {
            #expect(throws: ObjectGraphError.unknownKey(entity: "Note", key: "nope")) {
                try ctx.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["nope": .bool(true)]))
            }
            #expect(throws: ObjectGraphError.notBatchUpdatable(entity: "Note", key: "scratch", reason: "it is transient")) {
                try ctx.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["scratch": .string("x")]))
            }
            #expect(
                throws: ObjectGraphError.notBatchUpdatable(entity: "Folder", key: "unreadCount", reason: "it is a derived count")
            ) {
                try ctx.execute(BatchUpdateRequest(entityName: "Folder", propertiesToUpdate: ["unreadCount": .integer(1)]))
            }
            #expect(throws: ObjectGraphError.missingValue(entity: "Folder", key: "name")) {
                try ctx.execute(BatchUpdateRequest(entityName: "Folder", propertiesToUpdate: ["name": .null]))
            }
            #expect(throws: ObjectGraphError.uniquenessViolation(entity: "Folder", keys: ["name"], values: ["\"same\""])) {
                try ctx.execute(BatchUpdateRequest(entityName: "Folder", propertiesToUpdate: ["name": .string("same")]))
            }
        }
        #expect(try unreadCount(ctx, "A") == 3)
    }

    @Test(arguments: Kind.allCases) func batchDeleteKeepsCountsAndUndoRestoresIt(kind: Kind) throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(kind, directory: directory)
        let ctx = container.viewContext
        ctx.performAndWait { ctx.undoManager = ContextUndoManager() }
        let note = try ctx.performAndWait { () throws in
            try ctx.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'note 0'"))).first!
        }
        let result = try ctx.performAndWait { () throws in
            try ctx.execute(
                BatchDeleteRequest(
                    entityName: "Note", predicate: try ObjectPredicate(format: "title IN {'note 0', 'note 3', 'note 4'}")))
        }
        #expect(result.changedCount == 3)
        ctx.performAndWait { #expect(note.managedObjectContext == nil) }
        #expect(try unreadCount(ctx, "A") == 2)
        #expect(try unreadCount(ctx, "B") == 1)
        try expectCountsExact(container, "after the batch delete")
        ctx.performAndWait { #expect(ctx.undo()) }
        #expect(ctx.performAndWait { ctx.undoManager?.lastError } == nil)
        #expect(try unreadCount(ctx, "A") == 3)
        #expect(try unreadCount(ctx, "B") == 2)
        try expectCountsExact(container, "after undoing the batch delete")
        let titles = try ctx.performAndWait { () throws in try ctx.fetch(FetchRequest<Note>()).compactMap(\.title).sorted() }
        #expect(titles == (0..<6).map { "note \($0)" })
        ctx.performAndWait { #expect(ctx.redo()) }
        #expect(try unreadCount(ctx, "A") == 2)
        try expectCountsExact(container, "after redoing the batch delete")
    }

    @Test(arguments: Kind.allCases) func batchDeleteAppliesDeleteRules(kind: Kind) throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(kind, directory: directory)
        let ctx = container.viewContext
        ctx.performAndWait { ctx.undoManager = ContextUndoManager() }
        // Cascade: a folder's notes go with it, and come back with it.
        try ctx.performAndWait { () throws in
            try ctx.execute(BatchDeleteRequest(entityName: "Folder", predicate: try ObjectPredicate(format: "name == 'A'")))
            #expect(try ctx.count(for: FetchRequest<Note>()) == 2)
            #expect(ctx.undo())
            #expect(try ctx.count(for: FetchRequest<Note>()) == 6)
        }
        #expect(try unreadCount(ctx, "A") == 3)
        try expectCountsExact(container, "after undoing a cascade")
        // Deny: a person with pets stays, and nothing is deleted.
        _ = ctx.performAndWait {
            #expect(throws: ObjectGraphError.deleteDenied(entity: "Person", relationship: "pets", count: 1)) {
                try ctx.execute(BatchDeleteRequest(entityName: "Person"))
            }
        }
        // Nullify: deleting the owner side clears the pet's column (after the pet is gone, the person may go).
        try ctx.performAndWait { () throws in
            try ctx.execute(BatchDeleteRequest(entityName: "Pet"))
            try ctx.execute(BatchDeleteRequest(entityName: "Person"))
            #expect(try ctx.count(for: FetchRequest<Person>()) == 0)
            #expect(ctx.undo())
            #expect(ctx.undo())
            let pet = try ctx.fetch(FetchRequest<Pet>()).first
            #expect(pet?.owner?.name == "Ann")
        }
    }

    @Test func batchUndoSurvivesAnotherContextsSave() throws {
        let directory = TemporaryDirectory()
        let container = try makeContainer(.file, directory: directory)
        let ctx = container.viewContext
        ctx.performAndWait { ctx.undoManager = ContextUndoManager() }
        _ = try ctx.performAndWait { () throws in
            try ctx.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["read": .bool(true)]))
        }
        // Another context inserts an unread note meanwhile: undo must not touch it.
        let background = container.newBackgroundContext()
        try background.performAndWait { () throws in
            let folder = try background.fetch(FetchRequest<Folder>(predicate: try ObjectPredicate(format: "name == 'B'"))).first!
            let note = background.insert(Note.self)
            note.title = "late"
            note.folder = folder
            try background.save()
        }
        ctx.performAndWait { #expect(ctx.undo()) }
        #expect(try unreadCount(ctx, "B") == 3)
        try expectCountsExact(container, "after undo with a later insert")
    }
}

/// Collects strings from any thread.
final class Counter: Sendable {
    private let storage = Mutex<[String]>([])
    func add(_ value: String) { storage.withLock { $0.append(value) } }
    var values: [String] { storage.withLock { $0 } }
}
