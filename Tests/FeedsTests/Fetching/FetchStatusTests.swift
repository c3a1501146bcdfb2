import Foundation
import Glibc
import LoopbackHTTPServer
import Testing

@testable import Feeds

@Suite("FeedFetcher: statuses, validators, gzip, headers")
struct FetchStatusTests {
    static let feed = "<rss version=\"2.0\"><channel><title>t</title></channel></rss>"

    @Test func okReturnsBodyAndMetadata() async throws {
        try await withLoopbackServer({ _ in
            .respond(
                status: 200,
                headers: [
                    ("Content-Type", "application/rss+xml; charset=\"ISO-8859-1\""), ("ETag", "\"v1\""),
                    ("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT"),
                ], body: Data(Self.feed.utf8))
        }) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/feed.xml")))
            #expect(outcome.body == Data(Self.feed.utf8))
            let metadata = try #require(outcome.metadata)
            #expect(metadata.status == 200)
            #expect(metadata.finalURL == server.url("/feed.xml"))
            #expect(metadata.permanentRedirect == nil)
            #expect(metadata.etag == "\"v1\"")
            #expect(metadata.lastModified == "Sun, 06 Nov 1994 08:49:37 GMT")
            #expect(metadata.contentType == "application/rss+xml")
            #expect(metadata.charset == "iso-8859-1")
        }
    }

    @Test func sendsUserAgentAndAcceptsGzip() async throws {
        try await withLoopbackServer({ _ in .ok(Self.feed) }) { server in
            _ = await makeTestFetcher().fetch(FeedRequest(url: server.url("/ua")))
            let request = try #require(server.requests.first)
            #expect(request.headers["user-agent"] == "zeader/9.9-test")
            #expect(request.headers["accept-encoding"]?.contains("gzip") == true)
            #expect(request.headers["accept"]?.contains("application/rss+xml") == true)
            #expect(request.headers["if-none-match"] == nil)
            #expect(request.headers["if-modified-since"] == nil)
        }
    }

    @Test func etagMatchGivesNotModified() async throws {
        try await withLoopbackServer({ request in
            request.headers["if-none-match"] == "\"v7\""
                ? .respond(status: 304, headers: [("ETag", "\"v7\"")], body: Data())
                : .respond(status: 200, headers: [("ETag", "\"v7\"")], body: Data(Self.feed.utf8))
        }) { server in
            let fetcher = makeTestFetcher()
            let first = await fetcher.fetch(FeedRequest(url: server.url("/e")))
            let etag = try #require(first.metadata?.etag)
            let second = await fetcher.fetch(FeedRequest(url: server.url("/e"), etag: etag))
            guard case .notModified(let metadata) = second else {
                Issue.record("expected notModified, got \(second)")
                return
            }
            #expect(metadata.status == 304)
            #expect(metadata.etag == "\"v7\"")
            #expect(server.requests.last?.headers["if-none-match"] == "\"v7\"")
        }
    }

    @Test func lastModifiedMatchGivesNotModifiedKeepingValidators() async throws {
        let stamp = "Wed, 21 Oct 2015 07:28:00 GMT"
        try await withLoopbackServer({ request in
            // The 304 carries no validators: the fetcher must hand back the ones it sent.
            request.headers["if-modified-since"] == stamp
                ? .respond(status: 304, headers: [], body: Data())
                : .respond(status: 200, headers: [("Last-Modified", stamp)], body: Data(Self.feed.utf8))
        }) { server in
            let fetcher = makeTestFetcher()
            let first = await fetcher.fetch(FeedRequest(url: server.url("/lm")))
            #expect(first.metadata?.lastModified == stamp)
            let second = await fetcher.fetch(FeedRequest(url: server.url("/lm"), etag: "\"x\"", lastModified: stamp))
            guard case .notModified(let metadata) = second else {
                Issue.record("expected notModified, got \(second)")
                return
            }
            #expect(metadata.lastModified == stamp)
            #expect(metadata.etag == "\"x\"")
        }
    }

    @Test func gzipBodyArrivesDecoded() async throws {
        let text = String(repeating: "<item><title>gzip</title></item>\n", count: 5000)  // > one stored block
        let compressed = gzipStored(Data(text.utf8))
        try await withLoopbackServer({ _ in
            .respond(
                status: 200, headers: [("Content-Type", "application/xml"), ("Content-Encoding", "gzip")],
                body: compressed)
        }) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/gz")))
            #expect(outcome.body == Data(text.utf8))
        }
    }

    @Test(arguments: [404, 500, 502, 403])
    func errorStatusesFailNamingStatusAndURL(status: Int) async throws {
        try await withLoopbackServer({ _ in .status(status) }) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/missing")))
            #expect(outcome == .failed(.httpStatus(status, url: server.url("/missing"))))
            let description = try #require(outcome.error?.description)
            #expect(description.contains("HTTP \(status)"))
            #expect(description.contains(server.url("/missing").absoluteString))
        }
    }

    @Test func goneIsReported() async throws {
        try await withLoopbackServer({ _ in .status(410) }) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/old")))
            guard case .gone(let metadata) = outcome else {
                Issue.record("expected gone, got \(outcome)")
                return
            }
            #expect(metadata.status == 410)
        }
    }

    @Test func tooManyRequestsHonoursRetryAfterSeconds() async throws {
        try await withLoopbackServer({ _ in .status(429, headers: [("Retry-After", "120")]) }) { server in
            let before = Date()
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/busy")))
            guard case .deferred(let until, let metadata) = outcome else {
                Issue.record("expected deferred, got \(outcome)")
                return
            }
            let after = Date()
            #expect(metadata?.status == 429)
            // 120 s after the response arrived, which was between `before` and `after`
            // (a loaded machine may take a while to answer).
            #expect(until.timeIntervalSince(before) >= 119 && until.timeIntervalSince(after) <= 121)
        }
    }

    @Test func unavailableHonoursRetryAfterHTTPDate() async throws {
        let target = Date().addingTimeInterval(3600)
        let stamp = HTTPHeaderValues.formatHTTPDate(target)
        try await withLoopbackServer({ _ in .status(503, headers: [("Retry-After", stamp)]) }) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/maint")))
            guard case .deferred(let until, let metadata) = outcome else {
                Issue.record("expected deferred, got \(outcome)")
                return
            }
            #expect(metadata?.status == 503)
            #expect(abs(until.timeIntervalSince(target)) < 2)  // HTTP-dates have whole seconds
        }
    }

    @Test func unavailableWithoutRetryAfterIsAFailure() async throws {
        try await withLoopbackServer({ _ in .status(503) }) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/down")))
            #expect(outcome == .failed(.httpStatus(503, url: server.url("/down"))))
        }
    }

    @Test func notBeforeInTheFutureSendsNothing() async throws {
        try await withLoopbackServer({ _ in .ok(Self.feed) }) { server in
            let later = Date().addingTimeInterval(600)
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/wait"), notBefore: later))
            #expect(outcome == .deferred(until: later, nil))
            #expect(server.requests.isEmpty)
            let past = await makeTestFetcher().fetch(
                FeedRequest(url: server.url("/wait"), notBefore: Date().addingTimeInterval(-1)))
            #expect(past.body == Data(Self.feed.utf8))
        }
    }

    @Test func refusedConnectionIsATransportError() async throws {
        // A port bound but not listening refuses connections, and stays ours while the test
        // runs (a stopped server's port could be taken by another test's server meanwhile).
        let socket = Glibc.socket(AF_INET, closeOnExecStream, 0)
        #expect(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        #expect(bound)
        let url = try #require(URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/closed"))
        let outcome = await makeTestFetcher().fetch(FeedRequest(url: url))
        guard case .failed(.transport(let failedURL, let message)) = outcome else {
            Issue.record("expected transport error, got \(outcome)")
            return
        }
        #expect(failedURL == url)
        #expect(!message.isEmpty)
    }

    @Test func unsupportedSchemesAndHostlessURLsFail() async {
        let fetcher = makeTestFetcher()
        let ftp = URL(string: "ftp://127.0.0.1/feed")!
        #expect(await fetcher.fetch(FeedRequest(url: ftp)) == .failed(.unsupportedScheme(ftp)))
        let hostless = URL(string: "http:///feed")!
        #expect(await fetcher.fetch(FeedRequest(url: hostless)).error == .invalidURL(hostless, reason: "no host"))
    }

    /// One header line past libcurl's buffer (in a 200 and in a redirect), and many short
    /// lines past the fetcher's own cap: each named as a header too long, never "out of memory".
    @Test(arguments: [("200 OK", 150 * 1024, 1), ("302 Found", 101 * 1024, 1), ("200 OK", 1000, 300)])
    func aHeaderTooLongIsNamedSo(statusLine: String, length: Int, count: Int) async throws {
        let headers = (0..<count).map { "X-Long-\($0): \(String(repeating: "x", count: length))\r\n" }.joined()
        let response = "HTTP/1.1 \(statusLine)\r\nLocation: /elsewhere\r\n\(headers)Content-Length: 6\r\n\r\n<rss/>"
        try await withLoopbackServer({ _ in .raw(Data(response.utf8)) }) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/feed")))
            guard case .failed(.headersTooLarge(let url, _)) = outcome else {
                Issue.record("expected headersTooLarge, got \(outcome)")
                return
            }
            #expect(url == server.url("/feed"))
            let message = try #require(outcome.error?.description)
            #expect(message.contains("header longer than"))
            #expect(!message.contains("memory"))
        }
    }
}
