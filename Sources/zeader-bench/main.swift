// zeader-bench: measurements that must not live in unit tests.
//
//   swift run -c release zeader-bench objectgraph [N [ROUNDS]]   ObjectGraph beside hand-written SQL
//                                                     (GRDB), best of ROUNDS (5) rounds
//   swift run -c release zeader-bench toggle            read-flag toggles at 100 and 100,000 items
//   swift run -c release zeader-bench import [N]        batched import of N records, then migrations
//   swift run -c release zeader-bench batch [N [S]]     mark all read (one batch update) on N items
//                                                     over S servers, its undo and redo
//   swift run -c release zeader-bench batch-insert [N [ROUNDS]]  a BatchInsertRequest of N (100,000)
//                                                     rows and an upsert of N, half stored, beside SQL
//   swift run -c release zeader-bench mark [N [S]]      the reader's C (mark all read) and u (undo) on
//                                                     a Zeader store of N items over S feeds
//   swift run -c release zeader-bench fts [N [B]]       full-text index: insert cost (B per save), search
//   swift run -c release zeader-bench views [N [S]]     the reader's list operations (l, L, sort, filter,
//                                                     n) on N (100,000) items over S (500) feeds
//   swift run -c release zeader-bench reader-memory [R [F [I]]]  the reader's RSS over R (200) refreshes
//                                                     of F (200) file:// feeds of I (50) items
//   swift run -c release zeader-bench scale-build PATH N [F]  a store of N generated items over F
//                                                     (2,000) feeds (scripts/bench-scale.sh)
//   swift run -c release zeader-bench first-screen PATH [R]   the reader's start on a store, R (5) times
//   swift run -c release zeader-bench smart-counts PATH [C]   smart feeds' kept counts on that store, after C changes
//   swift run -c release zeader-bench fetched-results [N [C]]  a FetchedResultsController over N
//                                                     (100,000) rows: per-change cost of C changes
//   swift run -c release zeader-bench extract FOLDER [R]   article extraction: median CPU per page of
//                                                     FOLDER/*/source.html, R (9) rounds each
//   swift run -c release zeader-bench ordered-append [N [S [R]]]  N (20,000) appends to an ordered
//                                                     to-many beside an unordered one, a save every S (N),
//                                                     best of R (5) alternated rounds
//   swift run -c release zeader-bench observation [N]  reading N (100,000) fetched objects: the
//                                                     observation registrar's cost
//   swift run -c release zeader-bench relationships [S [I]]  cached to-many reads, prefetching, batch
//                                                     faulting, dictionary results: S (100) servers of I (1,000) items
//   swift run -c release zeader-bench typed-query [N [Q [R]]]  a key-path fetch beside its format twin
import Foundation
import GRDB
import GRDBSQLite
import ObjectGraph
import Synchronization

final class BenchServer: ManagedObject {
    @Managed("title") var title: String?
    @Managed("unreadCount") var unreadCount: Int64
    @ToMany("feedItems") var feedItems: [BenchItem]
}

final class BenchItem: ManagedObject {
    @Managed("guid") var guid: String
    @Managed("title") var title: String?
    @Managed("published") var published: Date?
    @Managed("read") var read: Bool
    @Managed("score") var score: Int64
    @ToOne("server") var server: BenchServer?
}

let benchModel = try! ManagedObjectModel(
    name: "Bench", version: 1,
    entities: [
        EntityDescription(
            "Server", managedClass: BenchServer.self,
            attributes: [.string("title"), .derivedCount("unreadCount", of: "feedItems", where: "read == NO")],
            relationships: [.toMany("feedItems", destination: "Item", inverse: "server", deleteRule: .cascade)]),
        EntityDescription(
            "Item", managedClass: BenchItem.self,
            attributes: [
                .string("guid", optional: false), .string("title"), .date("published", indexed: true),
                .bool("read", defaultValue: false), .integer("score", defaultValue: 0),
            ],
            relationships: [.toOne("server", destination: "Server", inverse: "feedItems")]),
    ])

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// CPU time of the whole process (all threads), in seconds: steadier than wall time on a
/// machine shared with other work.
func cpuTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Wall and CPU time of one measurement, in seconds.
struct Timing {
    var wall: Double
    var cpu: Double
}

