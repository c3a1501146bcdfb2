import Foundation
import ObjectGraph
import Testing

/// A plain fetch with a batch size returns faults that load a batch at a time, as Core Data's
/// does, instead of reading every row at once.
@Suite("Fetch batch size")
struct FetchBatchSizeTests {
    func savedNotes(_ count: Int) throws -> PersistentContainer {
        let container = try TestModel.container()
        let context = container.viewContext
        try context.performAndWait { () throws in
            for i in 0..<count {
                let note = context.insert(Note.self)
                note.title = "note \(i)"
            }
            try context.save()
        }
        return container
    }

    @Test("a plain fetch with a batch size loads a batch when one of it is used")
    func plainFetchLoadsInBatches() throws {
        let container = try savedNotes(25)
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            let request = FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor(\Note.title)], fetchBatchSize: 10)
            let notes = try context.fetch(request)
            #expect(notes.count == 25)
            #expect(notes.allSatisfy { $0.isFault })
            #expect(notes[0].title == "note 0")
            #expect(notes[0..<10].allSatisfy { !$0.isFault })
            #expect(notes[10...].allSatisfy { $0.isFault })
            #expect(notes[24].title == "note 9")
            #expect(notes[20...].allSatisfy { !$0.isFault })
        }
    }

    @Test("without a batch size, or with unsaved changes, a fetch loads every object")
    func otherFetchesLoadEverything() throws {
        let container = try savedNotes(5)
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            #expect(try context.fetch(FetchRequest<Note>()).allSatisfy { !$0.isFault })
            context.insert(Note.self).title = "unsaved"
            let notes = try context.fetch(FetchRequest<Note>(fetchBatchSize: 2))
            #expect(notes.count == 6 && notes.allSatisfy { !$0.isFault })
        }
    }
}
