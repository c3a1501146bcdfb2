import Foundation
import GRDB

// Bulk writes keep SQLite's statement journals in memory, and only while they run.
//
// Why: in a transaction that already changed many pages, every statement that may fail half
// way (an INSERT that fires the full-text index's triggers, say) first copies the pages it
// is about to change into a statement journal. Past 64 KiB, SQLite spills that journal to a
// temporary file (`/var/tmp/etilqs_*`): a newsboat import of 10,000 items made 253,000
// `pwrite`s to such files against 4,000 to the store. With `PRAGMA temp_store = MEMORY` the
// journal stays in memory; each one lives for one statement, so an import's statements keep
// it small. Set on every connection, though, it also holds in memory the journal of a single
// statement that changes a hundred thousand rows (mark all read), so it is set only for
// the span of a bulk write, then put back.
//
// For the same span a ``BulkCheckpointer`` checkpoints the `-wal` on a thread of its own, every
// 64 MiB, instead of SQLite's automatic checkpoint on the writer every 1,000 pages (16 MiB
// of 16 KiB pages); the writer checkpoints only at ``bulkAutoCheckpointPages``, should the
// passes fall behind. Fewer checkpoints because each checkpoint copies every page
// written since the last into the store, and the indexes' pages are written again by nearly
// every transaction of a refresh, so a refresh's checkpoints could write more than the
// store holds. The span's owner checkpoints when it ends (a refresh does).
// Every checkpoint copies the indexes' pages again, and a refresh's checkpoints grow in number
// with the items it stores while each copies more index pages as the store grows: a cost that
// grows faster than the feeds (see ``bulkAutoCheckpointPages``).
// And the writer's page cache is sized by the store (``bulkCacheKiB(rows:)``), put back after.

extension PersistentStore {
    /// Runs `body` — a bulk write such as a ``BatchImporter`` run: many small statements in
    /// large transactions — with the writer connection's temporary files (statement journals)
    /// kept in memory, its `-wal` checkpointed on another thread and a larger page cache, then
    /// restores the defaults. Nested and concurrent calls share one span:
    /// the setting is restored when the last of them ends. Writes other code makes meanwhile
    /// (on any context of this store) run with the setting too; avoid running a statement
    /// that changes a very large number of rows inside the span.
    ///
    /// Call it off the store's writer (not from inside a save): it takes the writer between
    /// transactions to change the setting.
    ///
    /// ```swift
    /// let result = try store.withBulkWrites {
    ///     try importer.run(records) { record, context in try context.insertObject(entityName: "FeedItem").importValues(from: record) }
    /// }
    /// ```
    public func withBulkWrites<R>(_ body: () throws -> R) throws -> R {
        try beginBulkWrites()
        defer { endBulkWrites() }
        return try body()
    }

    /// ``withBulkWrites(_:)`` around asynchronous work that saves on contexts' queues while it
    /// is awaited (a feed refresh). Should the setting not change (a store that cannot be
    /// written), `body` runs anyway, with the default.
    ///
    /// ```swift
    /// func refreshEveryFeed() async -> Int { 0 }  // your feeds' refresh: saves on contexts' queues
    /// let summary = await store.withBulkWritesAsync { await refreshEveryFeed() }
    /// ```
    public func withBulkWritesAsync<R>(_ body: () async -> R) async -> R {
        let began = (try? beginBulkWrites()) != nil
        defer { if began { endBulkWrites() } }
        return await body()
    }

    /// How many inserted rows a bulk write lets wait before adding them to the full-text
    /// indexes in one statement (4,096 unless set): fewer, larger batches cost a refresh
    /// less CPU, and searches miss at most this many of a bulk write's newest rows until it
    /// indexes them. 1 indexes each save's rows as the save commits, as outside a bulk write.
    ///
    /// ```swift
    /// store.fullTextBatchLimit = 1   // every save's rows searchable at once
    /// ```
    public var fullTextBatchLimit: Int {
        get { fullTextBatchRows.withLock { $0 } }
        set { fullTextBatchRows.withLock { $0 = max(1, newValue) } }
    }

    /// The `temp_store` setting a bulk write uses, and the one restored after it.
    static let bulkTempStore = "MEMORY"
    static let defaultTempStore = "DEFAULT"
    /// The `-wal`'s size (in pages) at which the writer checkpoints itself during a bulk
    /// write (256 MiB of 16 KiB pages; ``BulkCheckpointer/boundFrames``: the background passes
    /// keep it well below that), and SQLite's default `wal_autocheckpoint`, restored after it.
    /// The span's owner truncates the `-wal` after. Fewer, larger checkpoints cost the commits
    /// less; none at all would let the `-wal` grow as large as everything written
    /// (docs/PERFORMANCE.md, "Tuning in the code").
    static let bulkAutoCheckpointPages = 16_384
    static let defaultAutoCheckpointPages = 1_000
    /// The writer's page cache during a bulk write (`PRAGMA cache_size`, negative: KiB) in a
    /// store whose largest entity has `rows` rows: ``bulkCacheMinKiB`` and
    /// ``bulkCacheBytesPerRow`` for each row, at most ``bulkCacheMaxKiB``.
    /// Why: a refresh inserts into item indexes ordered by keys random across feeds (dates);
    /// once those outgrow the cache nearly every insert reads its page back from the file.
    /// They grow with the rows, while most pages a refresh writes (bodies) are written once:
    /// a cache larger than the indexes fills with those and only adds to the peak
    /// (docs/PERFORMANCE.md, "Tuning in the code").
    static func bulkCacheKiB(rows: Int) -> Int {
        -min(bulkCacheMaxKiB, bulkCacheMinKiB + max(0, rows) / 1_024 * bulkCacheBytesPerRow)
    }
    /// What a new store's refresh of tens of thousands of items needs for its random-order
    /// index pages.
    static let bulkCacheMinKiB = 4_096
    static let bulkCacheMaxKiB = 16_384
    /// Room for what the item indexes written in random order hold per item, with slack for
    /// the pages they share with other keys.
    static let bulkCacheBytesPerRow = 64
    /// SQLite's default cache, put back after a bulk write.
    static let defaultCacheKiB = -2_000
    /// The writer's `journal_size_limit` during a bulk write: none (-1), so that each time the
    /// `-wal` starts over (``BulkCheckpointer``) the writer writes over the file's pages instead
    /// of cutting it to 4 MiB and growing it again, which the writer would wait for.
    /// ``journalSizeLimit`` is put back after; the span's owner truncates the `-wal` then.
    static let bulkJournalSizeLimit = -1