/// Prints one line of a benchmark's table: the label, then the CPU time (wall time), each
/// divided by `per` (µs below 10 ms), then `unit`.
func printTiming(_ label: String, _ t: Timing, per: Int = 1, unit: String = "") {
    func format(_ s: Double) -> String { s < 0.01 ? String(format: "%.1f µs", s * 1e6) : String(format: "%.3f s", s) }
    let cpu = format(t.cpu / Double(per))
    let wall = format(t.wall / Double(per))
    print("  \(label.padding(toLength: 52, withPad: " ", startingAt: 0)) \(cpu) (\(wall))\(unit)")
}

/// Runs `body`, timing it.
func measure<T>(_ body: () throws -> T) rethrows -> (T, Timing) {
    let start = now()
    let startCPU = cpuTime()
    let result = try body()
    return (result, Timing(wall: now() - start, cpu: cpuTime() - startCPU))
}

/// Resident set size and its peak, in MiB, from /proc/self/status.
func memory() -> (rss: Double, peak: Double) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func field(_ name: String) -> Double {
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return digits / 1024
        }
        return 0
    }
    return (field("VmRSS:"), field("VmHWM:"))
}

func tempStore(_ name: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-bench-\(name)-\(getpid()).sqlite")
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    return url
}

/// Reads the store file at `url` through a connection of its own, as another process
/// would: the benchmarks check their results in SQL without reaching into ObjectGraph.
func readStoreFile<T>(_ url: URL, _ block: (Database) throws -> T) throws -> T {
    var config = Configuration()
    config.readonly = true
    let queue = try DatabaseQueue(path: url.path, configuration: config)
    defer { try? queue.close() }
    return try queue.read(block)
}

/// The file of a store opened at a URL.
func fileURL(of store: PersistentStore) -> URL {
    guard case .file(let url) = store.location else { preconditionFailure("the benchmarks use file stores") }
    return url
}

func removeStore(_ url: URL) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
}

func row(_ label: String, _ og: Timing, _ raw: Timing) {
    print(
        label.padding(toLength: 36, withPad: " ", startingAt: 0)
            + String(
                format: "%8.3f s %8.3f s %6.2fx   %8.3f s %8.3f s %6.2fx", og.wall, raw.wall, og.wall / max(raw.wall, 1e-9),
                og.cpu, raw.cpu, og.cpu / max(raw.cpu, 1e-9)))
}

/// One round of the ObjectGraph benchmark: each operation's timing for ObjectGraph and raw SQL.
struct BenchmarkRound {
    var rows: [(label: String, og: Timing, raw: Timing)] = []
    var memoryLine = ""
}

/// Runs `rounds` rounds (fresh stores each) and prints, per operation, the best time of
/// each side: a machine shared with other work slows single rounds at random, and the
/// best of several is the figure least disturbed by that.
func objectGraphBenchmark(count: Int, rounds: Int) throws {
    print("ObjectGraph beside hand-written SQL through GRDB, \(count) objects, file stores in WAL mode; best of \(rounds) rounds")
    var results: [BenchmarkRound] = []
    for _ in 0..<rounds { results.append(try objectGraphRound(count: count)) }
    print(
        "operation".padding(toLength: 36, withPad: " ", startingAt: 0)
            + "   wall: OG      raw   ratio       CPU: OG      raw   ratio")
    for (n, first) in results[0].rows.enumerated() {
        func best(_ pick: (BenchmarkRound) -> Timing) -> Timing {
            Timing(wall: results.map { pick($0).wall }.min() ?? 0, cpu: results.map { pick($0).cpu }.min() ?? 0)
        }
        row(first.label, best { $0.rows[n].og }, best { $0.rows[n].raw })
    }
    print(results[results.count - 1].memoryLine)
}

