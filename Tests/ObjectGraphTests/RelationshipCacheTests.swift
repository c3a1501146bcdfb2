import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// Cached to-many contents, prefetching and batch faulting. A row changed behind
/// ObjectGraph's back (plain SQL on the store's connection, announced to no one) shows
/// whether a read was served from the cache or from the store.
@Suite struct RelationshipCacheTests {
    /// Folders A (notes 0–4) and B (notes 5–9), saved.
    func populated() throws -> PersistentContainer {
        try TestModel.twoFolders(notes: 10, inA: 5, ratings: 3, readEven: false)
    }

    /// Moves every note into folder A without telling anyone.
    func moveAllBehindTheBack(_ container: PersistentContainer) throws {
        try container.store.writer.write { db in
            try db.execute(
                sql:
                    "UPDATE \(Note.tableName(container)) SET folder = (SELECT Z_PK FROM \(Folder.tableName(container)) WHERE name = 'A')"
            )
        }
    }

    func folder(_ name: String, _ ctx: ManagedObjectContext) throws -> Folder {
        try #require(try ctx.fetch(FetchRequest<Folder>(predicate: try ObjectPredicate(format: "name == %@", name))).first)
    }

    @Test func toManyIsReadOnceUntilASaveChangesIt() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let a = try folder("A", ctx)
            #expect(a.notes.count == 5)
            try moveAllBehindTheBack(container)
            #expect(a.notes.count == 5, "served from the cache")
            // A save that changes no relationship leaves the cache alone …
            a.notes[0].rating = 9
            try ctx.save()
            #expect(a.notes.count == 5)
            // … one that moves a note re-reads the store.
            let b = try folder("B", ctx)
            let moved = try #require(
                try ctx.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'note 0'"))).first)
            moved.folder = b
            #expect(a.notes.count == 4, "unsaved changes apply on top of the cache")
            try ctx.save()
            #expect(a.notes.count == 9, "re-read: 10 notes, all in A behind the back, but note 0 moved to B")
        }
    }

    @Test func anotherContextsSaveInvalidatesWithoutAMerge() throws {
        let container = try populated()
        let ctx = container.viewContext
        let other = container.newBackgroundContext()
        let a = try ctx.performAndWait { try folder("A", ctx) }
        #expect(ctx.performAndWait { a.notes.count } == 5)
        try other.performAndWait { () throws in
            let n = other.insert(Note.self)
            n.title = "new"
            n.folder = try folder("A", other)
            try other.save()
        }
        #expect(ctx.performAndWait { a.notes.count } == 6)
        try other.performAndWait { () throws in
            other.delete(
                try #require(
                    try other.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'note 1'"))).first))
            try other.save()
        }
        #expect(ctx.performAndWait { a.notes.map(\.title) }.contains("note 1") == false)
        #expect(ctx.performAndWait { a.notes.count } == 5)
    }

    @Test func pinnedGenerationsBypassTheCache() throws {
        let dir = TemporaryDirectory()
        let container = try TestModel.container(.file(dir.file("s.sqlite")))
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let a = ctx.insert(Folder.self)
            a.name = "A"
            ctx.insert(Note.self).folder = a
            try ctx.save()
            try ctx.pinReadGeneration()
            #expect(a.notes.count == 1)
            try container.store.writer.write { db in try db.execute(sql: "DELETE FROM \(Note.tableName(container))") }
            #expect(a.notes.count == 1, "the pinned snapshot still has it")
            ctx.unpinReadGeneration()
            #expect(a.notes.isEmpty, "nothing cached while pinned")
        }
    }

    @Test func refreshDropsTheCache() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let a = try folder("A", ctx)
            #expect(a.notes.count == 5)
            try moveAllBehindTheBack(container)
            ctx.refresh(a, mergeChanges: false)
            #expect(a.notes.count == 10)
        }
    }

    @Test func prefetchingToManyReadsEveryParentsMembersAtOnce() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var request = FetchRequest<Folder>(sortDescriptors: [ObjectSortDescriptor("name")])
            request.relationshipKeyPathsForPrefetching = ["notes"]
            let folders = try ctx.fetch(request)
            try moveAllBehindTheBack(container)
            #expect(folders.map { $0.notes.count } == [5, 5], "both came with the fetch")
            #expect(folders[1].notes.allSatisfy { !$0.isFault })
        }
    }

    @Test func prefetchingToOneKeepsDestinationsLoaded() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var request = FetchRequest<Note>()
            request.relationshipKeyPathsForPrefetching = ["folder", "folder.notes"]
            let notes = try ctx.fetch(request)
            // No one but the notes holds the folders; they stay registered and loaded.
            let ids = Set(notes.compactMap { $0.folder?.objectID })
            #expect(ids.count == 2)
            for id in ids { #expect(ctx.registeredObject(for: id)?.isFault == false) }
            try moveAllBehindTheBack(container)
            #expect(notes.map { $0.folder!.notes.count } == Array(repeating: 5, count: 10), "nested prefetch cached")
        }
    }

    @Test func prefetchOfUnknownKeyIsRefusedBeforeFetching() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        ctx.performAndWait {
            var request = FetchRequest<Folder>()
            request.relationshipKeyPathsForPrefetching = ["notes.nope"]
            #expect(throws: ObjectGraphError.unknownKey(entity: "Note", key: "nope")) { try ctx.fetch(request) }
            #expect(throws: ObjectGraphError.unknownKey(entity: "Folder", key: "name2")) {
                try ctx.prefetch(["name2"], for: [ctx.insert(Folder.self)])
            }
        }
    }

    @Test func faultsComeBackAsFaultsAndFireABatchAtATime() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var request = FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")], fetchBatchSize: 4)
            request.returnsObjectsAsFaults = true
            let notes = try ctx.fetch(request)
            #expect(notes.count == 10)
            #expect(notes.allSatisfy { $0.isFault })
            #expect(notes[5].title == "note 5")
            #expect(notes.map(\.isFault) == [true, true, true, true, false, false, false, false, true, true])
            // Behind the back: the rest of the batch was read with note 5, not afterwards.
            try container.store.writer.write { db in try db.execute(sql: "UPDATE \(Note.tableName(container)) SET title = 'x'") }
            #expect(notes[6].title == "note 6")
            #expect(notes[9].title == "x")
            #expect(try ctx.fireFaults(notes) == 4)
            #expect(notes.allSatisfy { !$0.isFault })
            #expect(notes[0].title == "x")
        }
    }

    @Test func faultsOfADeletedRowGetDefaults() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var request = FetchRequest<Note>(fetchBatchSize: 10)
            request.returnsObjectsAsFaults = true
            let notes = try ctx.fetch(request)
            try container.store.writer.write { db in
                try db.execute(sql: "DELETE FROM \(Note.tableName(container)) WHERE title = 'note 3'")
            }
            #expect(notes.compactMap(\.title).count == 9)
            #expect(notes.allSatisfy { !$0.isFault })
        }
    }
}

extension ManagedObject {
    static func tableName(_ container: PersistentContainer) -> String {
        let entity = try! container.model.entity(for: self)
        return SchemaGenerator.quote(entity.tableName)
    }
}
