import Foundation
import Testing

@testable import ObjectGraph

/// `fetchValues(_:keys:)`: IDs and a few attributes, read without making objects, that agree
/// with `fetch(_:)` whatever the context holds unsaved.
@Suite struct FetchValuesTests {
    /// Notes "note 0" … "note 9" (odd ones read) with a large body, in folder "A", saved.
    func makeContainer() throws -> PersistentContainer {
        let container = try TestModel.container()
        let context = container.viewContext
        try context.performAndWait { () throws in
            let folder = context.insert(Folder.self)
            folder.name = "A"
            for n in 0..<10 {
                let note = context.insert(Note.self)
                note.title = "note \(n)"
                note.body = String(repeating: "x", count: 10_000)
                note.read = n % 2 == 1
                note.rating = Double(n)
                note.folder = folder
            }
            try context.save()
        }
        return container
    }

    /// What `fetch` gives for `request`, as ID and titles and ratings.
    func expected(_ request: FetchRequest<Note>, in context: ManagedObjectContext) throws -> [FetchedValues] {
        try context.fetch(request).map {
            FetchedValues(objectID: $0.objectID, values: [$0.title.valueRepresentation, .double($0.rating)])
        }
    }

    @Test func readsOnlyTheKeysInTheRequestsOrderAndMakesNoObjects() throws {
        let container = try makeContainer()
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            let request = FetchRequest<Note>(
                predicate: try ObjectPredicate(format: "read == NO AND rating > 1"),
                sortDescriptors: [ObjectSortDescriptor("rating", ascending: false)],
                fetchLimit: 2, fetchOffset: 1)
            let rows = try context.fetchValues(request, keys: ["title", "rating"])
            #expect(rows.map(\.values) == [[.string("note 6"), .double(6)], [.string("note 4"), .double(4)]])
            #expect(context.registeredObjects.isEmpty)
            #expect(rows == (try expected(request, in: context)))
            #expect(try context.fetchValues(FetchRequest<Note>(), keys: []).count == 10)
        }
    }

    @Test func unsavedChangesApplyAsInFetch() throws {
        let container = try makeContainer()
        let context = container.viewContext
        try context.performAndWait { () throws in
            let notes = try context.fetch(FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("rating")]))
            notes[0].title = "renamed"
            notes[2].read = true  // no longer matches
            context.delete(notes[4])
            let new = context.insert(Note.self)
            new.title = "new"
            new.rating = 3.5
            let request = FetchRequest<Note>(
                predicate: try ObjectPredicate(format: "read == NO"), sortDescriptors: [ObjectSortDescriptor("rating")])
            let rows = try context.fetchValues(request, keys: ["title", "rating"])
            #expect(rows.map { $0.values[0] } == [.string("renamed"), .string("new"), .string("note 6"), .string("note 8")])
            #expect(rows == (try expected(request, in: context)))
        }
    }

    @Test func unknownAndTransientKeysAreRefused() throws {
        let container = try makeContainer()
        let context = container.viewContext
        context.performAndWait {
            for key in ["nope", "scratch", "folder"] {
                #expect {
                    try context.fetchValues(FetchRequest<Note>(), keys: [key])
                } throws: { error in
                    guard case .unknownKey(let entity, let named) = error as? ObjectGraphError else { return false }
                    return entity == "Note" && named == key
                }
            }
        }
    }
}
