import Foundation
import Synchronization
import Testing

@testable import ObjectGraph

/// Collects notifications delivered on any queue.
final class Recorder<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    func append(_ item: T) { items.withLock { $0.append(item) } }
    var all: [T] { items.withLock { $0 } }
}

struct ChangeSummary: Sendable, Equatable {
    var inserted: [String] = []
    var updated: [String] = []
    var deleted: [String] = []
    var keys: [String] = []
    var insertedIDs: [String] = []
    var isMerge = false
}

func summarize(_ note: ObjectsDidChangeNotification) -> ChangeSummary {
    ChangeSummary(
        inserted: note.inserted.map(\.entity.name).sorted(), updated: note.updated.map(\.entity.name).sorted(),
        deleted: note.deleted.map(\.entity.name).sorted(),
        keys: note.changedKeysByID.values.flatMap { $0 }.sorted(),
        insertedIDs: note.insertedObjectIDs.map(\.entity.name).sorted(), isMerge: note.isMerge)
}

/// Waits (polling) until `condition` holds or `timeout` passes.
func eventually(timeout: TimeInterval = 3, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return try condition()
}

@Suite struct ChangeTests {
    @Test func objectsDidChangeIsCoalescedPerBatch() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        let recorder = Recorder<ChangeSummary>()
        let token = container.bus.observeObjectsDidChange(in: ctx) { recorder.append(summarize($0)) }
        try ctx.performAndWait { () throws in
            let f = ctx.insert(Folder.self)
            f.name = "x"
            for _ in 0..<3 {
                let n = ctx.insert(Note.self)
                n.folder = f
            }
        }
        #expect(recorder.all.count == 1)
        #expect(recorder.all[0].inserted == ["Folder", "Note", "Note", "Note"])
        try ctx.performAndWait { () throws in try ctx.save() }
        let notes = try ctx.performAndWait { () throws in try ctx.fetch(FetchRequest<Note>()) }
        ctx.performAndWait {
            notes[0].title = "a"
            notes[0].read = true
        }
        let last = recorder.all.last!
        #expect(last.updated == ["Folder", "Note"])  // the folder's unreadCount changed too
        #expect(last.keys == ["read", "title", "unreadCount"])
        withExtendedLifetime(token) {}
        token.cancel()
        ctx.performAndWait { notes[1].title = "unobserved" }
        #expect(recorder.all.count == 2)
    }

    @Test func observersFilterByEntityAndEndWithTheirToken() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        let folders = Recorder<ChangeSummary>()
        var token: ObservationToken? = container.bus.observeObjectsDidChange(in: ctx, entities: ["Folder"]) {
            folders.append(summarize($0))
        }
        ctx.performAndWait { _ = ctx.insert(Note.self) }
        #expect(folders.all.isEmpty)
        ctx.performAndWait { ctx.insert(Folder.self).name = "f" }
        #expect(folders.all.map(\.inserted) == [["Folder"]])
        _ = token
        token = nil
        ctx.performAndWait { ctx.insert(Folder.self).name = "g" }
        #expect(folders.all.count == 1)
    }

    @Test func willSaveAndDidSaveCarryIDsAndKeys() throws {
        let container = try TestModel.container()
        let bg = container.newBackgroundContext(name: "bg")
        let willSaves = Recorder<String>()
        let didSaves = Recorder<DidSaveNotification>()
        let t1 = container.bus.observeWillSave { willSaves.append($0.context.name ?? "") }
        let t2 = container.bus.observeDidSave { didSaves.append($0) }
        let id = try bg.performAndWait { () throws in
            let n = bg.insert(Note.self)
            n.title = "t"
            try bg.save()
            n.title = "u"
            try bg.save()
            return n.objectID
        }
        #expect(willSaves.all == ["bg", "bg"])
        #expect(didSaves.all.count == 2)
        #expect(didSaves.all[0].inserted == [id])
        #expect(didSaves.all[1].updated[id] == ["title"])
        withExtendedLifetime((t1, t2)) {}
    }

    @Test func mergeBringsViewContextUpToDate() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let (folder, note) = try view.performAndWait { () throws in
            let f = view.insert(Folder.self)
            f.name = "F"
            let n = view.insert(Note.self)
            n.title = "old"
            n.folder = f
            try view.save()
            return (f, n)
        }
        let changes = Recorder<ChangeSummary>()
        let token = container.bus.observeObjectsDidChange(in: view) { changes.append(summarize($0)) }
        let done = Recorder<Bool>()
        let (noteID, folderID) = view.performAndWait { (note.objectID, folder.objectID) }
        container.saveInBackground(
            { ctx in
                let n = try ctx.existingObject(with: noteID) as! Note
                n.title = "new"
                n.read = true
                let extra = ctx.insert(Note.self)
                extra.title = "extra"
                extra.folder = n.folder
            },
            completion: { result in
                // Runs on the view queue after the merge:
                let n = view.object(with: noteID) as! Note
                let f = view.object(with: folderID) as! Folder
                done.append((try? result.get()) != nil && n.title == "new" && f.unreadCount == 1)
            })
        #expect(eventually { done.all == [true] })
        view.performAndWait {
            #expect(note.read)
            #expect(folder.notes.count == 2)
            #expect(changes.all.contains { $0.isMerge && $0.keys.contains("title") && $0.insertedIDs == ["Note"] })
        }
        withExtendedLifetime(token) {}
    }

    @Test func automaticMergingCanBeTurnedOff() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let note = try view.performAndWait { () throws in
            let n = view.insert(Note.self)
            n.title = "old"
            try view.save()
            return n
        }
        let id = view.performAndWait { note.objectID }
        container.automaticallyMergesChangesIntoViewContext = false
        #expect(!container.automaticallyMergesChangesIntoViewContext)
        let saves = Recorder<DidSaveNotification>()
        let token = container.bus.observeDidSave(excluding: view) { saves.append($0) }
        let bg = container.newBackgroundContext()
        try bg.performAndWait { () throws in
            (try bg.existingObject(with: id) as! Note).title = "new"
            try bg.save()
        }
        Thread.sleep(forTimeInterval: 0.1)
        view.performAndWait { #expect(note.title == "old") }
        view.performAndWait { for s in saves.all { view.mergeChanges(fromDidSave: s) } }
        view.performAndWait { #expect(note.title == "new") }
        container.automaticallyMergesChangesIntoViewContext = true
        try bg.performAndWait { () throws in
            (try bg.existingObject(with: id) as! Note).title = "newer"
            try bg.save()
        }
        #expect(eventually { view.performAndWait { note.title == "newer" } })
        withExtendedLifetime(token) {}
    }

    @Test func mergeRemovesObjectsDeletedElsewhere() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let note = try view.performAndWait { () throws in
            let n = view.insert(Note.self)
            try view.save()
            return n
        }
        let id = view.performAndWait { note.objectID }
        let done = Recorder<Bool>()
        container.saveInBackground(
            { ctx in ctx.delete(try ctx.existingObject(with: id)) }, completion: { _ in done.append(true) })
        #expect(eventually { !done.all.isEmpty })
        try view.performAndWait { () throws in
            #expect(note.managedObjectContext == nil)
            #expect(try view.count(for: FetchRequest<Note>()) == 0)
        }
    }

    @Test func failedBackgroundSaveReportsAndRollsBack() throws {
        let container = try TestModel.container()
        let result = Recorder<String>()
        container.saveInBackground(
            { ctx in _ = ctx.insert(Folder.self) },
            completion: { r in
                if case .failure(let e) = r { result.append("\(e)") }
            })
        #expect(eventually { !result.all.isEmpty })
        #expect(result.all == ["Folder.name is required but has no value"])
    }

    /// The conflict of the issue: the UI context holds an unsaved read flag on an item whose
    /// title a background save just changed (and, for the same-key case, whose read flag too).
    func conflict(policy: MergePolicy, sameKey: Bool = false) throws -> (
        title: String?, read: Bool, rating: Double, error: ObjectGraphError?
    ) {
        let container = try TestModel.container()
        let view = container.newContext(queue: DispatchQueue(label: "ui"), name: "ui")  // no automatic merge
        view.mergePolicy = policy
        let note = try view.performAndWait { () throws in
            let n = view.insert(Note.self)
            n.title = "v1"
            try view.save()
            return n
        }
        let id = view.performAndWait { note.objectID }
        view.performAndWait {
            note.read = true  // unsaved
            if sameKey { note.rating = 5 }
        }
        let bg = container.newBackgroundContext()
        try bg.performAndWait { () throws in
            let n = try bg.existingObject(with: id) as! Note
            n.title = "v2"
            if sameKey { n.rating = 1 }
            try bg.save()
        }
        var saveError: ObjectGraphError?
        view.performAndWait {
            do { try view.save() } catch { saveError = error as? ObjectGraphError }
        }
        let fresh = container.newBackgroundContext()
        return try fresh.performAndWait { () throws in
            let n = try fresh.existingObject(with: id) as! Note
            return (n.title, n.read, n.rating, saveError)
        }
    }

    @Test func mergePolicyError() throws {
        let r = try conflict(policy: .error)
        guard case .mergeConflict(let conflicts) = r.error else {
            Issue.record("expected a merge conflict, got \(String(describing: r.error))")
            return
        }
        #expect(conflicts.first?.storeChangedKeys == ["title"])
        #expect(conflicts.first?.objectChangedKeys == ["read"])
        #expect(r.title == "v2" && r.read == false)  // nothing written
    }

    @Test func mergePolicyStoreTrumps() throws {
        let r = try conflict(policy: .storeTrumps)
        #expect(r.error == nil)
        #expect(r.title == "v2" && r.read == true)  // different keys: both survive
        let same = try conflict(policy: .storeTrumps, sameKey: true)
        #expect(same.rating == 1 && same.read == true)  // the store's rating wins, the context's read stays
    }

    @Test func mergePolicyObjectTrumps() throws {
        let r = try conflict(policy: .objectTrumps)
        #expect(r.title == "v2" && r.read == true)
        let same = try conflict(policy: .objectTrumps, sameKey: true)
        #expect(same.title == "v2" && same.rating == 5)  // the context's rating wins, the store's title stays
    }

    @Test func mergePolicyOverwrite() throws {
        let r = try conflict(policy: .overwrite, sameKey: true)
        #expect(r.title == "v1" && r.read == true && r.rating == 5)  // the whole stale object is written
    }

    @Test func mergePolicyRollback() throws {
        let r = try conflict(policy: .rollback, sameKey: true)
        #expect(r.error == nil)
        #expect(r.title == "v2" && r.read == false && r.rating == 1)  // the context's changes are dropped
    }

    @Test func scratchContextVanishesWhenDropped() throws {
        let container = try TestModel.container()
        try container.viewContext.performAndWait { () throws in
            var scratch: ManagedObjectContext? = container.newScratchContext()
            let f = scratch!.insert(Folder.self)
            f.name = "preview"
            #expect(try scratch!.count(for: FetchRequest<Folder>()) == 1)
            scratch = nil
            #expect(try container.viewContext.count(for: FetchRequest<Folder>()) == 0)
        }
    }

    @Test func anotherProcessCommitIsNoticedAndMerged() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("shared.sqlite")
        let container = try TestModel.container(.file(url))
        let view = container.viewContext
        let note = try view.performAndWait { () throws in
            let f = view.insert(Folder.self)
            f.name = "F"
            let n = view.insert(Note.self)
            n.title = "before"
            n.folder = f
            try view.save()
            return n
        }
        let changes = Recorder<ChangeSummary>()
        let token = container.bus.observeObjectsDidChange(in: view) { changes.append(summarize($0)) }
        container.startWatchingOtherProcesses(interval: 0.05)
        defer { container.stopWatchingOtherProcesses() }
        // A second, real process writes the same file.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE Note SET title='after', Z_OPT=Z_OPT+1\"); c.commit()",
            url.path,
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(eventually(timeout: 1) { view.performAndWait { note.title == "after" } })
        #expect(changes.all.contains { $0.isMerge && $0.keys == ["title"] })
        withExtendedLifetime(token) {}
    }
}
