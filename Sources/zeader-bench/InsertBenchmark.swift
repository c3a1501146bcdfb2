// zeader-bench batch-insert: N rows written by one BatchInsertRequest (from a closure and
// from dictionaries) beside the same rows written with a hand-written prepared INSERT
// through SQLite's C API; then an upsert of N rows of which half are stored already, by a
// batch insert, by a context's save and by hand-written `INSERT … ON CONFLICT DO UPDATE`.
// Best of ROUNDS rounds, fresh stores each. The clock runs from the first row to the commit
// (and, for ObjectGraph, until the view context has merged the announcement, work the request
// causes); opening and closing the store are left out of both sides, and the hand-written
// side runs on a connection set up as the store's (WAL, synchronous NORMAL).
import Foundation
import GRDB
import GRDBSQLite
import ObjectGraph

final class InsertBenchRecord: ManagedObject {
    @Managed("guid") var guid: String
    @Managed("title") var title: String?
    @Managed("published") var published: Date?
    @Managed("read") var read: Bool
    @Managed("score") var score: Int64
}

/// Records unique by guid, as a feed's items are.
let insertBenchModel = try! ManagedObjectModel(
    name: "InsertBench", version: 1,
    entities: [
        EntityDescription(
            "Record", managedClass: InsertBenchRecord.self,
            attributes: [
                .string("guid", optional: false), .string("title"), .date("published"), .bool("read", defaultValue: false),
                .integer("score", defaultValue: 0),
            ],
            uniquenessConstraints: [["guid"]])
    ])

func batchInsertBenchmark(count: Int, rounds: Int) throws {
    print("Batch insert of \(count) records (unique guid), best of \(rounds) rounds; CPU s (wall s), ratio to SQL in CPU")
    var best: [String: Timing] = [:]
    var order: [String] = []
    func keep(_ label: String, _ timing: Timing) {
        if best[label] == nil { order.append(label) }
        if best[label].map({ timing.cpu < $0.cpu }) ?? true { best[label] = timing }
    }
    for _ in 0..<rounds {
        keep("insert: hand-written SQL", try timedStore { url in try rawInsert(url, range: 0..<count, upsert: false) })
        keep("insert: BatchInsertRequest, closure", try timedStore { url in try requestInsert(url, range: 0..<count) })
        keep("insert: BatchInsertRequest, dictionaries", try timedStore { url in try dictionaryInsert(url, range: 0..<count) })
        let half = count / 2
        keep(
            "upsert (half stored): hand-written SQL",
            try timedStore(stored: half) { url in try rawInsert(url, range: half / 2..<(half / 2 + count), upsert: true) })
        keep(
            "upsert (half stored): BatchInsertRequest",
            try timedStore(stored: half) { url in try requestInsert(url, range: half / 2..<(half / 2 + count), upsert: true) })
        keep(
            "upsert (half stored): context save, objectTrumps",
            try timedStore(stored: half) { url in try contextUpsert(url, range: half / 2..<(half / 2 + count)) })
    }
    let insertSQL = best["insert: hand-written SQL"]!.cpu
    let upsertSQL = best["upsert (half stored): hand-written SQL"]!.cpu
    for label in order {
        let t = best[label]!
        let base = label.hasPrefix("upsert") ? upsertSQL : insertSQL
        print(
            "  \(label.padding(toLength: 50, withPad: " ", startingAt: 0)) \(String(format: "%7.3f s (%7.3f s)  %5.2fx", t.cpu, t.wall, t.cpu / max(base, 1e-9)))"
        )
    }
}

/// Runs `body` on a fresh store holding records 0..<`stored` (written beforehand); `body`
/// opens the store, times its work and closes it.
private func timedStore(stored: Int = 0, _ body: (URL) throws -> Timing) throws -> Timing {
    let url = tempStore("batch-insert")
    defer { removeStore(url) }
    do {
        let container = try PersistentContainer(model: insertBenchModel, store: .file(url))
        if stored > 0 { try requestInsert(container, range: 0..<stored) }
        // Its merge would otherwise run on the view queue while the next clock runs.
        container.viewContext.performAndWait {}
        try container.store.close()
    }
    return try body(url)
}

/// Opens `url` as a store, times `work` on a new background context (until the view context
/// has merged what it announced), then closes the store.
private func timedContext(_ url: URL, _ work: (ManagedObjectContext) throws -> Void) throws -> Timing {
    let container = try PersistentContainer(model: insertBenchModel, store: .file(url))
    defer { try? container.store.close() }
    let ctx = container.newBackgroundContext()
    let timing = try measure { () throws in
        try work(ctx)
        container.viewContext.performAndWait {}
    }.1
    return timing
}

/// The fields of record `i`.
private func record(_ i: Int) -> (guid: String, title: String, published: Double, read: Bool, score: Int64) {
    ("guid-\(i)", "Record number \(i)", 1_700_000_000 + Double(i), i % 3 == 0, Int64(i % 100))
}

