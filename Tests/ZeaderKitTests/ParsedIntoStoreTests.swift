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
        var bytes = Array(
            "<rss version=\"2.0\"><channel><title>Ctl</title><item><guid>a</guid><title>A</title><description><![CDATA[one".utf8)
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

    // MARK: - Issue 13: feed correctness, through a refresh into the store

    @Test("1. base64 Atom text constructs are stored decoded; binary content is absent")
    func base64() async throws {
        let b64 = { (text: String) in Data(text.utf8).base64EncodedString() }
        let feed = try await Self.refresh(
            """
            <feed version="0.3" xmlns="http://purl.org/atom/ns#"><title mode="base64">\(b64("Feed Title"))</title>
            <entry><id>a</id><title mode="base64">\(b64("Entry"))</title>
            <content type="text/html" mode="base64">\(b64("<p>Body</p>"))</content></entry>
            <entry><id>b</id><title>Bin</title><content type="image/png" mode="base64">iVBORw0KGgoAAAANSUhEUv/+AAE=</content></entry></feed>
            """)
        #expect(feed.title == "Feed Title")
        #expect(feed.items.map(\.title) == ["Entry", "Bin"])
        #expect(feed.items[0].content == "<p>Body</p>")
        #expect(feed.items[1].content == nil)
    }

    @Test("2. Atom 0.3 under the echo namespace is stored as a feed")
    func historicalNamespace() async throws {
        let feed = try await Self.refresh(
            """
            <feed version="0.3" xmlns="http://purl.org/echo/"><title>Echo</title><link rel="alternate" href="http://echo.example/"/>
            <entry><id>e1</id><title>First</title><issued>2003-12-13T08:29:29Z</issued></entry></feed>
            """)
        #expect(feed.lastError == nil)
        #expect(feed.title == "Echo")
        #expect(feed.siteLink == "http://echo.example/")
        #expect(feed.items.map(\.guid) == ["e1"])
    }

    @Test("3. an RSS feed's atom:link rel=self is not stored as its site link")
    func selfLink() async throws {
        let feed = try await Self.refresh(
            """
            <rss version="2.0"><channel><title>S</title><atom:link href="http://s.example/feed.xml" rel="self"/>
            <link>http://s.example/</link><item><guid>1</guid><atom:link rel="self" href="http://s.example/1.xml"/><link>http://s.example/1</link></item></channel></rss>
            """)
        #expect(feed.siteLink == "http://s.example/")
        #expect(feed.items.first?.link == "http://s.example/1")
    }

    @Test("4. relative links in content are stored resolved against the feed's file URL and xml:base")
    func relativeContentLinks() async throws {
        let feed = try await Self.refresh(
            """
            <rss version="2.0"><channel><title>R</title>
            <item><guid>1</guid><description>&lt;a href="https://abs.example/"&gt;abs&lt;/a&gt;&lt;img src="img.png"&gt;</description></item>
            <item xml:base="http://base.example/dir/"><guid>2</guid><description>&lt;a href="../up"&gt;up&lt;/a&gt;</description></item>
            </channel></rss>
            """)
        let first = try #require(feed.items.first?.content)
        #expect(first.contains(#"src="file:///"#), "\(first)")
        #expect(first.hasSuffix(#"/img.png">"#), "\(first)")
        #expect(feed.items[1].content == #"<a href="http://base.example/up">up</a>"#)
    }

    @Test("5. dc:title and dc:author are stored as title and author")
    func dublinCore() async throws {
        let feed = try await Self.refresh(
            """
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><dc:title>DC</dc:title>
            <item><guid>1</guid><dc:title>Item</dc:title><dc:author>Ann</dc:author></item></channel></rss>
            """)
        #expect(feed.title == "DC")
        #expect(feed.items.first?.title == "Item")
        #expect(feed.items.first?.author == "Ann")
    }

    @Test("6. a JSON Feed with version \"1.1\" is stored")
    func shortJSONFeedVersion() async throws {
        let feed = try await Self.refresh(
            #"{"version": "1.1", "title": "J", "items": [{"id": "1", "title": "One", "date_published": "2024-01-01T00:00:00Z"}]}"#,
            fileExtension: "json")
        #expect(feed.lastError == nil)
        #expect(feed.items.map(\.title) == ["One"])
    }

    @Test("7. a macgreek feed is stored decoded")
    func legacyEncoding() async throws {
        let bytes =
            Array(
                #"<?xml version="1.0" encoding="macgreek"?><rss version="2.0"><channel><title>T</title><item><guid>1</guid><title>"#
                    .utf8)
            + [0x80, 0xE1] + Array("</title></item></channel></rss>".utf8)
        let feed = try await Self.refresh(bytes)
        #expect(feed.items.first?.title == "Äα")
    }

    @Test("8. an Atom 0.3 entry's issued date is stored as its publication date")
    func atom03Issued() async throws {
        let feed = try await Self.refresh(
            """
            <feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>D</title>
            <entry><id>1</id><created>2004-01-01T00:00:00Z</created><issued>2004-01-02T00:00:00Z</issued></entry></feed>
            """)
        #expect(feed.items.first?.published == Date(timeIntervalSince1970: 1_073_001_600))
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
