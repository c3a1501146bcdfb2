import Foundation
import GRDB
import Testing

@testable import ZeaderKit

/// Structure-aware fuzzing of the newsboat cache reader (`zeader import cache.db`): caches
/// built with newsboat's schema or a looser one — untyped columns holding text, blobs, NULLs
/// and huge numbers where newsboat keeps integers, ids that are not row ids, missing tables
/// and columns, guids listed again, damaged files — imported into a store that already holds
/// feeds and items. An import either succeeds or throws one error naming the file; it never
/// crashes, never loses what the store held, and leaves a store whose `items --json` and
/// `export --json` are valid JSON with every date in ``DateBounds``.
///
/// The seed is fixed so a failure can be replayed; set `ZEADER_FUZZ_ITERATIONS` (and
/// `ZEADER_FUZZ_SEED`) to run longer by hand.
@Suite("Fuzzing the newsboat cache reader")
struct NewsboatCacheFuzzTests {
    struct Generator {
        var rng: SplitMix64

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
        mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }
        mutating func pick<T>(_ values: [T]) -> T { values[int(0...values.count - 1)] }

        static let feedURLs: [DatabaseValue] =
            [
                "http://held.example/feed", "https://a.example/feed", "http://b.example/rss", "exec:echo hi",
                "query:Unread:unread = \"yes\"", "", "file:///etc/passwd", "http://c.example/\u{1B}[2J",
            ].map { ($0 as String).databaseValue } + [.null, 42.databaseValue]

        static let guids: [DatabaseValue] =
            ["g0", "g1", "g2", "g3", "", "https://b.example/1Mon, 01 Jan 2024", "g\u{0}x", String(repeating: "y", count: 5000)]
            .map { ($0 as String).databaseValue } + [.null, 7.databaseValue, Data([0xFF, 0x00]).databaseValue]

        /// Values newsboat would keep as integers, of every kind SQLite can hold.
        static let integerish: [DatabaseValue] = {
            let integers: [Int64] = [0, 1, 2, -1, 1_700_000_000, .max, .min, 100_000_000_000_000_000]
            let reals: [Double] = [9.3e18, -9.3e18, .greatestFiniteMagnitude, .infinity, -.infinity, 1.5]
            let texts: [String] = ["1", "yes", "1700000000", ""]
            var values: [DatabaseValue] = integers.map(\.databaseValue)
            values += reals.map(\.databaseValue)
            values += texts.map(\.databaseValue)
            return values + [Data([1, 2]).databaseValue, .null]
        }()

        mutating func integerish() -> DatabaseValue { pick(Self.integerish) }

        mutating func text() -> DatabaseValue {
            pick(
                [
                    "plain", "", "<p>html &amp; <script>x</script></p>", "\u{1B}]52;c;aGk=\u{07}", "日本語",
                    String(repeating: "<b>long</b> ", count: 3000), "\u{202E}rtl",
                ].map { ($0 as String).databaseValue } + [.null, 3.databaseValue, Data([0xC3]).databaseValue])
        }

        /// The two tables, in one of the shapes a cache may have.
        mutating func schema() -> String {
            let columns =
                "guid, title, author, url, feedurl, pubDate, content, unread, enclosure_url, enclosure_type, flags, deleted"
            switch int(0...19) {
            case 0..<11: return NewsboatCacheBuilder.schema
            case 11..<17:
                // No types: every value is kept as given.
                return "CREATE TABLE rss_feed (rssurl, url, title); CREATE TABLE rss_item (id INTEGER PRIMARY KEY, \(columns));"
            case 17: return "CREATE TABLE rss_feed (rssurl, url, title); CREATE TABLE rss_item (id, \(columns));"
            case 18:
                // An older newsboat: no flags, deleted or enclosure columns.
                return
                    "CREATE TABLE rss_feed (rssurl, url, title); CREATE TABLE rss_item (id INTEGER PRIMARY KEY, guid, title, author, url, feedurl, pubDate, content, unread);"
            default:
                return pick([
                    "CREATE TABLE rss_feed (rssurl, url, title);",
                    "CREATE TABLE rss_item (id INTEGER PRIMARY KEY, \(columns));",
                    "CREATE TABLE rss_feed (rssurl, url, title); CREATE TABLE rss_item (id INTEGER PRIMARY KEY, guid, title);",
                    "CREATE TABLE rss_feed (rssurl, url, title); CREATE TABLE t (\(columns)); CREATE VIEW rss_item AS SELECT rowid AS id, * FROM t;",
                    "CREATE TABLE other (x);",
                ])
            }
        }

