import Foundation
import LoopbackHTTPServer
import Testing

@testable import Feeds

/// Bodies that disagree with their `Content-Length`, and other numbers a server makes up.
@Suite("FeedFetcher: Content-Length and untrusted numbers")
struct FetchBodyLengthTests {
    static let feed = Data("<rss version=\"2.0\"><channel><title>t</title></channel></rss>".utf8)

    @Test func bodyShorterThanItsContentLengthIsKeptAndReported() async throws {
        // 10 bytes arrive, 1000 were announced, then the server closes the connection.
        try await withLoopbackServer({ _ in
            .declaring("1000", body: Self.feed.prefix(10), headers: [("ETag", "\"v1\"")])
        }) { server in
            let url = server.url("/short")
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: url))
            guard case .fetched(let body, let metadata) = outcome else {
                Issue.record("expected the partial body, got \(outcome)")
                return
            }
            #expect(body == Self.feed.prefix(10))
            #expect(metadata.bodyProblem == .incompleteBody(url: url, received: 10, expected: 1000))
            #expect(metadata.etag == nil)  // the next fetch must download the whole feed again
            let message = try #require(metadata.bodyProblem?.description)
            #expect(message.contains(url.absoluteString) && message.contains("10 of the 1000 bytes"))
        }
    }

    @Test func bodyLongerThanItsContentLengthIsReported() async throws {
        // libcurl stops reading at the declared length; what follows must not pass unnoticed.
        try await withLoopbackServer({ _ in .declaring("20", body: Self.feed) }) { server in
            let url = server.url("/long")
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: url))
            guard case .fetched(let body, let metadata) = outcome else {
                Issue.record("expected the declared part of the body, got \(outcome)")
                return
            }
            #expect(body == Self.feed.prefix(20))
            #expect(metadata.bodyProblem == .bodyLongerThanDeclared(url: url, declared: 20))
            #expect(metadata.bodyProblem?.description.contains(url.absoluteString) == true)
        }
    }

    @Test func chunkedBodyCutOffIsReported() async throws {
        let response = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n<rss>\r\n100\r\n<channel>"
        try await withLoopbackServer({ _ in .raw(Data(response.utf8)) }) { server in
            let url = server.url("/cut")
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: url))
            guard case .fetched(_, let metadata) = outcome,
                case .incompleteBody(let failedURL, _, let expected)? = metadata.bodyProblem
            else {
                Issue.record("expected a body with incompleteBody, got \(outcome)")
                return
            }
            #expect(failedURL == url)
            #expect(expected == nil)
        }
    }

    @Test func nothingArrivedIsAnError() async throws {
        // Headers announce 1000 bytes, none follow: there is nothing to keep.
        try await withLoopbackServer({ _ in .declaring("1000", body: Data()) }) { server in
            let url = server.url("/empty")
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: url))
            #expect(outcome == .failed(.incompleteBody(url: url, received: 0, expected: 1000)))
        }
    }

    @Test func exactContentLengthIsAccepted() async throws {
        try await withLoopbackServer({ _ in .declaring("\(Self.feed.count)", body: Self.feed) }) { server in
            #expect(await makeTestFetcher().fetch(FeedRequest(url: server.url("/exact"))).body == Self.feed)
        }
    }

    @Test func contentLengthBeyondInt64IsOverTheCap() async throws {
        let absurd = String(repeating: "9", count: 40)
        try await withLoopbackServer({ _ in .declaring(absurd, body: Self.feed) }) { server in
            let url = server.url("/absurd")
            let outcome = await makeTestFetcher(maxBodySize: 1 << 20).fetch(FeedRequest(url: url))
            #expect(outcome == .failed(.tooLarge(url: url, limit: 1 << 20)))
        }
    }

    @Test(arguments: ["-5", "abc", "1e3", ""])
    func nonsenseContentLengthFailsCleanly(value: String) async throws {
        try await withLoopbackServer({ _ in .declaring(value, body: Self.feed) }) { server in
            let url = server.url("/nonsense")
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: url))
            // libcurl refuses some of these and reads others to the end of the connection;
            // either way one outcome, naming the URL, and no crash.
            // ("1e3" is read as 1: one byte is kept and the rest reported.)
            if let error = outcome.error {
                #expect(error.url == url)
            } else if case .fetched(_, let metadata) = outcome, let problem = metadata.bodyProblem {
                #expect(problem.url == url)
            } else {
                #expect(outcome.body == Self.feed)
            }
        }
    }

    static let week: TimeInterval = 7 * 24 * 3600  // the test fetcher's maxRetryAfter
    static let absurdRetryAfters: [(String, TimeInterval)] = [
        (String(repeating: "9", count: 4000), week),  // clamped to the maximum
        ("99999999999", week),
        ("Fri, 31 Dec 9999 23:59:59 GMT", week),
        ("Mon, 01 Jan 0001 00:00:00 GMT", 0),  // in the past: now
        ("0", 0),
    ]

    @Test(arguments: absurdRetryAfters)
    func absurdRetryAfterIsClamped(value: String, expectedDelay: TimeInterval) async throws {
        try await withLoopbackServer({ _ in .status(503, headers: [("Retry-After", value)]) }) { server in
            let before = Date()
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/busy")))
            let after = Date()
            guard case .deferred(let until, _) = outcome else {
                Issue.record("expected deferred for Retry-After \(value.prefix(40)), got \(outcome)")
                return
            }
            // Counted from the moment the reply came, somewhere between before and after, however
            // long a loaded machine took to fetch; a wrong clamp is off by days.
            #expect(until >= before.addingTimeInterval(expectedDelay - 1))
            #expect(until <= after.addingTimeInterval(expectedDelay + 1))
        }
    }

    @Test(arguments: ["-1", "-99999999999999999999", "+5", "1.5", "NaN", "inf", "0x10"])
    func malformedRetryAfterIsAnHTTPError(value: String) async throws {
        try await withLoopbackServer({ _ in .status(429, headers: [("Retry-After", value)]) }) { server in
            let outcome = await makeTestFetcher().fetch(FeedRequest(url: server.url("/busy")))
            #expect(outcome == .failed(.httpStatus(429, url: server.url("/busy"))))
        }
    }

    /// Every number of the configuration at its most absurd: nothing traps, and a fetch still
    /// works within sane bounds.
    @Test func absurdConfigurationDoesNotTrap() async throws {
        let configuration = FetcherConfiguration(
            version: "9.9-test", maxConcurrent: Int.max, maxPerHost: Int.min, maxRedirects: Int.max,
            idleTimeout: .infinity, totalTimeout: .nan, maxBodySize: Int.max, maxRetryAfter: .infinity)
        let limits = TransferLimits(configuration)
        #expect(limits.idleSeconds == TransferLimits.longestTimeoutSeconds)
        #expect(limits.totalMilliseconds == 1)
        #expect(limits.maxBodySize == Int.max && limits.maxRedirects == Int.max)
        let negative = TransferLimits(
            FetcherConfiguration(version: "x", idleTimeout: -.infinity, totalTimeout: 1e300, maxBodySize: -1))
        #expect(negative.idleSeconds == 1 && negative.maxBodySize == 0)
        #expect(negative.totalMilliseconds == TransferLimits.longestTimeoutSeconds * 1000)

        try await withLoopbackServer({ request in
            request.path == "/busy" ? .status(429, headers: [("Retry-After", "99999999999")]) : .ok("<rss/>")
        }) { server in
            var sane = configuration
            sane.totalTimeout = .infinity
            let fetcher = FeedFetcher(configuration: sane)
            #expect(await fetcher.fetch(FeedRequest(url: server.url("/feed"))).body == Data("<rss/>".utf8))
            guard case .deferred(let until, _) = await fetcher.fetch(FeedRequest(url: server.url("/busy"))) else {
                Issue.record("expected deferred")
                return
            }
            #expect(until.timeIntervalSinceNow <= HTTPHeaderValues.longestRetryAfter + 1)
        }
        // Descriptions of absurd timeouts do not trap either.
        let url = URL(string: "http://127.0.0.1/")!
        for seconds in [TimeInterval.infinity, .nan, -.infinity, 1e300, -1e300] {
            #expect(!FetchError.timedOut(url: url, seconds: seconds, kind: .total).description.isEmpty)
        }
    }

    @Test func validatorsWithLineBreaksAreNotSent() async throws {
        try await withLoopbackServer({ _ in .ok("<rss/>") }) { server in
            let request = FeedRequest(
                url: server.url("/inject"), etag: "\"v1\"\r\nX-Injected: 1", lastModified: "Sun\nX-Also: 1")
            #expect(await makeTestFetcher().fetch(request).body == Data("<rss/>".utf8))
            let received = try #require(server.requests.first)
            #expect(received.headers["x-injected"] == nil && received.headers["x-also"] == nil)
            #expect(received.headers["if-none-match"] == nil && received.headers["if-modified-since"] == nil)
        }
    }
}
