import Foundation
import Testing

@testable import ObjectGraph

@Suite struct ChildContextTests {
    /// Folder "A" with notes "one" and "two" (unread), saved.
    func populated() throws -> (PersistentContainer, folder: ObjectID, one: ObjectID) {
        let container = try TestModel.container()
        let ctx = container.viewContext
        let ids = try ctx.performAndWait { () throws in
            let a = ctx.insert(Folder.self)
            a.name = "A"
            let one = ctx.insert(Note.self)
            one.title = "one"
            one.folder = a
            let two = ctx.insert(Note.self)
            two.title = "two"
            two.folder = a
            try ctx.save()
            return (a.objectID, one.objectID)
        }
        return (container, ids.0, ids.1)
    }

    func storedTitles(_ container: PersistentContainer) throws -> [String] {
        let reader = container.newBackgroundContext()
        return try reader.performAndWait { () throws in
            try reader.fetch(FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")])).compactMap(\.title)
        }
    }

    @Test func saveGoesIntoTheParentNotTheStore() throws {
        let (container, _, oneID) = try populated()
        let view = container.viewContext
        try view.performAndWait { () throws in
            let sheet = view.newChildContext(name: "sheet")
            #expect(sheet.parent === view)
            let one = try sheet.existingObject(with: oneID) as! Note
            one.title = "uno"
            let three = sheet.insert(Note.self)
            three.title = "three"
            three.folder = one.folder
            #expect(!view.hasChanges)
            try sheet.save()
            #expect(!sheet.hasChanges)
            #expect(view.hasChanges)
            #expect(
                try view.fetch(FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")])).map(\.title) == [
                    "three", "two", "uno",
                ])
            #expect(try storedTitles(container) == ["one", "two"])
            let folder = try view.existingObject(with: one.folder!.objectID) as! Folder
            #expect(folder.unreadCount == 3)
            try view.save()
            #expect(try storedTitles(container) == ["three", "two", "uno"])
            // The child's inserted object now has the parent's (permanent) ID.
            #expect(sheet.registeredObject(for: three.objectID) === three)
        }
    }

    @Test func droppingTheChildDiscardsItsEdits() throws {
        let (container, _, oneID) = try populated()
        let view = container.viewContext
        try view.performAndWait { () throws in
            var sheet: ManagedObjectContext? = view.newChildContext()
            (try sheet!.existingObject(with: oneID) as! Note).title = "changed"
            sheet!.delete(try sheet!.existingObject(with: oneID))
            _ = sheet!.insert(Note.self)
            sheet = nil
            #expect(!view.hasChanges)
            #expect((try view.existingObject(with: oneID) as! Note).title == "one")
            let other = view.newChildContext()
            (try other.existingObject(with: oneID) as! Note).title = "changed"
            other.rollback()
            try other.save()
            #expect(!view.hasChanges)
        }
    }

    @Test func theChildSeesTheParentsUnsavedChanges() throws {
        let (container, folderID, oneID) = try populated()
        let view = container.viewContext
        try view.performAndWait { () throws in
            let folder = try view.existingObject(with: folderID) as! Folder
            let fresh = view.insert(Note.self)
            fresh.title = "fresh"
            fresh.folder = folder
            (try view.existingObject(with: oneID) as! Note).read = true
            let sheet = view.newChildContext()
            let unread = try sheet.fetch(
                FetchRequest<Note>(
                    predicate: try ObjectPredicate(format: "read == NO"), sortDescriptors: [ObjectSortDescriptor("title")])
            )
            #expect(unread.map(\.title) == ["fresh", "two"])
            #expect(try sheet.count(for: FetchRequest<Note>()) == 3)
            // Editing the parent's unsaved object in the child, then pushing it back.
            let copy = try sheet.existingObject(with: fresh.objectID) as! Note
            #expect(copy !== fresh && copy.title == "fresh" && copy.folder?.objectID == folderID)
            copy.title = "fresher"
            try sheet.save()
            #expect(fresh.title == "fresher")
            // A deletion pushed from the child.
            sheet.delete(try sheet.existingObject(with: oneID))
            try sheet.save()
            #expect(view.object(with: oneID).isDeleted)
            try view.save()
            #expect(try storedTitles(container) == ["fresher", "two"])
        }
    }

    @Test func aPushIsOneUndoStepAndOneBatchForLiveResults() throws {
        let (container, _, oneID) = try populated()
        let view = container.viewContext
        try view.performAndWait { () throws in
            view.undoManager = ContextUndoManager()
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]), context: view)
            try controller.performFetch()
            let mirror = ResultsMirror(controller)
            controller.delegate = mirror
            let sheet = view.newChildContext()
            (try sheet.existingObject(with: oneID) as! Note).title = "zed"
            sheet.insert(Note.self).title = "alpha"
            try sheet.save()
            #expect(mirror.batches == 1)
            #expect(controller.fetchedObjects.map(\.title) == ["alpha", "two", "zed"])
            #expect(mirror.objects == controller.fetchedObjects.map(ObjectIdentifier.init))
            #expect(view.undo())
            #expect(controller.fetchedObjects.map(\.title) == ["one", "two"])
            #expect(view.insertedObjects.isEmpty)
        }
    }

    @Test func aChildOnItsOwnQueueAndAGrandchild() throws {
        let (container, _, oneID) = try populated()
        let view = container.viewContext
        let worker = view.newChildContext(name: "worker", queue: DispatchQueue(label: "child"))
        try worker.performAndWait { () throws in
            let grandchild = worker.newChildContext()
            (try grandchild.existingObject(with: oneID) as! Note).title = "from grandchild"
            try grandchild.save()
            #expect((try worker.existingObject(with: oneID) as! Note).title == "from grandchild")
            try worker.save()
        }
        try view.performAndWait { () throws in
            #expect((try view.existingObject(with: oneID) as! Note).title == "from grandchild")
            try view.save()
        }
        #expect(try storedTitles(container) == ["from grandchild", "two"])
    }

    @Test func validationFailsTheChildsSaveAndLeavesTheParentAlone() throws {
        let (container, _, _) = try populated()
        let view = container.viewContext
        view.performAndWait {
            let sheet = view.newChildContext()
            _ = sheet.insert(Folder.self)  // name is required
            #expect(throws: ObjectGraphError.missingValue(entity: "Folder", key: "name")) { try sheet.save() }
            #expect(sheet.hasChanges)
            #expect(!view.hasChanges)
        }
    }
}
