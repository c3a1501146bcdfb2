import Feeds
import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// ``FeedTrust``: one rule for where a subscription may come from, the origin each Server
/// records (model version 7), and the refresh that runs only what an origin vouches for.
@Suite("where a subscription may come from", .serialized)
struct FeedTrustTests {
    static func origins(_ store: ZeaderStore) throws -> [String: FeedOrigin?] {
        let context = store.container.newBackgroundContext(name: "test")
        return try context.performAndWait {
            var origins: [String: FeedOrigin?] = [:]
            for server in try Server.findAll(in: context) { origins[server.url] = server.origin }
            return origins
        }
    }

    @Test("only http(s) with a host passes as a server's or a page's feed, whatever the spelling of the rest")
    func webURLs() {
        #expect(FeedTrust.webURL(" HTTPS://a.example/feed\n") == "https://a.example/feed")
        #expect(FeedTrust.webURL("http://127.0.0.1:8080/x") == "http://127.0.0.1:8080/x")
        let refused = [
            "exec:touch /tmp/x", "EXEC:touch /tmp/x", " exec:x", "\n\texec:x", "Filter:cat:https://a.example/f",
            "file:///etc/passwd", "FILE:///etc/passwd", "File://localhost/etc/passwd", "javascript:alert(1)",
            "data:text/xml,<rss/>", "ftp://a.example/f", "gopher://a.example/f", "feed.xml", "/feed.xml", "//a.example/f",
            "exec%3Atouch", "http:exec:touch", "http:///nohost", "https://", "\u{1}https://a.example/f",
            "https://a.example/\u{1B}[31m", "",
        ]
        for url in refused { #expect(FeedTrust.webURL(url) == nil, "\(url)") }
        #expect(FeedTrust.reach(of: "Filter:cat:https://a.example/f") == .command("Filter:cat:https://a.example/f"))
        #expect(FeedTrust.reach(of: "FILE:///etc/passwd") == .file("/etc/passwd"))
        #expect(FeedTrust.reach(of: "https://a.example/f") == .web)
    }

    @Test("each way in records its origin; a backup's own \"origin\" is ignored")
    func originsAreRecorded() throws {
        let store = try makeStore()
        let library = FeedLibrary(store: store)
        try library.add(url: "exec:echo typed")
        let opml = """
            <opml version="2.0"><body><outline text="W" xmlUrl="https://web.example/feed"/>
            <outline text="C" xmlUrl="exec:echo opml"/></body></opml>
            """
        var report = try library.importSubscriptions(data: Data(opml.utf8), source: "a.opml")
        #expect(report.added == 1 && report.skipped.count == 1 && report.rejected.isEmpty)
        report = try library.importSubscriptions(data: Data(opml.utf8), source: "a.opml", allowCommands: true)
        #expect(report.added == 1 && report.alreadySubscribed == 1 && report.skipped.isEmpty)
        report = try library.importSubscriptions(data: Data("\"exec:echo urls\" news\n".utf8), source: "urls")
        #expect(report.added == 1 && report.skipped.isEmpty)
        #expect(report.notes.contains { $0.contains("exec feed: it runs") })

        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let backup = dir.appendingPathComponent("b.json")
        try """
        {"format":"zeader-backup","version":2,"feeds":[{"url":"https://b.example/feed","origin":"typed"}],"items":[]}
        """.write(to: backup, atomically: true, encoding: .utf8)
        _ = try library.restoreBackup(from: backup)

        #expect(
            try Self.origins(store) == [
                "exec:echo typed": .typed, "https://web.example/feed": .imported, "exec:echo opml": .allowedImport,
                "exec:echo urls": .urlsFile, "https://b.example/feed": .imported,
            ])
    }

