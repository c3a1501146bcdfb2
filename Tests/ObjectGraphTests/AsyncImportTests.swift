import Foundation
import Synchronization
import Testing

@testable import ObjectGraph

/// `BatchImporter.start`: the import off the caller's task, its progress as a stream.
@Suite struct AsyncImportTests {
    @Test func progressArrivesAfterEachBatchThenTheResult() async throws {
        let container = try TestModel.container()
        let importer = BatchImporter(container: container, name: "async", batchSize: 10)
        let running = importer.start(0..<35) { i, context in
            context.insert(Note.self).title = "note \(i)"
        }
        var seen: [Int] = []
        for await saved in running.progress { seen.append(saved) }
        #expect(seen == [10, 20, 30, 35])
        let result = try await running.result
        #expect(result == BatchImporter.Result(resumedAfter: 0, importedNow: 35, total: 35, batches: 4))
        let view = container.viewContext
        #expect(try await view.perform { try view.count(for: FetchRequest<Note>()) } == 35)
        #expect(try importer.marker() == BatchImporter.Marker(savedRecords: 35, isFinished: true))
    }

    @Test func anErrorEndsTheStreamAndKeepsTheSavedBatches() async throws {
        struct Bad: Error {}
        let container = try TestModel.container()
        let importer = BatchImporter(container: container, name: "failing", batchSize: 5)
        let running = importer.start(0..<20) { i, context in
            if i == 12 { throw Bad() }
            context.insert(Note.self).title = "note \(i)"
        }
        var seen: [Int] = []
        for await saved in running.progress { seen.append(saved) }
        #expect(seen == [5, 10])
        await #expect(throws: Bad.self) { try await running.result }
        #expect(try importer.marker() == BatchImporter.Marker(savedRecords: 10, isFinished: false))
        // The next run resumes after the saved batches.
        let again = importer.start(0..<20) { i, context in context.insert(Note.self).title = "note \(i)" }
        #expect(try await again.result.importedNow == 10)
    }

    @Test func cancellingStopsBeforeTheNextRecordAndAResumeFinishes() async throws {
        let container = try TestModel.container()
        let importer = BatchImporter(container: container, name: "cancelled", batchSize: 4)
        let reached = Tally()
        let gate = DispatchSemaphore(value: 0)
        let running = importer.start(0..<12) { i, context in
            if i == 6 {
                reached.bump()
                gate.wait()  // held until the cancel is sent
            }
            context.insert(Note.self).title = "note \(i)"
        }
        var progress = running.progress.makeAsyncIterator()
        #expect(await progress.next() == 4)
        while reached.value == 0 { await Task.yield() }
        running.cancel()
        gate.signal()
        await #expect(throws: CancellationError.self) { try await running.result }
        #expect(try importer.marker()?.savedRecords == 4)
        let resumed = try await importer.start(0..<12) { i, context in context.insert(Note.self).title = "note \(i)" }.result
        #expect(resumed.resumedAfter == 4 && resumed.total == 12)
        let view = container.viewContext
        #expect(try await view.perform { try view.count(for: FetchRequest<Note>()) } == 12)
    }
}
