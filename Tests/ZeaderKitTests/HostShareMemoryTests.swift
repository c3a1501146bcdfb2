import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing

@testable import ZeaderKit

@Suite("Refresh: each host's share of transfers remembered between refreshes")
struct HostShareMemoryTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func sharesAreRememberedBesideOthersAndForgottenAfterTheirLifetime() throws {
        let store = try makeStore().container.store
        HostShareMemory.remember(["slow.example:443": 8], in: store, now: now)
        HostShareMemory.remember(["busy.example:80": 1], in: store, now: now.addingTimeInterval(3600))
        #expect(
            HostShareMemory.shares(in: store, now: now.addingTimeInterval(7200)) == ["slow.example:443": 8, "busy.example:80": 1])
        let later = now.addingTimeInterval(HostShareMemory.lifetime + 60)
        #expect(HostShareMemory.shares(in: store, now: later) == ["busy.example:80": 1], "the older share expired")
        HostShareMemory.remember(["busy.example:80": 2], in: store, now: later)
        #expect(
            HostShareMemory.shares(in: store, now: later.addingTimeInterval(HostShareMemory.lifetime - 60))
                == ["busy.example:80": 2], "a share confirmed again lives on")
    }

    @Test(arguments: ["", "not json", #"{"h:80": {"share": "eight"}}"#, #"{"h:80": {"share": 0, "learnt": 1800000000}}"#])
    func aDamagedValueCountsAsNone(value: String) throws {
        let store = try makeStore().container.store
        try store.setMetadata(value, forKey: HostShareMemory.metadataKey)
        #expect(HostShareMemory.shares(in: store, now: now).isEmpty)
        HostShareMemory.remember(["h:80": 8], in: store, now: now)
        #expect(HostShareMemory.shares(in: store, now: now) == ["h:80": 8])
    }

    @Test func aShareLearntInTheFutureIsNotTrusted() throws {
        let store = try makeStore().container.store
        HostShareMemory.remember(["h:80": 8], in: store, now: now.addingTimeInterval(86400))
        #expect(HostShareMemory.shares(in: store, now: now).isEmpty)
    }

    /// A host that answered slowly but surely in one refresh gets its earned share from the
    /// first request of the next: eight quick feeds then run eight at once, not four.
    @Test func theNextRefreshStartsAtTheShareTheHostEarned() async throws {
        try await withLoopbackServer({ request in
            let feed = rss(guids: ["\(request.path)-1"])
            return request.path.hasPrefix("/slow/") ? .delayed(seconds: 1.05, .ok(feed)) : .delayed(seconds: 0.3, .ok(feed))
        }) { http in
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            var options = testOptions(jobs: 8)
            options.fetcherConfiguration.idleTimeout = 10
            options.fetcherConfiguration.totalTimeout = 20
            // Shares grow only by answers here: what a wait grants is not remembered.
            options.fetcherConfiguration.hostPatience = nil
            let slow = (0..<5).map { http.url("/slow/\($0)").absoluteString }
            for url in slow { try library.add(url: url) }
            _ = try await FeedRefresher(store: store, options: options).refresh(urls: slow)
            #expect(http.maxInProgress == 4, "a host not heard from starts at four")
            let host = "127.0.0.1:\(http.port)"
            #expect(HostShareMemory.shares(in: store.container.store)[host] == 8)

            let quick = (0..<8).map { http.url("/quick/\($0)").absoluteString }
            for url in quick { try library.add(url: url) }
            let summary = try await FeedRefresher(store: store, options: options).refresh(urls: quick)
            #expect(summary.failures.isEmpty)
            #expect(http.maxInProgress == 8, "the earned share from the start")
        }
    }
}
