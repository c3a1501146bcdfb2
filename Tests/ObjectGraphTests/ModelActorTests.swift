import Foundation
import Observation
import Synchronization
import Testing

@testable import ObjectGraph

/// An actor of its own, as an app declares one: its isolated methods use the context directly.
actor NoteWriter: ModelActor {
    nonisolated let modelExecutor: ContextExecutor

    init(container: PersistentContainer) {
        modelExecutor = ContextExecutor(context: container.newBackgroundContext(name: "writer"))
    }

    /// Inserts and saves a note; the context's own queue checks pass, so this runs on it.
    func add(_ title: String) throws -> ObjectID {
        let note = modelContext.insert(Note.self)
        note.title = title
        try modelContext.save()
        return note.objectID
    }

    func retitle(_ id: ObjectID, _ title: String) throws {
        (try modelContext.existingObject(with: id) as! Note).title = title
        try modelContext.save()
    }

    func titles() throws -> [String] {
        try modelContext.fetch(FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")])).compactMap(\.title)
    }

    /// Whether the actor's code runs on its context's queue.
    func onQueue() -> Bool { modelContext.isOnQueue }
}

@Suite struct ModelActorTests {
    @Test func anActorsMethodsRunOnItsContextsQueue() async throws {
        let container = try TestModel.container()
        let writer = NoteWriter(container: container)
        #expect(await writer.onQueue())
        #expect(!writer.modelContext.isOnQueue)
        let id = try await writer.add("from the actor")
        #expect(try await writer.titles() == ["from the actor"])
        let check = container.newBackgroundContext()
        let stored = try await check.perform { (try check.existingObject(with: id) as! Note).title }
        #expect(stored == "from the actor")
    }

    @Test func concurrentCallsAreSerialisedOnTheQueue() async throws {
        let container = try TestModel.container()
        let writer = NoteWriter(container: container)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<40 {
                group.addTask { _ = try await writer.add(String(format: "note %02d", i)) }
            }
            try await group.waitForAll()
        }
        let titles = try await writer.titles()
        #expect(titles == (0..<40).map { String(format: "note %02d", $0) })
    }

    @Test func theBackgroundActorRunsABlockWithItsContext() async throws {
        let container = try TestModel.container()
        let background = BackgroundContextActor(container: container, name: "sync")
        let id = try await background.run { context in
            #expect(context.isOnQueue)
            let note = context.insert(Note.self)
            note.title = "run"
            try context.save()
            return note.objectID
        }
        let count = try await background.run { context in try context.count(for: FetchRequest<Note>()) }
        #expect(count == 1)
        #expect(!id.isTemporary)
        #expect(background.modelContext.name == "sync")
    }

    @Test func assumeIsolatedWorksInABlockTheContextRuns() async throws {
        let container = try TestModel.container()
        let writer = NoteWriter(container: container)
        let onQueue = await writer.modelContext.perform { writer.assumeIsolated { $0.onQueue() } }
        #expect(onQueue)
    }

    @Test func anActorsSaveIsMergedAndObservedInTheViewContext() async throws {
        let container = try TestModel.container()
        let writer = NoteWriter(container: container)
        let view = container.viewContext
        let id = try await writer.add("before")
        // The view context holds its objects weakly: the observed note is kept here, as a view would.
        let note = try view.performAndWait { try view.existingObject(with: id) as! Note }
        let tally = Tally()
        let title = view.performAndWait {
            withObservationTracking {
                _ = note.title
            } onChange: {
                tally.bump()
            }
            return note.title
        }
        #expect(title == "before")
        try await writer.retitle(id, "after")
        await view.perform {}  // the merge runs on the view context's queue
        #expect(tally.value == 1)
        #expect(view.performAndWait { note.title } == "after")
    }
}
