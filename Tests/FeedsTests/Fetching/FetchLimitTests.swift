import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing

@testable import Feeds

// Serialized: the full-speed flood takes both CPUs for a second or more and would skew the
// timeout measurements running beside it.
@Suite("FeedFetcher: timeouts, size cap, cancellation", .serialized)
struct FetchLimitTests {
    @Test func stalledServerTimesOutOnTheIdleClock() async throws {
        // The stall and the total clock are far off: on a loaded machine the idle clock has been
        // seen to fire after 8 s (CI) and later, and the test must still tell the clocks apart.
        try await withLoopbackServer({ _ in .stall(seconds: 300) }) { server in
            let fetcher = makeTestFetcher(idleTimeout: 1, totalTimeout: 240)
            let (outcome, seconds) = await measure { await fetcher.fetch(FeedRequest(url: server.url("/stall"))) }
            #expect(outcome == .failed(.timedOut(url: server.url("/stall"), seconds: 1, kind: .idle)))
            // The outcome names the clock that fired (a stall that ended by itself would not be a
            // timeout); no upper bound, since a parallel run can delay the task's resumption.
            #expect(seconds >= 0.9, "idle timeout of 1 s took \(seconds) s")
            print("measured: idle timeout 1 s fired after \(String(format: "%.2f", seconds)) s")
        }
    }

    @Test func unansweredConnectTimesOutOnTheIdleClock() async throws {
        let hole = try UnacceptingListener()
        defer { hole.close() }
        let fetcher = makeTestFetcher(idleTimeout: 1, totalTimeout: 20)
        let (outcome, seconds) = await measure { await fetcher.fetch(FeedRequest(url: hole.url("/never"))) }
        #expect(outcome == .failed(.timedOut(url: hole.url("/never"), seconds: 1, kind: .idle)))
        #expect(seconds >= 0.9 && seconds < 19, "connect timeout of 1 s took \(seconds) s")
        print("measured: connect (idle) timeout 1 s fired after \(String(format: "%.2f", seconds)) s")
    }

    @Test func tricklingServerTimesOutOnTheTotalClock() async throws {
        // A byte every 0.3 s keeps the idle clock from firing; the total clock must.
        try await withLoopbackServer({ _ in .trickle(chunk: Data("<".utf8), interval: 0.3, count: 200) }) { server in
            let fetcher = makeTestFetcher(idleTimeout: 3, totalTimeout: 1.5)
            let (outcome, seconds) = await measure { await fetcher.fetch(FeedRequest(url: server.url("/slow"))) }
            #expect(outcome == .failed(.timedOut(url: server.url("/slow"), seconds: 1.5, kind: .total)))
            #expect(seconds >= 1.4 && seconds < 28, "total timeout of 1.5 s took \(seconds) s")
            print("measured: total timeout 1.5 s fired after \(String(format: "%.2f", seconds)) s")
        }
    }

    @Test func endlessBodyIsCutAtTheCap() async throws {
        try await withLoopbackServer({ _ in .endless() }) { server in
            let cap = 512 * 1024
            let fetcher = makeTestFetcher(idleTimeout: 5, totalTimeout: 30, maxBodySize: cap)
            let (outcome, seconds) = await measure { await fetcher.fetch(FeedRequest(url: server.url("/endless"))) }
            #expect(outcome == .failed(.tooLarge(url: server.url("/endless"), limit: cap)))
            try await Self.expectTransferEnded(server)
            // The cap is checked on every write: past it, only what the socket buffers held.
            #expect(server.bytesSent < 8 * 1024 * 1024, "server sent \(server.bytesSent) bytes for a \(cap)-byte cap")
            print(
                "measured: endless body aborted after \(String(format: "%.2f", seconds)) s, server sent \(server.bytesSent) bytes"
            )
        }
    }

    @Test func endlessChunkedBodyIsCutAtTheCap() async throws {
        try await withLoopbackServer({ _ in .endlessChunked() }) { server in
            let cap = 512 * 1024
            let fetcher = makeTestFetcher(idleTimeout: 5, totalTimeout: 30, maxBodySize: cap)
            let outcome = await fetcher.fetch(FeedRequest(url: server.url("/chunked")))
            #expect(outcome == .failed(.tooLarge(url: server.url("/chunked"), limit: cap)))
            #expect(outcome.error?.description.contains("\(cap) bytes") == true)
            try await Self.expectTransferEnded(server)
            #expect(server.bytesSent < 8 * 1024 * 1024, "server sent \(server.bytesSent) bytes for a \(cap)-byte cap")
        }
    }

