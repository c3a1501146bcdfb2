import Foundation
import ObjectGraph
import Synchronization
import Testing

/// Persistent history, beside what Core Data documents of its own: each save and batch
/// request records a transaction with its author and context; history is fetched after a
/// token, filtered, and deleted before one; tokens survive reopening and are never reused;
/// deleted objects leave the tombstones asked for; another process's commit reaches this
/// one as the objects it changed.
@Suite struct PersistentHistoryTests {
    static let tracking = PersistentHistoryTracking(tombstones: ["Note": ["title", "created"], "Folder": ["name"]])

    static func container(_ url: URL) throws -> PersistentContainer {
        try PersistentContainer(model: TestModel.model, store: .file(url), history: tracking)
    }

    /// Saves a folder "F" with `titles` notes in `container`'s view context, as `author`.
    @discardableResult
    static func saveNotes(_ titles: [String], in container: PersistentContainer, author: String? = nil) throws -> [ObjectID] {
        let ctx = container.viewContext
        return try ctx.performAndWait { () throws in
            ctx.transactionAuthor = author
            let folder = ctx.insert(Folder.self)
            folder.name = "F\(UUID().uuidString.prefix(6))"
            let notes = titles.map { title -> Note in
                let note = ctx.insert(Note.self)
                note.title = title
                note.folder = folder
                return note
            }
            try ctx.save()
            return notes.map(\.objectID)
        }
    }

    @Test func aSaveRecordsItsInsertsUpdatesAndDeletesWithAuthorAndContext() throws {
        let directory = TemporaryDirectory()
        let container = try Self.container(directory.file("h.sqlite"))
        let ids = try Self.saveNotes(["a", "b"], in: container, author: "app")
        let ctx = container.viewContext
        let created = Date(timeIntervalSince1970: 1_765_000_000)
        try ctx.performAndWait { () throws in
            ctx.name = "editor"
            ctx.transactionAuthor = "sync"
            let a = try ctx.existingObject(with: ids[0]) as! Note
            let b = try ctx.existingObject(with: ids[1]) as! Note
            a.read = true
            a.scratch = "transient, not history"
            b.created = created
            try ctx.save()
            ctx.delete(b)
            try ctx.save()
        }
        let history = try container.store.history(HistoryFetchRequest())
        #expect(history.count == 3)
        #expect(history.map(\.author) == ["app", "sync", "sync"])
        #expect(history[1].contextName == "editor")
        #expect(history.allSatisfy { $0.isFromThisStack })
        #expect(history[0].changes.filter { $0.kind == .insert }.count == 3)
        #expect(Set(history[1].changes.map(\.objectID)) == Set(ids))
        #expect(history[1].changes.first { $0.objectID == ids[0] }?.changedKeys == ["read"])
        #expect(history[2].changes.map(\.kind) == [.delete])
        #expect(history[2].changes[0].objectID == ids[1])
        #expect(history[2].changes[0].tombstone == ["title": .string("b"), "created": .date(created)])
        #expect(history.map(\.token) == history.map(\.token).sorted())
    }

    @Test func historyIsFetchedAfterATokenByAuthorAndEntity() throws {
        let directory = TemporaryDirectory()
        let container = try Self.container(directory.file("h.sqlite"))
        try Self.saveNotes(["a"], in: container, author: "app")
        let token = try #require(try container.store.currentHistoryToken())
        try Self.saveNotes(["b"], in: container, author: "sync")
        try Self.saveNotes(["c"], in: container, author: "app")
        #expect(try container.store.history(HistoryFetchRequest(after: token)).count == 2)
        var byAuthor = HistoryFetchRequest(after: token)
        byAuthor.excludedAuthors = ["sync"]
        #expect(try container.store.history(byAuthor).map(\.author) == ["app"])
        byAuthor.excludedAuthors = []
        byAuthor.authors = ["sync"]
        #expect(try container.store.history(byAuthor).map(\.author) == ["sync"])
        var notesOnly = HistoryFetchRequest()
        notesOnly.entityNames = ["Note"]
        #expect(try container.store.history(notesOnly).allSatisfy { $0.changes.allSatisfy { $0.objectID.entity.name == "Note" } })
        var limited = HistoryFetchRequest()
        limited.fetchLimit = 1
        #expect(try container.store.history(limited).count == 1)
    }

