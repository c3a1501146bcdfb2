import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing

@testable import ZeaderKit

/// A teaser feed whose items link to pages on the same loopback site.
func teaserSite(_ base: URL, items: [String]) -> String {
    var xml = #"<?xml version="1.0"?><rss version="2.0"><channel><title>Teasers</title><link>\#(base.absoluteString)</link>"#
    for (index, name) in items.enumerated() {
        xml += """
            <item><guid>\(name)</guid><title>Story \(name)</title><link>\(base.absoluteString)/\(name).html</link>
            <pubDate>\(index + 1) Jan 2025 10:00:00 GMT</pubDate><description>Only a teaser of \(name).</description></item>
            """
    }
    return xml + "</channel></rss>"
}

/// A page whose article has a word no teaser has.
func storyPage(_ name: String, word: String = "zeppelinfield") -> String {
    let paragraph = "The whole story of \(name) goes on for a while, with the \(word) in it, and more words after. "
    return """
        <html><head><title>Story \(name)</title></head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
        <article><h1>Story \(name)</h1><p>\(String(repeating: paragraph, count: 6))</p><p>\(String(repeating: paragraph, count: 5))</p></article>
        <footer>Copyright</footer></body></html>
        """
}

@Suite("Full articles: fetched, stored with the item, pending per feed")
struct FullArticlesTests {
    @Test("only http(s) links with a host are fetched")
    func pageURLs() {
        #expect(FullArticles.pageURL("https://x.example/a") != nil)
        #expect(FullArticles.pageURL(" http://x.example/a ") != nil)
        for link in ["file:///etc/passwd", "javascript:alert(1)", "https:///nohost", "exec:ls", "", nil] as [String?] {
            #expect(FullArticles.pageURL(link) == nil, "\(link ?? "nil")")
        }
    }

    @Test("a marked feed's items are fetched once, newest first, bounded per feed; failures are recorded")
    func pendingAndStore() async throws {
        let routes = Routes()
        try await withLoopbackServer(routes.handler) { http in
            let site = http.url("/site")
            routes["/site/feed"] = .ok(teaserSite(site, items: ["a", "b", "c"]))
            routes["/site/a.html"] = .ok(storyPage("a"))
            routes["/site/b.html"] = .ok(storyPage("b"))
            // c.html is missing: a 404.
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            try library.add(url: http.url("/site/feed").absoluteString)
            _ = try await FeedRefresher(store: store, options: testOptions()).refresh()
            let context = store.container.newBackgroundContext(name: "test")
            let server = try context.performAndWait { try #require(try Server.findAll(in: context).first).objectID }
            // Not marked: nothing pending.
            #expect(try context.performAndWait { try FullArticles.pending(of: [server], in: context) }.isEmpty)
            try context.performAndWait {
                try FullArticles.setFullArticle(true, urls: [http.url("/site/feed").absoluteString], in: context)
                try context.save()
            }
            let targets = try context.performAndWait { try FullArticles.pending(of: [server], in: context) }
            #expect(targets.map { $0.url.lastPathComponent } == ["c.html", "b.html", "a.html"])
            let fetcher = FeedFetcher(configuration: testOptions().fetcherConfiguration)
            for (id, outcome) in await FullArticles.fetch(targets, with: fetcher) {
                context.performAndWait { FullArticles.store(outcome, for: id, in: context) }
            }
            try context.performAndWait { try context.save() }
            try context.performAndWait {
                let items = try FeedItem.findAll(in: context).sorted { $0.guid < $1.guid }
                #expect(items[0].body?.article?.contains("zeppelinfield") == true)
                #expect(items[0].content?.contains("teaser") == true || items[0].summary?.contains("teaser") == true)
                #expect(items[1].body?.article?.contains("story of b") == true)
                #expect(items[2].body?.article == nil)
                #expect(items[2].body?.articleProblem?.contains("404") == true, "\(items[2].body?.articleProblem ?? "nil")")
                // Fetched once: nothing pending, the failed one included.
                #expect(try FullArticles.pending(of: [server], in: context).isEmpty)
            }
            #expect(throws: ZeaderError.self) {
                try context.performAndWait { try FullArticles.setFullArticle(true, urls: ["https://not.example/"], in: context) }
            }
        }
    }

    @Test("zeader add --full-article: the refresh fetches the pages after the feed; failures keep the teaser")
    func throughTheBinary() async throws {
        let routes = Routes()
        try await withLoopbackServer(routes.handler) { http in
            let site = http.url("/site")
            routes["/site/feed"] = .ok(teaserSite(site, items: ["a", "b", "c", "d"]))
            routes["/site/a.html"] = .ok(storyPage("a"), contentType: "text/html")
            routes["/site/b.html"] = .ok(storyPage("b"), contentType: "text/html; charset=utf-8")
            routes["/site/d.html"] = .ok("not a page", contentType: "image/png")
            // c.html: 404.
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            let feed = http.url("/site/feed").absoluteString
            #expect(try zeader(["add", feed, "--full-article", "--db", db], in: dir).status == 0)
            var r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("4 new items, 2 full articles (2 pages without one)"), "\(r.stdout)")
            let store = try ZeaderStore.open(at: URL(fileURLWithPath: db))
            let context = store.container.newBackgroundContext(name: "test")
            try context.performAndWait {
                let items = try FeedItem.findAll(in: context).sorted { $0.guid < $1.guid }
                #expect(items.map { $0.body?.article?.contains("zeppelinfield") == true } == [true, true, false, false])
                #expect(items[2].body?.articleProblem?.contains("404") == true)
                #expect(items[3].body?.articleProblem?.contains("not an HTML page (Content-Type image/png)") == true)
                #expect(items[2].summary?.contains("teaser") == true)
            }
            // Search finds a word only the full articles have.
            r = try zeader(["items", "--search", "zeppelinfield", "--db", db], in: dir)
            #expect(r.stdout.split(separator: "\n").count == 2, "\(r.stdout)")
            // Fetched once: the next refresh fetches nothing again; --off stops new ones.
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(!r.stdout.contains("full article"), "\(r.stdout)")
            #expect(try zeader(["full-article", feed, "--off", "--db", db], in: dir).stdout == "1 feed: no full articles\n")
            routes["/site/feed"] = .ok(teaserSite(site, items: ["a", "b", "c", "d", "e"]))
            routes["/site/e.html"] = .ok(storyPage("e"), contentType: "text/html")
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.stdout.contains("1 new item in") || r.stdout.contains("1 new item,"), "\(r.stdout)")
            #expect(!r.stdout.contains("full article"))
            r = try zeader(["full-article", "https://not.example/feed", "--db", db], in: dir)
            #expect(r.status == 1 && r.stderr.contains("not.example"), "\(r.stderr)")

            // The config marks feeds too, here by tag.
            let config = try writeConfig("full-article tag:long\n", in: dir)
            routes["/other/feed"] = .ok(teaserSite(http.url("/other"), items: ["f"]))
            routes["/other/f.html"] = .ok(storyPage("f"), contentType: "text/html")
            _ = try zeader(["add", http.url("/other/feed").absoluteString, "--tag", "long", "--db", db], in: dir)
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.stdout.contains("1 new item, 1 full article in"), "\(r.stdout)")
            try "full-article tag:long extra\n".write(to: config, atomically: true, encoding: .utf8)
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 1 && r.stderr.contains("full-article needs one feed URL"), "\(r.stderr)")
        }
    }
}
