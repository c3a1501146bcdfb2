import Foundation
import GRDB
import LoopbackHTTPServer
import Testing

/// Where a subscription may come from, end to end: an OPML file, a JSON backup or a sync
/// server gives data only. Each command feed here would `touch` a marker file; the markers
/// must never appear unless the user allowed the import. Only the command line is used, so
/// the same tests run against any build of `zeader`.
@Suite("trust boundaries of imports and sync, end to end", .serialized)
struct TrustBoundaryCLITests {
    /// The command feeds an attacker writes into an OPML file, each touching its own marker
    /// in `dir`, with the outline's name.
    static func commandOutlines(_ dir: URL) -> [(name: String, attributes: String)] {
        let m = { (n: Int) in dir.appendingPathComponent("ran-\(n)").path }
        let hostname = dir.appendingPathComponent("source.xml").absoluteString
        return [
            ("Plain", "xmlUrl=\"exec:touch \(m(1))\""),
            ("Upper", "xmlUrl=\"EXEC:touch \(m(2))\""),
            ("Spaced", "xmlUrl=\"   exec:touch \(m(3))\""),
            ("Newline", "xmlUrl=\"&#10;&#9;Exec:touch \(m(4))\""),
            ("Filter", "xmlUrl=\"Filter:touch \(m(5)):\(hostname)\""),
            ("UrlAttribute", "type=\"rss\" url=\"exec:touch \(m(6))\""),
            ("Passwd", "xmlUrl=\"file:///etc/passwd\""),
            ("PasswdUpper", "xmlUrl=\"FILE:///etc/passwd\""),
            ("PasswdMixed", "xmlUrl=\"fIlE://localhost/etc/passwd\""),
        ]
    }

