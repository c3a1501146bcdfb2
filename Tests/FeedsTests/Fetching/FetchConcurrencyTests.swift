import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing

@testable import Feeds

@Suite("FeedFetcher: concurrency limits")
struct FetchConcurrencyTests {
    @Test func neverMoreThanMaxPerHostToOneHost() async throws {
        try await withLoopbackServer({ request in .delayed(seconds: 0.15, .ok("<rss>\(request.path)</rss>")) }) {
            server in
            // A fixed share: on a loaded run slow answers would grow an adaptive one.
            let fetcher = makeTestFetcher(maxConcurrent: 8, maxHostConnections: 2)
            let requests = (0..<12).map { FeedRequest(url: server.url("/feed/\($0)")) }
            let results = Mutex<[URL: FetchOutcome]>([:])
            await fetcher.fetchAll(requests) { request, outcome in
                results.withLock { $0[request.url] = outcome }
            }
            let collected = results.withLock { $0 }
            #expect(collected.count == 12)
            for (index, request) in requests.enumerated() {
                #expect(collected[request.url]?.body == Data("<rss>/feed/\(index)</rss>".utf8))
            }
            #expect(server.maxInProgress <= 2)
            #expect(server.maxInProgress == 2, "the fetcher should use the slots it has")
        }
    }

    @Test func neverMoreThanMaxConcurrentOverAllHosts() async throws {
        let gauge = ConcurrencyGauge()
        let handler: @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply = { _ in
            .delayed(seconds: 0.15, .ok("<rss/>"))
        }
        try await withLoopbackServer(gauge: gauge, handler) { first in
            try await withLoopbackServer(gauge: gauge, handler) { second in
                try await withLoopbackServer(gauge: gauge, handler) { third in
                    let fetcher = makeTestFetcher(maxConcurrent: 3, maxHostConnections: 2)
                    let requests = [first, second, third].flatMap { server in
                        (0..<4).map { FeedRequest(url: server.url("/f/\($0)")) }
                    }
                    let count = Mutex(0)
                    await fetcher.fetchAll(requests) { _, outcome in
                        if outcome.body != nil { count.withLock { $0 += 1 } }
                    }
                    #expect(count.withLock { $0 } == 12)
                    #expect(gauge.maximum <= 3)
                    #expect(gauge.maximum == 3, "three hosts should run three at once")
                    for server in [first, second, third] { #expect(server.maxInProgress <= 2) }
                }
            }
        }
    }

    @Test func oneFailingFeedDoesNotDisturbTheOthers() async throws {
        try await withLoopbackServer({ request in
            request.path == "/bad" ? .status(500) : .ok("<rss/>")
        }) { server in
            let paths = ["/a", "/bad", "/b", "/c"]
            let results = Mutex<[String: FetchOutcome]>([:])
            await makeTestFetcher().fetchAll(paths.map { FeedRequest(url: server.url($0)) }) { request, outcome in
                results.withLock { $0[request.url.path] = outcome }
            }
            let collected = results.withLock { $0 }
            #expect(collected["/bad"] == .failed(.httpStatus(500, url: server.url("/bad"))))
            for path in ["/a", "/b", "/c"] { #expect(collected[path]?.body == Data("<rss/>".utf8)) }
        }
    }
}
