import Foundation
import Observation
import Synchronization
import Testing

@testable import ObjectGraph

/// Counts calls from `@Sendable` closures (observers, stream readers).
final class Tally: Sendable {
    private let count = Mutex(0)
    func bump() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// Managed objects with the Observation framework: a tracked read fires on the next change of
/// that property, however it comes (own context, merged save, another process, kept in step).
@Suite struct ObservationTests {
    /// Tracks what `read` reads; the returned tally counts `onChange` calls.
    func track(_ read: () -> Void) -> Tally {
        let tally = Tally()
        withObservationTracking(read) { tally.bump() }
        return tally
    }

    /// A note titled `title`, saved in `container`'s view context.
    func savedNote(_ title: String, in container: PersistentContainer) throws -> (ObjectID, Note) {
        let view = container.viewContext
        return try view.performAndWait { () throws in
            let note = view.insert(Note.self)
            note.title = title
            try view.save()
            return (note.objectID, note)
        }
    }

    /// Retitles note `id` through a second container on `url`, standing in for another process.
    func retitle(_ id: ObjectID, to title: String, elsewhereOn url: URL) throws {
        let other = try TestModel.container(.file(url))
        try other.viewContext.performAndWait { () throws in
            (try other.viewContext.existingObject(with: id) as! Note).title = title
            try other.viewContext.save()
        }
    }

    @Test func aChangeInTheSameContextFiresOnlyForTheReadProperty() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait { () throws in
            let note = view.insert(Note.self)
            note.title = "a"
            try view.save()
            let title = track { _ = note.title }
            note.read = true
            #expect(title.value == 0)
            note.title = "b"
            #expect(title.value == 1)
            // Through the key-based accessors too.
            let body = track { _ = try? note.value(forKey: "body") }
            try note.setValue(.string("text"), forKey: "body")
            #expect(body.value == 1)
            // A fresh object, changed in the batch that inserted it.
            let fresh = view.insert(Note.self)
            let freshTitle = track { _ = fresh.title }
            fresh.title = "new"
            #expect(freshTitle.value == 1)
        }
    }

    @Test func relationshipsFireOnBothSides() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait { () throws in
            let inbox = view.insert(Folder.self)
            inbox.name = "inbox"
            let archive = view.insert(Folder.self)
            archive.name = "archive"
            let note = view.insert(Note.self)
            note.folder = inbox
            try view.save()
            let folder = track { _ = note.folder }
            let inboxNotes = track { _ = inbox.notes }
            let archiveNotes = track { _ = archive.notes }
            note.folder = archive
            #expect(folder.value == 1 && inboxNotes.value == 1 && archiveNotes.value == 1)
            // A derived count kept in step by the context.
            let unread = track { _ = archive.unreadCount }
            let other = view.insert(Note.self)
            other.folder = archive
            view.processPendingChanges()
            #expect(unread.value == 1)
        }
    }

    @Test func aMergedBackgroundSaveFires() async throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let (id, note) = try view.performAndWait { () throws in
            let note = view.insert(Note.self)
            note.title = "before"
            try view.save()
            return (note.objectID, note)
        }
        let title = view.performAndWait { track { _ = note.title } }
        let untouched = view.performAndWait { track { _ = note.body } }
        let background = container.newBackgroundContext()
        try await background.perform {
            (try background.existingObject(with: id) as! Note).title = "after"
            try background.save()
        }
        view.performAndWait {}  // the merge was queued on the view queue by the save
        #expect(title.value == 1 && untouched.value == 0)
        #expect(view.performAndWait { note.title } == "after")
    }

    @Test func anotherProcessCommitFires() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("notes.sqlite")
        let container = try TestModel.container(.file(url))
        let view = container.viewContext
        let (id, note) = try savedNote("before", in: container)
        let title = view.performAndWait { track { _ = note.title } }
        _ = container.checkForOtherProcessCommits()  // sets the baseline
        try retitle(id, to: "elsewhere", elsewhereOn: url)
        #expect(container.checkForOtherProcessCommits())
        view.performAndWait {}
        #expect(title.value == 1)
        #expect(view.performAndWait { note.title } == "elsewhere")
    }

    /// Turning an object back into a fault, or re-reading it, may change what its next read
    /// gives: unsaved changes dropped, or another context's save that was not merged.
    @Test func refreshingAnObjectFires() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("notes.sqlite")
        let container = try TestModel.container(.file(url))
        let view = container.viewContext
        let (id, note) = try savedNote("stored", in: container)
        // Unsaved changes discarded: the title goes back to the stored one.
        try view.performAndWait { () throws in
            note.title = "unsaved"
            let title = track { _ = note.title }
            view.refresh(note, mergeChanges: false)
            #expect(title.value == 1)
            #expect(note.title == "stored")
        }
        // A save by another container on the file, which this one did not merge.
        try retitle(id, to: "elsewhere", elsewhereOn: url)
        view.performAndWait {
            let title = track { _ = note.title }
            view.refresh(note, mergeChanges: false)
            #expect(title.value == 1)
            #expect(note.title == "elsewhere")
            note.body = "kept"
            let again = track { _ = note.title }
            view.refreshAllObjects()
            #expect(again.value == 1, "re-read under unsaved changes")
            #expect(note.body == "kept")
        }
    }

    @Test func objectsNobodyReadKeepNoRegistrar() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        view.performAndWait {
            let note = view.insert(Note.self)
            note.title = "written, never read"
            #expect(note.observationRegistrar == nil)
            _ = note.title
            #expect(note.observationRegistrar != nil)
        }
    }
}
