import Feeds
import Foundation
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

/// Sites' article rules (`article-selector SITE SELECTOR`): which pages a rule is for, which
/// of several wins, and a refresh that extracts with them.
@Suite struct ArticleSelectorRuleTests {
    let page = URL(string: "https://www.example.com/2026/story")!

    @Test func sitesAreHostsFeedsTagsOrEverything() throws {
        let host = try ArticleSelectorRule(site: "Example.COM", selector: "article")
        #expect(host.site == .host("example.com"))
        #expect(host.applies(toPage: page, feedURL: nil, tags: nil))  // a subdomain
        #expect(!host.applies(toPage: URL(string: "https://notexample.com/a")!, feedURL: nil, tags: nil))
        #expect(!host.applies(toPage: URL(string: "https://example.com.evil.net/a")!, feedURL: nil, tags: nil))
        let feed = try ArticleSelectorRule(site: "https://feeds.example.net/rss", selector: "main")
        #expect(feed.applies(toPage: page, feedURL: "https://feeds.example.net/rss", tags: nil))
        #expect(!feed.applies(toPage: page, feedURL: "https://feeds.example.net/other", tags: nil))
        let tag = try ArticleSelectorRule(site: "tag:Long", selector: "main")
        #expect(tag.applies(toPage: page, feedURL: "https://x/rss", tags: "news,long"))
        #expect(try ArticleSelectorRule(site: "*", selector: "main").applies(toPage: page, feedURL: nil, tags: nil))
        for bad in ["", "exa mple.com", "a..b", "ex/ample", "café.fr"] {
            #expect(throws: ArticleSelectorRule.Problem.self, "\(bad)") { try ArticleSelectorRule(site: bad, selector: "p") }
        }
        #expect(throws: ArticleSelectorRule.Problem.self) { try ArticleSelectorRule(site: "example.com", selector: "p:hover") }
    }

    @Test func theMostSpecificRuleWinsAndOfEqualsTheLater() throws {
        let rules = [
            try ArticleSelectorRule(site: "*", selector: "main"),
            try ArticleSelectorRule(site: "example.com", selector: "div.host"),
            try ArticleSelectorRule(site: "www.example.com", selector: "div.longer-host"),
            try ArticleSelectorRule(site: "tag:long", selector: "div.tag"),
            try ArticleSelectorRule(site: "https://f/rss", selector: "div.feed"),
            try ArticleSelectorRule(site: "https://f/rss", selector: "div.feed-later"),
        ]
        func chosen(_ feed: String?, _ tags: String?, _ url: URL? = nil) -> String? {
            ArticleSelectorRule.selector(in: rules, forPage: url ?? page, feedURL: feed, tags: tags)?.description
        }
        #expect(chosen("https://f/rss", "long") == "div.feed-later")
        #expect(chosen("https://g/rss", "long") == "div.tag")
        #expect(chosen("https://g/rss", nil) == "div.longer-host")
        #expect(chosen("https://g/rss", nil, URL(string: "https://blog.example.com/a")!) == "div.host")
        #expect(chosen("https://g/rss", nil, URL(string: "https://other.org/a")!) == "main")
        #expect(ArticleSelectorRule.selector(in: [], forPage: page, feedURL: nil, tags: nil) == nil)
    }

    @Test("a refresh extracts a site's pages with its rule; a bad rule stops the config with its line")
    func throughTheBinary() async throws {
        let routes = Routes()
        try await withLoopbackServer(routes.handler) { http in
            let site = http.url("/site")
            routes["/site/feed"] = .ok(teaserSite(site, items: ["a"]))
            // The algorithm takes the long story; the rule takes the short box beside it.
            routes["/site/a.html"] = .ok(
                storyPage("a").replacingOccurrences(
                    of: "<footer>", with: "<div class=\"box\"><p>Only the box, with a quokka.</p></div><footer>"),
                contentType: "text/html")
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            let feed = http.url("/site/feed").absoluteString
            _ = try writeConfig("article-selector 127.0.0.1 div.box  >  p\n", in: dir)
            #expect(try zeader(["add", feed, "--full-article", "--db", db], in: dir).status == 0)
            let r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.stdout.contains("1 full article"), "\(r.stdout) \(r.stderr)")
            let store = try ZeaderStore.open(at: URL(fileURLWithPath: db))
            try store.container.viewContext.performAndWait {
                let article = try FeedItem.findAll(in: store.container.viewContext).first?.body?.article
                #expect(article?.contains("quokka") == true)
                #expect(article?.contains("zeppelinfield") == false)
            }
            _ = try writeConfig("article-selector 127.0.0.1 div.box:hover\n", in: dir)
            let bad = try zeader(["refresh", "--db", db], in: dir)
            #expect(bad.status == 1)
            #expect(bad.stderr.contains("pseudo-classes (\":hover\") are not supported"), "\(bad.stderr)")
        }
    }
}
