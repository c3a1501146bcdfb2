import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// During a bulk write the `-wal` is checkpointed off the writer (``BulkCheckpointer``):
/// background passes copy it while the writer commits, the writer copies only what a pass
/// left, the `-wal` starts over, and nothing committed is lost.
@Suite struct BulkCheckpointerTests {
    /// A pool on `path` whose writer commits `transactions` transactions of `rows` rows of
    /// 2 KiB each (about half a 4 KiB page per row) with `checkpointer` installed; with
    /// `passesKeepUp`, each commit waits for a pass it started (a pass as quick as a
    /// refresh's next commit is slow; without, the writer commits as fast as it can).
    private func write(
        path: String, checkpointer: BulkCheckpointer, transactions: Int, rows: Int, passesKeepUp: Bool = false
    ) throws -> DatabasePool {
        let pool = try DatabasePool(path: path)
        try pool.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)") }
        pool.writeWithoutTransaction { db in checkpointer.install(on: db) }
        let blob = Data(repeating: 7, count: 2_048)
        for _ in 0..<transactions {
            try pool.write { db in
                for _ in 0..<rows { try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: [blob]) }
            }
            if passesKeepUp { checkpointer.finish() }
        }
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 1000") }
        checkpointer.finish()
        return pool
    }

    /// Every row committed is there and the file is sound.
    private func expectIntact(_ pool: DatabasePool, rows: Int) throws {
        #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == rows)
        #expect(try pool.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
    }

    @Test func passesRunInTheBackgroundAndTheLogStartsOver() throws {
        let tmp = TemporaryDirectory()
        let path = tmp.file("bulk.sqlite").path
        let checkpointer = BulkCheckpointer(path: path, passFrames: 256, catchUpFrames: 128, boundFrames: 2_048)
        // 400 transactions of ~11 pages: 4,400 frames, 17 MiB written.
        let pool = try write(path: path, checkpointer: checkpointer, transactions: 400, rows: 20, passesKeepUp: true)
        let counts = checkpointer.counts
        #expect(counts.passes > 0)
        #expect(counts.completePasses > 0)
        #expect(counts.catchUps > 0)
        #expect(counts.atBound == 0)
        // Without checkpoints the `-wal` would hold all 4,400 frames; it started over after
        // each pass and its catch-up (a pass starts at 256; then one commit, the catch-up).
        #expect(counts.largestLog < 300)
        try expectIntact(pool, rows: 8_000)
    }

    /// A writer faster than the passes: they chase it, and the bound holds the `-wal`.
    @Test func aWriterFasterThanThePassesKeepsItsBoundAndItsRows() throws {
        let tmp = TemporaryDirectory()
        let path = tmp.file("fast.sqlite").path
        let checkpointer = BulkCheckpointer(path: path, passFrames: 64, catchUpFrames: 8, boundFrames: 1_024)
        let pool = try write(path: path, checkpointer: checkpointer, transactions: 400, rows: 20)
        let counts = checkpointer.counts
        #expect(counts.passes > 0)
        // 4,400 frames without checkpoints; the writer's checkpoint at the bound can find a
        // pass holding the checkpoint lock, so the `-wal` may pass the bound by a pass's time.
        #expect(counts.largestLog < 2_048)
        try expectIntact(pool, rows: 8_000)
    }

    @Test func theWriterCheckpointsAtTheBound() throws {
        let tmp = TemporaryDirectory()
        let path = tmp.file("bound.sqlite").path
        // Passes only past 100,000 frames: the writer's own checkpoint at 200 frames keeps the bound.
        let checkpointer = BulkCheckpointer(path: path, passFrames: 100_000, catchUpFrames: 1, boundFrames: 200)
        let pool = try write(path: path, checkpointer: checkpointer, transactions: 200, rows: 20)
        let counts = checkpointer.counts
        #expect(counts.passes == 0)
        #expect(counts.atBound > 0)
        #expect(counts.largestLog < 400)  // the bound and a few transactions
        try expectIntact(pool, rows: 4_000)
    }

    /// A store's bulk write runs with a checkpointer (a file store) and without one after it.
    @Test func aFileStoresBulkWriteHasACheckpointer() async throws {
        let tmp = TemporaryDirectory()
        let container = try TestModel.container(.file(tmp.file("store.sqlite")))
        let store = container.store
        #expect(store.bulkCheckpointCounts == nil)
        let inside = await store.withBulkWritesAsync { () async -> BulkCheckpointer.Counts? in
            await Task.yield()
            return store.bulkCheckpointCounts
        }
        #expect(inside == BulkCheckpointer.Counts())
        #expect(store.bulkCheckpointCounts == nil)
        let memory = try TestModel.container(.inMemory).store
        #expect(try memory.withBulkWrites { memory.bulkCheckpointCounts } == nil)
    }
}
