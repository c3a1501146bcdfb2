import Foundation
import GRDB
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

/// newsboat is installed here (`newsboat -x reload` builds a real cache in the live test).
let newsboatPath: String? = ["/usr/bin/newsboat", "/usr/local/bin/newsboat"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// The feeds of `Fixtures/newsboat/` (a.xml, b.xml, c.xml), served as newsboat fetched
/// them when `Fixtures/newsboat-cache.db` was made.
func newsboatFixtureRoutes() throws -> Routes {
    let routes = Routes()
    for name in ["a", "b", "c"] {
        let file = try #require(Bundle.module.url(forResource: "Fixtures/newsboat/\(name)", withExtension: "xml"))
        routes["/\(name).xml"] = .ok(try String(contentsOf: file, encoding: .utf8))
    }
    return routes
}

/// The urls file newsboat used: tags, a `~` title, and a query feed (a smart feed in Zeader).
func newsboatURLs(port: String) -> String {
    """
    \(port)/a.xml news "~Custom A"
    \(port)/b.xml
    \(port)/c.xml tech
    "query:Unread:unread = \\"yes\\""

    """
}

@Suite("zeader import cache.db (newsboat)", .serialized)
struct NewsboatImportTests {
    @Test(
        "a cache made by newsboat -x reload: feeds, tags, read, flags, deleted; twice = once; refresh adds nothing back",
        .enabled(if: newsboatPath != nil, "newsboat is not installed: NewsboatImportTests/fixtureCache covers the import"))
    func liveNewsboatCache() async throws {
        let routes = try newsboatFixtureRoutes()
        try await withLoopbackServer(routes.handler) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let base = http.url("").absoluteString
            let urls = dir.appendingPathComponent("urls")
            try newsboatURLs(port: base).write(to: urls, atomically: true, encoding: .utf8)
            let config = dir.appendingPathComponent("newsboat-config")
            try Data().write(to: config)
            let cache = dir.appendingPathComponent("cache.db")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(newsboatPath))
            process.arguments = ["-u", urls.path, "-c", cache.path, "-C", config.path, "-x", "reload"]
            process.environment = ["HOME": dir.path, "PATH": "/usr/bin:/bin", "TERM": "dumb"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            // What a newsboat user does: read a-1, flag a-2 ("I" and "s"), delete a-3.
            let queue = try DatabaseQueue(path: cache.path)
            try await queue.write { db in
                try db.execute(sql: "UPDATE rss_item SET unread = 0 WHERE guid = 'a-1'")
                try db.execute(sql: "UPDATE rss_item SET flags = 'Is' WHERE guid = 'a-2'")
                try db.execute(sql: "UPDATE rss_item SET deleted = 1 WHERE guid = 'a-3'")
            }
            try queue.close()
            try await checkImport(cache: cache, urls: urls, base: base, in: dir)
        }
    }

    @Test("the committed cache newsboat 2.21 made (Fixtures/newsboat-cache.db): the same import")
    func fixtureCache() async throws {
        let routes = try newsboatFixtureRoutes()
        try await withLoopbackServer(routes.handler) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let base = http.url("").absoluteString
            let cache = try await newsboatFixtureCache("newsboat-cache", in: dir, base: base)
            let urls = dir.appendingPathComponent("urls")
            try newsboatURLs(port: base).write(to: urls, atomically: true, encoding: .utf8)
            try await checkImport(cache: cache, urls: urls, base: base, in: dir)
        }
    }

    /// The import's outcome, the same for a live and a committed cache.
    func checkImport(cache: URL, urls: URL, base: String, in dir: URL) async throws {
        let db = dir.appendingPathComponent("z.sqlite").path
        var r = try zeader(["import", cache.path, "--db", db], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout
                == "imported 3 feeds and 5 items from \(cache.path) (1 smart feed from query feeds, 1 deleted in newsboat kept hidden)\n"
        )
        #expect(r.stderr.contains("feeds and tags from \(urls.path)"))  // found beside the cache
        #expect(!r.stderr.contains("query feed"))  // the query feed is a smart feed, nothing to note
        #expect(!r.stderr.contains("enclosure"))

        r = try zeader(["list", "--db", db], in: dir)
        #expect(
            r.stdout == """
                1/2  Custom A  <\(base)/a.xml>  [news]
                2/2  Feed B  <\(base)/b.xml>
                1/1  Feed C  <\(base)/c.xml>  [tech]

                """)
        let before = try itemsJSON(db, in: dir)
        #expect(before.count == 5)
        let a = before.filter { ($0["feed"] as? String) == "\(base)/a.xml" }
        #expect(Set(a.compactMap { $0["id"] as? String }) == ["a-1", "a-2"])  // a-3 was deleted
        #expect(a.first { $0["id"] as? String == "a-1" }?["read"] as? Bool == true)
        #expect(a.first { $0["id"] as? String == "a-2" }?["flagged"] as? Bool == true)
        #expect(a.first { $0["id"] as? String == "a-1" }?["author"] as? String == "Ann")
        // newsboat's enclosure becomes the item's (podcasts).
        let enclosure = a.first { $0["id"] as? String == "a-2" }?["enclosure"] as? [String: Any]
        #expect((enclosure?["url"] as? String)?.hasSuffix("/a/2.mp3") == true && enclosure?["type"] as? String == "audio/mpeg")
        r = try zeader(["items", "--db", db, "--where", "flagLetters CONTAINS \"s\""], in: dir)
        #expect(r.stdout.contains("A two") && r.stdout.split(separator: "\n").count == 1)
        r = try zeader(["items", "--db", db, "--search", "bold words"], in: dir)  // summary made from the HTML
        #expect(r.stdout.contains("A one"))

        // Twice = once.
        r = try zeader(["import", cache.path, "--urls", urls.path, "--db", db], in: dir)
        #expect(r.status == 0)
        #expect(r.stdout == "imported 0 feeds and 0 items from \(cache.path) (3 feeds already subscribed, 6 already stored)\n")
        #expect(try itemsJSON(db, in: dir).count == 5)

        // A refresh stores nothing again: not the deleted a-3, not B's guid-less items.
        r = try zeader(["refresh", "--db", db], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("0 new items"), "\(r.stdout)")
        let after = try itemsJSON(db, in: dir)
        #expect(after.count == 5)
        #expect(after.first { $0["id"] as? String == "a-1" }?["read"] as? Bool == true)
        #expect(!after.contains { $0["id"] as? String == "a-3" })
    }

    @Test("not a newsboat cache, not a database, a missing urls file: one clear line each")
    func badInput() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite").path
        let other = dir.appendingPathComponent("other.db")
        let queue = try DatabaseQueue(path: other.path)
        try await queue.write { db in try db.execute(sql: "CREATE TABLE t (x)") }
        try queue.close()
        var r = try zeader(["import", other.path, "--db", db], in: dir)
        #expect(r.status == 2)  // a file of another kind: the user's argument
        #expect(
            r.stderr
                == "zeader import: \(other.path): an SQLite database, but not a newsboat cache (no rss_feed and rss_item tables)\n"
        )
        let broken = dir.appendingPathComponent("broken.db")
        try (Data("SQLite format 3\u{0}".utf8) + Data(repeating: 0x41, count: 4000)).write(to: broken)
        r = try zeader(["import", broken.path, "--db", db], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("zeader import: \(broken.path): "))
        #expect(r.stderr.split(separator: "\n").count == 1)
        let fixture = try #require(Bundle.module.url(forResource: "Fixtures/newsboat-cache", withExtension: "db"))
        r = try zeader(["import", fixture.path, "--urls", dir.appendingPathComponent("nope").path, "--db", db], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr == "zeader import: cannot read the urls file \(dir.appendingPathComponent("nope").path)\n")
        let opml = dir.appendingPathComponent("feeds.opml")
        try Data("<opml version=\"2.0\"><body/></opml>".utf8).write(to: opml)
        r = try zeader(["import", opml.path, "--urls", "x", "--db", db], in: dir)
        #expect(r.status == 2)
    }

    @Test("killed after its first saved batch, the import resumes there and ends with each item once")
    func killedAndResumed() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache.db")
        let fixture = try #require(Bundle.module.url(forResource: "Fixtures/newsboat-cache", withExtension: "db"))
        try FileManager.default.copyItem(at: fixture, to: cache)
        let queue = try DatabaseQueue(path: cache.path)
        try await queue.write { db in
            try db.execute(sql: "DELETE FROM rss_item")
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000)
                    INSERT INTO rss_item (guid, title, author, url, feedurl, pubDate, content, unread, deleted)
                    SELECT 'g' || i, 'Item ' || i, '', '', 'http://127.0.0.1:8765/a.xml', 1700000000 + i,
                      '<p>' || hex(randomblob(300)) || '</p>', i % 2, CASE WHEN i % 1000 = 0 THEN 1 ELSE 0 END FROM n
                    """)
        }
        try queue.close()
        let db = dir.appendingPathComponent("z.sqlite")
        let binary = try #require(zeaderBinary)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["import", cache.path, "--db", db.path]
        process.environment = ["HOME": dir.path, "XDG_CONFIG_HOME": dir.appendingPathComponent("nothing").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Freeze it before each look at its resume marker, so that what is seen is where it
        // stands when killed: a saved batch that is not the last.
        var killedMidway = false
        while process.isRunning {
            kill(process.processIdentifier, SIGSTOP)
            if let marker = try await importMarker(in: db), !marker.hasPrefix("finished") {
                kill(process.processIdentifier, SIGKILL)
                killedMidway = true
                break
            }
            kill(process.processIdentifier, SIGCONT)
            try await Task.sleep(for: .milliseconds(20))
        }
        process.waitUntilExit()
        try #require(killedMidway, "the import finished before a batch could be seen: nothing to resume")
        let r = try zeader(["import", cache.path, "--db", db.path], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("resumed after "), "\(r.stdout)")
        let list = try zeader(["list", "--json", "--db", db.path], in: dir)
        let feeds = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(feeds.first { ($0["url"] as? String)?.hasSuffix("/a.xml") == true }?["total"] as? Int == 11_988)
        #expect(feeds.first { ($0["url"] as? String)?.hasSuffix("/a.xml") == true }?["unread"] as? Int == 6_000)
    }

    /// The newsboat import's resume marker in the store at `db`, nil before its first save.
    private func importMarker(in db: URL) async throws -> String? {
        guard FileManager.default.fileExists(atPath: db.path) else { return nil }
        var configuration = Configuration()
        configuration.readonly = true
        guard let reader = try? DatabaseQueue(path: db.path, configuration: configuration) else { return nil }
        defer { try? reader.close() }
        return try? await reader.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM Z_METADATA WHERE key LIKE 'objectgraph.import.zeader.newsboat:%'")
        }
    }

    @Test("a guid listed again batches later (kept, then deleted, or deleted twice): the first import stores each once")
    func guidRepeatedBatchesApart() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache.db")
        let feed = "http://127.0.0.1:1/a.xml"
        try NewsboatCacheBuilder.make(at: cache) { db in
            try NewsboatCacheBuilder.feed(feed, in: db)
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5001)
                    INSERT INTO rss_item (id, guid, title, author, url, feedurl, pubDate, content, unread, deleted)
                    SELECT i, CASE i WHEN 4001 THEN 'g1' WHEN 4500 THEN 'g2' WHEN 4600 THEN 'g3' ELSE 'g' || i END,
                      'Item ' || i, '', '', ?, 1700000000 + i, '<p>x</p>', 1, CASE WHEN i IN (3, 4500, 4600) THEN 1 ELSE 0 END
                    FROM n
                    """,
                arguments: [feed])
        }
        let library = FeedLibrary(store: try makeStore())
        let report = try library.importNewsboatCache(from: cache)
        #expect(report.items.added == 4_997)  // g1 once, g2 stored then deleted
        #expect(report.items.deleted == 2)
        #expect(report.resumedAfterItems == 0)
        let servers = try library.servers()
        #expect(servers.map(\.total) == [4_996])
        let guids = Set(try library.items(ItemQuery()).map(\.id))
        #expect(guids.count == 4_996 && guids.contains("g1") && !guids.contains("g2") && !guids.contains("g3"))
        // Run again: nothing new, nothing lost.
        let again = try library.importNewsboatCache(from: cache)
        #expect(again.items.added == 0)
        #expect(try library.servers().map(\.total) == [4_996])
    }

    func itemsJSON(_ db: String, in dir: URL) throws -> [[String: Any]] {
        let r = try zeader(["items", "--db", db, "--json"], in: dir)
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
    }
}

/// A copy in `dir` of the committed cache `Fixtures/NAME.db` that newsboat made against
/// 127.0.0.1:8765, its feeds pointed at `base` (this test's server).
func newsboatFixtureCache(_ name: String, in dir: URL, base: String) async throws -> URL {
    let cache = dir.appendingPathComponent("cache.db")
    let fixture = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "db"))
    try FileManager.default.copyItem(at: fixture, to: cache)
    let queue = try DatabaseQueue(path: cache.path)
    try await queue.write { db in
        let old = "http://127.0.0.1:8765"
        try db.execute(sql: "UPDATE rss_feed SET rssurl = replace(rssurl, ?, ?)", arguments: [old, base])
        try db.execute(sql: "UPDATE rss_item SET feedurl = replace(feedurl, ?, ?)", arguments: [old, base])
    }
    try queue.close()
    return cache
}
