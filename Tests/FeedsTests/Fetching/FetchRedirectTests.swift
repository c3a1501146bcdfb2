import Foundation
import LoopbackHTTPServer
import Testing

@testable import Feeds

@Suite("FeedFetcher: redirects")
struct FetchRedirectTests {
    /// `/chain/N/STATUS` redirects with STATUS to `/chain/N-1/STATUS`; `/chain/0/…` is the feed.
    static func chain(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        let parts = request.path.split(separator: "/")
        switch parts.first {
        case "chain" where parts.count == 3:
            let hops = Int(parts[1]) ?? 0
            if hops == 0 { return .ok("<rss/>") }
            return .redirect(Int(parts[2]) ?? 302, to: "/chain/\(hops - 1)/\(parts[2])")  // relative Location
        case "mixed":  // 301, then 302, then the feed
            return .redirect(301, to: "/mixed-temporary")
        case "mixed-temporary":
            return .redirect(302, to: "/chain/0/x")
        case "loop-a":
            return .redirect(301, to: "/loop-b")
        case "loop-b":
            return .redirect(301, to: "/loop-a")
        case "dir":  // /dir/old.xml → feed.xml, relative to /dir/
            return parts.last == "old.xml" ? .redirect(301, to: "feed.xml") : .ok("<rss>\(request.path)</rss>")
        case "to-file":
            return .redirect(301, to: "file:///etc/passwd")
        default:
            return .status(404)
        }
    }

    @Test func threePermanentHopsReportTheNewURL() async throws {
        try await withLoopbackServer(Self.chain) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/chain/3/301")))
            #expect(outcome.body == Data("<rss/>".utf8))
            #expect(outcome.metadata?.finalURL == server.url("/chain/0/301"))
            #expect(outcome.metadata?.permanentRedirect == server.url("/chain/0/301"))
            #expect(server.requests.count == 4)
        }
    }

    @Test func permanent308HopsCountAsPermanent() async throws {
        try await withLoopbackServer(Self.chain) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/chain/2/308")))
            #expect(outcome.metadata?.permanentRedirect == server.url("/chain/0/308"))
        }
    }

    @Test(arguments: [302, 307])
    func temporaryHopsReportNoNewURL(status: Int) async throws {
        try await withLoopbackServer(Self.chain) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/chain/3/\(status)")))
            #expect(outcome.body == Data("<rss/>".utf8))
            #expect(outcome.metadata?.finalURL == server.url("/chain/0/\(status)"))
            #expect(outcome.metadata?.permanentRedirect == nil)
        }
    }

    @Test func oneTemporaryHopAmongPermanentOnesReportsNoNewURL() async throws {
        try await withLoopbackServer(Self.chain) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/mixed")))
            #expect(outcome.body == Data("<rss/>".utf8))
            #expect(outcome.metadata?.permanentRedirect == nil)
        }
    }

    @Test func exactlyTheLimitIsFollowed() async throws {
        try await withLoopbackServer(Self.chain) { server in
            let outcome = await makeTestFetcher(maxRedirects: 5).fetch(FeedRequest(url: server.url("/chain/5/301")))
            #expect(outcome.body == Data("<rss/>".utf8))
        }
    }

    @Test func moreThanTheLimitFails() async throws {
        try await withLoopbackServer(Self.chain) { server in
            let outcome = await makeTestFetcher(maxRedirects: 5).fetch(FeedRequest(url: server.url("/chain/6/301")))
            guard case .failed(.tooManyRedirects(let url, let limit)) = outcome else {
                Issue.record("expected tooManyRedirects, got \(outcome)")
                return
            }
            #expect(limit == 5)
            #expect(url == server.url("/chain/1/301"))
            #expect(server.requests.count == 6)  // the original request and 5 redirects, no more
        }
    }

    @Test func loopIsDetected() async throws {
        try await withLoopbackServer(Self.chain) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/loop-a")))
            #expect(outcome == .failed(.redirectLoop(url: server.url("/loop-b"))))
            #expect(server.requests.count == 2)
        }
    }

    @Test func redirectToAFileIsRefused() async throws {
        try await withLoopbackServer(Self.chain) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/to-file")))
            #expect(
                outcome == .failed(.unsupportedRedirect(from: server.url("/to-file"), to: URL(string: "file:///etc/passwd")!)))
        }
    }

    @Test func relativeLocationResolvesAgainstTheCurrentURL() async throws {
        try await withLoopbackServer(Self.chain) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/dir/old.xml")))
            #expect(outcome.body == Data("<rss>/dir/feed.xml</rss>".utf8))
            #expect(outcome.metadata?.permanentRedirect == server.url("/dir/feed.xml"))
        }
    }

    @Test func validatorsFollowTheRedirect() async throws {
        try await withLoopbackServer({ request in
            if request.path == "/old" { return .redirect(301, to: "/new") }
            return request.headers["if-none-match"] == "\"n1\""
                ? .respond(status: 304, headers: [], body: Data()) : .ok("<rss/>")
        }) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/old"), etag: "\"n1\""))
            guard case .notModified(let metadata) = outcome else {
                Issue.record("expected notModified, got \(outcome)")
                return
            }
            #expect(metadata.permanentRedirect == server.url("/new"))
        }
    }
}
