import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing

@testable import Feeds

@Suite("FeedFetcher: each host's share learnt from its answers")
struct HostConnectionLimitsTests {
    let host = "feeds.example:443"

    @Test func aHostStartsAtItsStartingShare() {
        let limits = HostConnectionLimits(start: 4, ceiling: 8)
        #expect(limits.limit(for: host) == 4)
        #expect(limits.limit(for: "other:80") == 4)
    }

    @Test func aSlowButSureHostDoublesItsShareUpToTheCeiling() {
        var limits = HostConnectionLimits(start: 3, ceiling: 8)
        limits.record(.succeeded(seconds: 2, multiplexed: false), for: host)
        #expect(limits.limit(for: host) == 6)
        limits.record(.succeeded(seconds: 1, multiplexed: false), for: host)
        #expect(limits.limit(for: host) == 8)
        limits.record(.succeeded(seconds: 30, multiplexed: false), for: host)
        #expect(limits.limit(for: host) == 8)
        #expect(limits.limit(for: "other:80") == 3, "another host keeps its own share")
    }

    @Test(arguments: [
        HostConnectionLimits.Answer.succeeded(seconds: 0.2, multiplexed: false),
        .succeeded(seconds: 0.999, multiplexed: false), .failed,
    ])
    func aQuickAnswerOrAFailureChangesNothing(answer: HostConnectionLimits.Answer) {
        var limits = HostConnectionLimits(start: 4, ceiling: 8)
        for _ in 0..<5 { limits.record(answer, for: host) }
        #expect(limits.limit(for: host) == 4)
    }

    @Test func aHostNotHeardFromGrowsWhileUnansweredUntilItsFirstAnswer() {
        var limits = HostConnectionLimits(start: 3, ceiling: 8)
        let grew = limits.recordUnanswered(host)
        #expect(grew)
        #expect(limits.limit(for: host) == 6)
        let grewAgain = limits.recordUnanswered(host)
        #expect(grewAgain)
        #expect(limits.limit(for: host) == 8)
        let grewPastCeiling = limits.recordUnanswered(host)
        #expect(!grewPastCeiling, "never past the ceiling")
        #expect(limits.learnt.isEmpty, "a wait teaches a later run nothing")

        limits.record(.succeeded(seconds: 0.2, multiplexed: false), for: host)
        #expect(limits.limit(for: host) == 3, "a quick first answer ends the grown share")
        let grewAfterAnswer = limits.recordUnanswered(host)
        #expect(!grewAfterAnswer, "a host heard from grows only by its answers")
        #expect(limits.limit(for: host) == 3)

        limits.recordUnanswered("slow:80")
        limits.record(.succeeded(seconds: 2, multiplexed: false), for: "slow:80")
        #expect(limits.limit(for: "slow:80") == 6, "a slow answer doubles the starting share")
        limits.recordUnanswered("busy:80")
        limits.record(.throttled, for: "busy:80")
        #expect(limits.limit(for: "busy:80") == 1)
        limits.recordUnanswered("down:80")
        limits.record(.failed, for: "down:80")
        #expect(limits.limit(for: "down:80") == 3)
    }

    @Test func aKnownShareOrAFixedNumberDoesNotGrowUnanswered() {
        var known = HostConnectionLimits(start: 4, ceiling: 8, known: [host: 1])
        let knownGrew = known.recordUnanswered(host)
        #expect(!knownGrew, "it answered 429 in an earlier run")
        #expect(known.limit(for: host) == 1)
        var fixed = HostConnectionLimits(start: 2, ceiling: 2)
        let fixedGrew = fixed.recordUnanswered(host)
        #expect(!fixedGrew)
        #expect(fixed.limit(for: host) == 2)
    }

