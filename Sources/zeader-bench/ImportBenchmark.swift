// `zeader-bench import [N]`: restore a backup of N feed items (default 1,000,000) through
// ObjectGraph's safe import and BatchImporter, into a file store; reports time, throughput
// and peak memory (VmHWM). Goal: 1,000,000 items under 200 MB.
import Foundation
import GRDB
import ObjectGraph

/// The benchmark's reader model; version 2 adds `flagged` (indexed, default NO) to items.
private func importBenchModel(version: Int) -> ManagedObjectModel {
    var itemAttributes: [AttributeDescription] = [
        .string("guid", optional: false), .string("title"), .string("link"), .string("author"),
        .date("published", indexed: true), .bool("read", defaultValue: false),
    ]
    if version >= 2 { itemAttributes.append(.bool("flagged", defaultValue: false, indexed: true)) }
    return try! ManagedObjectModel(
        name: "ImportBench", version: version,
        entities: [
            EntityDescription(
                "Server",
                attributes: [
                    .string("url", optional: false), .string("title"),
                    .derivedCount("unreadCount", of: "feedItems", where: "read == NO"),
                ],
                relationships: [.toMany("feedItems", destination: "FeedItem", inverse: "server", deleteRule: .cascade)],
                uniquenessConstraints: [["url"]]),
            EntityDescription(
                "FeedItem", attributes: itemAttributes,
                relationships: [.toOne("server", destination: "Server", inverse: "feedItems")],
                uniquenessConstraints: [["guid"]]),
        ])
}

/// One backup record, as `zeader export --json` would write it (strings for dates, as JSON has).
private func backupRecord(_ i: Int) -> [String: ImportValue] {
    let seconds = 1_600_000_000 + i * 60
    let date = Date(timeIntervalSince1970: Double(seconds))
    return [
        "guid": .string("urn:item:\(i)"), "title": .string("Item number \(i) of the benchmark backup"),
        "link": .string("https://example.org/feed\(i % 100)/item/\(i)"), "author": .string("Author \(i % 37)"),
        "published": .string(iso8601UTC(date)), "read": .bool(i % 3 != 0), "server": .integer(Int64(i % 100)),
        "unknownKey": .string("ignored"),
    ]
}

private func iso8601UTC(_ date: Date) -> String {
    var t = time_t(date.timeIntervalSince1970)
    var parts = tm()
    gmtime_r(&t, &parts)
    return String(
        format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour,
        parts.tm_min, parts.tm_sec)
}

/// Peak resident set size (VmHWM) in MiB, from /proc/self/status.
private func peakMemoryMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return (line.split(separator: " ").compactMap { Double($0) }.first ?? 0) / 1024
    }
    return 0
}

