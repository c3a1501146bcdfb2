import Foundation
import Testing

@testable import ObjectGraph

@Suite struct ObjectIDURITests {
    @Test func aURISurvivesReopeningTheStore() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("notes.sqlite")
        var uri: URL?
        var identifier = ""
        do {
            let container = try TestModel.container(.file(url))
            identifier = container.store.identifier
            #expect(UUID(uuidString: identifier) != nil)
            let ctx = container.newBackgroundContext()
            try ctx.performAndWait { () throws in
                let note = ctx.insert(Note.self)
                note.title = "keep me"
                #expect(note.objectID.uriRepresentation(in: container) == nil)  // temporary
                let other = ctx.insert(Note.self)
                other.title = "not me"
                try ctx.save()
                uri = ctx.uriRepresentation(for: note.objectID)
                #expect(uri == note.objectID.uriRepresentation(in: container.store))
                #expect(ctx.managedObjectID(forURIRepresentation: try #require(uri)) == note.objectID)
            }
        }
        let saved = try #require(uri)
        #expect(saved.absoluteString.hasPrefix("x-objectgraph://\(identifier)/Note/"))

        // A new container (as after a relaunch) on the same file: same identifier, same object.
        let reopened = try TestModel.container(.file(url))
        #expect(reopened.store.identifier == identifier)
        let id = try #require(reopened.managedObjectID(forURIRepresentation: saved))
        let ctx = reopened.newBackgroundContext()
        let title = try ctx.performAndWait { () throws in (try ctx.existingObject(with: id) as? Note)?.title }
        #expect(title == "keep me")
        // Opened read-only, the file keeps its recorded identifier.
        let readOnly = try PersistentStore(model: TestModel.model, location: .file(url), readOnly: true)
        #expect(readOnly.identifier == identifier)
        #expect(readOnly.managedObjectID(forURIRepresentation: saved) == id)
    }

    @Test func aURIOfAnotherStoreOrMalformedNamesNothing() throws {
        let tmp = TemporaryDirectory()
        let a = try TestModel.container(.file(tmp.file("a.sqlite")))
        let b = try TestModel.container(.file(tmp.file("b.sqlite")))
        let memory = try TestModel.container()
        #expect(a.store.identifier != b.store.identifier)
        #expect(a.store.identifier != memory.store.identifier)
        let ctx = a.newBackgroundContext()
        let uri = try ctx.performAndWait { () throws in
            let folder = ctx.insert(Folder.self)
            folder.name = "Inbox"
            try ctx.save()
            return try #require(ctx.uriRepresentation(for: folder.objectID))
        }
        #expect(a.managedObjectID(forURIRepresentation: uri)?.entity.name == "Folder")
        #expect(b.managedObjectID(forURIRepresentation: uri) == nil)
        let host = a.store.identifier
        for bad in [
            "x-coredata://\(host)/Folder/1", "x-objectgraph://\(host)/Nope/1", "x-objectgraph://\(host)/Folder/0",
            "x-objectgraph://\(host)/Folder/-3", "x-objectgraph://\(host)/Folder/t1", "x-objectgraph://\(host)/Folder/1/2",
            "x-objectgraph://\(host)/Folder", "x-objectgraph://\(host)/Folder/99999999999999999999",
            "x-objectgraph://\(host)/Folder/1?x=1",
        ] {
            #expect(a.managedObjectID(forURIRepresentation: URL(string: bad)!) == nil, "\(bad)")
        }
        // A well-formed URI for a row that does not exist resolves to an ID the context then refuses.
        let missing = try #require(a.managedObjectID(forURIRepresentation: URL(string: "x-objectgraph://\(host)/Folder/42")!))
        #expect(throws: ObjectGraphError.self) {
            try ctx.performAndWait { () throws in _ = try ctx.existingObject(with: missing) }
        }
    }
}