func objectGraphRound(count: Int) throws -> BenchmarkRound {
    var round = BenchmarkRound()
    let base = Date(timeIntervalSince1970: 1_700_000_000)

    // ObjectGraph
    let ogURL = tempStore("og")
    defer { removeStore(ogURL) }
    let container = try PersistentContainer(model: benchModel, store: .file(ogURL))
    // Like the raw SQL side, no user interface to keep up to date.
    container.automaticallyMergesChangesIntoViewContext = false
    let ctx = container.newBackgroundContext(name: "bench")
    var phases = (0.0, 0.0, 0.0, 0.0)
    let insertStart = cpuTime()
    let (_, ogInsert) = try measure {
        try ctx.performAndWait { () throws in
            let server = ctx.insert(BenchServer.self)
            server.title = "bench"
            for i in 0..<count {
                let item = ctx.insert(BenchItem.self)
                item.guid = "guid-\(i)"
                item.title = "Item number \(i)"
                item.published = base.addingTimeInterval(Double(i))
                item.read = i % 3 == 0
                item.score = Int64(i % 1000)
                item.server = server
            }
            let t1 = cpuTime()
            ctx.processPendingChanges()
            let t2 = cpuTime()
            try ctx.save()
            let t3 = cpuTime()
            ctx.reset()
            phases = (t1, t2, t3, cpuTime())
        }
    }
    if ProcessInfo.processInfo.environment["BENCH_PHASES"] != nil {
        print(
            String(
                format: "phases (CPU s): create %.3f, process changes %.3f, save %.3f, reset %.3f",
                phases.0 - insertStart, phases.1 - phases.0, phases.2 - phases.1, phases.3 - phases.2))
    }
    let predicate = try ObjectPredicate(format: "read == NO AND score >= 0")
    // Every row: the predicate holds for all of them.
    let allPredicate = try ObjectPredicate(format: "score >= 0 AND guid != NULL")
    let (ogFetched, ogFetch) = try measure { try fetchAndRead(ctx, predicate, phases: false) }
    let (ogFetchedAll, ogFetchAll) = try measure { try fetchAndRead(ctx, allPredicate, phases: true) }
    let (ogCounted, ogCount) = try measure {
        try ctx.performAndWait { try ctx.count(for: FetchRequest<BenchItem>(predicate: predicate)) }
    }

    // Raw SQL through GRDB, same schema and work.
    let rawURL = tempStore("raw")
    defer { removeStore(rawURL) }
    let pool = try DatabasePool(path: rawURL.path)
    try pool.write { db in
        for sql in SchemaGenerator.createStatements(for: benchModel) { try db.execute(sql: sql) }
    }
    let (_, rawInsert) = try measure {
        try pool.write { db in
            try db.execute(sql: "INSERT INTO Server (Z_PK, title, unreadCount) VALUES (1, 'bench', 0)")
            let statement = try db.makeStatement(
                sql: "INSERT INTO Item (Z_PK, Z_OPT, guid, title, published, read, score, server) VALUES (?, 1, ?, ?, ?, ?, ?, 1)"
            )
            var unread = 0
            for i in 0..<count {
                let read = i % 3 == 0
                if !read { unread += 1 }
                try statement.execute(arguments: [
                    i + 1, "guid-\(i)", "Item number \(i)", base.addingTimeInterval(Double(i)).timeIntervalSince1970,
                    read ? 1 : 0, i % 1000,
                ])
            }
            try db.execute(sql: "UPDATE Server SET unreadCount = ?", arguments: [unread])
        }
    }
    let rawWhere = "read = 0 AND score >= 0"
    let rawWhereAll = "score >= 0 AND guid IS NOT NULL"
    let (rawFetched, rawFetch) = try measure { try rawFetchAndRead(pool, where: rawWhere) }
    let (rawFetchedAll, rawFetchAll) = try measure { try rawFetchAndRead(pool, where: rawWhereAll) }
    if ProcessInfo.processInfo.environment["BENCH_PHASES"] != nil {
        let (stepped, stepOnly) = try measure {
            try pool.read { db -> Int in
                let statement = try db.makeStatement(sql: rawFetchSQL(where: rawWhereAll))
                var n = 0
                while sqlite3_step(statement.sqliteStatement) == SQLITE_ROW { n += 1 }
                return n
            }
        }
        print(String(format: "step only: %d rows %.3f s", stepped, stepOnly.cpu))
    }
    let (rawCounted, rawCount) = try measure {
        try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Item WHERE \(rawWhere)") ?? 0 }
    }
    precondition(
        ogFetched == rawFetched && ogFetchedAll == rawFetchedAll && ogFetchedAll == count && ogCounted == rawCounted,
        "results differ: \(ogFetched)/\(rawFetched) \(ogFetchedAll)/\(rawFetchedAll) \(ogCounted)/\(rawCounted)")
    round.rows = [
        ("insert + save \(count)", ogInsert, rawInsert),
        ("fetch \(ogFetched) (predicate, 2 sorts)", ogFetch, rawFetch),
        ("fetch \(ogFetchedAll) (predicate, 2 sorts)", ogFetchAll, rawFetchAll),
        ("count with predicate", ogCount, rawCount),
    ]

    // Memory while iterating a batched fetch, against materialising everything.
    let before = memory().rss
    let (peakBatched, _) = try measure {
        try ctx.performAndWait { () throws -> Double in
            let results = try ctx.fetchBatched(
                FetchRequest<BenchItem>(sortDescriptors: [ObjectSortDescriptor("published")], fetchBatchSize: 500))
            var peak = 0.0
            var sum: Int64 = 0
            for (i, item) in results.enumerated() {
                sum &+= item.score
                if i % 5000 == 0 { peak = max(peak, memory().rss) }
            }
            ctx.reset()
            return peak + Double(sum & 0)
        }
    }
    let (peakAll, _) = try measure {
        try ctx.performAndWait { () throws -> Double in
            let all = try ctx.fetch(FetchRequest<BenchItem>(sortDescriptors: [ObjectSortDescriptor("published")]))
            let peak = memory().rss
            _ = all.count
            ctx.reset()
            return peak
        }
    }
    round.memoryLine = String(
        format:
            "memory: RSS %.1f MiB before; iterating %d objects in batches of 500 peaks at %.1f MiB; fetching them all at once at %.1f MiB",
        before, count, peakBatched, peakAll)
    return round
}

