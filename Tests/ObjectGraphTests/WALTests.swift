import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// The `-wal` file stays small: `journal_size_limit` on every connection, and
/// ``PersistentStore/checkpoint(truncate:)`` after bulk writes.
@Suite struct WALTests {
    static func walSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path + "-wal"))?[.size] as? Int) ?? 0
    }

    /// Writes about `megabytes` MiB in one transaction (a single transaction cannot be
    /// checkpointed part-way, so the `-wal` grows past the limit).
    static func writeBulk(_ store: PersistentStore, megabytes: Int) throws {
        try store.database.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS bulk(x BLOB)")
            for _ in 0..<(megabytes * 16) {
                try db.execute(sql: "INSERT INTO bulk VALUES (randomblob(65536))")
            }
        }
    }

    @Test func journalSizeLimitIsSetOnWriterAndReaders() throws {
        let tmp = TemporaryDirectory()
        let container = try TestModel.container(.file(tmp.file("s.sqlite")))
        let db = container.store.database
        let written = try db.write { db in try Int.fetchOne(db, sql: "PRAGMA journal_size_limit") }
        let read = try db.read { db in try Int.fetchOne(db, sql: "PRAGMA journal_size_limit") }
        #expect(written == PersistentStore.journalSizeLimit)
        #expect(read == PersistentStore.journalSizeLimit)
        #expect(PersistentStore.journalSizeLimit == 4 * 1024 * 1024)
    }

    @Test func checkpointTruncatesTheWALAfterABulkWrite() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("s.sqlite")
        let container = try TestModel.container(.file(url))
        try Self.writeBulk(container.store, megabytes: 8)
        #expect(Self.walSize(url) > PersistentStore.journalSizeLimit)
        #expect(container.store.checkpoint(truncate: true))
        #expect(Self.walSize(url) == 0)
        let count = try container.store.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM bulk") }
        #expect(count == 8 * 16)
    }

    @Test func checkpointGivesUpQuietlyWhileAReaderHoldsASnapshot() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("s.sqlite")
        let container = try TestModel.container(.file(url))
        try Self.writeBulk(container.store, megabytes: 1)
        // Another connection (as another process would) reads an older snapshot meanwhile.
        let other = try DatabaseQueue(path: url.path)
        let completed = try other.read { db -> Bool in
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM bulk")
            try container.store.database.write { db in try db.execute(sql: "INSERT INTO bulk VALUES (zeroblob(10))") }
            return container.store.checkpoint(truncate: true)
        }
        #expect(!completed)
        try other.close()
        #expect(container.store.checkpoint(truncate: true))
        #expect(Self.walSize(url) == 0)
    }

    @Test func inMemoryAndReadOnlyStoresAnswerWithoutThrowing() throws {
        #expect(try TestModel.container().store.checkpoint())
        let tmp = TemporaryDirectory()
        let url = tmp.file("s.sqlite")
        try TestModel.container(.file(url)).store.close()
        let readOnly = try PersistentContainer(model: TestModel.model, store: .file(url), readOnly: true)
        #expect(!readOnly.store.checkpoint())
    }
}
