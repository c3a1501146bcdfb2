import Foundation
import Observation
import Synchronization
import Testing

@testable import ObjectGraph

/// `reset()` tells its observers, as Core Data's does: ObjectsDidChange saying every object
/// was invalidated (and the same in `changes`), Observation for the objects it held, and live
/// results controllers fetch again.
@Suite struct ResetObserverTests {
    /// A saved note and an unsaved one in the view context of a fresh container.
    func twoNotes(_ container: PersistentContainer) throws -> (saved: Note, unsaved: Note) {
        let view = container.viewContext
        return try view.performAndWait { () throws in
            let saved = view.insert(Note.self)
            saved.title = "saved"
            try view.save()
            let unsaved = view.insert(Note.self)
            unsaved.title = "unsaved"
            view.processPendingChanges()
            return (saved, unsaved)
        }
    }

    @Test func resetPostsObjectsDidChangeSayingAllWereInvalidated() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let (saved, unsaved) = try twoNotes(container)
        let notes = Mutex<[(all: Bool, ids: Set<ObjectID>, inserted: Int)]>([])
        let token = container.bus.observeObjectsDidChange(in: view) { note in
            notes.withLock { $0.append((note.invalidatedAll, note.invalidatedObjectIDs, note.inserted.count)) }
        }
        defer { token.cancel() }
        view.performAndWait { view.reset() }
        let posted = notes.withLock { $0 }
        #expect(posted.count == 1)
        #expect(posted.first?.all == true)
        #expect(posted.first?.ids == [saved.objectID, unsaved.objectID])
        #expect(posted.first?.inserted == 0)
        // Other batches do not say so.
        view.performAndWait { view.insert(Note.self).title = "after" }
        #expect(notes.withLock { $0.map(\.all) } == [true, false])
    }

    @Test func theChangesSequenceYieldsTheReset() async throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let (saved, _) = try twoNotes(container)
        var changes = view.changes.makeAsyncIterator()
        await view.perform(schedule: .enqueued) { view.reset() }
        let change = await changes.next()
        #expect(change?.invalidatedAll == true)
        #expect(change?.invalidated.contains(saved.objectID) == true)
        #expect(change?.inserted.isEmpty == true)
    }

    @Test func resetFiresObservationForTheObjectsItHeld() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let (saved, unsaved) = try twoNotes(container)
        try view.performAndWait { () throws in
            let savedTitle = Tally()
            withObservationTracking {
                _ = saved.title
            } onChange: {
                savedTitle.bump()
            }
            let unsavedFolder = Tally()
            withObservationTracking {
                _ = unsaved.folder
            } onChange: {
                unsavedFolder.bump()
            }
            // An object fetched again after the reset is another object: nothing fires twice.
            view.reset()
            #expect(savedTitle.value == 1)
            #expect(unsavedFolder.value == 1)
            let again = try #require(try view.fetch(FetchRequest<Note>()).first)
            let title = Tally()
            withObservationTracking {
                _ = again.title
            } onChange: {
                title.bump()
            }
            again.title = "changed after the reset"
            #expect(title.value == 1)
            #expect(savedTitle.value == 1)
        }
    }

    @Test func aLiveResultsControllerFetchesAgainAfterReset() throws {
        let container = try TestModel.twoFolders(notes: 10, inA: 5, ratings: 3)
        let view = container.viewContext
        try view.performAndWait { () throws in
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Note>(
                    predicate: try ObjectPredicate(format: "read == NO"), sortDescriptors: [ObjectSortDescriptor("title")]),
                context: view)
            try controller.performFetch()
            let mirror = ResultsMirror(controller)
            controller.delegate = mirror
            let before = controller.fetchedObjects.map(ObjectIdentifier.init)
            view.insert(Note.self).title = "note 0 unsaved"  // goes with the reset
            view.processPendingChanges()
            mirror.batches = 0
            view.reset()
            #expect(mirror.batches == 1)
            #expect(controller.fetchedObjects.map(\.title) == ["note 1", "note 3", "note 5", "note 7", "note 9"])
            #expect(controller.fetchedObjects.allSatisfy { $0.managedObjectContext === view })
            #expect(Set(controller.fetchedObjects.map(ObjectIdentifier.init)).isDisjoint(with: before))
            try FetchedResultsControllerTests().expectCurrent(controller, mirror)
            // Still live: a change of a refetched object moves it.
            controller.fetchedObjects[0].title = "note 99"
            view.processPendingChanges()
            #expect(controller.fetchedObjects.map(\.title).last == "note 99")
            try FetchedResultsControllerTests().expectCurrent(controller, mirror)
        }
    }

    @Test func aSectionedControllerFetchesAgainAfterReset() throws {
        let container = try TestModel.twoFolders(notes: 6, inA: 2, ratings: 3)
        let view = container.viewContext
        try view.performAndWait { () throws in
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Note>(
                    sortDescriptors: [ObjectSortDescriptor("folder.name"), ObjectSortDescriptor("title")]),
                context: view, sectionNameKeyPath: "folder.name")
            try controller.performFetch()
            let mirror = ResultsMirror(controller)
            controller.delegate = mirror
            // Folder A's notes go in another context whose save this one does not merge.
            container.automaticallyMergesChangesIntoViewContext = false
            let other = container.newBackgroundContext()
            try other.performAndWait { () throws in
                for note in try other.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "folder.name == 'A'"))) {
                    other.delete(note)
                }
                try other.save()
            }
            #expect(controller.sections.map(\.name) == ["A", "B"])
            view.reset()
            #expect(controller.sections.map(\.name) == ["B"])
            #expect(controller.sections.first?.numberOfObjects == 4)
            try FetchedResultsControllerTests().expectCurrent(controller, mirror)
        }
    }
}