    /// The writer connection's `journal_size_limit` (for tests).
    var writerJournalSizeLimit: Int? {
        try? writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA journal_size_limit") }
    }

    /// Whether the writer connection holds its temporary files in memory now (for tests:
    /// a reader connection has its own setting, so this asks the writer).
    var writerTempStoreIsMemory: Bool {
        (try? writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") }) == 2
    }

    /// The writer connection's `wal_autocheckpoint`, in pages (for tests).
    var writerAutoCheckpointPages: Int? {
        try? writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
    }

    var writerCacheSize: Int? {
        try? writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
    }

    // The count and the setting change together under the lock, so that a span starting
    // as another ends never runs with the default.
    private func beginBulkWrites() throws(ObjectGraphError) {
        guard !isReadOnly else { return }
        try bulkWriters.withLock { (count: inout Int) throws(ObjectGraphError) in
            if count == 0 {
                let checkpointer = makeBulkCheckpointer()
                try setTempStore(
                    Self.bulkTempStore, autoCheckpoint: Self.bulkAutoCheckpointPages, cacheKiB: nil,
                    journalLimit: Self.bulkJournalSizeLimit, checkpointer: checkpointer)
                bulkCheckpointer.withLock { $0 = checkpointer }
                bulkWriteDefersIndexing.withLock { $0 = true }
            }
            count += 1
        }
    }

    private func endBulkWrites() {
        guard !isReadOnly else { return }
        bulkWriters.withLock { count in
            count -= 1
            guard count == 0 else { return }
            // The rows the span's saves left for the full-text index (FullTextIndex.swift); on
            // failure they stay recorded, and the next write open indexes them.
            let model = self.model
            bulkWriteDefersIndexing.withLock { $0 = false }
            try? writer.write { db in try FullTextIndexSchema.indexPendingRows(model: model, in: db) }
            // A failure leaves the faster setting on a connection that is still correct (and
            // the checkpointer's hook installed: the checkpointer then stays alive with the store).
            do {
                try setTempStore(
                    Self.defaultTempStore, autoCheckpoint: Self.defaultAutoCheckpointPages, cacheKiB: Self.defaultCacheKiB,
                    journalLimit: Self.journalSizeLimit)
            } catch {
                return
            }
            bulkCheckpointer.withLock { $0 }?.finish()
            bulkCheckpointer.withLock { $0 = nil }
        }
    }

    /// The rows of the store's largest entity, as its last allocated key tells (0 for a
    /// store without keys yet): one read of a small table, where counting would read an index.
    static func largestEntityRows(in db: Database) throws -> Int {
        guard try db.tableExists("Z_PRIMARYKEY") else { return 0 }
        return try Int.fetchOne(db, sql: "SELECT max(Z_MAX) FROM \"Z_PRIMARYKEY\"") ?? 0
    }

    /// A checkpointer for a file store's bulk write; nil for a store in memory.
    private func makeBulkCheckpointer() -> BulkCheckpointer? {
        guard case .file(let url) = location, writer is DatabasePool else { return nil }
        return BulkCheckpointer(path: url.path, boundFrames: Self.bulkAutoCheckpointPages)
    }

    /// What the bulk write's checkpointer did so far (nil outside a bulk write or for a store in memory).
    var bulkCheckpointCounts: BulkCheckpointer.Counts? { bulkCheckpointer.withLock { $0 }?.counts }

    /// Sets the writer's statement journals, page cache (nil: ``bulkCacheKiB(rows:)`` for the
    /// store as it is) and checkpoints; `checkpointer`, when given, takes over from SQLite's
    /// automatic checkpoint (`wal_autocheckpoint` puts it back).
    private func setTempStore(
        _ value: String, autoCheckpoint pages: Int, cacheKiB: Int?, journalLimit: Int,
        checkpointer: BulkCheckpointer? = nil
    ) throws(ObjectGraphError) {
        do {
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA temp_store = \(value)")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(pages)")
                let cache = try cacheKiB ?? Self.bulkCacheKiB(rows: Self.largestEntityRows(in: db))
                try db.execute(sql: "PRAGMA cache_size = \(cache)")
                try db.execute(sql: "PRAGMA journal_size_limit = \(journalLimit)")
                checkpointer?.install(on: db)
            }
        } catch {
            throw ObjectGraphError.wrapping(error, path: location.path)
        }
    }
}
