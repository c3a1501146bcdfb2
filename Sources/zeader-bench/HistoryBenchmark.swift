// What persistent history costs a refresh: the feeds of a folder are parsed once, then
// stored as a refresh stores them (one save per feed through ``ItemImport/upsert`` in a bulk
// write) into a store without history and one recording it, in alternating passes.
// Prints the CPU of storing each way, history's share of storing and of parsing + storing,
// and the bytes its tables take per item; then the CPU of the folder sync run a refresh adds.
import Feeds
import Foundation
import GRDB
import ObjectGraph
import ZeaderKit

func historyBenchmark(folder: String, rounds: Int, passes: Int) throws {
    let (feeds, parse) = try parsedFeeds(in: folder)
    let items = feeds.reduce(0) { $0 + $1.items.count } * rounds
    print(
        "\(feeds.count) feeds of \(folder), \(items) items stored per pass; parsing once: \(String(format: "%.3f", parse.cpu)) s CPU"
    )
    var cpu: [Bool: [Double]] = [false: [], true: []]
    var historyBytes = 0
    for _ in 0..<passes {
        for recording in [false, true] {
            let url = tempStore(recording ? "history-on" : "history-off")
            defer { removeStore(url) }
            let container = try PersistentContainer(
                model: ZeaderModel.current, store: .file(url),
                history: recording ? PersistentHistoryTracking(tombstones: ["FeedItem": ["guid"]]) : nil)
            let storing = try storeLikeARefresh(feeds, rounds: rounds, into: container)
            cpu[recording]?.append(storing.cpu)
            // The two stores differ only by the history's tables: the difference of their sizes.
            _ = container.store.checkpoint(truncate: true)
            let bytes = try readStoreFile(url) { db in
                try (Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0) * (Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
            }
            historyBytes += recording ? bytes : -bytes
        }
    }
    let folderRun = try folderSyncRunCost(feeds, rounds: rounds, passes: passes)
    let off = cpu[false]!.sorted()[cpu[false]!.count / 2]
    let on = cpu[true]!.sorted()[cpu[true]!.count / 2]
    let parsing = parse.cpu * Double(rounds)
    print(String(format: "storing without history: %.3f s CPU, with: %.3f s CPU (medians of %d)", off, on, passes))
    print(
        String(
            format: "history costs storing +%.1f%%, parsing + storing +%.1f%%; its tables take about %.0f bytes per item",
            (on / max(off, 1e-9) - 1) * 100, ((parsing + on) / max(parsing + off, 1e-9) - 1) * 100,
            Double(historyBytes) / Double(max(items * passes, 1))))
    print(
        String(
            format:
                "with folder sync on, the run after storing (the history read as entries, the folder read, the state saved): %.3f s CPU (median of %d), +%.1f%% of storing with history",
            folderRun, passes, folderRun / max(on, 1e-9) * 100))
}

/// The CPU of the folder sync run `zeader refresh` makes after storing: it reads a history that
/// holds every item stored (none marked, so none sent) and the feeds added (sent).
func folderSyncRunCost(_ feeds: [ParsedFeed], rounds: Int, passes: Int) throws -> Double {
    var runs: [Double] = []
    for _ in 0..<passes {
        let url = tempStore("folder-sync")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-bench-folder-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            removeStore(url)
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(atPath: url.path + ".folder-sync")
        }
        let store = try ZeaderStore.open(at: url)
        let sync = FolderSyncEngine(store: store)
        try sync.add(folder: folder.path)
        _ = try storeLikeARefresh(feeds, rounds: rounds, into: store.container)
        let (_, timing) = try measure { try sync.run() }
        runs.append(timing.cpu)
    }
    return runs.sorted()[runs.count / 2]
}