    /// Six transfers to a host that never answers: with patience, the limiter lets all six
    /// run; without, only the starting two.
    @Test(arguments: [(.milliseconds(100), 6), (nil, 2)] as [(Duration?, Int)])
    func aHostWithNoAnswerYetGetsMoreAfterThePatience(patience: Duration?, running: Int) async throws {
        let limiter = ConnectionLimiter(maxConcurrent: 6, maxPerHost: 2, hostCeiling: 6, patience: patience)
        let acquired = ConcurrencyGauge()  // slots held: none is given back here
        let host = self.host
        let tasks = (0..<6).map { _ in
            Task {
                if await limiter.acquire(host: host) { acquired.enter() }
            }
        }
        // No deadline that a loaded test process could miss: the wait ends when all six
        // run, or (without patience) one second after the first two.
        let started = Date()
        while acquired.maximum < running, Date().timeIntervalSince(started) < 600 {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .seconds(1))
        #expect(acquired.maximum == running)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    @Test func theFetcherPassesItsPatienceOn() {
        var configuration = FetcherConfiguration(version: "9.9-test")
        #expect(FeedFetcher(configuration: configuration).limiter.patience == .milliseconds(250))
        configuration.hostPatience = 1.5
        #expect(FeedFetcher(configuration: configuration).limiter.patience == .milliseconds(1500))
        configuration.hostPatience = nil
        #expect(FeedFetcher(configuration: configuration).limiter.patience == nil)
    }

    @Test func aMultiplexingHostGetsTheCeilingAtOnce() {
        var limits = HostConnectionLimits(start: 4, ceiling: 16)
        limits.record(.succeeded(seconds: 0.01, multiplexed: true), for: host)
        #expect(limits.limit(for: host) == 16)
    }

    @Test func aThrottlingHostGetsOneAtATimeForGood() {
        var limits = HostConnectionLimits(start: 4, ceiling: 8)
        limits.record(.succeeded(seconds: 0.01, multiplexed: true), for: host)
        limits.record(.throttled, for: host)
        #expect(limits.limit(for: host) == 1)
        for answer in [
            HostConnectionLimits.Answer.succeeded(seconds: 5, multiplexed: false),
            .succeeded(seconds: 0.01, multiplexed: true), .failed,
        ] {
            limits.record(answer, for: host)
            #expect(limits.limit(for: host) == 1)
        }
    }

    @Test(arguments: [(0, 0, 1, 1), (4, 2, 2, 2), (-3, 5, 1, 5), (4, 8, 4, 8)])
    func sharesAreAtLeastOneAndTheStartAtMostTheCeiling(start: Int, ceiling: Int, wantStart: Int, wantCeiling: Int) {
        let limits = HostConnectionLimits(start: start, ceiling: ceiling)
        #expect(limits.start == wantStart)
        #expect(limits.ceiling == wantCeiling)
    }

    @Test func theConfigurationAdaptsUnlessTheNumberIsFixed() {
        var configuration = FetcherConfiguration(version: "1", maxConcurrent: 8, maxPerHost: 4)
        #expect(configuration.hostLimits == (4, 8))
        configuration.maxConcurrent = 2
        #expect(configuration.hostLimits == (4, 4), "never below the starting share")
        configuration.maxHostConnections = 3
        #expect(configuration.hostLimits == (3, 3))
        configuration.maxHostConnections = 0
        #expect(configuration.hostLimits == (1, 1))
    }

