import Foundation
import Testing

@testable import ObjectGraph

/// A program that lets its `PersistentContainer` go while it still uses a context: every
/// context but the view context keeps the container alive (as a Core Data context keeps its
/// coordinator), the view context keeps working without it, and nothing keeps the stack alive
/// once the program holds none of it.
@Suite struct ReleasedContainerTests {
    /// Refers to a container without keeping it.
    final class WeakContainer {
        weak var value: PersistentContainer?
    }

    /// A view context whose container was released as soon as it was made.
    func orphanedViewContext() throws -> (ManagedObjectContext, WeakContainer) {
        let container = try TestModel.container()
        let gone = WeakContainer()
        gone.value = container
        return (container.viewContext, gone)
    }

    @Test func aBackgroundContextKeepsItsContainerAlive() async throws {
        weak var released: PersistentContainer?
        let context = try {
            let container = try TestModel.container()
            released = container
            return container.newBackgroundContext(name: "kept")
        }()
        #expect(released != nil)
        let (count, same) = try await context.perform { () throws(ObjectGraphError) in
            let note = context.insert(Note.self)
            note.title = "saved after the container was let go"
            try context.save()
            return (try context.count(for: FetchRequest<Note>()), try context.owningContainer() === context.container)
        }
        #expect(same)
        #expect(count == 1)
    }

    @Test func childScratchAndActorContextsKeepTheirContainerAlive() async throws {
        weak var released: PersistentContainer?
        let (scratch, actor) = try {
            let container = try TestModel.container()
            released = container
            return (container.newScratchContext(), BackgroundContextActor(container: container))
        }()
        #expect(released != nil)
        let id = try await actor.run { context in
            let note = context.insert(Note.self)
            note.title = "from the actor"
            try context.save()
            return note.objectID
        }
        try scratch.performAndWait { () throws in
            let child = scratch.newChildContext()
            #expect(child.container === scratch.container)
            #expect((try child.existingObject(with: id) as? Note)?.title == "from the actor")
        }
    }

    @Test func theStackIsFreedWhenTheProgramLetsItAllGo() async throws {
        weak var container: PersistentContainer?
        weak var view: ManagedObjectContext?
        weak var background: ManagedObjectContext?
        weak var bus: ChangeBus?
        var queues: [DispatchQueue] = []
        try await { () async throws in
            let stack = try TestModel.container()
            container = stack
            view = stack.viewContext
            bus = stack.bus
            let context = stack.newBackgroundContext()
            background = context
            queues = [context.queue, stack.viewContext.queue]
            let changes = stack.viewContext.changes
            let controller = try stack.viewContext.performAndWait { () throws in
                let controller = try FetchedResultsController(
                    fetchRequest: FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]), context: stack.viewContext
                )
                try controller.performFetch()
                return controller
            }
            try await context.perform { () throws(ObjectGraphError) in
                context.insert(Note.self).title = "merged into the view context"
                try context.save()
            }
            var iterator = changes.makeAsyncIterator()
            _ = await iterator.next()
            stack.viewContext.performAndWait { #expect(controller.fetchedObjects.count == 1) }
        }()
        // Blocks still queued (the end of a perform, the view context's merge) hold their context.
        for queue in queues + queues { queue.sync {} }
        #expect(container == nil)
        #expect(view == nil)
        #expect(background == nil)
        #expect(bus == nil)
    }

    @Test func aViewContextOutlivingItsContainerSavesFetchesAndExecutes() async throws {
        let (view, container) = try orphanedViewContext()
        #expect(container.value == nil)
        let titles = try await view.perform { () throws(ObjectGraphError) in
            for title in ["b", "a"] { view.insert(Note.self).title = title }
            try view.save()
            try view.execute(
                BatchUpdateRequest(
                    entityName: "Note", predicate: try ObjectPredicate(format: "title == 'a'"),
                    propertiesToUpdate: ["read": .bool(true)]))
            return try view.fetch(FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")])).map(\.title)
        }
        #expect(titles == ["a", "b"])
        let read = try view.performAndWait {
            try view.count(for: FetchRequest<Note>(predicate: try ObjectPredicate(format: "read == YES")))
        }
        #expect(read == 1)
    }

    @Test func aViewContextOutlivingItsContainerStillAnnouncesItsChanges() async throws {
        let (view, container) = try orphanedViewContext()
        #expect(container.value == nil)
        let changes = view.changes
        let controller = try view.performAndWait { () throws in
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]), context: view)
            try controller.performFetch()
            return controller
        }
        let id = try await view.perform { () throws(ObjectGraphError) in
            let note = view.insert(Note.self)
            note.title = "live"
            try view.save()
            return note.objectID
        }
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next()?.inserted.count == 1)
        view.performAndWait { #expect(controller.fetchedObjects.map(\.objectID) == [id]) }
    }

    @Test func aChildOfAnOrphanedViewContextSavesIntoIt() throws {
        let (view, _) = try orphanedViewContext()
        try view.performAndWait { () throws in
            let child = view.newChildContext(name: "sheet")
            child.insert(Note.self).title = "from the child"
            try child.save()
            #expect(view.hasChanges)
            try view.save()
            #expect(try view.count(for: FetchRequest<Note>()) == 1)
        }
    }

    @Test func askingAnOrphanedViewContextForItsContainerThrowsNamingTheCause() throws {
        let (view, _) = try orphanedViewContext()
        let error = #expect(throws: ObjectGraphError.containerReleased(context: "ManagedObjectContext(view)")) {
            try view.owningContainer()
        }
        #expect(
            error?.description
                == "the container of ManagedObjectContext(view) was released: keep the PersistentContainer for as long as its view context is used"
        )
    }

    @Test func theContainerPropertyOfAnOrphanedViewContextStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let view = try TestModel.container().viewContext
            _ = view.container
        }
    }
}
