import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// `count` records `["guid": "r<i>", "score": i]`, generated lazily.
func importRecords(_ count: Int) -> some Sequence<[String: ImportValue]> {
    (0..<count).lazy.map { i in ["guid": .string("r\(i)"), "score": .integer(Int64(i))] }
}

func insertRecord(_ record: [String: ImportValue], _ context: ManagedObjectContext) throws {
    try context.insertObject(entityName: "Item").importValues(from: record)
}

/// Every stored guid with how many times it occurs.
func storedGuids(_ container: PersistentContainer) throws -> [String: Int] {
    try container.store.database.read { db in
        var result: [String: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT guid, COUNT(*) AS n FROM Item GROUP BY guid") {
            result[row["guid"]] = row["n"]
        }
        return result
    }
}

/// An import with no uniqueness constraint, so a duplicated record would show.
let looseModel = try! ManagedObjectModel(
    name: "Loose", version: 1,
    entities: [EntityDescription("Item", attributes: [.string("guid", optional: false), .integer("score", defaultValue: 0)])])

struct Killed: Error {}

@Suite struct ImportBatchTests {
    @Test func importsEverythingInBatchesAndMarksFinished() throws {
        let container = try PersistentContainer(model: looseModel, store: .inMemory)
        let importer = BatchImporter(container: container, name: "all", batchSize: 100)
        var progress: [Int] = []
        let result = try importer.run(importRecords(1_050), progress: { progress.append($0) }, insert: insertRecord)
        #expect(result == BatchImporter.Result(resumedAfter: 0, importedNow: 1_050, total: 1_050, batches: 11))
        #expect(progress == Array(stride(from: 100, through: 1_000, by: 100)) + [1_050])
        let guids = try storedGuids(container)
        #expect(guids.count == 1_050 && guids.values.allSatisfy { $0 == 1 })
        #expect(try importer.marker() == BatchImporter.Marker(savedRecords: 1_050, isFinished: true))
        #expect(try container.store.metadata(forKey: "objectgraph.import.all") == "finished 1050")
        // Running a finished import again does nothing.
        let again = try importer.run(importRecords(1_050), insert: insertRecord)
        #expect(again == BatchImporter.Result(resumedAfter: 1_050, importedNow: 0, total: 1_050, batches: 0))
        #expect(try storedGuids(container).count == 1_050)
    }

