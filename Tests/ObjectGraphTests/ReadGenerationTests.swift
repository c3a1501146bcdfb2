import Foundation
import Testing

@testable import ObjectGraph

@Suite struct ReadGenerationTests {
    @Test func aPinnedContextReadsOneSnapshotUntilAdvanced() throws {
        let directory = TemporaryDirectory()
        let container = try TestModel.container(.file(directory.file("store.sqlite")))
        container.automaticallyMergesChangesIntoViewContext = false
        let writer = container.newBackgroundContext(name: "writer")
        let id = try writer.performAndWait { () throws in
            let n = writer.insert(Note.self)
            n.title = "first"
            try writer.save()
            return n.objectID
        }
        let reader = container.newBackgroundContext(name: "reader")
        try reader.performAndWait { () throws in
            try reader.pinReadGeneration()
            #expect(reader.isReadGenerationPinned)
        }
        try writer.performAndWait { () throws in
            (try writer.existingObject(with: id) as! Note).title = "changed"
            writer.insert(Note.self).title = "second"
            try writer.save()
        }
        try reader.performAndWait { () throws in
            #expect(try reader.count(for: FetchRequest<Note>()) == 1)
            #expect(try reader.fetch(FetchRequest<Note>()).map(\.title) == ["first"])
            reader.reset()
            #expect((reader.object(with: id) as! Note).title == "first")  // a fault reads the pinned generation too
            try reader.advanceReadGeneration()
            reader.reset()
            #expect(
                try reader.fetch(FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")])).map(\.title) == [
                    "changed", "second",
                ])
            // Its own save moves it on.
            reader.insert(Note.self).title = "third"
            try reader.save()
            #expect(try reader.count(for: FetchRequest<Note>()) == 3)
            reader.unpinReadGeneration()
            #expect(!reader.isReadGenerationPinned)
        }
    }

    @Test func anInMemoryStoreHasNoGenerations() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        ctx.performAndWait {
            _ = #expect(throws: ObjectGraphError.generationsUnavailable(path: ":memory:")) { try ctx.pinReadGeneration() }
        }
    }
}