/// Fetches the items matching `predicate` (newest first, then by guid), reads a field of
/// each, and forgets them: the ObjectGraph side of a fetch row. With `phases` and
/// BENCH_PHASES set, prints where the time went.
func fetchAndRead(_ ctx: ManagedObjectContext, _ predicate: ObjectPredicate, phases: Bool) throws -> Int {
    let request = FetchRequest<BenchItem>(
        predicate: predicate,
        sortDescriptors: [ObjectSortDescriptor("published", ascending: false), ObjectSortDescriptor("guid")])
    return try ctx.performAndWait { () throws -> Int in
        let t0 = cpuTime()
        var items = try ctx.fetch(request)
        let t1 = cpuTime()
        var checksum = 0
        for item in items { checksum &+= Int(item.score) }
        let t2 = cpuTime()
        ctx.reset()
        let t3 = cpuTime()
        let fetched = items.count
        items = []
        let t4 = cpuTime()
        if phases && ProcessInfo.processInfo.environment["BENCH_PHASES"] != nil {
            print(
                String(
                    format: "fetch-all phases: fetch %.3f iterate %.3f reset %.3f dealloc %.3f", t1 - t0, t2 - t1, t3 - t2,
                    t4 - t3))
        }
        return fetched + checksum * 0
    }
}