    static func markers(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasPrefix("ran-") }.sorted()
    }

    static func listedURLs(_ db: String, in dir: URL) throws -> [String] {
        let r = try zeader(["list", "--json", "--db", db], in: dir)
        let rows = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        return rows.compactMap { $0["url"] as? String }
    }

    @Test("an OPML import lists each command and file feed on stderr, skips it, exits 0; refresh runs nothing")
    func opmlCommandsAreSkipped() async throws {
        let routes = Routes()
        routes["/a"] = .ok(rss(title: "A", guids: ["a1"]))
        try await withLoopbackServer(routes.handler) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            try rss(title: "S", guids: ["s1"]).write(
                to: dir.appendingPathComponent("source.xml"), atomically: true, encoding: .utf8)
            let db = dir.appendingPathComponent("z.sqlite").path
            let outlines = Self.commandOutlines(dir)
            var opml = "<?xml version=\"1.0\"?><opml version=\"2.0\"><body>"
            opml += "<outline text=\"Good\" xmlUrl=\"\(http.url("/a").absoluteString)\"/>"
            for (name, attributes) in outlines { opml += "<outline text=\"\(name)\" \(attributes)/>\n" }
            opml += "</body></opml>"
            let file = dir.appendingPathComponent("shared.opml")
            try opml.write(to: file, atomically: true, encoding: .utf8)

            var r = try zeader(["import", file.path, "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(
                r.stdout
                    == "imported 1 feed from \(file.path); \(outlines.count) skipped (commands: rerun with --allow-commands to subscribe)\n"
            )
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == outlines.count, "\(r.stderr)")
            for (name, _) in outlines {
                #expect(
                    lines.contains { $0.contains("outline \"\(name)\"") && $0.contains("--allow-commands") },
                    "\(name): \(r.stderr)")
            }
            #expect(lines.filter { $0.contains("would run") }.count == 6, "\(r.stderr)")
            #expect(lines.filter { $0.contains("would read the file /etc/passwd") }.count == 3, "\(r.stderr)")
            #expect(try Self.listedURLs(db, in: dir) == [http.url("/a").absoluteString])

            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(Self.markers(dir).isEmpty)

            // Allowed by the user: subscribed, and they run.
            r = try zeader(["import", "--allow-commands", file.path, "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            // `file:` and `FILE:` are one feed (the scheme is stored in lower case).
            #expect(r.stdout.hasPrefix("imported \(outlines.count - 1) feeds"), "\(r.stdout)")
            #expect(try Self.listedURLs(db, in: dir).count == outlines.count)
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(Self.markers(dir) == (1...6).map { "ran-\($0)" }, "exit \(r.status): \(r.stdout)\(r.stderr)")
        }
    }

    @Test("an OPML import refuses every other URL that is not http(s), one line each, and exits 1")
    func opmlOtherSchemesAreRefused() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite").path
        let refused = [
            ("Js", "javascript:alert(1)"), ("Data", "data:text/xml,&lt;rss/&gt;"), ("Ftp", "ftp://ftp.example/feed"),
            ("Gopher", "gopher://g.example/1/feed"), ("Relative", "feeds/all.xml"), ("Rooted", "/feed.xml"),
            ("SchemeRelative", "//h.example/feed"), ("Encoded", "exec%3Atouch%20\(dir.path)/ran-9"),
            ("NoHost", "http:exec:touch"),
        ]
        var opml = "<opml version=\"2.0\"><body><outline text=\"Good\" xmlUrl=\"https://good.example/feed\"/>"
        for (name, url) in refused { opml += "<outline text=\"\(name)\" xmlUrl=\"\(url)\"/>\n" }
        // A character XML forbids, as a reference: the parser drops it, and the command is skipped.
        opml += "<outline text=\"Control\" xmlUrl=\"&#1;exec:touch \(dir.path)/ran-10\"/>\n"
        opml += "</body></opml>"
        let file = dir.appendingPathComponent("shared.opml")
        try opml.write(to: file, atomically: true, encoding: .utf8)
        let r = try zeader(["import", "--db", db, file.path], in: dir)
        #expect(r.status == 1, "\(r.stdout)")
        #expect(
            r.stdout
                == "imported 1 feed from \(file.path); 1 skipped (commands: rerun with --allow-commands to subscribe); \(refused.count) not imported\n"
        )
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == refused.count + 1, "\(r.stderr)")
        #expect(lines.contains { $0.contains("skipped outline \"Control\"") }, "\(r.stderr)")
        for (name, _) in refused { #expect(lines.contains { $0.contains("\"\(name)\"") }, "\(name): \(r.stderr)") }
        #expect(try Self.listedURLs(db, in: dir) == ["https://good.example/feed"])
    }

    @Test("a JSON backup's command and file feeds are listed and skipped with their items; other schemes refused")
    func backupCommandsAreSkipped() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite").path
        let m1 = dir.appendingPathComponent("ran-1").path
        let m2 = dir.appendingPathComponent("ran-2").path
        let backup = """
            {"format":"zeader-backup","version":2,"feeds":[
            {"url":"https://a.example/feed","title":"A","origin":"typed"},
            {"url":"exec:touch \(m1)","title":"Evil"},
            {"url":"\\n\\t EXEC:touch \(m2)","title":"Evil2"},
            {"url":"FILE:///etc/passwd","title":"Passwd"},
            {"url":"javascript:alert(1)","title":"Js"}],
            "items":[{"feed":"https://a.example/feed","guid":"a1","title":"A1"},
            {"feed":"exec:touch \(m1)","guid":"e1","title":"E1"},
            {"feed":"\\n\\t EXEC:touch \(m2)","guid":"e2","title":"E2"},
            {"feed":"FILE:///etc/passwd","guid":"p1","title":"P1"},
            {"feed":"javascript:alert(1)","guid":"j1","title":"J1"}]}
            """
        let file = dir.appendingPathComponent("backup.json")
        try backup.write(to: file, atomically: true, encoding: .utf8)
        var r = try zeader(["import", file.path, "--db", db], in: dir)
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        #expect(
            r.stdout
                == "restored 1 feed and 1 item from \(file.path); 3 skipped (commands: rerun with --allow-commands to subscribe); 1 not imported (with 4 items)\n"
        )
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 4, "\(r.stderr)")
        for name in ["Evil", "Evil2", "Passwd", "Js"] {
            #expect(lines.contains { $0.contains("feed \"\(name)\"") }, "\(name): \(r.stderr)")
        }
        #expect(try Self.listedURLs(db, in: dir) == ["https://a.example/feed"])
        r = try zeader(["items", "--json", "--db", db], in: dir)
        #expect(r.stdout.contains("\"A1\"") && !r.stdout.contains("\"E1\"") && !r.stdout.contains("\"P1\""), "\(r.stdout)")
        _ = try zeader(["refresh", "--db", db], in: dir)
        #expect(Self.markers(dir).isEmpty)
    }

    @Test("a sync server's exec:, filter:, file: and other non-http feeds are never stored; after sync remove nothing runs")
    func syncServerPlantsNothing() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let m = { (n: Int) in dir.appendingPathComponent("ran-\(n)").path }
        let source = dir.appendingPathComponent("source.xml")
        try rss(title: "S", guids: ["s1"]).write(to: source, atomically: true, encoding: .utf8)
        let planted = [
            "exec:touch \(m(1))", "EXEC:touch \(m(2))", " exec:touch \(m(3))", "filter:touch \(m(4)):\(source.absoluteString)",
            "file://\(source.path)", "FILE:///etc/passwd", "javascript:alert(1)", "http:///nohost", "feed.xml",
            "\u{1}exec:touch \(m(5))",
        ]
        try await withLoopbackServer(
            { request in
                if request.path.contains("ClientLogin") { return .ok("SID=s\nAuth=token\n", contentType: "text/plain") }
                if request.path.contains("subscription/list") {
                    return .ok(Self.subscriptionList(planted), contentType: "application/json")
                }
                if request.path.contains("stream/items/ids") { return .ok("{\"itemRefs\":[]}", contentType: "application/json") }
                if request.path.contains("stream/items/contents") {
                    return .ok("{\"items\":[]}", contentType: "application/json")
                }
                return .ok("OK", contentType: "text/plain")
            }
        ) { http in
            let db = dir.appendingPathComponent("z.sqlite").path
            let api = http.url("/api/greader.php").absoluteString
            var r = try zeader(
                ["sync", "add", api, "--user", "u", "--db", db], in: dir, environment: ["ZEADER_SYNC_PASSWORD": "pw"])
            #expect(r.status == 0, "\(r.stderr)")
            r = try zeader(["sync", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            let warnings = r.stderr.split(separator: "\n")
            #expect(warnings.count == planted.count, "\(r.stderr)")
            #expect(warnings.allSatisfy { $0.contains("not an http or https feed: not stored") }, "\(r.stderr)")
            #expect(try Self.listedURLs(db, in: dir).isEmpty)
            r = try zeader(["sync", "remove", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(Self.markers(dir).isEmpty, "\(r.stdout)")
        }
    }

    @Test("a newsboat cache.db without its urls file is data: its command feed is listed and skipped with its items")
    func newsboatCacheCommandsAreSkipped() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache.db")
        let fixture = try #require(Bundle.module.url(forResource: "Fixtures/newsboat-cache", withExtension: "db"))
        try FileManager.default.copyItem(at: fixture, to: cache)
        let planted = "EXEC:touch \(dir.appendingPathComponent("ran-1").path)"
        let queue = try DatabaseQueue(path: cache.path)
        let (feeds, items) = try await queue.write { db in
            let first = try #require(try String.fetchOne(db, sql: "SELECT rssurl FROM rss_feed ORDER BY rssurl LIMIT 1"))
            try db.execute(sql: "UPDATE rss_feed SET rssurl = ? WHERE rssurl = ?", arguments: [planted, first])
            try db.execute(sql: "UPDATE rss_item SET feedurl = ? WHERE feedurl = ?", arguments: [planted, first])
            return (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM rss_feed") ?? 0,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM rss_item WHERE feedurl = ?", arguments: [planted]) ?? 0
            )
        }
        try queue.close()
        #expect(feeds > 1 && items > 0)
        let db = dir.appendingPathComponent("z.sqlite").path
        var r = try zeader(["import", cache.path, "--db", db], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasSuffix("; 1 skipped (commands: rerun with --allow-commands to subscribe)\n"), "\(r.stdout)")
        #expect(r.stdout.contains("\(items) of feeds not imported"), "\(r.stdout)")
        #expect(r.stderr.contains("would run the command \"\(planted)\""), "\(r.stderr)")
        let urls = try Self.listedURLs(db, in: dir)
        #expect(urls.count == feeds - 1 && !urls.contains { $0.lowercased().hasPrefix("exec:") }, "\(urls)")
        r = try zeader(["refresh", "--db", db], in: dir)
        #expect(Self.markers(dir).isEmpty)

        // An OPML file given as its urls file is data all the same.
        let opml = dir.appendingPathComponent("urls.opml")
        try "<opml version=\"2.0\"><body><outline text=\"P\" xmlUrl=\"\(planted)\"/></body></opml>"
            .write(to: opml, atomically: true, encoding: .utf8)
        let db2 = dir.appendingPathComponent("z2.sqlite").path
        r = try zeader(["import", cache.path, "--urls", opml.path, "--db", db2], in: dir)
        #expect(r.stderr.contains("skipped feed \"P\""), "\(r.stderr)")
        #expect(try Self.listedURLs(db2, in: dir).isEmpty)
    }

    /// A `subscription/list` answer listing `planted` as feeds 1, 2, …
    static func subscriptionList(_ planted: [String]) -> String {
        let entries = planted.enumerated().map { index, url in
            let data = try! JSONSerialization.data(withJSONObject: [
                "id": "feed/\(index + 1)", "title": "Planted \(index)", "url": url,
            ])
            return String(decoding: data, as: UTF8.self)
        }
        return "{\"subscriptions\":[" + entries.joined(separator: ",") + "]}"
    }
}
