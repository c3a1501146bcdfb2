import Foundation
import Testing

@testable import ObjectGraph

/// `context.changes` and `controller.snapshots()`: change notifications and live results as
/// `AsyncSequence`s of `Sendable` values.
@Suite struct ChangeSequenceTests {
    /// Makes a context, opens its change stream, makes an insert-and-save and an update in it,
    /// and lets the context go.
    func changesOfAContextThatGoes(_ container: PersistentContainer) async throws -> (AsyncStream<ContextChanges>, ObjectID) {
        let context = container.newBackgroundContext()
        let stream = context.changes
        let id = try await context.perform {
            let note = context.insert(Note.self)
            note.title = "a"
            try context.save()
            return note.objectID
        }
        await context.perform { (context.object(with: id) as! Note).title = "b" }
        return (stream, id)
    }

    @Test func changesArriveInOrderAndTheSequenceEndsWithTheContext() async throws {
        let container = try TestModel.container()
        let (stream, id) = try await changesOfAContextThatGoes(container)
        var received: [ContextChanges] = []
        for await change in stream { received.append(change) }  // ends: the context is gone
        #expect(received.first?.inserted.count == 1)
        #expect(received.last?.updated == [id: ["title"]])
        #expect(received.allSatisfy { !$0.isMerge })
    }

    @Test func theViewContextsSequenceCarriesMergedSaves() async throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let stream = view.changes
        let background = container.newBackgroundContext()
        let id = try await background.perform {
            let note = background.insert(Note.self)
            note.title = "from the background"
            try background.save()
            return note.objectID
        }
        var iterator = stream.makeAsyncIterator()
        let merged = await iterator.next()
        #expect(merged?.isMerge == true)
        #expect(merged?.inserted == [id])
    }

    @Test func aStreamCancelledByItsReaderStopsObserving() async throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let reader = Task { () -> Int in
            var count = 0
            for await _ in view.changes { count += 1 }
            return count
        }
        reader.cancel()
        _ = await reader.value
        await view.perform { _ = view.insert(Note.self) }
        #expect(view.changeStreams.openCount == 0)
    }

    @Test func liveResultsArriveAsSnapshots() async throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let controller = try FetchedResultsController(
            fetchRequest: FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]), context: view)
        let snapshots = try await view.perform {
            try controller.performFetch()
            return controller.snapshots()
        }
        var iterator = snapshots.makeAsyncIterator()
        #expect(await iterator.next()?.objectIDs == [])
        let background = container.newBackgroundContext()
        let (b, a) = try await background.perform {
            let b = background.insert(Note.self)
            b.title = "b"
            let a = background.insert(Note.self)
            a.title = "a"
            try background.save()
            return (b.objectID, a.objectID)
        }
        #expect(await iterator.next()?.objectIDs == [a, b])
        try await view.perform {
            (try view.existingObject(with: a) as! Note).title = "c"
            view.processPendingChanges()
        }
        #expect(await iterator.next()?.objectIDs == [b, a])
        #expect(controller.snapshotStreams.isOpen)
    }
}