    /// Full speed over loopback, with the production cap: memory stays bounded by the cap
    /// (URLSession reached gigabytes here: it went on reading for seconds after a cancel and
    /// queued what it read), and the transfer does stop.
    @Test(arguments: [LoopbackHTTPServer.Reply.endless(fullSpeed: true), .endlessChunked(fullSpeed: true)])
    func fullSpeedEndlessBodyKeepsMemoryBounded(reply: LoopbackHTTPServer.Reply) async throws {
        try await withLoopbackServer({ _ in reply }) { server in
            let cap = 16 * 1024 * 1024
            let fetcher = makeTestFetcher(idleTimeout: 5, totalTimeout: 30, maxBodySize: cap)
            let (outcome, growth) = await Self.peakResidentGrowth {
                await fetcher.fetch(FeedRequest(url: server.url("/flood")))
            }
            #expect(outcome == .failed(.tooLarge(url: server.url("/flood"), limit: cap)))
            #expect(growth < 100, "peak RSS grew by \(growth) MB")
            try await Self.expectTransferEnded(server)
            print("measured: full-speed endless body: server sent \(server.bytesSent / 1_000_000) MB, peak RSS +\(growth) MB")
        }
    }

    /// An endless stream of compressed zeros (~160:1): the cap counts decoded bytes, so the
    /// transfer ends after a few kilobytes on the wire, with the production cap and memory
    /// bounded by it.
    @Test(arguments: CompressionBomb.Encoding.allCases)
    func compressionBombIsCutAtTheCapAfterDecoding(encoding: CompressionBomb.Encoding) async throws {
        try await withLoopbackServer({ _ in .compressionBomb(encoding) }) { server in
            let cap = 16 * 1024 * 1024
            let fetcher = makeTestFetcher(idleTimeout: 5, totalTimeout: 30, maxBodySize: cap)
            let (outcome, growth) = await Self.peakResidentGrowth {
                await fetcher.fetch(FeedRequest(url: server.url("/bomb.\(encoding)")))
            }
            #expect(outcome == .failed(.tooLarge(url: server.url("/bomb.\(encoding)"), limit: cap)))
            #expect(growth < 100, "peak RSS grew by \(growth) MB")
            try await Self.expectTransferEnded(server)
            // Not even the cap's worth went over the wire: the count is of decoded bytes.
            #expect(server.bytesSent < cap, "server sent \(server.bytesSent) bytes")
            print("measured: \(encoding) bomb: server sent \(server.bytesSent / 1000) kB, peak RSS +\(growth) MB")
        }
    }

    /// A small, complete bomb whose Content-Length is far under the cap: only the decoded
    /// size can catch it.
    @Test(arguments: CompressionBomb.Encoding.allCases)
    func finiteBombUnderTheDeclaredCapIsCutAfterDecoding(encoding: CompressionBomb.Encoding) async throws {
        let body = CompressionBomb.finite(encoding, periods: 2_000)  // 26 kB → 4.1 MB of zeros
        try await withLoopbackServer({ _ in
            .respond(status: 200, headers: [("Content-Encoding", encoding.rawValue)], body: body)
        }) { server in
            let outcome = await makeTestFetcher(maxBodySize: 1024 * 1024).fetch(FeedRequest(url: server.url("/b")))
            #expect(outcome == .failed(.tooLarge(url: server.url("/b"), limit: 1024 * 1024)))
        }
    }