/// Imports `count` backup records in batches of `batchSize`, then migrates the store to
/// version 2 (inferred, and again with a custom policy); prints one line for each.
///
/// ```swift
/// try runImportBenchmark(count: 1_000_000)
/// ```
func runImportBenchmark(count: Int = 1_000_000, batchSize: Int = 5_000) throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-bench-import-\(getpid()).sqlite")
    let paths = ["", "-wal", "-shm", ".v1.bak"].map { url.path + $0 }
    for p in paths { try? FileManager.default.removeItem(atPath: p) }
    defer { for p in paths { try? FileManager.default.removeItem(atPath: p) } }

    let v1 = importBenchModel(version: 1)
    let container = try PersistentContainer(model: v1, store: .file(url))
    // The servers first; items refer to them by position in the backup.
    let setup = container.newBackgroundContext(name: "setup")
    let serverIDs: [ObjectID] = try setup.performAndWait {
        var servers: [ManagedObject] = []
        for s in 0..<100 {
            let server = try setup.insertObject(entityName: "Server")
            try server.importValues(from: ["url": .string("https://example.org/feed\(s)"), "title": .string("Feed \(s)")])
            servers.append(server)
        }
        try setup.save()
        return servers.map(\.objectID)
    }

    let start = DispatchTime.now().uptimeNanoseconds
    var cpu = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)
    let startCPU = Double(cpu.tv_sec) + Double(cpu.tv_nsec) / 1e9
    let importer = BatchImporter(container: container, name: "bench", batchSize: batchSize)
    let result = try importer.run((0..<count).lazy.map(backupRecord)) { record, context in
        let item = try context.insertObject(entityName: "FeedItem")
        try item.importValues(from: record)
        if case .integer(let s)? = record["server"] {
            try item.setObject(context.object(with: serverIDs[Int(s)]), forKey: "server")
        }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)
    let cpuSeconds = Double(cpu.tv_sec) + Double(cpu.tv_nsec) / 1e9 - startCPU

    // Check the result: every record once, and the derived counts right.
    let stored = try container.viewContext.performAndWait {
        try container.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "FeedItem"))
    }
    let unread = try readStoreFile(fileURL(of: container.store)) { db in
        try Int.fetchOne(db, sql: "SELECT SUM(unreadCount) FROM Server")
    }
    let fileMiB = Double((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0) / 1_048_576
    print(
        String(
            format:
                "import: %d records in %.1f s (%.0f records/s, CPU %.1f s), %d batches of %d; stored %d, unread %d; peak memory (VmHWM) %.0f MB; store %.0f MB",
            result.importedNow, seconds, Double(result.importedNow) / seconds, cpuSeconds, result.batches, batchSize, stored,
            unread ?? -1, peakMemoryMiB(), fileMiB))
    guard stored == count, unread == (0..<count).filter({ $0 % 3 == 0 }).count else {
        print("import: MISMATCH — expected \(count) items and \((0..<count).filter { $0 % 3 == 0 }.count) unread")
        exit(1)
    }
    try container.store.close()

    // Upgrade the store: v1 → v2, first inferred (INSERT … SELECT), then with a custom
    // policy (row by row) on a fresh copy of the v1 store.
    let v2 = importBenchModel(version: 2)
    let v1Copy = url.path + ".v1.copy"
    try? FileManager.default.removeItem(atPath: v1Copy)
    do {
        // Through SQLite's backup API: the closed store may still have part of its data in
        // its WAL, which copying the file alone would lose.
        var readOnly = Configuration()
        readOnly.readonly = true
        let source = try DatabaseQueue(path: url.path, configuration: readOnly)
        let copy = try DatabaseQueue(path: v1Copy)
        try source.backup(to: copy)
        try copy.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
        try copy.close()
        try source.close()
    }
    defer { try? FileManager.default.removeItem(atPath: v1Copy) }
    let inferred = try MigrationPlan(versions: [v1, v2], backupRetention: .remove)
    let flagFirstItems = EntityMigrationPolicy(entity: "FeedItem", toVersion: 2) { row in
        if row.primaryKey % 10 == 0 { row["flagged"] = true }
    }
    let custom = try MigrationPlan(versions: [v1, v2], policies: [flagFirstItems], backupRetention: .remove)
    for (label, plan) in [("inferred", inferred), ("custom policy", custom)] {
        if label == "custom policy" {
            // Replace the store, with its WAL and shared memory (a stale WAL would be
            // replayed onto the copy).
            for p in paths { try? FileManager.default.removeItem(atPath: p) }
            try FileManager.default.copyItem(atPath: v1Copy, toPath: url.path)
        }
        let migrationStart = DispatchTime.now().uptimeNanoseconds
        let migrated = try PersistentContainer(model: v2, store: .file(url), migrator: plan)
        let migrationSeconds = Double(DispatchTime.now().uptimeNanoseconds - migrationStart) / 1e9
        let (items, flagged, tenths) = try readStoreFile(fileURL(of: migrated.store)) { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM FeedItem") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM FeedItem WHERE flagged = 1") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM FeedItem WHERE Z_PK % 10 = 0") ?? -1
            )
        }
        print(
            String(
                format: "migrate v1→v2 (%@): %d items in %.1f s, %d flagged; peak memory (VmHWM) %.0f MB", label, items,
                migrationSeconds, flagged, peakMemoryMiB()))
        guard items == stored, flagged == (label == "inferred" ? 0 : tenths) else {
            print("migrate: MISMATCH — expected \(stored) items and \(label == "inferred" ? 0 : tenths) flagged")
            exit(1)
        }
        try migrated.store.close()
    }
}
