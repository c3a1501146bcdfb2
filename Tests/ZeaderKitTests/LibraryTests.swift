import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

@Suite("Library operations")
struct LibraryTests {
    /// A store with one feed of three items stored through the importer.
    func storeWithItems() throws -> (ZeaderStore, String) {
        let store = try makeStore()
        let url = "http://example.org/feed"
        try FeedLibrary(store: store).add(url: url, title: "Example")
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let server = try #require(try Server.findFirst(byAttribute: "url", value: .string(url), in: context))
            for (guid, title, author, published) in [
                ("1", "Café crème et Swift", "Ann", 100.0), ("2", "Linux notes", "Bob Ünal", 200.0),
                ("3", "Swift on LINUX", "ann", 300.0),
            ] {
                let item = context.insert(FeedItem.self)
                item.guid = guid
                item.title = title
                item.author = author
                item.published = Date(timeIntervalSince1970: published)
                item.sortDate = item.published
                item.server = server
            }
            try context.save()
        }
        return (store, url)
    }

    @Test("add refuses duplicates and bad URLs; remove deletes the feed and its items")
    func addAndRemove() throws {
        let (store, url) = try storeWithItems()
        let library = FeedLibrary(store: store)
        #expect(throws: ZeaderError.alreadySubscribed(url)) { try library.add(url: url) }
        #expect(throws: ZeaderError.self) { try library.add(url: "ftp://example.org/x") }
        #expect(throws: ZeaderError.self) { try library.add(url: "not a url") }
        #expect(throws: ZeaderError.self) { try library.add(url: "http:///nohost") }
        try library.add(url: "https://second.example/feed")
        #expect(try library.servers().map(\.url) == [url, "https://second.example/feed"])
        #expect(try library.remove(url: url) == 3)
        #expect(throws: ZeaderError.notSubscribed(url)) { try library.remove(url: url) }
        #expect(try library.items(ItemQuery()).isEmpty)
    }

    @Test("items: newest first, --unread, --feed, --limit, multi-word search ignoring case and accents, --where")
    func itemQueries() throws {
        let (store, url) = try storeWithItems()
        let library = FeedLibrary(store: store)
        #expect(try library.items(ItemQuery()).map(\.id) == ["3", "2", "1"])
        #expect(try library.items(ItemQuery(limit: 1)).map(\.id) == ["3"])
        #expect(try library.items(ItemQuery(feed: url)).count == 3)
        #expect(throws: ZeaderError.notSubscribed("http://other/")) { try library.items(ItemQuery(feed: "http://other/")) }
        #expect(try library.items(ItemQuery(search: "swift linux")).map(\.id) == ["3"])
        #expect(try library.items(ItemQuery(search: "CAFE")).map(\.id) == ["1"])
        #expect(try library.items(ItemQuery(search: "unal")).map(\.id) == ["2"])
        #expect(try library.items(ItemQuery(search: "ann swift")).map(\.id) == ["3", "1"])
        #expect(try library.items(ItemQuery(wherePredicate: "author ==[c] \"ANN\"")).map(\.id) == ["3", "1"])
        #expect(throws: ZeaderError.self) { try library.items(ItemQuery(wherePredicate: "title ==")) }
        #expect(throws: ZeaderError.self) { try library.items(ItemQuery(wherePredicate: "nosuchkey == 1")) }
        #expect(try library.markRead(feed: url) == 3)
        #expect(try library.items(ItemQuery(unreadOnly: true)).isEmpty)
        #expect(try library.servers().first?.unread == 0)
        #expect(throws: ZeaderError.notSubscribed("http://other/")) { try library.markRead(feed: "http://other/") }
    }

    @Test("import reads OPML and newsboat urls files, skips known feeds; export round-trips")
    func importExport() throws {
        let store = try makeStore()
        let library = FeedLibrary(store: store)
        let opml = """
            <?xml version="1.0"?><opml version="2.0"><head><title>x</title></head><body>
            <outline text="Tech"><outline text="A" xmlUrl="http://a.example/feed" htmlUrl="http://a.example/"/></outline>
            <outline text="B &amp; co" xmlUrl="http://b.example/feed"/>
            <outline text="bad" xmlUrl="gopher://c.example/"/>
            </body></opml>
            """
        let report = try library.importSubscriptions(data: Data(opml.utf8), source: "feeds.opml")
        #expect(report.added == 2)
        #expect(report.notes.isEmpty)
        #expect(report.rejected.count == 1, "the gopher outline cannot be imported: named, and import exits 1")
        #expect(report.rejected.first?.contains("gopher://c.example/") == true)
        let urls = "http://b.example/feed\nhttp://d.example/feed \"tag\"\n# comment\n"
        let second = try library.importSubscriptions(data: Data(urls.utf8), source: "urls")
        #expect(second.added == 1)
        #expect(second.alreadySubscribed == 1)
        #expect(try library.servers().map(\.url) == ["http://a.example/feed", "http://b.example/feed", "http://d.example/feed"])
        #expect(throws: ZeaderError.self) { try library.importSubscriptions(data: Data("<html".utf8), source: "bad.opml") }

        let exported = try library.exportOPML()
        let back = try makeStore()
        let again = try FeedLibrary(store: back).importSubscriptions(data: Data(exported.utf8), source: "export")
        #expect(again.added == 3)
        // OPML groups feeds by folder (their first tag), so the order may change; titles and tags stay.
        let servers = try FeedLibrary(store: back).servers()
        #expect(
            Dictionary(uniqueKeysWithValues: servers.map { ($0.url, $0.title ?? "-") })
                == [
                    "http://a.example/feed": "A", "http://b.example/feed": "B & co",
                    "http://d.example/feed": "http://d.example/feed",
                ])
        #expect(servers.first { $0.url == "http://d.example/feed" }?.tags == ["tag"])
    }

    @Test("JSON output is sanitized and escaped")
    func outputIsTerminalSafe() throws {
        let item = ItemSummary(
            feed: "http://x/", id: "1", title: "evil\u{1B}]0;pwned\u{7}\u{1B}[31m \"q\"\n\u{9B}2J", author: nil,
            published: Date(timeIntervalSince1970: 0))
        let json = ItemSummary.json([item])
        #expect(!json.contains("\u{1B}"))
        #expect(!json.contains("\u{9B}"))
        #expect(json.contains("\"published\":\"1970-01-01T00:00:00Z\""))
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
        #expect(parsed?.first?["title"] as? String == "evil \"q\"\n2J")
        #expect(parsed?.first?["author"] is NSNull)
        let list = ServerSummary.json([ServerSummary(url: "u", title: "t\u{1B}[2J", unread: 1, total: 2, lastError: "e")])
        let servers = try JSONSerialization.jsonObject(with: Data(list.utf8)) as? [[String: Any]]
        #expect(servers?.first?["title"] as? String == "t")
        #expect(servers?.first?["unread"] as? Int == 1)
        #expect(servers?.first?["lastError"] as? String == "e")
    }
}
