import Feeds
import Foundation
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

private let rssFeed =
    #"<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><item><guid>1</guid></item></channel></rss>"#

private func page(_ links: [String]) -> LoopbackHTTPServer.Reply {
    let tags = links.map { #"<link rel="alternate" type="application/rss+xml" href="\#($0)">"# }.joined()
    return .ok("<!DOCTYPE html><html><head><title>Blog</title>\(tags)</head><body>hi</body></html>", contentType: "text/html")
}

@Suite("Adding a web page finds its feeds", .serialized)
struct FeedFinderTests {
    let fetcher = FeedFetcher(configuration: FetcherConfiguration(version: "t", idleTimeout: 2, totalTimeout: 5))

    @Test func aFeedIsAFeed() async throws {
        try await withLoopbackServer({ _ in .ok(rssFeed) }) { http in
            guard case .feed(let feed, _) = await FeedFinder.find(http.url("/rss").absoluteString, with: fetcher) else {
                Issue.record("a feed is a feed")
                return
            }
            #expect(feed.title == "Blog")
        }
    }

    @Test func aPageNamesItsFeedsResolved() async throws {
        let routes = Routes()
        routes["/"] = page(["/feed.xml", "comments.xml"])
        try await withLoopbackServer(routes.handler) { http in
            let finding = await FeedFinder.find(http.url("/").absoluteString, with: fetcher)
            #expect(
                finding
                    == .page([
                        DiscoveredFeed(url: http.url("/feed.xml").absoluteString, type: "application/rss+xml"),
                        DiscoveredFeed(url: http.url("/comments.xml").absoluteString, type: "application/rss+xml"),
                    ]))
        }
    }

    @Test func aPageWithoutLinksIsSearchedAtTheCommonPaths() async throws {
        let routes = Routes()
        routes["/"] = page([])
        routes["/index.xml"] = .ok(rssFeed)
        routes["/feed"] = .ok("<html><body>not a feed</body></html>", contentType: "text/html")
        try await withLoopbackServer(routes.handler) { http in
            let finding = await FeedFinder.find(http.url("/").absoluteString, with: fetcher)
            #expect(finding == .page([DiscoveredFeed(url: http.url("/index.xml").absoluteString, title: "Blog")]))
            let asked = Set(http.requests.map(\.path))
            #expect(asked.isSuperset(of: ["/", "/feed", "/rss.xml", "/atom.xml", "/index.xml", "/feed.json"]))
        }
    }

    @Test func nothingFoundAndUnreachableAreTold() async throws {
        let routes = Routes()
        routes["/"] = page([])
        routes["/text"] = .ok("just words", contentType: "text/plain")
        try await withLoopbackServer(routes.handler) { http in
            #expect(await FeedFinder.find(http.url("/").absoluteString, with: fetcher) == .page([]))
            guard
                case .unreachable(.fetch(.httpStatus(404, _))) = await FeedFinder.find(
                    http.url("/nope").absoluteString, with: fetcher)
            else {
                Issue.record("a 404 is unreachable")
                return
            }
            guard case .notAFeed = await FeedFinder.find(http.url("/text").absoluteString, with: fetcher) else {
                Issue.record("plain text is not a feed")
                return
            }
        }
    }
}

@Suite("zeader add of a web page", .serialized)
struct AddDiscoveryCLITests {
    @Test func oneFeedIsSubscribedSeveralAreListedOrPicked() async throws {
        let routes = Routes()
        routes["/one"] = page(["/feed.xml"])
        routes["/two"] = page(["/feed.xml", "/comments.xml"])
        routes["/none"] = page([])
        routes["/feed.xml"] = .ok(rssFeed)
        routes["/comments.xml"] = .ok(rssFeed)
        try await withLoopbackServer(routes.handler) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite")
            let feed = http.url("/feed.xml").absoluteString
            let comments = http.url("/comments.xml").absoluteString
            try AssertCommand(
                ["add", http.url("/one").absoluteString], db: db,
                stdout: "added \(feed) (found on \(http.url("/one").absoluteString))\n")
            let two = http.url("/two").absoluteString
            try AssertCommand(
                ["add", two], db: db, status: 2, stdout: "1  \(feed)\n2  \(comments)\n",
                stderr: "zeader add: \(two) names 2 feeds (listed above); choose one with --pick N\n")
            try AssertCommand(
                ["add", two, "--pick", "3"], db: db, status: 2, stderr: "zeader add: --pick 3: \(two) names 2 feeds\n")
            try AssertCommand(
                ["add", two, "--pick", "2", "--tag", "news"], db: db, stdout: "added \(comments) (found on \(two))\n")
            try AssertCommand(["add", http.url("/none").absoluteString], db: db, status: 1, stderrContains: "names no feed")
            try AssertCommand(["add", feed], db: db, status: 1, stderr: "zeader add: already subscribed: \(feed)\n")
            try AssertCommand(
                ["add", http.url("/missing").absoluteString], db: db,
                stderrContains: "HTTP 404 Not Found); subscribed as given, the next refresh tries again")
            let list = try AssertCommand(["list"], db: db)
            #expect(list.stdout.contains(feed) && list.stdout.contains(comments) && list.stdout.contains("/missing"))
            #expect(!list.stdout.contains(two) && !list.stdout.contains("/none"))
        }
    }
}

@Suite("exec: feeds in the store", .serialized)
struct CommandFeedStoreTests {
    @Test func anExecFeedIsAddedRefreshedAndImportedFromAURLsFile() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let program = dir.appendingPathComponent("feed.sh")
        try writeExecutableScript("cat <<'EOF'\n\(rssFeed)\nEOF", to: program)
        let db = dir.appendingPathComponent("z.sqlite")
        let subscription = "exec:\(program.path) --flag"
        try AssertCommand(["add", subscription], db: db, stdout: "added \(subscription)\n")
        try AssertCommand(["refresh"], db: db, stdoutContains: "1 new item")
        let items = try AssertCommand(["items", "--json"], db: db)
        #expect(items.stdout.contains(#""feed":"\#(subscription)""#))
        try AssertCommand(["add", "exec:"], db: db, status: 2, stderrContains: "an exec: feed needs a command")

        let urls = dir.appendingPathComponent("urls")
        try "\"exec:\(program.path) --other\" news\n".write(to: urls, atomically: true, encoding: .utf8)
        try AssertCommand(["import", urls.path], db: db, stdoutContains: "imported 1 feed", stderrContains: "exec feed: it runs")
        try AssertCommand(["refresh"], db: db, stdoutContains: "2 feeds")
    }
}
