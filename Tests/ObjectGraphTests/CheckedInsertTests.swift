import Foundation
import ObjectGraph
import Testing

/// A class no entity of the model has.
final class StrayObject: ManagedObject {}

@Suite("Inserting by class")
struct CheckedInsertTests {
    @Test("inserting a class the model does not have throws, naming it")
    func unknownClassThrows() throws {
        let container = try TestModel.container()
        let context = container.viewContext
        try context.performAndWait { () throws in
            #expect(throws: ObjectGraphError.unknownEntity("StrayObject")) { try context.insertObject(StrayObject.self) }
            #expect(!context.hasChanges)
            let note = try context.insertObject(Note.self)
            #expect(note.isInserted && note.entity.name == "Note")
        }
    }

    @Test("setting an unknown key or a wrong type through setValue throws and changes nothing")
    func setValueThrows() throws {
        let container = try TestModel.container()
        let context = container.viewContext
        try context.performAndWait { () throws in
            let note = context.insert(Note.self)
            #expect(throws: ObjectGraphError.unknownKey(entity: "Note", key: "nope")) {
                try note.setValue(.integer(1), forKey: "nope")
            }
            #expect(throws: ObjectGraphError.self) { try note.setValue(.data(Data([1])), forKey: "read") }
            #expect(note.read == false)
        }
    }
}
