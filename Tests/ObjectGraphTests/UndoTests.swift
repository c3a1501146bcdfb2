import Foundation
import Testing

@testable import ObjectGraph

@Suite struct UndoTests {
    @Test func undoRedoAttributeInsertDeleteAndRelationship() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            ctx.undoManager = ContextUndoManager()
            let f = ctx.insert(Folder.self)
            f.name = "F"
            ctx.processPendingChanges()
            let n = ctx.insert(Note.self)
            n.title = "one"
            n.folder = f
            ctx.processPendingChanges()
            n.title = "two"
            ctx.processPendingChanges()
            #expect(ctx.undo())
            #expect(n.title == "one")
            #expect(ctx.redo())
            #expect(n.title == "two")
            #expect(ctx.undo())
            #expect(ctx.undo())  // the insert of n
            #expect(n.isDeleted || n.managedObjectContext == nil)
            #expect(f.unreadCount == 0)
            #expect(ctx.redo())
            let again = try ctx.fetch(FetchRequest<Note>())
            #expect(again.count == 1)
            #expect(again[0].folder === f)
            #expect(f.unreadCount == 1)
        }
    }

    /// Undoing a change to an object another context deleted meanwhile must not bring back
    /// a phantom object (a row-less copy that fetches do not return).
    @Test func undoOfAChangeToAnObjectDeletedElsewhereDoesNothing() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        let id = try ctx.performAndWait { () throws in
            ctx.undoManager = ContextUndoManager()
            let n = ctx.insert(Note.self)
            n.title = "one"
            try ctx.save()
            n.rating = 3
            try ctx.save()
            return n.objectID
        }
        let other = container.newBackgroundContext()
        try other.performAndWait { () throws in
            other.delete(try other.existingObject(with: id))
            try other.save()
        }
        try ctx.performAndWait { () throws in
            _ = ctx.undo()
            #expect(!ctx.hasChanges)
            #expect(try ctx.fetch(FetchRequest<Note>()).isEmpty)
        }
    }

    /// Undoing an unsaved deletion of an object another context changed meanwhile brings it
    /// back with the stored values, not those it had when it was deleted.
    @Test func undoOfADeletionKeepsChangesSavedElsewhereMeanwhile() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        let n = try ctx.performAndWait { () throws in
            let n = ctx.insert(Note.self)
            n.title = "old"
            try ctx.save()
            ctx.undoManager = ContextUndoManager()
            ctx.delete(n)
            ctx.processPendingChanges()
            return n
        }
        let other = container.newBackgroundContext()
        try other.performAndWait { () throws in
            (try other.existingObject(with: n.objectID) as! Note).title = "new"
            try other.save()
        }
        try ctx.performAndWait { () throws in
            #expect(ctx.undo())
            #expect(n.title == "new")
            #expect(try ctx.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'new'"))).count == 1)
        }
    }

    @Test func groupsAndNamedActionsAndUndoAfterSave() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let f = ctx.insert(Folder.self)
            f.name = "F"
            for i in 0..<3 {
                let n = ctx.insert(Note.self)
                n.title = "n\(i)"
                n.folder = f
            }
            try ctx.save()
            let undo = ContextUndoManager()
            ctx.undoManager = undo
            undo.beginUndoGrouping(named: "Mark All Read")
            for n in try ctx.fetch(FetchRequest<Note>()) { n.read = true }
            ctx.processPendingChanges()
            undo.endUndoGrouping()
            #expect(undo.undoActionName == "Mark All Read")
            #expect(f.unreadCount == 0)
            try ctx.save()
            #expect(ctx.undo())
            #expect(f.unreadCount == 3)
            #expect(ctx.hasChanges)  // undo after save makes new unsaved changes
            try ctx.save()
            #expect(undo.redoActionName == "Mark All Read")
            #expect(ctx.redo())
            #expect(f.unreadCount == 0)
        }
    }

    @Test func undoDeleteOfFeedWithItems() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let f = ctx.insert(Folder.self)
            f.name = "F"
            for i in 0..<3 {
                let n = ctx.insert(Note.self)
                n.title = "n\(i)"
                n.read = i == 0
                n.folder = f
            }
            try ctx.save()
            ctx.undoManager = ContextUndoManager()
            ctx.delete(f)
            try ctx.save()
            #expect(try ctx.count(for: FetchRequest<Note>()) == 0)
            #expect(ctx.undo())
            try ctx.save()
            let folders = try ctx.fetch(FetchRequest<Folder>())
            #expect(folders.count == 1)
            #expect(folders[0].name == "F")
            #expect(folders[0].notes.compactMap(\.title).sorted() == ["n0", "n1", "n2"])
            #expect(folders[0].unreadCount == 2)
        }
    }
}
