import Foundation
import GRDB
import Testing

@testable import ObjectGraph

final class Clip: ManagedObject {
    @Managed("title") var title: String?
    @Managed("position") var position: Int64
    @ToOne("body") var body: ClipBody?
}

final class ClipBody: ManagedObject {
    @Managed("text") var text: String?
    @Managed("html") var html: String?
    @ToOne("note") var note: Clip?
}

/// An index that takes an attribute of a related object (`body.text`): one index and one
/// query find an object by its own words and its related object's, and the entries follow
/// every change of either side, whoever writes it.
@Suite struct FullTextRelatedIndexTests {
    static func model(bodyIndexed: Bool = true, version: Int = 1) -> ManagedObjectModel {
        try! ManagedObjectModel(
            name: "Clips", version: version,
            entities: [
                EntityDescription(
                    "Clip", managedClass: Clip.self,
                    attributes: [.string("title"), .integer("position", defaultValue: 0)],
                    relationships: [.toOne("body", destination: "ClipBody", inverse: "note", deleteRule: .cascade)],
                    fullTextIndex: FullTextIndexDescription(attributes: bodyIndexed ? ["title", "body.text"] : ["title"])),
                EntityDescription(
                    "ClipBody", managedClass: ClipBody.self, attributes: [.string("text"), .string("html")],
                    relationships: [.toOne("note", destination: "Clip", inverse: "body")]),
            ])
    }
    static let indexed = model()

    func add(_ notes: [(String, String?)], to ctx: ManagedObjectContext, from position: Int64 = 0) throws {
        try ctx.performAndWait { () throws in
            for (n, (title, text)) in notes.enumerated() {
                let note = ctx.insert(Clip.self)
                note.title = title
                note.position = position + Int64(n)
                if let text {
                    let body = ctx.insert(ClipBody.self)
                    body.text = text
                    note.body = body
                }
            }
            try ctx.save()
        }
    }

    func titles(_ ctx: ManagedObjectContext, _ text: String) throws -> [String] {
        try ctx.performAndWait { () throws in
            var request = FetchRequest<Clip>(sortDescriptors: [ObjectSortDescriptor("position")])
            request.searchText = text
            return try ctx.fetch(request).compactMap(\.title)
        }
    }

    func clip(_ ctx: ManagedObjectContext, _ title: String) throws -> Clip {
        try ctx.fetch(FetchRequest<Clip>(predicate: try ObjectPredicate(format: "title == %@", title))).first!
    }

    /// FTS5's own check that the index holds exactly what its content (the view) reads.
    func expectIndexMatchesContent(_ container: PersistentContainer) throws {
        try container.store.database.write { db in
            try db.execute(sql: "INSERT INTO Z_Clip_FTS(Z_Clip_FTS, rank) VALUES ('integrity-check', 1)")
        }
    }

    static let notes: [(String, String?)] = [
        ("Swift on Linux", "The kernel team met in Paris."),
        ("Rust news", "Kernel modules in Rust."),
        ("No body", nil),
        ("Café", "Swift developers drink coffee."),
    ]

    @Test func objectsAreFoundByTheirRelatedObjectsWords() throws {
        let container = try PersistentContainer(model: Self.indexed, store: .inMemory)
        let ctx = container.viewContext
        try add(Self.notes, to: ctx)
        #expect(try titles(ctx, "kernel") == ["Swift on Linux", "Rust news"])
        // Every word is required, each in any field: one in the title, one in the body.
        #expect(try titles(ctx, "swift paris") == ["Swift on Linux"])
        #expect(try titles(ctx, "swift coffee") == ["Café"])
        #expect(try titles(ctx, "swift") == ["Swift on Linux", "Café"])
        #expect(try titles(ctx, "paris coffee").isEmpty)
        try expectIndexMatchesContent(container)
    }

