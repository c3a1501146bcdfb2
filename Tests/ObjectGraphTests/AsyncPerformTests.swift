import Foundation
import Synchronization
import Testing

@testable import ObjectGraph

/// `await context.perform { … }` waits for the block and hands back its value, as Core Data's does.
@Suite struct AsyncPerformTests {
    @Test func awaitedPerformReturnsTheBlocksValue() async throws {
        let container = try TestModel.container()
        let background = container.newBackgroundContext()
        let answer: Int = await background.perform { 6 * 7 }
        #expect(answer == 42)
        let id = try await background.perform {
            let note = background.insert(Note.self)
            note.title = "awaited"
            try background.save()
            return note.objectID
        }
        let title = try await background.perform { (try background.existingObject(with: id) as! Note).title }
        #expect(title == "awaited")
    }

    @Test func awaitedPerformRunsTheBlockBeforeReturning() async throws {
        let container = try TestModel.container()
        let background = container.newBackgroundContext()
        let log = Log()
        // The block is queued behind a slow one; a fire-and-forget call would return first.
        background.enqueue { for _ in 0..<200_000 { _ = background.name } }
        await background.perform { log.append("block") }
        log.append("after")
        await background.perform(schedule: .enqueued) { log.append("enqueued") }
        #expect(log.entries == ["block", "after", "enqueued"])
    }

    @Test func awaitedPerformRethrowsTheBlocksErrorWithItsType() async throws {
        let container = try TestModel.container()
        let background = container.newBackgroundContext()
        let missing = try await background.perform {
            let note = background.insert(Note.self)
            try background.save()
            return ObjectID(entity: note.objectID.entity, primaryKey: 999)
        }
        do {
            _ = try await background.perform { () throws(ObjectGraphError) in
                try background.existingObject(with: missing).objectID
            }
            Issue.record("a missing object was found")
        } catch {
            // `error` is an ObjectGraphError here: the thrown type survives the hop.
            guard case .objectInaccessible = error else {
                Issue.record("unexpected error \(error)")
                return
            }
        }
    }

    @Test func awaitedPerformRunsInlineWhenAlreadyOnTheQueueAndPostsChanges() async throws {
        let container = try TestModel.container()
        let background = container.newBackgroundContext()
        let changes = Tally()
        let token = container.bus.observeObjectsDidChange(in: background) { _ in changes.bump() }
        defer { token.cancel() }
        await background.perform { _ = background.insert(Note.self) }
        #expect(changes.value == 1)
        try await background.save()
        #expect(await background.perform { !background.hasChanges })
    }
}

/// `performBackgroundTask` and `Sendable` snapshots of objects.
@Suite struct BackgroundTaskTests {
    @Test func aBackgroundTaskReturnsSnapshotsAcrossIsolation() async throws {
        let container = try TestModel.container()
        let snapshot = try await container.performBackgroundTask { context in
            let folder = context.insert(Folder.self)
            folder.name = "inbox"
            let note = context.insert(Note.self)
            note.title = "carried"
            note.folder = folder
            try context.save()
            return note.sendableSnapshot
        }
        #expect(!snapshot.objectID.isTemporary && snapshot.entityName == "Note")
        #expect(snapshot["title"] == .string("carried") && snapshot["read"] == .bool(false))
        #expect(snapshot["nonsense"] == .null)
        let folderID = try #require(snapshot.toOne["folder"] ?? nil)
        let name = try await container.viewContext.perform { try container.viewContext.existingObject(with: folderID)["name"] }
        #expect(name == .string("inbox"))
        await #expect(throws: ObjectGraphError.self) {
            try await container.performBackgroundTask { context throws(ObjectGraphError) in
                _ = try context.existingObject(with: ObjectID(entity: snapshot.objectID.entity, primaryKey: 999))
            }
        }
    }
}

/// Records the order things happened in, from any thread.
final class Log: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var entries: [String] { lines.withLock { $0 } }
}
