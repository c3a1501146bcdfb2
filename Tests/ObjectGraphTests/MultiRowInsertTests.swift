import Foundation
import Testing

@testable import ObjectGraph

/// A save puts each entity's new rows in multi-row INSERTs (`SaveExecution.insertRows`):
/// every row stored whole, whatever the count and however the entities interleave, and a
/// constraint failure still names the row that broke it.
@Suite struct MultiRowInsertTests {
    @Test func rowCountsArePowersOfTwoWithinTheLimit() {
        #expect(SaveExecution.rowsPerInsert(remaining: 1, maxRows: 256) == 1)
        #expect(SaveExecution.rowsPerInsert(remaining: 200, maxRows: 256) == 128)
        #expect(SaveExecution.rowsPerInsert(remaining: 256, maxRows: 256) == 256)
        #expect(SaveExecution.rowsPerInsert(remaining: 1_000, maxRows: 256) == 256)
        #expect(SaveExecution.rowsPerInsert(remaining: 1_000, maxRows: 37) == 32)
        #expect(SaveExecution.rowsPerInsert(remaining: 5, maxRows: 0) == 1)
        // 200 rows: 128 + 64 + 8.
        var left = 200
        var sizes: [Int] = []
        while left > 0 {
            sizes.append(SaveExecution.rowsPerInsert(remaining: left, maxRows: 256))
            left -= sizes.last!
        }
        #expect(sizes == [128, 64, 8])
    }

    @Test func theStatementListsEveryRowsValues() {
        let entity = TestModel.model.entityIfPresent(named: "Folder")!
        let sql = SaveExecution.insertSQL(for: entity, rows: 3)
        let perRow = SaveExecution.insertColumnCount(for: entity)
        #expect(sql.filter { $0 == "?" }.count == 3 * perRow)
        #expect(sql.hasPrefix(SaveExecution.insertSQL(for: entity) + ", ("))
        #expect(sql.components(separatedBy: "), (").count == 3)
    }

