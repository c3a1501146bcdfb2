import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderTUI

@Suite struct AddFeedDiscoveryTests {
    @Test func aPageWithSeveralFeedsAsksWhichByNumber() async throws {
        let rss: @Sendable (String) -> LoopbackHTTPServer.Reply = { title in
            LoopbackHTTPServer.Reply.ok(
                #"<rss version="2.0"><channel><title>\#(title)</title><item><guid>1</guid></item></channel></rss>"#)
        }
        let pageHTML = """
            <!DOCTYPE html><html><head><link rel="alternate" type="application/rss+xml" href="/posts.xml">
            <link rel="alternate" type="application/atom+xml" href="comments.xml"></head></html>
            """
        try await withLoopbackServer({ request in
            switch request.path {
            case "/posts.xml": rss("Posts")
            case "/blog/comments.xml": rss("Comments")
            default: .ok(pageHTML, contentType: "text/html")
            }
        }) { http in
            let store = try ZeaderStore.inMemory()
            try DemoFeeds.load(into: store)
            let backend = TestBackend(width: 160, height: 30)
            let queue = store.container.viewContext.queue
            let app = ReaderApp(
                model: ReaderModel(store: store), backend: backend, config: ReaderConfig(), queue: queue,
                fetcher: FeedFetcher(configuration: FetcherConfiguration(version: "test")))
            queue.sync { app.start() }
            func type(_ text: String) { queue.sync { for c in text { app.handle(.character(c)) } } }
            func screen() -> String {
                queue.sync { app.redraw() }
                return backend.screen?.text ?? ""
            }
            func waitFor(_ text: String) async -> Bool {
                for _ in 0..<250 {
                    if screen().contains(text) { return true }
                    try? await Task.sleep(for: .milliseconds(20))
                }
                return false
            }
            let page = http.url("/blog/").absoluteString
            type("a" + page)
            queue.sync { app.handle(.enter) }
            #expect(await waitFor("\(page) names 2 feeds: ENTER previews the one under the cursor"))
            #expect(screen().contains("2  \(http.url("/blog/comments.xml").absoluteString)  (Atom)"))
            type("a2")
            queue.sync { app.handle(.enter) }
            #expect(await waitFor("Comments (1 items, \(http.url("/blog/comments.xml").absoluteString)) - keep it? [y/n]"))
            type("y")
            #expect(await waitFor("Added Comments"))
            // The chooser is gone: the feed list is back, with the new feed.
            #expect(queue.sync { app.state.screen } == .feeds)
        }
    }

    @Test func aPageWithSeveralFeedsListsThemInAChooser() async throws {
        let rss: @Sendable (String) -> LoopbackHTTPServer.Reply = { title in
            LoopbackHTTPServer.Reply.ok(
                #"<rss version="2.0"><channel><title>\#(title)</title><item><guid>1</guid></item></channel></rss>"#)
        }
        let pageHTML = """
            <!DOCTYPE html><html><head><link rel="alternate" type="application/rss+xml" title="All posts" href="/posts.xml">
            <link rel="alternate" type="application/atom+xml" href="comments.xml"></head></html>
            """
        try await withLoopbackServer({ request in
            switch request.path {
            case "/posts.xml": rss("Posts")
            case "/blog/comments.xml": rss("Comments")
            default: .ok(pageHTML, contentType: "text/html")
            }
        }) { http in
            let store = try ZeaderStore.inMemory()
            try DemoFeeds.load(into: store)
            let backend = TestBackend(width: 160, height: 30)
            let queue = store.container.viewContext.queue
            let app = ReaderApp(
                model: ReaderModel(store: store), backend: backend, config: ReaderConfig(), queue: queue,
                fetcher: FeedFetcher(configuration: FetcherConfiguration(version: "test")))
            queue.sync { app.start() }
            func type(_ text: String) { queue.sync { for c in text { app.handle(.character(c)) } } }
            func screen() -> String {
                queue.sync { app.redraw() }
                return backend.screen?.text ?? ""
            }
            func waitFor(_ text: String) async -> Bool {
                for _ in 0..<250 {
                    if screen().contains(text) { return true }
                    try? await Task.sleep(for: .milliseconds(20))
                }
                return false
            }
            let page = http.url("/blog/").absoluteString
            type("a" + page)
            queue.sync { app.handle(.enter) }
            #expect(await waitFor("Zeader \(zeaderVersion) - Feeds of \(page)"))
            let lines = screen().split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines[1].contains("1  \(http.url("/posts.xml").absoluteString)  All posts  (RSS)"))
            #expect(lines[2].contains("2  \(http.url("/blog/comments.xml").absoluteString)  (Atom)"))
            #expect(queue.sync { app.state.picker?.kind } == .discoveredFeeds)
            // j moves the cursor, ENTER previews the feed under it.
            type("j")
            queue.sync { app.handle(.enter) }
            #expect(await waitFor("Comments (1 items, \(http.url("/blog/comments.xml").absoluteString)) - keep it? [y/n]"))
            #expect(queue.sync { app.state.screen } == .feeds)
            type("y")
            #expect(await waitFor("Added Comments"))
            #expect(queue.sync { app.state.feeds.contains { $0.url == http.url("/blog/comments.xml").absoluteString } })
            // q leaves the chooser without adding anything.
            type("a" + page)
            queue.sync { app.handle(.enter) }
            #expect(await waitFor("Zeader \(zeaderVersion) - Feeds of \(page)"))
            type("q")
            #expect(queue.sync { app.state.screen } == .feeds)
            #expect(queue.sync { app.state.picker } == nil)
        }
    }
}