/// The raw SQL of a fetch row: the same columns and order as ObjectGraph's query.
func rawFetchSQL(where condition: String) -> String {
    "SELECT Z_PK, Z_OPT, guid, title, published, read, score, server FROM Item WHERE \(condition) ORDER BY published DESC, guid ASC, Z_PK ASC"
}

/// A fetched row as hand-written code would hold it.
struct RawItem {
    var pk: Int64
    var guid: String
    var title: String?
    var published: Date?
    var read: Bool
    var score: Int64
    var server: Int64?
}

/// The raw side of a fetch row: decodes the rows into structs and reads the same field.
func rawFetchAndRead(_ pool: DatabasePool, where condition: String) throws -> Int {
    try pool.read { db -> Int in
        var items: [RawItem] = []
        let rows = try Row.fetchCursor(db, sql: rawFetchSQL(where: condition))
        while let r = try rows.next() {
            items.append(
                RawItem(
                    pk: r[0], guid: r[2], title: r[3], published: (r[4] as Double?).map { Date(timeIntervalSince1970: $0) },
                    read: r[5], score: r[6], server: r[7]))
        }
        var checksum: Int64 = 0
        for item in items { checksum &+= item.score }
        return items.count + Int(checksum & 0)
    }
}

func toggleBenchmark() throws {
    print("Toggle one item's read flag (the Server's unreadCount follows through the bus, ObjectsDidChange posted)")
    for size in [100, 100_000] {
        let url = tempStore("toggle\(size)")
        defer { removeStore(url) }
        let container = try PersistentContainer(model: benchModel, store: .file(url))
        let ctx = container.viewContext
        let notifications = NotificationCounter()
        let token = container.bus.observeObjectsDidChange(in: ctx) { _ in
            notifications.increment()
        }
        try ctx.performAndWait { () throws in
            let server = ctx.insert(BenchServer.self)
            for i in 0..<size {
                let item = ctx.insert(BenchItem.self)
                item.guid = "g\(i)"
                item.server = server
            }
            try ctx.save()
        }
        let toggles = 2000
        let (items, server) = try ctx.performAndWait { () throws in
            (try ctx.fetch(FetchRequest<BenchItem>(fetchLimit: 50)), try ctx.fetch(FetchRequest<BenchServer>())[0])
        }
        let (_, elapsed) = measure {
            ctx.performAndWait {
                for i in 0..<toggles {
                    items[i % items.count].read.toggle()
                    ctx.processPendingChanges()
                }
            }
        }
        let (_, savedElapsed) = try measure {
            try ctx.performAndWait { () throws in
                for i in 0..<200 {
                    items[i % items.count].read.toggle()
                    try ctx.save()
                }
            }
        }
        let exact = try ctx.performAndWait { () throws -> Bool in
            server.unreadCount
                == Int64(try ctx.count(for: FetchRequest<BenchItem>(predicate: try ObjectPredicate(format: "read == NO"))))
        }
        print(
            String(
                format: "%7d items: %.4f ms per toggle (in memory, %d notifications); %.3f ms per toggle + save; count exact: %@",
                size, elapsed.wall / Double(toggles) * 1000, notifications.value, savedElapsed.wall / 200 * 1000,
                exact ? "yes" : "NO"))
        withExtendedLifetime(token) {}
    }
}

/// Counts ObjectsDidChange notifications (posted on the view context's queue).
final class NotificationCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "objectgraph":
    let rest = Array(arguments.dropFirst())
    try objectGraphBenchmark(
        count: rest.first.flatMap { Int($0) } ?? 100_000, rounds: rest.dropFirst().first.flatMap { Int($0) } ?? 5)
case "toggle":
    try toggleBenchmark()
case "batch":
    let rest = Array(arguments.dropFirst())
    try batchBenchmark(
        count: rest.first.flatMap { Int($0) } ?? 100_000, servers: rest.dropFirst().first.flatMap { Int($0) } ?? 500)
