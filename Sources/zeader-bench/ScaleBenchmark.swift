// zeader-bench scale-build / first-screen: the pieces of scripts/bench-scale.sh (issue 18).
//
//   zeader-bench scale-build PATH ITEMS [FEEDS]   a Zeader store of ITEMS items over FEEDS (2,000)
//                                                 feeds, generated directly (no fetch)
//       … --feed-url BASE                         feed N (from 1) at BASE + "feed-NNNN.xml", as
//                                                 the bench harness's feedgen.py names them (a
//                                                 store to refresh against its server), instead
//                                                 of https://feedN-1.example.org/rss.xml
//   zeader-bench first-screen PATH [ROUNDS]       the reader's start on that store: open, the
//                                                 feed list (ReaderApp.start on a backend that
//                                                 draws nowhere), the first frame
//
// The store is made by ZeaderStore (schema, full-text index and its triggers as the program
// makes them), then filled in transactions of 20,000 rows by prepared INSERTs through a
// connection of its own, the triggers indexing every item as a refresh would; the feeds'
// derived counts are set at the end. The corpus is deterministic: titles of 5-11 words,
// summaries of ~40 words, HTML content of ~2-3 KB, words drawn from a skewed vocabulary
// (some common, most rare), 70% of the items read, 2% flagged, a fifth of the feeds tagged
// `linux` and a third `news`, two stored smart feeds (`flagged == YES`,
// `read == NO AND flagged == YES`).
import Foundation
import GRDB
import ObjectGraph
import ZeaderConfig
import ZeaderKit
import ZeaderTUI

/// A small deterministic generator (SplitMix64): the same corpus on every run.
struct CorpusRandom {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// The corpus' vocabulary: a few real words (`linux` and `kernel` are the benchmark's search
/// words) and many made-up ones, drawn skewed towards the start of the list.
struct CorpusWords {
    let words: [String]

    init() {
        let common = [
            "the", "and", "linux", "release", "kernel", "swift", "terminal", "reader", "network", "security",
            "update", "server", "open", "source", "project", "version", "support", "new", "data", "system",
        ]
        let syllables = ["ka", "lo", "mi", "ren", "sta", "vo", "ti", "par", "nu", "bel", "cor", "dex", "fi", "gra", "hu", "jel"]
        var made: [String] = []
        for a in syllables {
            for b in syllables {
                for c in syllables where made.count < 3_000 { made.append(a + b + c) }
            }
        }
        words = common + made
    }

    /// One word, skewed: the square of a uniform pick favours the first (common) words.
    func word(_ random: inout CorpusRandom) -> String {
        let u = Double(random.below(1 << 20)) / Double(1 << 20)
        return words[min(words.count - 1, Int(u * u * u * Double(words.count)))]
    }