private func requestInsert(_ url: URL, range: Range<Int>, upsert: Bool = false) throws -> Timing {
    try timedContext(url) { ctx in try requestInsert(ctx, range: range, upsert: upsert) }
}

private func requestInsert(_ container: PersistentContainer, range: Range<Int>, upsert: Bool = false) throws {
    try requestInsert(container.newBackgroundContext(), range: range, upsert: upsert)
}

private func requestInsert(_ ctx: ManagedObjectContext, range: Range<Int>, upsert: Bool = false) throws {
    try ctx.performAndWait { () throws in
        if upsert { ctx.mergePolicy = .objectTrumps }
        var i = range.lowerBound
        let request = BatchInsertRequest(entityName: "Record") { row in
            guard i < range.upperBound else { return false }
            let r = record(i)
            row["guid"] = .string(r.guid)
            row["title"] = .string(r.title)
            row["published"] = .date(Date(timeIntervalSince1970: r.published))
            row["read"] = .bool(r.read)
            row["score"] = .integer(r.score)
            i += 1
            return true
        }
        var counted = request
        counted.resultType = .count
        let written = try ctx.execute(counted).changedCount
        precondition(written == range.count, "batch insert wrote \(written) of \(range.count) rows")
    }
}

/// The rows as dictionaries (made inside the clock: they are what this form asks of its caller).
private func dictionaryInsert(_ url: URL, range: Range<Int>) throws -> Timing {
    try timedContext(url) { ctx in
        try ctx.performAndWait { () throws in
            let objects: [[String: Value]] = range.map { i in
                let r = record(i)
                return [
                    "guid": .string(r.guid), "title": .string(r.title),
                    "published": .date(Date(timeIntervalSince1970: r.published)),
                    "read": .bool(r.read), "score": .integer(r.score),
                ]
            }
            var request = BatchInsertRequest(entityName: "Record", objects: objects)
            request.resultType = .count
            _ = try ctx.execute(request)
        }
    }
}

/// The upsert as a Core Data developer writes it: insert every object, save under objectTrumps.
private func contextUpsert(_ url: URL, range: Range<Int>) throws -> Timing {
    try timedContext(url) { ctx in
        try ctx.performAndWait { () throws in
            ctx.mergePolicy = .objectTrumps
            for i in range {
                let r = record(i)
                let object = ctx.insert(InsertBenchRecord.self)
                object.guid = r.guid
                object.title = r.title
                object.published = Date(timeIntervalSince1970: r.published)
                object.read = r.read
                object.score = r.score
            }
            try ctx.save()
        }
    }
}

/// The same rows with one prepared single-row INSERT (the usual hand-written import), in one
/// transaction; with `upsert`, `ON CONFLICT (guid) DO UPDATE`. The connection is set up as
/// the store's writer is (WAL, which GRDB pairs with synchronous NORMAL).
private func rawInsert(_ url: URL, range: Range<Int>, upsert: Bool) throws -> Timing {
    var configuration = Configuration()
    configuration.journalMode = .wal
    let queue = try DatabaseQueue(path: url.path, configuration: configuration)
    defer { try? queue.close() }
    return try measure { try rawInsert(queue, range: range, upsert: upsert) }.1
}

private func rawInsert(_ queue: DatabaseQueue, range: Range<Int>, upsert: Bool) throws {
    try queue.inTransaction { db in
        var next = (try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(Z_PK), 0) FROM Record") ?? 0) + 1
        var sql = "INSERT INTO Record (Z_PK, Z_OPT, guid, title, published, read, score) VALUES (?, 1, ?, ?, ?, ?, ?)"
        if upsert {
            sql +=
                " ON CONFLICT (guid) DO UPDATE SET title = excluded.title, published = excluded.published, read = excluded.read, score = excluded.score, Z_OPT = Z_OPT + 1"
        }
        let statement = try db.makeStatement(sql: sql)
        let raw = statement.sqliteStatement
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for i in range {
            let r = record(i)
            sqlite3_bind_int64(raw, 1, next)
            _ = r.guid.withCString { sqlite3_bind_text(raw, 2, $0, -1, transient) }
            _ = r.title.withCString { sqlite3_bind_text(raw, 3, $0, -1, transient) }
            sqlite3_bind_double(raw, 4, r.published)
            sqlite3_bind_int64(raw, 5, r.read ? 1 : 0)
            sqlite3_bind_int64(raw, 6, r.score)
            guard sqlite3_step(raw) == SQLITE_DONE else {
                throw DatabaseError(message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            sqlite3_reset(raw)
            next += 1
        }
        try db.execute(
            sql: "INSERT OR REPLACE INTO Z_PRIMARYKEY (Z_ENTITY, Z_MAX) VALUES ('Record', ?)", arguments: [next - 1])
        return .commit
    }
}