    @Test(arguments: [(200, true), (304, true), (429, false), (503, false), (500, false), (404, false)])
    func whatAnAnswerTellsTheLimiter(status: Int, succeeded: Bool) {
        var response = HTTPResponse(
            status: status, headers: [:], finalURL: URL(string: "http://a/")!, body: Data(), redirectCount: 0,
            allRedirectsPermanent: false)
        response.httpVersion = "1.1"
        let answer = FeedFetcher.answer(of: .response(response), after: .seconds(2))
        switch status {
        case 429, 503: #expect(answer == .throttled)
        default: #expect(answer == (succeeded ? .succeeded(seconds: 2, multiplexed: false) : .failed))
        }
        response.httpVersion = "2"
        if succeeded {
            #expect(
                FeedFetcher.answer(of: .response(response), after: .milliseconds(5))
                    == .succeeded(seconds: 0.005, multiplexed: true))
        }
        #expect(FeedFetcher.answer(of: .failure(.cancelled(url: URL(string: "http://a/")!)), after: .seconds(3)) == .failed)
    }

    /// Many feeds on one host that answers each after over a second: the fetcher runs more
    /// of them at once than its starting share once the first answers have come.
    @Test func manyFeedsOnOneSlowHostGetMoreThanTheStartingShare() async throws {
        try await withLoopbackServer({ _ in .delayed(seconds: 1.05, .ok("<rss/>")) }) { server in
            let fetcher = makeTestFetcher(maxConcurrent: 6, maxPerHost: 2)
            let requests = (0..<12).map { FeedRequest(url: server.url("/feed/\($0)")) }
            let fetched = Mutex(0)
            await fetcher.fetchAll(requests) { _, outcome in
                if outcome.body != nil { fetched.withLock { $0 += 1 } }
            }
            #expect(fetched.withLock { $0 } == 12)
            #expect(server.maxInProgress > 2)
            #expect(server.maxInProgress <= 6)
        }
    }

    /// The same host with the number fixed (`max-host-connections`): never more than that.
    @Test func aFixedNumberIsNeverPassed() async throws {
        try await withLoopbackServer({ _ in .delayed(seconds: 1.05, .ok("<rss/>")) }) { server in
            var configuration = FetcherConfiguration(version: "9.9-test", maxConcurrent: 6, maxPerHost: 4)
            configuration.maxHostConnections = 2
            let fetcher = FeedFetcher(configuration: configuration)
            await fetcher.fetchAll((0..<8).map { FeedRequest(url: server.url("/feed/\($0)")) }) { _, _ in }
            #expect(server.maxInProgress == 2)
            #expect(server.requests.count == 8)
        }
    }

    /// A host that answers 429 is sent one request at a time from then on.
    @Test func aHostAnswering429IsSentOneRequestAtATime() async throws {
        try await withLoopbackServer({ request in
            request.path == "/first" ? .status(429) : .delayed(seconds: 0.1, .ok("<rss/>"))
        }) { server in
            let fetcher = makeTestFetcher(maxConcurrent: 8, maxPerHost: 4)
            _ = await fetcher.fetch(FeedRequest(url: server.url("/first")))
            #expect(await fetcher.limiter.limit(for: "127.0.0.1:\(server.port)") == 1)
            let fetched = Mutex(0)
            await fetcher.fetchAll((0..<6).map { FeedRequest(url: server.url("/feed/\($0)")) }) { _, outcome in
                if outcome.body != nil { fetched.withLock { $0 += 1 } }
            }
            #expect(fetched.withLock { $0 } == 6)
            #expect(server.maxInProgress == 1)
        }
    }
}

@Suite("FeedFetcher: shares learnt by an earlier fetcher")
struct KnownHostSharesTests {
    let host = "feeds.example:443"

    @Test func aKnownHostStartsAtItsShareWithinTheCeiling() {
        let limits = HostConnectionLimits(start: 4, ceiling: 6, known: [host: 8, "low:80": 0, "one:80": 1])
        #expect(limits.limit(for: host) == 6)
        #expect(limits.limit(for: "low:80") == 1)
        #expect(limits.limit(for: "one:80") == 1)
        #expect(limits.limit(for: "new:80") == 4)
        #expect(limits.learnt.isEmpty, "nothing learnt before an answer")
    }

    @Test func onlyAnswersTeachAndAKnownThrottledHostMayGrowAgain() {
        var limits = HostConnectionLimits(start: 4, ceiling: 8, known: [host: 1])
        limits.record(.succeeded(seconds: 0.1, multiplexed: false), for: "quick:80")
        limits.record(.failed, for: "down:80")
        #expect(limits.learnt.isEmpty)
        limits.record(.succeeded(seconds: 2, multiplexed: false), for: host)
        #expect(limits.limit(for: host) == 2, "a 429 in an earlier run is not a 429 for good")
        limits.record(.throttled, for: "busy:80")
        #expect(limits.learnt == [host: 2, "busy:80": 1])
    }

    /// A fetcher told a host's share runs that many at once from its first request, though
    /// the host answers too quickly to earn it again.
    @Test func aFetcherStartsAtTheKnownShare() async throws {
        try await withLoopbackServer({ _ in .delayed(seconds: 0.3, .ok("<rss/>")) }) { server in
            let hostKey = "127.0.0.1:\(server.port)"
            var configuration = FetcherConfiguration(version: "9.9-test", maxConcurrent: 6, maxPerHost: 2)
            configuration.knownHostShares = [hostKey: 6]
            let fetcher = FeedFetcher(configuration: configuration)
            await fetcher.fetchAll((0..<6).map { FeedRequest(url: server.url("/feed/\($0)")) }) { _, _ in }
            #expect(server.maxInProgress == 6)
        }
    }
}