    @Test func killedImportResumesWhereItStoppedAndEveryRecordIsPresentOnce() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("import.sqlite")
        do {
            let container = try PersistentContainer(model: looseModel, store: .file(url))
            let importer = BatchImporter(container: container, name: "restore", batchSize: 100)
            // "Kill" it in the middle of the fourth batch: three batches (300 records) are saved.
            #expect(throws: Killed.self) {
                try importer.run(importRecords(1_000)) { record, context in
                    if record["guid"] == "r345" { throw Killed() }
                    try insertRecord(record, context)
                }
            }
            #expect(try importer.marker() == BatchImporter.Marker(savedRecords: 300, isFinished: false))
            #expect(try storedGuids(container).count == 300)
            try container.store.close()
        }
        let container = try PersistentContainer(model: looseModel, store: .file(url))
        let importer = BatchImporter(container: container, name: "restore", batchSize: 100)
        var seen: [String] = []
        let result = try importer.run(importRecords(1_000)) { record, context in
            if case .string(let g)? = record["guid"] { seen.append(g) }
            try insertRecord(record, context)
        }
        #expect(seen.first == "r300")
        #expect(result == BatchImporter.Result(resumedAfter: 300, importedNow: 700, total: 1_000, batches: 7))
        let guids = try storedGuids(container)
        #expect(guids.count == 1_000)
        #expect(guids.values.allSatisfy { $0 == 1 })
        #expect(Set(guids.keys) == Set((0..<1_000).map { "r\($0)" }))
    }

    @Test func aFailedSaveWritesNeitherTheBatchNorTheMarker() throws {
        let container = try PersistentContainer(model: ImportModel.model, store: .inMemory)
        let importer = BatchImporter(container: container, name: "dupes", batchSize: 10)
        // Record 15 repeats a guid: the second batch violates uniqueness when it is saved.
        let records = (0..<30).map { i -> [String: ImportValue] in ["guid": .string(i == 15 ? "r3" : "r\(i)")] }
        #expect(throws: ObjectGraphError.self) { try importer.run(records, insert: insertRecord) }
        #expect(try importer.marker() == BatchImporter.Marker(savedRecords: 10, isFinished: false))
        #expect(try container.store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Item") } == 10)
        // Fixed input resumes from record 10.
        let fixed = (0..<30).map { i -> [String: ImportValue] in ["guid": .string("r\(i)")] }
        let result = try importer.run(fixed, insert: insertRecord)
        #expect(result.resumedAfter == 10 && result.total == 30)
        #expect(try container.store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Item") } == 30)
    }

    @Test func contextIsResetAfterEachBatch() throws {
        let container = try PersistentContainer(model: looseModel, store: .inMemory)
        let importer = BatchImporter(container: container, name: "memory", batchSize: 50)
        var largest = 0
        try importer.run(importRecords(500)) { record, context in
            try insertRecord(record, context)
            largest = max(largest, context.insertedObjects.count)
        }
        #expect(largest == 50)
    }

    @Test func markerSurvivesOtherMetadataAndCanBeDiscarded() throws {
        let container = try PersistentContainer(model: looseModel, store: .inMemory)
        try container.store.setMetadata("mine", forKey: "user.key")
        let importer = BatchImporter(container: container, name: "x", batchSize: 7)
        try importer.run(importRecords(20), insert: insertRecord)
        #expect(try container.store.metadata(forKey: "user.key") == "mine")
        try importer.discardMarker()
        #expect(try importer.marker() == nil)
        let rerun = try importer.run(importRecords(3), insert: insertRecord)
        #expect(rerun.resumedAfter == 0 && rerun.importedNow == 3)
        try container.store.setMetadata("garbage", forKey: importer.markerKey)
        #expect(throws: ObjectGraphError.self) { try importer.marker() }
    }

    /// Statement journals in memory only while a bulk write runs: an import's many small
    /// statements in large transactions spilled them to /var/tmp (2.5 million `pwrite`s for
    /// 100,000 items), while one huge statement outside (mark all read) must not hold its
    /// journal in memory.
    @Test func statementJournalsStayInMemoryOnlyDuringTheImport() throws {
        let tmp = TemporaryDirectory()
        let container = try PersistentContainer(model: looseModel, store: .file(tmp.file("bulk.sqlite")))
        let store = container.store
        #expect(!store.writerTempStoreIsMemory)
        let importer = BatchImporter(container: container, name: "bulk", batchSize: 10)
        var seen: [Bool] = []
        try importer.run(importRecords(25)) { record, context in
            try insertRecord(record, context)
            seen.append(store.writerTempStoreIsMemory)
        }
        #expect(seen.count == 25 && seen.allSatisfy { $0 })
        #expect(!store.writerTempStoreIsMemory)

        // Restored after a failed import, and only when the last of nested spans ends.
        let failing = BatchImporter(container: container, name: "failing", batchSize: 10)
        #expect(throws: Killed.self) {
            try failing.run(importRecords(5)) { _, _ in throw Killed() }
        }
        #expect(!store.writerTempStoreIsMemory)
        try store.withBulkWrites {
            try store.withBulkWrites { #expect(store.writerTempStoreIsMemory) }
            #expect(store.writerTempStoreIsMemory)
        }
        #expect(!store.writerTempStoreIsMemory)
    }

    @Test func batchesWithNothingToSaveStillAdvanceTheMarker() throws {
        let container = try PersistentContainer(model: looseModel, store: .inMemory)
        let importer = BatchImporter(container: container, name: "filtered", batchSize: 10)
        // Only every third record is stored; the marker counts records read, not objects.
        let result = try importer.run(importRecords(40)) { record, context in
            if case .integer(let i)? = record["score"], i % 3 == 0 { try insertRecord(record, context) }
        }
        #expect(result.total == 40)
        #expect(try storedGuids(container).count == 14)
    }
}