        /// One hostile cache file at `url`.
        mutating func cache(at url: URL) throws {
            let schema = self.schema()
            try NewsboatCacheBuilder.make(at: url, schema: schema) { db in
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                if tables.contains("rss_feed") {
                    for _ in 0..<int(0...5) {
                        try db.execute(
                            sql: "INSERT OR IGNORE INTO rss_feed (rssurl, url, title) VALUES (?, ?, ?)",
                            arguments: [pick(Self.feedURLs), text(), text()])
                    }
                }
                let table = tables.contains("rss_item") ? "rss_item" : tables.contains("t") ? "t" : nil
                guard let table else { return }
                let columns = try db.columns(in: table).map(\.name)
                var id: Int64 = 0
                var rows: [[DatabaseValue]] = []
                for _ in 0..<int(0...300) {
                    var row: [DatabaseValue] = []
                    for column in columns {
                        switch column {
                        case "id":
                            id += chance(90) ? 1 : Int64(int(2...1_000_000))
                            row.append(chance(97) ? id.databaseValue : pick([Int64.max, Int64.min, -5]).databaseValue)
                        case "guid": row.append(pick(Self.guids))
                        case "feedurl": row.append(pick(Self.feedURLs))
                        case "pubDate", "unread", "deleted": row.append(integerish())
                        case "enclosure_url":
                            row.append(
                                pick(["https://cdn.example/a.mp3", "exec:x", "", "ftp://x/y"].map(\.databaseValue) + [.null]))
                        case "flags":
                            row.append(pick(["Is", "", "\u{7}!", "ZZZZ"].map(\.databaseValue) + [.null, 5.databaseValue]))
                        default: row.append(text())
                        }
                    }
                    rows.append(row)
                }
                // A guid again, far from the first (more than a batch apart in a long cache).
                if let first = rows.first, chance(40), let idColumn = columns.firstIndex(of: "id") {
                    var again = first
                    id += 5_000
                    again[idColumn] = id.databaseValue
                    rows.append(again)
                }
                let marks = columns.map { _ in "?" }.joined(separator: ", ")
                for row in rows {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(marks))",
                        arguments: StatementArguments(row))
                }
            }
            // A damaged file now and then: truncated, or bytes flipped past the header.
            switch int(0...19) {
            case 0:
                let data = try Data(contentsOf: url)
                try data.prefix(int(0...data.count)).write(to: url)
            case 1:
                var bytes = [UInt8](try Data(contentsOf: url))
                for _ in 0..<int(1...20) where bytes.count > 100 { bytes[int(100...bytes.count - 1)] = UInt8(int(0...255)) }
                try Data(bytes).write(to: url)
            default: break
            }
        }
    }

    @Test(.timeLimit(.minutes(60))) func hostileCachesNeverCrashOrLose() throws {
        let environment = ProcessInfo.processInfo.environment
        let iterations = environment["ZEADER_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 120
        var generator = Generator(rng: SplitMix64(state: environment["ZEADER_FUZZ_SEED"].flatMap(UInt64.init) ?? 0xCAC4E))
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var imported = 0
        var refused = 0
        for iteration in 0..<iterations {
            let library = try BackupFuzzTests.heldStore()
            let held = try BackupFuzzTests.held(library)
            let feeds = Set(try library.servers().map(\.url))
            let cache = directory.appendingPathComponent("cache-\(iteration).db")
            try generator.cache(at: cache)
            let context = "iteration \(iteration) (seed \(environment["ZEADER_FUZZ_SEED"] ?? "default"))"
            do {
                _ = try library.importNewsboatCache(from: cache, batchSize: generator.pick([1, 1_000, 2_000]))
                imported += 1
            } catch {
                refused += 1
                #expect(error.description.hasPrefix(cache.path + ": "), "\(error) — \(context)")
            }
            try BackupFuzzTests.checkStore(library, held: held, feeds: feeds, context: context)
            try? FileManager.default.removeItem(at: cache)
        }
        #expect(imported > iterations / 2 && refused > 0, "imported \(imported), refused \(refused)")
        print("newsboat cache fuzz: \(iterations) caches, \(imported) imported, \(refused) refused with one error")
    }
}