case "batch-insert":
    let rest = Array(arguments.dropFirst())
    try batchInsertBenchmark(
        count: rest.first.flatMap { Int($0) } ?? 100_000, rounds: rest.dropFirst().first.flatMap { Int($0) } ?? 3)
case "batch-build":
    let rest = Array(arguments.dropFirst())
    try buildBatchStore(path: rest[0], count: Int(rest[1])!, servers: Int(rest[2])!)
case "mark":
    let rest = Array(arguments.dropFirst())
    try readerMarkBenchmark(
        count: rest.first.flatMap { Int($0) } ?? 100_000, servers: rest.dropFirst().first.flatMap { Int($0) } ?? 500)
case "mark-build":
    let rest = Array(arguments.dropFirst())
    try buildReaderMarkStore(path: rest[0], count: Int(rest[1])!, servers: Int(rest[2])!)
case "fts":
    let rest = Array(arguments.dropFirst())
    try fullTextBenchmark(
        count: rest.first.flatMap { Int($0) } ?? 20_000, batch: rest.dropFirst().first.flatMap { Int($0) } ?? 50)
case "reader-memory":
    let rest = Array(arguments.dropFirst()).compactMap { Int($0) }
    try readerMemoryBenchmark(
        rounds: rest.first ?? 200, feeds: rest.dropFirst().first ?? 200, items: rest.dropFirst(2).first ?? 50)
case "views":
    let rest = Array(arguments.dropFirst()).compactMap { Int($0) }
    try readerViewsBenchmark(count: rest.first ?? 100_000, servers: rest.dropFirst().first ?? 500)
case "reader-start-build":
    let rest = Array(arguments.dropFirst())
    try buildReaderStartStore(path: rest[0], items: Int(rest[1])!, feeds: Int(rest[2])!)
case "reader-start":
    let rest = Array(arguments.dropFirst())
    try readerStartBenchmark(path: rest[0], rounds: rest.dropFirst().first.flatMap { Int($0) } ?? 9)
case "scale-build":
    var rest = Array(arguments.dropFirst())
    var feedURLBase: String?
    if let option = rest.firstIndex(of: "--feed-url"), option + 1 < rest.count {
        feedURLBase = rest[option + 1]
        rest.removeSubrange(option...(option + 1))
    }
    guard rest.count >= 2, let items = Int(rest[1]) else {
        print("usage: zeader-bench scale-build PATH ITEMS [FEEDS [v3]] [--feed-url BASE]")
        exit(2)
    }
    try buildScaleStore(
        path: rest[0], items: items, feeds: rest.dropFirst(2).first.flatMap { Int($0) } ?? 2_000,
        version3: rest.dropFirst(3).first == "v3", feedURLBase: feedURLBase)
case "first-screen":
    let rest = Array(arguments.dropFirst())
    guard let path = rest.first else {
        print("usage: zeader-bench first-screen PATH [ROUNDS]")
        exit(2)
    }
    try firstScreenBenchmark(path: path, rounds: rest.dropFirst().first.flatMap { Int($0) } ?? 5)
case "smart-counts":
    let rest = Array(arguments.dropFirst())
    guard let path = rest.first else {
        print("usage: zeader-bench smart-counts PATH [CHANGES]")
        exit(2)
    }
    try smartCountsBenchmark(path: path, changes: rest.dropFirst().first.flatMap { Int($0) } ?? 1_000)
case "fetched-results":
    let rest = Array(arguments.dropFirst()).compactMap { Int($0) }
    try fetchedResultsBenchmark(count: rest.first ?? 100_000, changes: rest.dropFirst().first ?? 1_000)
case "relationships":
    let rest = Array(arguments.dropFirst()).compactMap { Int($0) }
    try relationshipBenchmark(servers: rest.first ?? 100, itemsPerServer: rest.dropFirst().first ?? 1_000)