    /// Expects the server to have stopped sending: the client closed the connection.
    static func expectTransferEnded(_ server: LoopbackHTTPServer) async throws {
        try await Task.sleep(for: .milliseconds(300))
        let sent = server.bytesSent
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.bytesSent == sent, "server still sending after the abort")
    }

    /// What `body` adds to the process's peak resident set, in MiB. Other suites run in
    /// this process at the same time: the peak is reset just before (Linux: clear_refs 5
    /// resets VmHWM) and compared with the resident set at that moment.
    static func peakResidentGrowth<T>(_ body: () async -> T) async -> (T, Int) {
        resetPeakResident()
        let baseline = residentMegabytes(field: "VmRSS:")
        let value = await body()
        return (value, residentMegabytes(field: "VmHWM:") - baseline)
    }

    /// A /proc/self/status size field (`VmRSS:`, `VmHWM:`), in MiB; 0 where /proc is missing.
    static func residentMegabytes(field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }

    /// Resets the process's peak resident set (VmHWM) to the current one.
    static func resetPeakResident() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }

    @Test func declaredLengthOverTheCapIsRefusedEarly() async throws {
        let body = Data(repeating: UInt8(ascii: "x"), count: 300_000)
        try await withLoopbackServer({ _ in .respond(status: 200, headers: [], body: body) }) { server in
            let outcome = await makeTestFetcher(maxBodySize: 100_000).fetch(FeedRequest(url: server.url("/big")))
            #expect(outcome == .failed(.tooLarge(url: server.url("/big"), limit: 100_000)))
        }
    }

    @Test func bodyExactlyAtTheCapIsAccepted() async throws {
        let body = Data(repeating: UInt8(ascii: "x"), count: 100_000)
        try await withLoopbackServer({ _ in .respond(status: 200, headers: [], body: body) }) { server in
            let outcome = await makeTestFetcher(maxBodySize: 100_000).fetch(FeedRequest(url: server.url("/fits")))
            #expect(outcome.body == body)
        }
    }

    @Test func gzipBombIsCutAtTheCapAfterDecoding() async throws {
        // Stored (uncompressed) gzip, so its Content-Length already passes the cap; the
        // compression-bomb tests above are the ones only the decoded count can catch.
        let decoded = Data(repeating: UInt8(ascii: "a"), count: 400_000)
        let compressed = gzipStored(decoded)
        try await withLoopbackServer({ _ in
            .respond(status: 200, headers: [("Content-Encoding", "gzip")], body: compressed)
        }) { server in
            let outcome = await makeTestFetcher(maxBodySize: 100_000).fetch(FeedRequest(url: server.url("/bomb")))
            #expect(outcome == .failed(.tooLarge(url: server.url("/bomb"), limit: 100_000)))
        }
    }

    @Test func cancellingFetchAllCancelsRunningAndWaitingFetches() async throws {
        try await withLoopbackServer({ _ in .stall(seconds: 30) }) { server in
            // Two run (maxPerHost), four wait in the limiter: both kinds must end.
            let fetcher = makeTestFetcher(maxPerHost: 2, idleTimeout: 20, totalTimeout: 30)
            let requests = (0..<6).map { FeedRequest(url: server.url("/hang/\($0)")) }
            let outcomes = Mutex<[FetchOutcome]>([])
            let start = Date()
            let task = Task {
                await fetcher.fetchAll(requests) { _, outcome in outcomes.withLock { $0.append(outcome) } }
            }
            // Cancels once both running fetches have reached the server (the first fetch loads
            // libcurl, which a loaded machine may take a while to do).
            while server.requests.count < 2 && Date().timeIntervalSince(start) < 10 {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(100))
            task.cancel()
            await task.value
            let collected = outcomes.withLock { $0 }
            #expect(collected.count == 6)
            #expect(collected.allSatisfy { if case .failed(.cancelled) = $0 { true } else { false } })
            #expect(Date().timeIntervalSince(start) < 25)
            #expect(server.requests.count == 2)
        }
    }

    @Test func cancellingTheCallerAbortsTheTransfer() async throws {
        try await withLoopbackServer({ _ in .stall(seconds: 30) }) { server in
            let fetcher = makeTestFetcher(idleTimeout: 20, totalTimeout: 30)
            let start = Date()
            let task = Task { await fetcher.fetch(FeedRequest(url: server.url("/hang"))) }
            try await Task.sleep(for: .milliseconds(300))
            task.cancel()
            let outcome = await task.value
            #expect(outcome == .failed(.cancelled(url: server.url("/hang"))))
            #expect(Date().timeIntervalSince(start) < 25)  // the server would stall for 30 s
        }
    }
}
