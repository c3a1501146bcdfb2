// The parse of a refresh on its own (issue 18): every feed file of a folder is read into memory,
// then parsed `rounds` times on this thread as a refresh parses a fetched body (with the feed's
// URL, so relative links are resolved). Prints the CPU per round, per item and per MB. With a
// dump path, writes every field of every parsed feed there (once), so that two builds can be
// compared byte for byte (`cmp`).
import Feeds
import Foundation

func parseBenchmark(folder: String, rounds: Int, dumpPath: String?) throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
        $0.hasSuffix(".xml") || $0.hasSuffix(".json") || $0.hasSuffix(".rss") || $0.hasSuffix(".atom")
    }.sorted()
    let inputs = try names.map { name in
        (
            url: URL(string: "https://bench.example/feeds/\(name)")!,
            data: try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name))
        )
    }
    let bytes = inputs.reduce(0) { $0 + $1.data.count }
    var items = 0
    var failures = 0
    var best = Double.infinity
    var total = 0.0
    for round in 0..<max(rounds, 1) {
        let (feeds, timing) = measure {
            inputs.map { input in Result { () throws(FeedParseError) in try FeedParser.parse(data: input.data, url: input.url) } }
        }
        best = min(best, timing.cpu)
        total += timing.cpu
        if round == 0 {
            items = feeds.reduce(0) { $0 + ((try? $1.get().items.count) ?? 0) }
            failures = feeds.filter { (try? $0.get()) == nil }.count
            if let dumpPath {
                var dump = ""
                for (input, result) in zip(inputs, feeds) { dump += parseDump(input.url, result) }
                try Data(dump.utf8).write(to: URL(fileURLWithPath: dumpPath))
            }
        }
    }
    print(
        String(
            format:
                "%d files (%.1f MB, %d items, %d not feeds) of %@: %d rounds, CPU best %.3f s, mean %.3f s; %.2f µs per item, %.1f MB/s",
            inputs.count, Double(bytes) / 1e6, items, failures, folder, max(rounds, 1), best, total / Double(max(rounds, 1)),
            best / Double(max(items, 1)) * 1e6, Double(bytes) / 1e6 / best))
}

/// Every field of a parse, one per line, strings in Swift's debug spelling (escapes shown).
private func parseDump(_ url: URL, _ result: Result<ParsedFeed, FeedParseError>) -> String {
    func text(_ value: String?) -> String { value.map { String(reflecting: $0) } ?? "nil" }
    func date(_ value: Date?) -> String { value.map { String($0.timeIntervalSince1970) } ?? "nil" }
    var out = "== \(url.lastPathComponent)\n"
    switch result {
    case .failure(let error):
        out += "error \(String(reflecting: String(describing: error)))\n"
    case .success(let feed):
        out += "format \(feed.format.rawValue)\ntitle \(text(feed.title))\nlink \(text(feed.link))\n"
        out += "warnings \(feed.warnings.map { text($0) })\nproblems \(feed.problems.map { text($0) })\n"
        for item in feed.items {
            out += "- id \(text(item.id))\n  title \(text(item.title))\n  link \(text(item.link))\n"
            out += "  author \(text(item.author))\n  published \(date(item.published))\n  updated \(date(item.updated))\n"
            out += "  summary \(text(item.summary))\n  content \(text(item.content))\n"
            for enclosure in item.enclosures {
                out +=
                    "  enclosure \(text(enclosure.url)) \(text(enclosure.type)) \(enclosure.length.map(String.init) ?? "nil")\n"
            }
            out += "  categories \(item.categories.map { text($0) })\n"
        }
    }
    return out
}