    @Test func tokensSurviveReopeningAndAreNotReusedAfterHistoryIsDeleted() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("h.sqlite")
        var token: HistoryToken?
        do {
            let container = try Self.container(url)
            try Self.saveNotes(["a"], in: container)
            try Self.saveNotes(["b"], in: container)
            token = try container.store.currentHistoryToken()
        }
        let data = try JSONEncoder().encode(token)
        let kept = try JSONDecoder().decode(HistoryToken.self, from: data)
        // Reopened without asking for history: the store keeps recording.
        let reopened = try TestModel.container(.file(url))
        #expect(reopened.store.isRecordingHistory)
        try Self.saveNotes(["c"], in: reopened)
        let after = try reopened.store.history(HistoryFetchRequest(after: kept))
        #expect(after.count == 1 && after[0].token > kept)
        try reopened.store.deleteHistory(before: after[0].token)
        #expect(try reopened.store.history(HistoryFetchRequest()).map(\.token) == [after[0].token])
        #expect(try reopened.store.oldestHistoryToken() == after[0].token)
        try reopened.store.deleteHistory(before: HistoryToken(transactionNumber: after[0].token.transactionNumber + 1))
        try Self.saveNotes(["d"], in: reopened)
        #expect(try reopened.store.currentHistoryToken()! > after[0].token)
        try reopened.store.stopRecordingHistory()
        try Self.saveNotes(["e"], in: reopened)
        #expect(try reopened.store.history(HistoryFetchRequest()).isEmpty)
        #expect(try TestModel.container(.file(url)).store.isRecordingHistory == false)
    }

    @Test func batchUpdatesDeletesAndInsertsRecordTheirChanges() throws {
        let directory = TemporaryDirectory()
        let container = try Self.container(directory.file("h.sqlite"))
        let ids = try Self.saveNotes(["a", "b", "c"], in: container)
        let token = try container.store.currentHistoryToken()
        let ctx = container.viewContext
        let folderID = try ctx.performAndWait { () throws in
            ctx.transactionAuthor = "batch"
            _ = try ctx.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["read": .bool(true)]))
            _ = try ctx.execute(BatchInsertRequest(entityName: "Note", objects: [["title": "new"]]))
            let folder = try ctx.fetch(FetchRequest<Folder>()).first!
            let id = folder.objectID
            // Deleting the folder takes its notes with it (cascade).
            _ = try ctx.execute(BatchDeleteRequest(entityName: "Folder"))
            return id
        }
        let history = try container.store.history(HistoryFetchRequest(after: token))
        #expect(history.map(\.contextName) == ["batch update", "batch insert", "batch delete"])
        #expect(history.allSatisfy { $0.author == "batch" })
        #expect(Set(history[0].changes.map(\.objectID)) == Set(ids))
        #expect(history[0].changes.allSatisfy { $0.kind == .update && $0.changedKeys == ["read"] })
        #expect(history[1].changes.map(\.kind) == [.insert])
        let deleted = history[2].changes
        #expect(deleted.allSatisfy { $0.kind == .delete })
        #expect(Set(deleted.map(\.objectID)) == Set(ids + [folderID]))
        #expect(deleted.first { $0.objectID == folderID }?.tombstone["name"] != nil)
        #expect(deleted.first { $0.objectID == ids[0] }?.tombstone["title"] == .string("a"))
    }

    @Test func anotherProcessCommitReachesThisOneAsTheObjectsItChanged() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("h.sqlite")
        let container = try Self.container(url)
        let ids = try Self.saveNotes(["a", "b"], in: container)
        let view = container.viewContext
        let noticed = Mutex<[DidSaveNotification]>([])
        let token = container.bus.observeDidSave { note in
            if note.contextName == "other process" { noticed.withLock { $0.append(note) } }
        }
        defer { token.cancel() }
        _ = container.checkForOtherProcessCommits()
        // Another stack on the same file stands for another process.
        let other = try TestModel.container(.file(url))
        try other.viewContext.performAndWait { () throws in
            let ctx = other.viewContext
            let a = try ctx.existingObject(with: ObjectID(entity: ids[0].entity, primaryKey: ids[0].primaryKey!)) as! Note
            a.title = "changed elsewhere"
            try ctx.save()
        }
        #expect(container.checkForOtherProcessCommits())
        let seen = noticed.withLock { $0 }
        #expect(seen.count == 1)
        #expect(seen.first?.isFromOtherProcess == false)
        #expect(seen.first?.updated.keys.map(\.primaryKey) == [ids[0].primaryKey])
        #expect(seen.first?.updated.values.first == ["title"])
        try view.performAndWait { () throws in
            #expect((try view.existingObject(with: ids[0]) as! Note).title == "changed elsewhere")
        }
    }
}
