import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// `w`: the item's web page, fetched without blocking, shown in place of the feed's text,
/// kept with the item and read offline afterwards.
@Suite struct FullArticleKeyTests {
    static let page = """
        <html><head><title>The whole story</title></head><body><nav><a href="/">Home</a></nav>
        <article><h1>The whole story</h1><p>\(String(repeating: "The long text goes on with a zeppelinfield in it, and more words after it. ", count: 8))</p>
        <p>\(String(repeating: "A second paragraph says more about the zeppelinfield. ", count: 6))</p></article></body></html>
        """

    /// Adds an item linking to `link` to the first demo feed, newest of all; returns its title.
    func addTeaser(linking link: String, to store: ZeaderStore) throws {
        let context = store.container.viewContext
        try context.performAndWait {
            let server = try #require(try Server.findFirst(byAttribute: "title", value: "Zeader News", in: context))
            let item = context.insert(FeedItem.self)
            item.guid = "teaser"
            item.title = "A teaser"
            item.link = link
            item.summary = "Only the first lines of the story."
            item.sortDate = Date(timeIntervalSince1970: 1_900_000_000)
            item.server = server
            try context.save()
        }
    }

    func waitFor(_ text: String, in h: Harness) async -> Bool {
        for _ in 0..<250 {
            if h.screen.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test func wShowsTheFullArticleKeepsItAndReadsItOffline() async throws {
        #expect(KeyMap.default.action(for: .character("w")) == .fullArticle)
        let store = try ZeaderStore.inMemory()
        try DemoFeeds.load(into: store)
        try await withLoopbackServer({ request in
            request.path == "/story.html" ? .ok(Self.page, contentType: "text/html") : .status(404)
        }) { http in
            try addTeaser(linking: http.url("/story.html").absoluteString, to: store)
            let h = try Harness(fetcher: FeedFetcher(configuration: FetcherConfiguration(version: "test")), store: store)
            h.type(.enter, .enter)  // Zeader News, its newest item: the teaser
            #expect(h.screen.contains("Only the first lines of the story."))
            #expect(!h.screen.contains("zeppelinfield"))
            let fetching = h.type(.character("w"))
            #expect(fetching.contains("Fetching the full article") || fetching.contains("zeppelinfield"))
            #expect(await waitFor("zeppelinfield", in: h), "\(h.screen)")
            #expect(h.screen.contains("Showing the full article"))
            // w again: the feed's text; and back, without fetching.
            #expect(h.type(.character("w")).contains("Only the first lines of the story."))
            #expect(h.type(.character("w")).contains("zeppelinfield"))
            // Kept with the item, and not an undo step.
            let stored = try store.container.viewContext.performAndWait {
                try FeedItem.findFirst(byAttribute: "guid", value: "teaser", in: store.container.viewContext)?.body?.article
            }
            #expect(stored?.contains("zeppelinfield") == true)
        }
        // The server is gone: a new reader shows the stored article.
        let offline = try Harness(fetcher: FeedFetcher(configuration: FetcherConfiguration(version: "test")), store: store)
        offline.type(.enter, .enter)
        #expect(offline.type(.character("w")).contains("zeppelinfield"))
    }

    @Test func aPageWithoutAnArticleKeepsTheFeedsTextAndSaysWhy() async throws {
        let store = try ZeaderStore.inMemory()
        try DemoFeeds.load(into: store)
        try await withLoopbackServer({ _ in .status(404) }) { http in
            try addTeaser(linking: http.url("/gone.html").absoluteString, to: store)
            let h = try Harness(fetcher: FeedFetcher(configuration: FetcherConfiguration(version: "test")), store: store)
            h.type(.enter)
            h.type(.character("w"))  // from the item list: opens the article, then fetches
            #expect(await waitFor("No full article", in: h), "\(h.screen)")
            #expect(h.screen.contains("404"))
            #expect(h.screen.contains("Only the first lines of the story."))
        }
        // An item without a web page, and a reader that cannot fetch, say so.
        let demo = try Harness()
        demo.type(.enter, .enter)
        #expect(demo.type(.character("w")).contains("Full articles cannot be fetched here"))
    }
}
