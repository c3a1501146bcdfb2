import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// ``AttributeMove``: a migration step that moves attributes out of a wide row into a new
/// one-to-one entity, with the data.
@Suite struct AttributeMoveTests {
    static let v1: ManagedObjectModel = try! ManagedObjectModel(
        name: "Notes", version: 1,
        entities: [
            EntityDescription(
                "Note",
                attributes: [
                    .string("title", optional: false), .string("body"), .data("image"), .bool("done", defaultValue: false),
                ])
        ])

    /// Version 2: body and image in `Body` (which sorts before `Note`, so it holds the link),
    /// or in `NoteText` (after it: `Note` holds the link).
    static func v2(destination: String) throws -> ManagedObjectModel {
        try ManagedObjectModel(
            name: "Notes", version: 2,
            entities: [
                EntityDescription(
                    "Note", attributes: [.string("title", optional: false), .bool("done", defaultValue: false)],
                    relationships: [.toOne("text", destination: destination, inverse: "note", deleteRule: .cascade)]),
                EntityDescription(
                    destination, attributes: [.string("body"), .data("image")],
                    relationships: [.toOne("note", destination: "Note", inverse: "text")]),
            ])
    }

    @Test(arguments: ["Body", "NoteText"]) func theAttributesMoveWithTheirRows(destination: String) throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("notes.sqlite")
        do {
            let container = try PersistentContainer(model: Self.v1, store: .file(url))
            let context = container.viewContext
            try context.performAndWait { () throws in
                for n in 0..<6 {
                    let note = try context.insertObject(entityName: "Note")
                    try note.setValue(.string("note \(n)"), forKey: "title")
                    try note.setValue(n % 3 == 0 ? .null : .string("body \(n)"), forKey: "body")
                    try note.setValue(n == 3 ? .data(Data([1, 2])) : .null, forKey: "image")
                    try note.setValue(.bool(n % 2 == 0), forKey: "done")
                }
                try context.save()
            }
            try container.store.close()
        }
        let v2 = try Self.v2(destination: destination)
        let move = AttributeMove(entity: "Note", attributes: ["body", "image"], to: destination, through: "text", toVersion: 2)
        let plan = try MigrationPlan(versions: [Self.v1, v2], moves: [move], backupRetention: .remove)
        let container = try PersistentContainer(model: v2, store: .file(url), migrator: plan)
        let context = container.viewContext
        try context.performAndWait { () throws in
            let notes = try context.fetch(
                FetchRequest<ManagedObject>(entityName: "Note", sortDescriptors: [ObjectSortDescriptor("title")]))
            #expect(notes.count == 6)
            for (n, note) in notes.enumerated() {
                let text = try note.object(forKey: "text")
                // Note 0 had neither body nor image: no row; note 3 only an image.
                #expect((text == nil) == (n == 0), "note \(n)")
                #expect(try (text?.value(forKey: "body") ?? .null) == (n % 3 == 0 ? .null : .string("body \(n)")), "note \(n)")
                #expect(try (text?.value(forKey: "image") ?? .null) == (n == 3 ? .data(Data([1, 2])) : .null), "note \(n)")
                #expect(text.flatMap { $0.objectID.primaryKey } == (n == 0 ? nil : note.objectID.primaryKey))
                #expect(try note.value(forKey: "done") == .bool(n % 2 == 0))
            }
            // The next key follows the moved ones; deleting a note takes its text.
            let text = try context.insertObject(entityName: destination)
            try context.save()
            #expect(try #require(text.objectID.primaryKey) > 6)
            context.delete(notes[1])
            try context.save()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: destination)) == 5)
        }
        try container.store.close()
    }

    @Test func movesThatDoNotFitTheModelsAreRefused() throws {
        let v2 = try Self.v2(destination: "Text")
        for (move, message) in [
            (AttributeMove(entity: "Note", attributes: ["body"], to: "Text", through: "text", toVersion: 3), "not a destination"),
            (AttributeMove(entity: "Note", attributes: ["title"], to: "Text", through: "text", toVersion: 2), "'title'"),
            (AttributeMove(entity: "Note", attributes: ["body"], to: "Note", through: "text", toVersion: 2), "must be new"),
            (AttributeMove(entity: "Note", attributes: ["body"], to: "Text", through: "done", toVersion: 2), "one-to-one"),
            (AttributeMove(entity: "Note", attributes: [], to: "Text", through: "text", toVersion: 2), "no attributes"),
        ] {
            #expect(
                performing: { try MigrationPlan(versions: [Self.v1, v2], moves: [move]) },
                throws: { error in
                    "\(error)".contains(message)
                })
        }
    }
}
