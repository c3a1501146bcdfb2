import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing

@testable import Feeds

/// Connection reuse and the per-host connection bound, counted as TCP connections on the
/// server's side.
@Suite("FeedFetcher: connection reuse")
struct FetchConnectionReuseTests {
    /// libcurl closes a connection left idle longer than `CURLOPT_MAXAGE_CONN` (118 s by
    /// default). On a machine loaded enough that a test's task waits that long to run again
    /// between two fetches (the whole suite in parallel on 2 cores), the next fetch rightly
    /// opens a new connection, and only then: a new connection must follow such a wait.
    static let curlMaxIdle = Duration.seconds(118)

    /// Counted by the connections that carried this test's requests (a path of its own), so
    /// that nothing else connecting to the port counts.
    @Test func feedsFetchedOneAfterAnotherShareOneConnection() async throws {
        try await withLoopbackServer(keepAlive: true, { request in .ok("<rss>\(request.path)</rss>") }) { server in
            let fetcher = makeTestFetcher()
            let prefix = "/reuse-\(UUID().uuidString)/feed/"
            var started: [ContinuousClock.Instant] = []
            for index in 0..<6 {
                started.append(.now)
                let outcome = await fetcher.fetch(FeedRequest(url: server.url(prefix + "\(index)")))
                #expect(outcome.body == Data("<rss>\(prefix)\(index)</rss>".utf8))
            }
            let ours = server.requests.filter { $0.path.hasPrefix(prefix) }
            #expect(ours.map(\.path) == (0..<6).map { prefix + "\($0)" })
            guard ours.count == 6 else { return }
            for index in 1..<6 where ours[index].connection != ours[index - 1].connection {
                let waited = started[index] - started[index - 1]
                #expect(
                    waited >= Self.curlMaxIdle - .seconds(8),
                    "keep-alive was offered: fetch \(index) should reuse the connection (\(waited) after the one before)")
            }
        }
    }

    /// The connection a fetch leaves open for the next one closes on exec: a program started
    /// meanwhile (an `exec:` feed, a browser) must not inherit it and hold it open.
    @Test func aKeptConnectionClosesOnExec() async throws {
        try await withLoopbackServer(keepAlive: true, { _ in .ok("<rss/>") }) { server in
            let fetcher = makeTestFetcher()
            let outcome = await fetcher.fetch(FeedRequest(url: server.url("/feed")))
            #expect(outcome.body == Data("<rss/>".utf8))
            let descriptors = Self.clientSockets(toPort: server.port)
            #expect(!descriptors.isEmpty, "no open connection to port \(server.port) after a keep-alive fetch")
            for descriptor in descriptors {
                #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0, "descriptor \(descriptor) is inherited by children")
            }
            withExtendedLifetime(fetcher) {}
        }
    }

    /// This process's descriptors of TCP sockets connected to 127.0.0.1:`port` (from
    /// /proc/net/tcp: field 2 is the remote ADDRESS:PORT in hex, field 9 the inode).
    static func clientSockets(toPort port: UInt16) -> [Int32] {
        let table = String(
            decoding: FileHandle(forReadingAtPath: "/proc/net/tcp").flatMap { try? $0.readToEnd() } ?? Data(), as: UTF8.self)
        var inodes = Set<String>()
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[2] == "0100007F:" + String(format: "%04X", port) else { continue }
            inodes.insert(String(fields[9]))
        }
        let directory = "/proc/self/fd"
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).compactMap { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(entry)"),
                target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst("socket:[".count).dropLast()))
            else { return nil }
            return Int32(entry)
        }
    }

    @Test func manyFeedsFromOneHostUseNoMoreConnectionsThanTheHostLimit() async throws {
        try await withLoopbackServer(keepAlive: true, { request in .delayed(seconds: 0.05, .ok("<rss/>")) }) { server in
            // A fixed share: on a loaded run slow answers would grow an adaptive one.
            let fetcher = makeTestFetcher(maxConcurrent: 8, maxHostConnections: 2)
            let fetched = Mutex(0)
            await fetcher.fetchAll((0..<12).map { FeedRequest(url: server.url("/feed/\($0)")) }) { _, outcome in
                if outcome.body != nil { fetched.withLock { $0 += 1 } }
            }
            #expect(fetched.withLock { $0 } == 12)
            #expect(server.requests.count == 12)
            #expect(server.connectionsAccepted <= 2, "12 requests over \(server.connectionsAccepted) connections")
        }
    }

    /// The control: a server that closes every connection gets one per request, so the
    /// counts above mean reuse and not a miscount.
    @Test func aServerThatClosesGetsAConnectionPerRequest() async throws {
        try await withLoopbackServer({ _ in .ok("<rss/>") }) { server in
            let fetcher = makeTestFetcher()
            for index in 0..<4 {
                #expect(await fetcher.fetch(FeedRequest(url: server.url("/feed/\(index)"))).body != nil)
            }
            #expect(server.connectionsAccepted == 4)
        }
    }

    /// Requests made one after another share one loop thread, which ends once none has
    /// come for the multi's linger.
    @Test func oneRequestAfterAnotherRunsOnOneThread() async throws {
        try await withLoopbackServer({ _ in .ok("<rss/>") }) { server in
            let limits = TransferLimits(FetcherConfiguration(version: "9.9-test", totalTimeout: 30))
            func fetch(_ index: Int, _ multi: CurlMulti) async -> Int? {
                let request = FeedRequest(url: server.url("/feed/\(index)"))
                guard let transfer = CurlTransfer(request: request, limits: limits, acceptHeader: "*/*") else { return nil }
                let result = await withCheckedContinuation { continuation in
                    transfer.continuation = continuation
                    multi.start(transfer)
                }
                if case .response(let response) = result { return response.status }
                return nil
            }
            // A linger longer than any pause between two requests, however loaded the machine
            // (its idle thread then waits in poll until the test process ends).
            let lingering = CurlMulti(maxPerHost: 2, maxConcurrent: 16, idleLinger: .seconds(3600))
            for index in 0..<5 { #expect(await fetch(index, lingering) == 200) }
            #expect(lingering.loopsStarted.load(ordering: .relaxed) == 1)
            let brief = CurlMulti(maxPerHost: 2, maxConcurrent: 16, idleLinger: .milliseconds(20))
            #expect(await fetch(5, brief) == 200)
            let deadline = ContinuousClock.now + .seconds(60)
            while brief.loopRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(!brief.loopRunning, "the thread ends once no transfer has come for its linger")
            #expect(await fetch(6, brief) == 200)
            #expect(brief.loopsStarted.load(ordering: .relaxed) == 2)
        }
    }

    /// `CURLMOPT_MAX_HOST_CONNECTIONS` on its own, without the fetcher's slot limiter in
    /// front: transfers handed to the multi handle all at once queue inside libcurl.
    @Test func theMultiHandleBoundsConnectionsPerHost() async throws {
        try await withLoopbackServer(keepAlive: true, { _ in .delayed(seconds: 0.1, .ok("<rss/>")) }) { server in
            let multi = CurlMulti(maxPerHost: 2, maxConcurrent: 16)
            let limits = TransferLimits(FetcherConfiguration(version: "9.9-test", totalTimeout: 30))
            let statuses = await withTaskGroup(of: Int?.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let request = FeedRequest(url: server.url("/feed/\(index)"))
                        guard let transfer = CurlTransfer(request: request, limits: limits, acceptHeader: "*/*") else {
                            return nil
                        }
                        let result = await withCheckedContinuation { continuation in
                            transfer.continuation = continuation
                            multi.start(transfer)
                        }
                        if case .response(let response) = result { return response.status }
                        return nil
                    }
                }
                return await group.reduce(into: [Int?]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 8))
            #expect(server.maxOpenConnections <= 2)
            #expect(server.maxInProgress <= 2)
            #expect(server.connectionsAccepted <= 2, "libcurl queues the rest and reuses the two connections")
        }
    }
}
