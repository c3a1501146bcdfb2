import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// What the parser makes of hostile or unusual documents, followed through a refresh into
/// the store (file feeds): items kept, problems recorded as the feed's `lastError`.
@Suite("Parsed into the store")
struct ParsedIntoStoreTests {
    /// A stored item's fields, read back from the store.
    struct StoredItem: Sendable {
        var guid: String
        var title: String?
        var link: String?
        var author: String?
        var summary: String?
        var content: String?
        var published: Date?
    }

    /// A stored feed: its server's fields and its items in document order of their guids
    /// (sorted by guid).
    struct StoredFeed: Sendable {
        var title: String?
        var siteLink: String?
        var lastError: String?
        var items: [StoredItem]
    }

    /// Writes `bytes` to a file, subscribes to its file:// URL, refreshes, and reads back
    /// what was stored.
    static func refresh(_ bytes: [UInt8], fileExtension: String = "xml") async throws -> StoredFeed {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-\(UUID().uuidString).\(fileExtension)")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let store = try makeStore()
        try FeedLibrary(store: store).add(url: file.absoluteString)
        _ = try await FeedRefresher(store: store, options: testOptions()).refresh()
        let context = store.container.newBackgroundContext()
        return try context.performAndWait {
            let server = try #require(try Server.findAll(in: context).first)
            let items = try FeedItem.findAll(in: context).map {
                StoredItem(
                    guid: $0.guid, title: $0.title, link: $0.link, author: $0.author, summary: $0.summary,
                    content: $0.content, published: $0.published)
            }
            return StoredFeed(
                title: server.title, siteLink: server.siteLink, lastError: server.lastError,
                items: items.sorted { $0.guid < $1.guid })
        }
    }

    static func refresh(_ text: String, fileExtension: String = "xml") async throws -> StoredFeed {
        try await refresh(Array(text.utf8), fileExtension: fileExtension)
    }

    // MARK: - Issue 12: nothing lost silently

    @Test("a document cut off stores its items and records the cut as lastError")
    func truncatedDocument() async throws {
        let xml = """
            <rss version="2.0"><channel><title>Cut</title>
            <item><guid>a</guid><title>A</title></item><item><guid>b</guid><title>B</title></item>
            <item><guid>c</guid><title>C</title><description>half a sen
            """
        let feed = try await Self.refresh(xml)
        #expect(feed.items.map(\.guid) == ["a", "b", "c"])
        let error = try #require(feed.lastError)
        #expect(error.contains("cut off before its closing </rss> tag"), "\(error)")
        let complete = try await Self.refresh(xml + "</description></item></channel></rss>")
        #expect(complete.lastError == nil)
    }

    @Test("a control character in a CDATA section loses neither that item's text nor later items")
    func controlCharacterInCDATA() async throws {
        var bytes = Array("<rss version=\"2.0\"><channel><title>Ctl</title><item><guid>a</guid><title>A</title><description><![CDATA[one".utf8)
        bytes += [0x01, 0x1B]
        bytes += Array("two]]></description></item><item><guid>b</guid><title>B</title></item></channel></rss>".utf8)
        let feed = try await Self.refresh(bytes)
        #expect(feed.items.map(\.guid) == ["a", "b"])
        #expect(feed.items.first?.content == "onetwo")
        #expect(feed.lastError == nil)
    }

    @Test("a date whose zone has 19 digits does not stop the refresh")
    func overlongZone() async throws {
        let xml = """
            <rss version="2.0"><channel><title>Z</title>
            <item><guid>a</guid><pubDate>Mon, 01 Jan 2024 00:00:00 +9999999999999999999</pubDate></item>
            <item><guid>b</guid><pubDate>Mon, 01 Jan 2024 00:00:00 +99:99:99:99:99:99:99:99:99:99</pubDate></item>
            <item><guid>c</guid><pubDate>Mon, 01 Jan 2024 00:00:00 +0100</pubDate></item></channel></rss>
            """
        let feed = try await Self.refresh(xml)
        #expect(feed.items.map(\.guid) == ["a", "b", "c"])
        #expect(feed.items[2].published == Date(timeIntervalSince1970: 1_704_063_600))
        #expect(feed.lastError == nil)
    }

    @Test("a DOCTYPE entity chain 5,000 deep fails this feed with a lastError")
    func deepEntityChain() async throws {
        var declarations = "<!ENTITY e0 \"x\">"
        for level in 1..<5_000 { declarations += "<!ENTITY e\(level) \"&e\(level - 1);\">" }
        let feed = try await Self.refresh("<!DOCTYPE rss [\(declarations)]><rss><channel><title>&e4999;</title></channel></rss>")
        #expect(feed.items.isEmpty)
        #expect(feed.lastError?.contains("levels deep") == true)
    }

    @Test("zeader import names the outlines it cannot import and exits 1, importing the rest")
    func importNamesRejectedOutlines() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("feeds.opml")
        var opml = Array("<opml version=\"2.0\"><body><outline text=\"A\" xmlUrl=\"https://a.example/feed\"/>".utf8)
        opml += Array("<outline text=\"Bad\" xmlUrl=\"https://b.example/f".utf8) + [0x0B] + Array("eed\"/>".utf8)
        opml += Array("<outline text=\"Tab".utf8) + [0x0B] + Array("bed\" xmlUrl=\"https://c.example/feed\"/>".utf8)
        opml += Array(String(repeating: "<outline text=\"f\">", count: 300).utf8)
        opml += Array("<outline text=\"Deep\" xmlUrl=\"https://deep.example/feed\"/>".utf8)
        opml += Array(String(repeating: "</outline>", count: 300).utf8)
        opml += Array("<outline text=\"Z\" xmlUrl=\"https://z.example/feed\"/></body></opml>".utf8)
        try Data(opml).write(to: file)
        let db = dir.appendingPathComponent("z.sqlite").path
        let result = try zeader(["import", file.path, "--db", db], in: dir)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("outline \"Bad\" not imported"), "\(result.stderr)")
        #expect(result.stdout.contains("imported 4 feeds"), "\(result.stdout)")
        let list = try zeader(["list", "--db", db], in: dir)
        for host in ["a.example", "c.example", "deep.example", "z.example"] {
            #expect(list.stdout.contains(host), "\(host) missing: \(list.stdout)")
        }
    }
}
