import Foundation
import Testing

@testable import ObjectGraph

@Suite struct ContextTests {
    @Test func insertSaveFetchAndUniquing() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let folder = ctx.insert(Folder.self)
            folder.name = "Inbox"
            let note = ctx.insert(Note.self)
            note.title = "Hello"
            note.folder = folder
            #expect(ctx.hasChanges)
            #expect(note.objectID.isTemporary)
            #expect(ctx.insertedObjects.count == 2)
            try ctx.save()
            #expect(!ctx.hasChanges)
            #expect(!note.objectID.isTemporary)
            let fetched = try ctx.fetch(FetchRequest<Note>())
            #expect(fetched.count == 1)
            #expect(fetched[0] === note)  // uniquing
            #expect(folder.notes.map(\.title) == ["Hello"])
        }
        // A second context sees the saved rows, as distinct objects.
        let other = container.newBackgroundContext()
        try other.performAndWait { () throws in
            let notes = try other.fetch(FetchRequest<Note>())
            #expect(notes.count == 1)
            #expect(notes[0].title == "Hello")
            #expect(notes[0].folder?.name == "Inbox")
            let again = try other.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'Hello'")))
            #expect(again[0] === notes[0])
        }
    }

    @Test func typedPropertiesRoundTripEveryAttributeType() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("types.sqlite")
        let date = Date(timeIntervalSince1970: 1_700_000_000.5)
        do {
            let container = try TestModel.container(.file(url))
            try container.viewContext.performAndWait { () throws in
                let n = container.viewContext.insert(Note.self)
                n.title = "Café ☕"
                n.read = true
                n.rating = 4.25
                n.created = date
                n.blob = Data([0, 1, 2, 255])
                n.scratch = "transient"
                try container.viewContext.save()
            }
        }
        let container = try TestModel.container(.file(url))
        try container.viewContext.performAndWait { () throws in
            let n = try #require(try container.viewContext.fetch(FetchRequest<Note>()).first)
            #expect(n.title == "Café ☕")
            #expect(n.read == true)
            #expect(n.rating == 4.25)
            #expect(n.created == date)
            #expect(n.blob == Data([0, 1, 2, 255]))
            #expect(n.scratch == nil)  // transient: never stored
        }
    }

    @Test func rollbackRestoresEverything() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let folder = ctx.insert(Folder.self)
            folder.name = "A"
            let note = ctx.insert(Note.self)
            note.title = "kept"
            note.folder = folder
            try ctx.save()
            note.title = "changed"
            let extra = ctx.insert(Note.self)
            extra.title = "new"
            ctx.delete(folder)
            #expect(note.isDeleted)  // cascade
            ctx.rollback()
            #expect(!ctx.hasChanges)
            #expect(note.title == "kept")
            #expect(!note.isDeleted && !folder.isDeleted)
            #expect(try ctx.count(for: FetchRequest<Note>()) == 1)
            #expect(extra.managedObjectContext == nil)
        }
    }

    @Test func resetForgetsObjects() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let n = ctx.insert(Note.self)
            n.title = "x"
            try ctx.save()
            n.title = "unsaved"
            ctx.reset()
            #expect(!ctx.hasChanges)
            #expect(ctx.registeredObjects.isEmpty)
            let fresh = try ctx.fetch(FetchRequest<Note>())
            #expect(fresh[0] !== n)
            #expect(fresh[0].title == "x")
        }
    }

    @Test func objectIDsCrossQueuesAndFaultLazily() throws {
        let container = try TestModel.container()
        let id: ObjectID = try container.viewContext.performAndWait { () throws in
            let n = container.viewContext.insert(Note.self)
            n.title = "by id"
            try container.viewContext.save()
            return n.objectID
        }
        let background = container.newBackgroundContext()
        try background.performAndWait { () throws in
            let fault = background.object(with: id) as! Note
            #expect(fault.isFault)
            #expect(fault.title == "by id")
            #expect(!fault.isFault)
            let missing = ObjectID(entity: id.entity, rawValue: 9999)
            #expect(throws: ObjectGraphError.self) { try background.existingObject(with: missing) }
        }
    }

    @Test func cascadeNullifyAndDenyRules() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let folder = ctx.insert(Folder.self)
            folder.name = "F"
            for i in 0..<3 {
                let n = ctx.insert(Note.self)
                n.title = "n\(i)"
                n.folder = folder
            }
            let person = ctx.insert(Person.self)
            person.name = "Ann"
            let pet = ctx.insert(Pet.self)
            pet.name = "Rex"
            pet.owner = person
            let profile = ctx.insert(Profile.self)
            profile.bio = "hi"
            person.profile = profile
            #expect(profile.person === person)
            try ctx.save()

            ctx.delete(folder)
            try ctx.save()
            #expect(try ctx.count(for: FetchRequest<Note>()) == 0)

            ctx.delete(person)
            #expect(throws: ObjectGraphError.deleteDenied(entity: "Person", relationship: "pets", count: 1)) { try ctx.save() }
            #expect(ctx.hasChanges)  // the failed save kept its changes
            ctx.delete(pet)
            try ctx.save()
            #expect(try ctx.count(for: FetchRequest<Person>()) == 0)
            #expect(try ctx.count(for: FetchRequest<Profile>()) == 0)  // cascade through one-to-one
        }
    }

    @Test func nullifyClearsInverse() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let person = ctx.insert(Person.self)
            person.name = "Bo"
            let profile = ctx.insert(Profile.self)
            profile.person = person
            try ctx.save()
            ctx.delete(profile)  // Profile.person is nullify
            try ctx.save()
            #expect(person.profile == nil)
            #expect(try ctx.count(for: FetchRequest<Person>()) == 1)
        }
    }

    @Test func oneToOneMovesBetweenOwners() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let a = ctx.insert(Person.self)
            a.name = "A"
            let b = ctx.insert(Person.self)
            b.name = "B"
            let p = ctx.insert(Profile.self)
            a.profile = p
            b.profile = p
            #expect(a.profile == nil)
            #expect(b.profile === p)
            #expect(p.person === b)
            try ctx.save()
            let other = container.newBackgroundContext()
            try other.performAndWait { () throws in
                let people = try other.fetch(FetchRequest<Person>(sortDescriptors: [ObjectSortDescriptor("name")]))
                #expect(people[0].profile == nil)
                #expect(people[1].profile != nil)
            }
        }
    }

    @Test func errorsNameEntityAndKey() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let n = ctx.insert(Note.self)
            #expect(throws: ObjectGraphError.unknownKey(entity: "Note", key: "nope")) { try n.setValue("x", forKey: "nope") }
            #expect(throws: ObjectGraphError.typeMismatch(entity: "Note", key: "read", expected: "bool", got: "string")) {
                try n.setValue("yes", forKey: "read")
            }
            #expect(throws: ObjectGraphError.unknownEntity("Nope")) { try ctx.insertObject(entityName: "Nope") }
            let f = ctx.insert(Folder.self)  // name is required
            #expect(throws: ObjectGraphError.missingValue(entity: "Folder", key: "name")) { try ctx.save() }
            f.name = "ok"
            try ctx.save()
        }
    }

    @Test func uniquenessViolationKeepsChangesAndCanBeFixed() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let a = ctx.insert(Folder.self)
            a.name = "same"
            try ctx.save()
            let b = ctx.insert(Folder.self)
            b.name = "same"
            let n = ctx.insert(Note.self)
            n.title = "rides along"
            #expect(throws: ObjectGraphError.uniquenessViolation(entity: "Folder", keys: ["name"], values: ["\"same\""])) {
                try ctx.save()
            }
            #expect(ctx.hasChanges)
            #expect(b.objectID.isTemporary)
            // Nothing half-written:
            let other = container.newBackgroundContext()
            try other.performAndWait { () throws in #expect(try other.count(for: FetchRequest<Note>()) == 0) }
            b.name = "different"
            try ctx.save()
            try other.performAndWait { () throws in #expect(try other.count(for: FetchRequest<Note>()) == 1) }
        }
    }

    @Test func modelValidation() {
        #expect(throws: ModelError.self) {
            try ManagedObjectModel(
                name: "M", version: 1,
                entities: [EntityDescription("A", relationships: [.toOne("b", destination: "B", inverse: "a")])])
        }
        #expect(throws: ModelError.self) {
            try ManagedObjectModel(
                name: "M", version: 1, entities: [EntityDescription("A", attributes: [.string("x"), .integer("x")])])
        }
        #expect(throws: ModelError.self) {
            try ManagedObjectModel(
                name: "M", version: 1,
                entities: [
                    EntityDescription("A", attributes: [AttributeDescription(name: "x", type: .integer, defaultValue: "s")])
                ])
        }
        #expect(throws: ModelError.self) {
            try ManagedObjectModel(
                name: "M", version: 1,
                entities: [EntityDescription("A", attributes: [.string("x")], uniquenessConstraints: [["y"]])])
        }
    }
}
