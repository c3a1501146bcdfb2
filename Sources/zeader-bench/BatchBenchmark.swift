// zeader-bench batch: marking every unread item read with one BatchUpdateRequest (the
// reader's `C`), then undoing and redoing it, in the view context of a reader-like stack
// (undo manager on, servers registered, the first screen of items loaded).
import Feeds
import Foundation
import GRDB
import ObjectGraph

/// Resets the process's peak RSS (VmHWM) so that each step reports its own peak.
func resetPeakMemory() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

func batchBenchmark(count: Int, servers: Int) throws {
    let url = tempStore("batch")
    defer { removeStore(url) }
    // The store is built by another process, so that this one's memory is a reader's.
    let built = try Subprocess.run([CommandLine.arguments[0], "batch-build", url.path, String(count), String(servers)])
    guard built.termination == .exited(0) else { throw CocoaError(.fileWriteUnknown) }
    let container = try PersistentContainer(model: benchModel, store: .file(url))
    let view = container.viewContext
    let unreadBefore = try view.performAndWait { () throws -> Int in
        view.undoManager = ContextUndoManager()
        let feeds = try view.fetch(FetchRequest<BenchServer>())
        _ = try view.fetch(
            FetchRequest<BenchItem>(sortDescriptors: [ObjectSortDescriptor("published", ascending: false)], fetchLimit: 50))
        return feeds.reduce(0) { $0 + Int($1.unreadCount) }
    }
    print("Batch update in the view context: \(count) items over \(servers) servers, \(unreadBefore) unread; undo manager on")

    func step(_ label: String, _ body: () throws -> Int) rethrows {
        let base = memory().rss
        resetPeakMemory()
        let (changed, timing) = try measure(body)
        let peak = memory().peak
        let exact = (try? countsAreExact(container)) ?? false
        print(
            String(
                format: "%@ %6d items  %7.3f s wall  %7.3f s CPU  peak RSS %6.1f MiB (%.1f MiB before)  unread counts exact: %@",
                label.padding(toLength: 22, withPad: " ", startingAt: 0), changed, timing.wall, timing.cpu, peak, base,
                exact ? "yes" : "NO"))
    }
    try step("mark all read") {
        try view.performAndWait { () throws in
            try view.execute(
                BatchUpdateRequest(
                    entityName: "Item", predicate: try ObjectPredicate(format: "read == NO"),
                    propertiesToUpdate: ["read": .bool(true)])
            ).changedCount
        }
    }
    try step("undo") {
        view.performAndWait {
            _ = view.undo()
            if let error = view.undoManager?.lastError { print("undo failed: \(error)") }
        }
        return try view.performAndWait {
            try view.count(for: FetchRequest<BenchItem>(predicate: try ObjectPredicate(format: "read == NO")))
        }
    }
    try step("redo") {
        view.performAndWait { _ = view.redo() }
        return unreadBefore
            - (try view.performAndWait {
                try view.count(for: FetchRequest<BenchItem>(predicate: try ObjectPredicate(format: "read == NO")))
            })
    }
}

/// Builds the store of ``batchBenchmark(count:servers:)`` at `path` (run in a child process).
func buildBatchStore(path: String, count: Int, servers: Int) throws {
    let container = try PersistentContainer(model: benchModel, store: .file(URL(fileURLWithPath: path)))
    container.automaticallyMergesChangesIntoViewContext = false
    let ctx = container.newBackgroundContext(name: "build")
    try ctx.performAndWait { () throws in
        var feeds: [BenchServer] = []
        for s in 0..<servers {
            let server = ctx.insert(BenchServer.self)
            server.title = "server \(s)"
            feeds.append(server)
        }
        for i in 0..<count {
            let item = ctx.insert(BenchItem.self)
            item.guid = "guid-\(i)"
            item.title = "Item number \(i)"
            item.published = Date(timeIntervalSince1970: 1_700_000_000 + Double(i))
            item.read = i % 3 == 2
            item.server = feeds[i % servers]
        }
        try ctx.save()
    }
    try container.store.close()
}

/// Whether every server's stored and registered unreadCount equals its unread items.
func countsAreExact(_ container: PersistentContainer) throws -> Bool {
    let stored = try readStoreFile(fileURL(of: container.store)) { db in
        try Bool.fetchOne(
            db,
            sql:
                "SELECT COUNT(*) = 0 FROM Server s WHERE s.unreadCount != (SELECT COUNT(*) FROM Item i WHERE i.server = s.Z_PK AND i.read = 0)"
        )
    }
    let view = container.viewContext
    let registered = try view.performAndWait { () throws -> Bool in
        let total = try view.fetch(FetchRequest<BenchServer>()).reduce(Int64(0)) { $0 + $1.unreadCount }
        return total == Int64(try view.count(for: FetchRequest<BenchItem>(predicate: try ObjectPredicate(format: "read == NO"))))
    }
    return stored == true && registered
}