    @Test func changesOfEitherSideKeepTheEntriesInStep() throws {
        let container = try PersistentContainer(model: Self.indexed, store: .inMemory)
        let ctx = container.viewContext
        try add(Self.notes, to: ctx)
        try ctx.performAndWait { () throws in
            try clip(ctx, "Swift on Linux").body?.text = "Now about compilers."
            // A body for an object that had none, in a save that changes the object too.
            let bodyless = try clip(ctx, "No body")
            let body = ctx.insert(ClipBody.self)
            body.text = "Gardening tips."
            bodyless.body = body
            // A body replaced by another, the old one deleted.
            let rust = try clip(ctx, "Rust news")
            let old = rust.body!
            let replacement = ctx.insert(ClipBody.self)
            replacement.text = "Ferris the crab."
            rust.body = replacement
            ctx.delete(old)
            try ctx.save()
        }
        #expect(try titles(ctx, "kernel").isEmpty)
        #expect(try titles(ctx, "compilers") == ["Swift on Linux"])
        #expect(try titles(ctx, "gardening") == ["No body"])
        #expect(try titles(ctx, "ferris") == ["Rust news"])
        try expectIndexMatchesContent(container)
        // An attribute of the body the index does not take changes nothing.
        try ctx.performAndWait { () throws in
            try clip(ctx, "Café").body?.html = "<p>Swift developers</p>"
            try ctx.save()
        }
        // Removing a body, then the object itself.
        try ctx.performAndWait { () throws in
            let cafe = try clip(ctx, "Café")
            ctx.delete(cafe.body!)
            cafe.body = nil
            try ctx.save()
        }
        #expect(try titles(ctx, "coffee").isEmpty)
        #expect(try titles(ctx, "café") == ["Café"])
        try ctx.performAndWait { () throws in
            ctx.delete(try clip(ctx, "Rust news"))
            try ctx.save()
            try ctx.execute(BatchDeleteRequest(entityName: "Clip", predicate: try ObjectPredicate(format: "title == 'No body'")))
        }
        #expect(try titles(ctx, "ferris").isEmpty)
        #expect(try titles(ctx, "gardening").isEmpty)
        try expectIndexMatchesContent(container)
    }

