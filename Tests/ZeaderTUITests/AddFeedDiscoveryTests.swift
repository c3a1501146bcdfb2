import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

@Suite struct AddFeedDiscoveryTests {
    /// The reader on the demo store, typed at like a user, with a loopback page at `/blog/`
    /// naming two feeds: `/posts.xml` (RSS, titled `postsTitle` when given) and `comments.xml` (Atom).
    struct Session {
        let app: ReaderApp
        let backend: TestBackend
        let queue: DispatchQueue
        let http: LoopbackHTTPServer
        var page: String { http.url("/blog/").absoluteString }

        func type(_ text: String) { queue.sync { for c in text { app.handle(.character(c)) } } }
        func enter() { queue.sync { app.handle(.enter) } }
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
    }

    func withDiscoveryPage(postsTitle: String?, _ body: (Session) async throws -> Void) async throws {
        let rss: @Sendable (String) -> LoopbackHTTPServer.Reply = { title in
            LoopbackHTTPServer.Reply.ok(
                #"<rss version="2.0"><channel><title>\#(title)</title><item><guid>1</guid></item></channel></rss>"#)
        }
        let titleAttribute = postsTitle.map { #" title="\#($0)""# } ?? ""
        let pageHTML = """
            <!DOCTYPE html><html><head><link rel="alternate" type="application/rss+xml"\(titleAttribute) href="/posts.xml">
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
            try await body(Session(app: app, backend: backend, queue: queue, http: http))
        }
    }

    @Test func aPageWithSeveralFeedsAsksWhichByNumber() async throws {
        try await withDiscoveryPage(postsTitle: nil) { s in
            s.type("a" + s.page)
            s.enter()
            #expect(await s.waitFor("\(s.page) names 2 feeds: ENTER previews the one under the cursor"))
            #expect(s.screen().contains("2  \(s.http.url("/blog/comments.xml").absoluteString)  (Atom)"))
            s.type("a2")
            s.enter()
            #expect(
                await s.waitFor("Comments (1 items, \(s.http.url("/blog/comments.xml").absoluteString)) - keep it? [y/n]"))
            s.type("y")
            #expect(await s.waitFor("Added Comments"))
            // The chooser is gone: the feed list is back, with the new feed.
            #expect(s.queue.sync { s.app.state.screen } == .feeds)
        }
    }

    @Test func aPageWithSeveralFeedsListsThemInAChooser() async throws {
        try await withDiscoveryPage(postsTitle: "All posts") { s in
            s.type("a" + s.page)
            s.enter()
            #expect(await s.waitFor("Zeader \(zeaderVersion) - Feeds of \(s.page)"))
            let lines = s.screen().split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines[1].contains("1  \(s.http.url("/posts.xml").absoluteString)  All posts  (RSS)"))
            #expect(lines[2].contains("2  \(s.http.url("/blog/comments.xml").absoluteString)  (Atom)"))
            #expect(s.queue.sync { s.app.state.picker?.kind } == .discoveredFeeds)
            // j moves the cursor, ENTER previews the feed under it.
            s.type("j")
            s.enter()
            #expect(
                await s.waitFor("Comments (1 items, \(s.http.url("/blog/comments.xml").absoluteString)) - keep it? [y/n]"))
            #expect(s.queue.sync { s.app.state.screen } == .feeds)
            s.type("y")
            #expect(await s.waitFor("Added Comments"))
            #expect(
                s.queue.sync { s.app.state.feeds.contains { $0.url == s.http.url("/blog/comments.xml").absoluteString } })
            // q leaves the chooser without adding anything.
            s.type("a" + s.page)
            s.enter()
            #expect(await s.waitFor("Zeader \(zeaderVersion) - Feeds of \(s.page)"))
            s.type("q")
            #expect(s.queue.sync { s.app.state.screen } == .feeds)
            #expect(s.queue.sync { s.app.state.picker } == nil)
        }
    }
}
