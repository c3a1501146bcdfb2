import Foundation
import Testing

@testable import ObjectGraph

@Suite struct ContextAPITests {
    @Test func asyncPerformAndSave() async throws {
        let container = try TestModel.container()
        let background = container.newBackgroundContext()
        let id = try await background.perform(schedule: .enqueued) { () throws -> ObjectID in
            let note = background.insert(Note.self)
            note.title = "async"
            try background.save()
            return note.objectID
        }
        #expect(!id.isTemporary)
        try await background.perform(schedule: .immediate) {
            (try background.existingObject(with: id) as! Note).title = "changed"
        }
        try await background.save(schedule: .enqueued)
        let title = try await background.perform(schedule: .enqueued) { () throws -> String? in
            background.reset()
            return (try background.existingObject(with: id) as! Note).title
        }
        #expect(title == "changed")
        await #expect(throws: ObjectGraphError.self) {
            try await background.perform(schedule: .enqueued) {
                _ = try background.existingObject(with: ObjectID(entity: id.entity, primaryKey: 999))
            }
        }
    }

    @Test func refreshAllObjectsReadsWhatOthersSaved() throws {
        let container = try TestModel.container()
        container.automaticallyMergesChangesIntoViewContext = false
        let view = container.viewContext
        let (a, b) = try view.performAndWait { () throws in
            let a = view.insert(Note.self)
            a.title = "a"
            let b = view.insert(Note.self)
            b.title = "b"
            try view.save()
            return (a, b)
        }
        let other = container.newBackgroundContext()
        try other.performAndWait { () throws in
            for note in try other.fetch(FetchRequest<Note>()) { note.body = "from elsewhere" }
            try other.save()
        }
        view.performAndWait {
            b.title = "local edit"
            #expect(a.body == nil)
            view.refreshAllObjects()
            #expect(a.body == "from elsewhere")
            #expect(b.body == "from elsewhere" && b.title == "local edit")
        }
    }

    @Test func messagesSayWhatDiffers() {
        #expect(
            ObjectGraphError.deleteDenied(entity: "Person", relationship: "pets", count: 1).description
                == "Person.pets: cannot delete, 1 related object remains (delete rule deny)")
        #expect(
            ObjectGraphError.deleteDenied(entity: "Person", relationship: "pets", count: 2).description
                == "Person.pets: cannot delete, 2 related objects remain (delete rule deny)")
        #expect(AttributeType.integer.withArticle == "an integer")
        #expect(AttributeType.string.withArticle == "a string")
    }
}