    @Test func writesByAnotherConnectionToEitherTableAreIndexed() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("notes.sqlite")
        let container = try PersistentContainer(model: Self.indexed, store: .file(url))
        let ctx = container.viewContext
        try add(Self.notes, to: ctx)
        let other = try DatabaseQueue(path: url.path)
        try other.write { db in
            try db.execute(sql: "UPDATE ClipBody SET text = 'Tea instead.' WHERE text LIKE 'Swift developers%'")
            try db.execute(sql: "INSERT INTO ClipBody (Z_PK, Z_OPT, text) VALUES (100, 1, 'Orphan words')")
            try db.execute(sql: "UPDATE Clip SET body = 100 WHERE title = 'No body'")
            try db.execute(sql: "INSERT INTO ClipBody (Z_PK, Z_OPT, text) VALUES (101, 1, 'Late arrival')")
            try db.execute(sql: "INSERT INTO Clip (Z_PK, Z_OPT, title, position, body) VALUES (100, 1, 'Plain', 9, 101)")
            try db.execute(sql: "DELETE FROM ClipBody WHERE text LIKE 'Kernel modules%'")
        }
        try other.close()
        #expect(try titles(ctx, "instead") == ["Café"])
        #expect(try titles(ctx, "coffee").isEmpty)
        #expect(try titles(ctx, "orphan") == ["No body"])
        #expect(try titles(ctx, "late arrival") == ["Plain"])
        #expect(try titles(ctx, "kernel") == ["Swift on Linux"])
        try expectIndexMatchesContent(container)
    }

    @Test func unsavedChangesOfTheRelatedObjectAreSearchedInMemory() throws {
        let container = try PersistentContainer(model: Self.indexed, store: .inMemory)
        let ctx = container.viewContext
        try add(Self.notes, to: ctx)
        try ctx.performAndWait { () throws in
            let note = ctx.insert(Clip.self)
            note.title = "Unsaved"
            note.position = 10
            let body = ctx.insert(ClipBody.self)
            body.text = "Kernel hacking"
            note.body = body
        }
        #expect(try titles(ctx, "kernel") == ["Swift on Linux", "Rust news", "Unsaved"])
    }

    @Test func bulkWritesIndexTheirObjectsWithTheirRelatedWords() throws {
        let directory = TemporaryDirectory()
        let container = try PersistentContainer(model: Self.indexed, store: .file(directory.file("notes.sqlite")))
        let ctx = container.viewContext
        try container.store.withBulkWrites {
            for n in 0..<5 {
                try add([("Batch \(n)", "word\(n) shared")], to: ctx, from: Int64(n))
            }
            // A body changed while its object waits to be indexed.
            try ctx.performAndWait { () throws in
                try clip(ctx, "Batch 0").body?.text = "changed shared"
                try ctx.save()
            }
        }
        #expect(try titles(ctx, "shared").count == 5)
        #expect(try titles(ctx, "word0").isEmpty)
        #expect(try titles(ctx, "changed") == ["Batch 0"])
        try expectIndexMatchesContent(container)
    }

    @Test func anIndexGainingARelatedAttributeIsRebuiltAndLosingItDropsItsTriggers() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("notes.sqlite")
        do {
            let container = try PersistentContainer(model: Self.model(bodyIndexed: false), store: .file(url))
            try add(Self.notes, to: container.viewContext)
            #expect(try titles(container.viewContext, "kernel").isEmpty)
            try container.store.close()
        }
        do {
            let container = try PersistentContainer(model: Self.indexed, store: .file(url))
            #expect(try titles(container.viewContext, "kernel") == ["Swift on Linux", "Rust news"])
            try expectIndexMatchesContent(container)
            try container.store.close()
        }
        let container = try PersistentContainer(model: Self.model(bodyIndexed: false), store: .file(url))
        let leftovers = try container.store.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE tbl_name = 'ClipBody' AND type = 'trigger'")
        }
        #expect(leftovers.isEmpty)
        // The body table is written without the index's triggers.
        try container.viewContext.performAndWait { () throws in
            try clip(container.viewContext, "Café").body?.text = "changed"
            try container.viewContext.save()
        }
        #expect(try titles(container.viewContext, "café") == ["Café"])
        try container.store.database.write { db in
            try db.execute(sql: "INSERT INTO Z_Clip_FTS(Z_Clip_FTS, rank) VALUES ('integrity-check', 1)")
        }
    }

    @Test func keysThatCannotBeFollowedAreRefused() {
        func model(_ keys: [String], ownerSide: Bool = true) throws {
            _ = try ManagedObjectModel(
                name: "Bad", version: 1,
                entities: [
                    EntityDescription(
                        ownerSide ? "A" : "Z", attributes: [.string("s")],
                        relationships: [
                            .toOne("one", destination: "B", inverse: "back"),
                            .toMany("many", destination: "C", inverse: "owner"),
                        ], fullTextIndex: FullTextIndexDescription(attributes: keys)),
                    EntityDescription(
                        "B", attributes: [.string("text"), .integer("n")],
                        relationships: [.toOne("back", destination: ownerSide ? "A" : "Z", inverse: "one")]),
                    EntityDescription(
                        "C", attributes: [.string("text")],
                        relationships: [.toOne("owner", destination: ownerSide ? "A" : "Z", inverse: "many")]),
                ])
        }
        #expect(throws: Never.self) { try model(["s", "one.text"]) }
        #expect(throws: ModelError.self) { try model(["one.missing"]) }
        #expect(throws: ModelError.self) { try model(["one.n"]) }  // not a string
        #expect(throws: ModelError.self) { try model(["many.text"]) }  // to-many
        #expect(throws: ModelError.self) { try model(["nothing.text"]) }
        #expect(throws: ModelError.self) { try model(["one.back.s"]) }
        // A one-to-one whose column is in the other table ("B" sorts before "Z").
        #expect(throws: ModelError.self) { try model(["one.text"], ownerSide: false) }
    }
}
