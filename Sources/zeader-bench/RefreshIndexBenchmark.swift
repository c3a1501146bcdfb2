// The search index's share of a refresh (issue 18): the feeds of a folder are parsed once,
// then stored as a refresh stores them (one save per feed, ``ItemImport/upsert``, in a bulk write) into a
// store whose model has no search index and into one with it, `rounds` times over (each
// round under new feed URLs, so every item is new; with `savedServers` each feed is stored
// before its items, as a refresh finds it, so the lookups by guid run). Prints the CPU of parsing, of storing
// with and without the index, and the index's share of storing and of parsing + storing.
import Feeds
import Foundation
import GRDB
import ObjectGraph
import ZeaderKit

func refreshIndexBenchmark(
    folder: String, rounds: Int, batch: Int? = nil, variants: [Bool] = [false, true], savedServers: Bool = false
) throws {
    let (feeds, parse) = try parsedFeeds(in: folder)
    let items = feeds.reduce(0) { $0 + $1.items.count } * rounds
    print(
        "\(feeds.count) feeds of \(folder), \(items) items stored (\(rounds) rounds); parsing once: \(String(format: "%.3f", parse.cpu)) s CPU"
    )
    var results: [String: Double] = [:]
    for indexed in variants {
        let url = tempStore(indexed ? "refresh-index" : "refresh-noindex")
        defer { removeStore(url) }
        // Without the index: the same model less its full-text index (no table, no triggers).
        let container = try PersistentContainer(
            model: indexed ? ZeaderModel.current : ZeaderModel.currentWithoutSearchIndex, store: .file(url))
        if let batch { container.store.fullTextBatchLimit = batch }
        let storing = try storeLikeARefresh(feeds, rounds: rounds, into: container, savedServers: savedServers)
        let indexRows = try readStoreFile(url) { db in
            try db.tableExists("ZSEARCH_docsize") ? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZSEARCH_docsize") ?? 0 : 0
        }
        print(
            String(
                format: "%@: storing %.3f s CPU (%.1f µs per item), index rows %d", indexed ? "with the index" : "no index",
                storing.cpu, storing.cpu / Double(max(items, 1)) * 1e6, indexRows))
        results[indexed ? "index" : "none"] = storing.cpu
    }
    let none = results["none"] ?? 0
    let index = results["index"] ?? 0
    let parsing = parse.cpu * Double(rounds)
    print(
        String(
            format: "the index costs storing +%.0f%%, parsing + storing +%.0f%%", (index / max(none, 1e-9) - 1) * 100,
            ((parsing + index) / max(parsing + none, 1e-9) - 1) * 100))
}

/// The feeds in `folder` (`.xml`, `.json`, `.rss`, `.atom` files), parsed, and what parsing took.
func parsedFeeds(in folder: String) throws -> (feeds: [ParsedFeed], parse: Timing) {
    let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
        $0.hasSuffix(".xml") || $0.hasSuffix(".json") || $0.hasSuffix(".rss") || $0.hasSuffix(".atom")
    }.sorted()
    let datas = try files.map { try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent($0)) }
    return measure { datas.compactMap { try? FeedParser.parse(data: $0) } }
}

/// Stores `feeds` `rounds` times over into `container` as a refresh stores them
/// (FeedRefresher): one save per feed through ``ItemImport/upsert``, in a bulk write whose end
/// (which indexes the rows its saves left waiting) is measured too. Each round uses new feed
/// URLs, so every item is new; with `savedServers` each feed is saved before its items, as a
/// refresh finds it, so the lookups by guid run.
func storeLikeARefresh(_ feeds: [ParsedFeed], rounds: Int, into container: PersistentContainer, savedServers: Bool = false)
    throws -> Timing
{
    let context = container.newBackgroundContext(name: "bench")
    return try measure {
        try container.store.withBulkWrites {
            try context.performAndWait { () throws in
                for round in 0..<rounds {
                    for (n, feed) in feeds.enumerated() {
                        let server = context.insert(Server.self)
                        server.url = "https://round\(round).example/feed\(n)"
                        if savedServers { try context.save() }
                        _ = try ItemImport.upsert(feed.items, into: server, in: context, now: Date())
                        try context.save()
                        context.reset()
                    }
                }
            }
        }
    }.1
}