    func sentence(_ count: Int, _ random: inout CorpusRandom) -> String {
        var s = ""
        for i in 0..<count {
            if i > 0 { s += " " }
            s += word(&random)
        }
        return s
    }
}

/// Feed `index`'s (from 0) URL in a scale store: under `base` as feedgen.py names its feeds, else
/// a made-up host.
func scaleFeedURL(_ index: Int, base: String?) -> String {
    guard let base else { return "https://feed\(index).example.org/rss.xml" }
    let number = String(index + 1)
    return base + "feed-" + String(repeating: "0", count: max(0, 4 - number.count)) + number + ".xml"
}

func buildScaleStore(path: String, items: Int, feeds: Int, version3: Bool = false, feedURLBase: String? = nil) throws {
    let url = URL(fileURLWithPath: path)
    removeStore(url)
    // The schema, the index and its triggers, as the program makes them (or as model
    // version 3 made them, content in the item's row: a store to time the migration on).
    if version3 {
        try PersistentContainer(model: ZeaderModel.version3, store: .file(url)).store.close()
    } else {
        let store = try ZeaderStore.open(at: url)
        try store.container.store.close()
    }

    let queue = try DatabaseQueue(path: path)
    defer { try? queue.close() }
    try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: "PRAGMA synchronous = NORMAL")
    }
    let words = CorpusWords()
    var random = CorpusRandom(state: 18)
    try queue.write { db in
        let insert = try db.makeStatement(
            sql:
                "INSERT INTO Server (Z_PK, title, url, siteLink, displayOrder, tags, unreadCount, totalCount) VALUES (?, ?, ?, ?, ?, ?, 0, 0)"
        )
        for s in 0..<feeds {
            var tags: [String] = []
            if s % 5 == 0 { tags.append("linux") }
            if s % 3 == 0 { tags.append("news") }
            try insert.execute(arguments: [
                s + 1, "Feed \(s): \(words.sentence(3, &random))", scaleFeedURL(s, base: feedURLBase),
                "https://feed\(s).example.org/", s, tags.isEmpty ? nil : tags.joined(separator: ","),
            ])
        }
        let smart = try db.makeStatement(
            sql: "INSERT INTO SmartFeed (title, predicateFormat, displayOrder) VALUES (?, ?, ?)")
        try smart.execute(arguments: ["Flagged", "flagged == YES", 0])
        try smart.execute(arguments: ["Flagged unread", "read == NO AND flagged == YES", 1])
    }
    let start = 1_700_000_000.0
    let span = 5 * 365 * 86_400.0  // five years of history, oldest first
    let batch = 20_000
    var i = 0
    while i < items {
        let end = min(items, i + batch)
        try queue.write { db in
            let insert = try db.makeStatement(
                sql: version3
                    ? """
                    INSERT INTO FeedItem (guid, title, link, author, summary, content, published, updated, read, firstSeen, \
                    sortDate, flagged, server, Z_PK) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)
                    """
                    : """
                    INSERT INTO FeedItem (guid, title, link, author, summary, body, published, updated, read, firstSeen, \
                    sortDate, flagged, server, Z_PK) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)
                    """)
            // Model version 4 keeps the content in its own row, keyed here like its item.
            let body = version3 ? nil : try db.makeStatement(sql: "INSERT INTO FeedItemBody (Z_PK, content) VALUES (?, ?)")
            for n in i..<end {
                let feed = random.below(feeds)
                // Mostly in order of arrival, with some jitter, as feeds interleave.
                let date = start + span * Double(n) / Double(max(items, 1)) + Double(random.below(7_200))
                let title = words.sentence(5 + random.below(7), &random)
                let summary = words.sentence(30 + random.below(20), &random)
                var content = "<div class=\"entry\">"
                for p in 0..<(4 + random.below(5)) {
                    content += "<p>\(words.sentence(40 + random.below(30), &random))"
                    if p % 2 == 0 {
                        content += " <a href=\"https://feed\(feed).example.org/\(n)/\(p)\">\(words.word(&random))</a>"
                    }
                    content += "</p>\n"
                }
                content += "</div>"
                try body?.execute(arguments: [n + 1, content])
                try insert.execute(arguments: [
                    "https://feed\(feed).example.org/\(n)", title, "https://feed\(feed).example.org/\(n)",
                    random.below(4) == 0 ? nil : "Author \(random.below(500))", summary,
                    version3 ? content.databaseValue : (n + 1).databaseValue, date,
                    random.below(10) < 7, date, date, random.below(50) == 0, feed + 1, n + 1,
                ])
            }
        }
        i = end
    }
    try queue.write { db in
        try db.execute(
            sql: """
                UPDATE Server SET totalCount = (SELECT COUNT(*) FROM FeedItem WHERE FeedItem.server = Server.Z_PK), \
                unreadCount = (SELECT COUNT(*) FROM FeedItem WHERE FeedItem.server = Server.Z_PK AND FeedItem.read = 0)
                """)
        // The keys handed out next follow the generated ones.
        for entity in version3 ? ["FeedItem"] : ["FeedItem", "FeedItemBody"] {
            try db.execute(
                sql: "INSERT OR REPLACE INTO Z_PRIMARYKEY (Z_ENTITY, Z_MAX) VALUES (?, ?)", arguments: [entity, items])
        }
    }
    try queue.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
}

/// Opens the store at `path` and starts the reader on it (``ReaderApp/start()``: the feed list
/// with its counts, the first frame), `rounds` times; prints the median and the best, in seconds.
func firstScreenBenchmark(path: String, rounds: Int) throws {
    var times: [Double] = []
    var feeds = 0
    for _ in 0..<max(1, rounds) {
        let start = now()
        let store = try ZeaderStore.open(at: URL(fileURLWithPath: path))
        let queue = store.container.viewContext.queue
        let backend = NullBackend()
        let app = queue.sync {
            ReaderApp(model: ReaderModel(store: store), backend: backend, config: ReaderConfig(), queue: queue)
        }
        queue.sync { app.start() }
        times.append(now() - start)
        feeds = queue.sync { app.state.feedCount }
        queue.sync { app.stop() }
        try store.container.store.close()
    }
    times.sort()
    print(String(format: "first-screen %.4f %.4f %d", times[times.count / 2], times[0], feeds))
}