/// A real kill: a child process (this test binary, running only ``importInChildProcess()``)
/// imports into a file store; it is killed with SIGKILL after a few batches, and a resumed
/// import must leave every record in the store exactly once.
@Suite struct ImportKillTests {
    static let childStoreVariable = "OBJECTGRAPH_IMPORT_CHILD_STORE"
    static let recordCount = 30_000
    static let batchSize = 200

    /// Runs only in the child process started by ``sigkilledImportResumes()`` (it returns at
    /// once in a normal test run): imports until it is killed.
    @Test func importInChildProcess() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childStoreVariable] else { return }
        let container = try PersistentContainer(model: looseModel, store: .file(URL(fileURLWithPath: path)))
        let importer = BatchImporter(container: container, name: "killed", batchSize: Self.batchSize)
        try importer.run(importRecords(Self.recordCount), insert: insertRecord)
    }

    @Test func sigkilledImportResumes() async throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("killed.sqlite")
        // Create the store first so that parent and child agree on it.
        try PersistentContainer(model: looseModel, store: .file(url)).store.close()

        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--testing-library", "swift-testing", "--filter", "importInChildProcess"]
        child.environment = ProcessInfo.processInfo.environment.merging([Self.childStoreVariable: url.path]) { $1 }
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()

        // Wait until at least three batches are saved, then kill it mid-import.
        var config = Configuration()
        config.readonly = true
        let reader = try DatabaseQueue(path: url.path, configuration: config)
        let key = "objectgraph.import.killed"
        // Watched, and killed, from a thread of its own that looks every 5 ms whatever the
        // test pool is doing: a test task's sleep ends only when a pool thread is free (on a
        // busy run, after the child has long finished), and a pool thread blocked in a loop
        // here is held from every other test for the seconds the child takes.
        let (savedBeforeKill, killedWhileRunning) = await withCheckedContinuation {
            (continuation: CheckedContinuation<(Int, Bool), Never>) in
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(120)
                var saved = 0
                while Date() < deadline, child.isRunning {
                    let value = try? reader.read { db in
                        try String.fetchOne(db, sql: "SELECT value FROM Z_METADATA WHERE key = ?", arguments: [key])
                    }
                    if let value, let n = Int(value), n >= 3 * Self.batchSize {
                        saved = n
                        break
                    }
                    usleep(5_000)
                }
                // Only while it runs: once it has ended and been reaped its pid may be another's.
                let running = child.isRunning
                if running { kill(child.processIdentifier, SIGKILL) }
                continuation.resume(returning: (saved, running))
            }
        }
        try reader.close()
        #expect(killedWhileRunning, "the child finished or died before it could be killed")
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL)
        #expect(savedBeforeKill >= 3 * Self.batchSize)

        let container = try PersistentContainer(model: looseModel, store: .file(url))
        let integrity = try await container.store.database.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
        let importer = BatchImporter(container: container, name: "killed", batchSize: Self.batchSize)
        let marker = try #require(try importer.marker())
        #expect(!marker.isFinished && marker.savedRecords >= savedBeforeKill && marker.savedRecords % Self.batchSize == 0)
        // The marker and the data were committed together.
        #expect(try storedGuids(container).count == marker.savedRecords)

        let result = try importer.run(importRecords(Self.recordCount), insert: insertRecord)
        #expect(result.resumedAfter == marker.savedRecords && result.total == Self.recordCount)
        let guids = try storedGuids(container)
        #expect(guids.count == Self.recordCount)
        #expect(guids.values.allSatisfy { $0 == 1 })
    }
}