    /// 1,001 notes (not a power of two, more than one statement's worth) inserted between
    /// three new folders, in one save: every note stored with its own values and folder, and
    /// the folders' derived counts right.
    @Test func manyInterleavedInsertsAreStoredWhole() throws {
        let tmp = TemporaryDirectory()
        let container = try TestModel.container(.file(tmp.file("rows.sqlite")))
        let ctx = container.viewContext
        let count = 1_001
        try ctx.performAndWait { () throws in
            var folders: [Folder] = []
            for i in 0..<count {
                if i % 400 == 0 {
                    let folder = ctx.insert(Folder.self)
                    folder.name = "F\(folders.count)"
                    folder.position = Int64(folders.count)
                    folders.append(folder)
                }
                let note = ctx.insert(Note.self)
                note.title = "note \(i)"
                note.rating = Double(i) / 4
                note.read = i % 3 == 0
                note.blob = i % 7 == 0 ? Data([UInt8(i & 0xFF), 0, 1]) : nil
                note.folder = folders.last
            }
            try ctx.save()
        }
        let other = container.newBackgroundContext()
        try other.performAndWait { () throws in
            let notes = try other.fetch(FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("rating")]))
            #expect(notes.count == count)
            for (i, note) in notes.enumerated() {
                #expect(note.title == "note \(i)")
                #expect(note.read == (i % 3 == 0))
                #expect(note.blob == (i % 7 == 0 ? Data([UInt8(i & 0xFF), 0, 1]) : nil))
                #expect(note.folder?.name == "F\(i / 400)")
            }
            let folders = try other.fetch(FetchRequest<Folder>(sortDescriptors: [ObjectSortDescriptor("position")]))
            #expect(folders.map(\.name) == ["F0", "F1", "F2"])
            // Unread: i % 3 != 0, per folder of 400, 400, 201 notes.
            let unread = (0..<3).map { f in (f * 400..<min(count, (f + 1) * 400)).filter { $0 % 3 != 0 }.count }
            #expect(folders.map(\.unreadCount) == unread.map(Int64.init))
        }
    }

    /// A duplicate among 300 new folders (statements of 256, 32, 8 and 4 rows): the save fails
    /// naming that folder's value, writes nothing, and succeeds once the name is fixed. At
    /// 150 it is inside the first statement; at 290 in the third, after two statements' rows
    /// were written (Folder has no triggers, so it takes `INSERT OR FAIL`, whose failing row
    /// SQLite's count of written rows names).
    @Test(arguments: [150, 290]) func aViolationInsideAManyRowInsertNamesItsRow(duplicateAt: Int) throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let first = ctx.insert(Folder.self)
            first.name = "taken"
            try ctx.save()
            var folders: [Folder] = []
            for i in 0..<300 {
                let folder = ctx.insert(Folder.self)
                folder.name = i == duplicateAt ? "taken" : "folder \(i)"
                folders.append(folder)
            }
            #expect(throws: ObjectGraphError.uniquenessViolation(entity: "Folder", keys: ["name"], values: ["\"taken\""])) {
                try ctx.save()
            }
            let other = container.newBackgroundContext()
            try other.performAndWait { () throws in #expect(try other.count(for: FetchRequest<Folder>()) == 1) }
            folders[duplicateAt].name = "folder \(duplicateAt)"
            try ctx.save()
            try other.performAndWait { () throws in #expect(try other.count(for: FetchRequest<Folder>()) == 301) }
        }
    }

    /// The asynchronous span (a refresh awaiting its saves) holds the settings (statement
    /// journals in memory, fewer checkpoints, a larger page cache) while its body is awaited, and restores them after.
    @Test func anAsynchronousBulkWriteHoldsTheSettingWhileAwaited() async throws {
        let tmp = TemporaryDirectory()
        let container = try TestModel.container(.file(tmp.file("bulk.sqlite")))
        let store = container.store
        #expect(!store.writerTempStoreIsMemory)
        #expect(store.writerAutoCheckpointPages == PersistentStore.defaultAutoCheckpointPages)
        #expect(store.writerCacheSize == PersistentStore.defaultCacheKiB)
        #expect(store.writerJournalSizeLimit == PersistentStore.journalSizeLimit)
        let inside = await store.withBulkWritesAsync { () async -> (Bool, Int?, Int?, Int?) in
            await Task.yield()
            return (
                store.writerTempStoreIsMemory, store.writerAutoCheckpointPages, store.writerCacheSize,
                store.writerJournalSizeLimit
            )
        }
        #expect(inside.3 == PersistentStore.bulkJournalSizeLimit)
        #expect(store.writerJournalSizeLimit == PersistentStore.journalSizeLimit)
        #expect(inside.0)
        #expect(inside.1 == 0)  // a hook of ObjectGraph's (BulkCheckpointer) stands in for SQLite's
        #expect(inside.2 == PersistentStore.bulkCacheKiB(rows: 0))
        #expect(!store.writerTempStoreIsMemory)
        #expect(store.writerAutoCheckpointPages == PersistentStore.defaultAutoCheckpointPages)
        #expect(store.writerCacheSize == PersistentStore.defaultCacheKiB)
    }

    /// The bulk write's page cache is sized by the store it writes into: a floor for an
    /// empty store, more for each row its largest entity holds, and no more than the ceiling.
    @Test func theBulkCacheGrowsWithTheStoresRows() async throws {
        #expect(PersistentStore.bulkCacheKiB(rows: 0) == -PersistentStore.bulkCacheMinKiB)
        #expect(
            PersistentStore.bulkCacheKiB(rows: 80_000)
                == -(PersistentStore.bulkCacheMinKiB + 78 * PersistentStore.bulkCacheBytesPerRow))
        #expect(PersistentStore.bulkCacheKiB(rows: 10_000_000) == -PersistentStore.bulkCacheMaxKiB)
        #expect(PersistentStore.bulkCacheKiB(rows: -5) == -PersistentStore.bulkCacheMinKiB)

        let tmp = TemporaryDirectory()
        let container = try TestModel.container(.file(tmp.file("cache.sqlite")))
        let store = container.store
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            for i in 0..<3_000 {
                let note = ctx.insert(Note.self)
                note.title = "note \(i)"
                note.rating = 1
                note.read = false
            }
            try ctx.save()
        }
        let inside = await store.withBulkWritesAsync { () async -> Int? in store.writerCacheSize }
        #expect(inside == PersistentStore.bulkCacheKiB(rows: 3_000))
        #expect(inside != PersistentStore.bulkCacheKiB(rows: 0))
        #expect(store.writerCacheSize == PersistentStore.defaultCacheKiB)
    }
}