case "ordered-append":
    let rest = Array(arguments.dropFirst()).compactMap { Int($0) }
    try orderedAppendBenchmark(
        members: rest.first ?? 20_000, perSave: rest.dropFirst().first ?? 20_000, rounds: rest.dropFirst(2).first ?? 5)
case "observation":
    try observationCostBenchmark(count: Array(arguments.dropFirst()).compactMap { Int($0) }.first ?? 100_000)
case "refresh-index":
    let rest = Array(arguments.dropFirst())
    guard let folder = rest.first else {
        print("usage: zeader-bench refresh-index FOLDER [ROUNDS [BATCH [none|index|parse|saved|saved-index]]]")
        exit(2)
    }
    // BATCH: the store's fullTextBatchLimit (1: each save indexes its own rows; 0: the
    // default). The last argument runs one variant (or none: parsing only), so that a
    // counter such as `perf stat -e instructions:u` can tell them apart.
    // saved, saved-index: as none and index, with each feed stored before its items (as a
    // refresh finds its feeds), so the lookups of stored items by guid run.
    let mode = rest.dropFirst(3).first
    let variants: [Bool] =
        switch mode {
        case "none", "saved": [false]
        case "index", "saved-index": [true]
        case "parse": []
        default: [false, true]
        }
    try refreshIndexBenchmark(
        folder: folder, rounds: rest.dropFirst().first.flatMap { Int($0) } ?? 5,
        batch: rest.dropFirst(2).first.flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }, variants: variants,
        savedServers: mode == "saved" || mode == "saved-index")
case "history":
    let rest = Array(arguments.dropFirst())
    guard let folder = rest.first else {
        print("usage: zeader-bench history FOLDER [ROUNDS [PASSES]]")
        exit(2)
    }
    try historyBenchmark(
        folder: folder, rounds: rest.dropFirst().first.flatMap { Int($0) } ?? 3,
        passes: rest.dropFirst(2).first.flatMap { Int($0) } ?? 5)
case "parse":
    let rest = Array(arguments.dropFirst())
    guard let folder = rest.first else {
        print("usage: zeader-bench parse FOLDER [ROUNDS [DUMP]]")
        exit(2)
    }
    try parseBenchmark(folder: folder, rounds: rest.dropFirst().first.flatMap { Int($0) } ?? 3, dumpPath: rest.dropFirst(2).first)
case "extract":
    let rest = Array(arguments.dropFirst())
    guard let folder = rest.first else {
        print("usage: zeader-bench extract FOLDER [ROUNDS]")
        exit(2)
    }
    try extractBenchmark(folder: folder, rounds: rest.dropFirst().first.flatMap { Int($0) } ?? 9)
case "typed-query":
    let rest = Array(arguments.dropFirst()).compactMap { Int($0) }
    try typedQueryBenchmark(
        count: rest.first ?? 20_000, queries: rest.dropFirst().first ?? 500, rounds: rest.dropFirst(2).first ?? 5)
case "import":
    try runImportBenchmark(count: arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000_000)
default:
    print(
        "usage: zeader-bench objectgraph [N [ROUNDS]] | toggle | import [N] | batch [N [SERVERS]] | mark [N [FEEDS]] | fts [N [PER_SAVE]] | reader-memory [ROUNDS [FEEDS [ITEMS]]] | views [N [FEEDS]] | reader-start-build PATH ITEMS FEEDS | reader-start PATH [ROUNDS] | scale-build PATH N [FEEDS [v3]] | first-screen PATH [ROUNDS] | fetched-results [N [CHANGES]] | refresh-index FOLDER [ROUNDS [BATCH [none|index|parse|saved|saved-index]]] | relationships [SERVERS [ITEMS]] | history FOLDER [ROUNDS [PASSES]] | ordered-append [N [PER_SAVE [ROUNDS]]] | observation [N] | parse FOLDER [ROUNDS [DUMP]] | extract FOLDER [ROUNDS] | typed-query [N [QUERIES [ROUNDS]]]"
    )
    exit(2)
}