    @Test("a refresh runs a command or reads a file only for an origin that vouches for it (or an unknown one)")
    func refreshRunsOnlyVouchedCommands() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let feedFile = dir.appendingPathComponent("feed.xml")
        try rss(title: "F", guids: ["f1"]).write(to: feedFile, atomically: true, encoding: .utf8)
        let marker = { (name: String) in dir.appendingPathComponent(name).path }
        let feeds: [(url: String, origin: FeedOrigin?)] = [
            ("exec:touch \(marker("sync"))", .syncServer), ("EXEC:touch \(marker("import"))", .imported),
            ("filter:touch \(marker("filter")):\(feedFile.absoluteString)", .imported),
            ("FILE://\(feedFile.path)", .syncServer), ("exec:touch \(marker("unknown"))", nil),
            ("exec:touch \(marker("typed"))", .typed), ("exec:touch \(marker("urls"))", .urlsFile),
            ("exec:touch \(marker("allowed"))", .allowedImport), ("file://\(feedFile.path)", .imported),
        ]
        let store = try makeStore()
        let context = store.container.newBackgroundContext(name: "test")
        try context.performAndWait {
            for (index, feed) in feeds.enumerated() {
                let server = context.insert(Server.self)
                server.url = feed.url
                server.origin = feed.origin
                server.displayOrder = Int64(index)
            }
            try context.save()
        }
        let summary = try await FeedRefresher(store: store, options: testOptions()).refresh()
        let ran = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)).subtracting(["feed.xml"])
        #expect(ran == ["unknown", "typed", "urls", "allowed"])
        let refused = summary.results.filter {
            if case .failed(.notVouched) = $0.status { true } else { false }
        }
        #expect(Set(refused.map(\.url)) == Set(feeds.filter { $0.origin == .imported || $0.origin == .syncServer }.map(\.url)))
        let rows = try serverRows(store)
        let error = try #require(rows["exec:touch \(marker("sync"))"]?.lastError)
        #expect(error.contains("not run") && error.contains("a sync server") && error.contains("zeader trust"), "\(error)")
    }

    @Test("a store made before origins opens with them unknown: its command feeds still run, and check lists them")
    func olderStoresKeepTheirCommandFeeds() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("z.sqlite")
        let old = ZeaderStore(container: try PersistentContainer(model: ZeaderModel.version6, store: .file(url)), url: url)
        let context = old.container.newBackgroundContext(name: "v6")
        try context.performAndWait {
            for (index, feedURL) in ["https://a.example/feed", "exec:echo it's mine", "file:///tmp/feed.xml"].enumerated() {
                let server = context.insert(Server.self)
                server.url = feedURL
                server.displayOrder = Int64(index)
            }
            try context.save()
        }
        try old.container.store.close()

        // Before any other command migrated it: read as it is, left as it is.
        var r = try zeader(["check", "--db", url.path], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "ok: \(url.path)\n")
        #expect(r.stderr.split(separator: "\n").count == 2, "\(r.stderr)")
        let reread = try ZeaderStore.openForReading(at: url)
        #expect(try reread.container.store.metadata(forKey: "objectgraph.version") == "6")
        try reread.container.store.close()

        let store = try ZeaderStore.open(at: url)
        #expect(try Self.origins(store).values.allSatisfy { $0 == nil })
        let unvouched = try FeedLibrary(store: store).unvouchedFeeds()
        #expect(unvouched.map(\.url) == ["exec:echo it's mine", "file:///tmp/feed.xml"])
        #expect(FeedTrust.refusal(url: "exec:echo it's mine", origin: nil) == nil)
        try store.container.store.close()

        r = try zeader(["check", "--db", url.path], in: dir)
        #expect(r.status == 0)
        #expect(r.stdout == "ok: \(url.path)\n")
        let lines = r.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(r.stderr)")
        #expect(lines.first?.contains("zeader trust 'exec:echo it'\\''s mine'") == true, "\(r.stderr)")
        #expect(lines.allSatisfy { $0.contains("unknown source") && $0.contains("zeader remove") }, "\(r.stderr)")

        r = try zeader(["trust", "exec:echo it's mine", "--db", url.path], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        r = try zeader(["trust", "exec:not subscribed", "--db", url.path], in: dir)
        #expect(r.status == 1 && r.stderr == "zeader trust: not subscribed: exec:not subscribed\n")
        r = try zeader(["check", "--db", url.path], in: dir)
        #expect(r.status == 0)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    }

    @Test("the man page says what is trusted, documents trust and --allow-commands, and no longer lets imports arm commands")
    func manPage() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("man/zeader.1")
        let text = try String(contentsOf: page, encoding: .utf8)
        for needle in [".SH TRUST", ".BI trust \" URL\"", "\\-\\-allow\\-commands", "data only"] {
            #expect(text.contains(needle), "\(needle)")
        }
        #expect(!text.contains("and in imported\n.B urls"))
    }

    @Test("20,000 duplicate outlines of one feed, written several ways, make one feed with each tag once")
    func duplicateOutlines() throws {
        var opml = "<opml version=\"2.0\"><body>"
        let spellings = ["https://a.example/feed", " https://a.example/feed ", "HTTPS://a.example/feed"]
        for index in 0..<20_000 {
            let tag = index.isMultiple(of: 2) ? "News" : "news"
            opml +=
                "<outline text=\"Folder \(index % 100)\"><outline text=\"A\" category=\"/\(tag),/t\(index % 7)\" xmlUrl=\"\(spellings[index % 3])\"/></outline>"
        }
        opml += "</body></opml>"
        let list = try OPML.parse(data: Data(opml.utf8), source: "dups.opml")
        #expect(list.count == 2)  // the scheme's case differs; the import makes them one
        for subscription in list { #expect(Set(subscription.categories).count == subscription.categories.count) }

        let store = try makeStore()
        let report = try FeedLibrary(store: store).importSubscriptions(data: Data(opml.utf8), source: "dups.opml")
        #expect(report.added == 1 && report.alreadySubscribed == 0)
        let feeds = try FeedLibrary(store: store).servers()
        #expect(feeds.count == 1)
        let tags = try #require(feeds.first?.tags)
        #expect(tags.count == 100 + 1 + 7)
        #expect(Set(tags.map { $0.lowercased() }).count == tags.count)
    }
}
