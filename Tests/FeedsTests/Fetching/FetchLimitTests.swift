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
        try await withLoopbackServer({ _ in .stall(seconds: 30) }) { server in
            let fetcher = makeTestFetcher(idleTimeout: 1, totalTimeout: 20)
            let (outcome, seconds) = await measure { await fetcher.fetch(FetchRequest(url: server.url("/stall"))) }
            #expect(outcome == .failed(.timedOut(url: server.url("/stall"), seconds: 1, kind: .idle)))
            // The outcome names the clock that fired; the wall-time bound only rules out the 30 s
            // stall ending by itself (parallel tests on two cores can delay the resumption).
            #expect(seconds >= 0.9 && seconds < 28, "idle timeout of 1 s took \(seconds) s")
            print("measured: idle timeout 1 s fired after \(String(format: "%.2f", seconds)) s")
        }
    }

    @Test func unansweredConnectTimesOutOnTheIdleClock() async throws {
        let hole = try UnacceptingListener()
        defer { hole.close() }
        let fetcher = makeTestFetcher(idleTimeout: 1, totalTimeout: 20)
        let (outcome, seconds) = await measure { await fetcher.fetch(FetchRequest(url: hole.url("/never"))) }
        #expect(outcome == .failed(.timedOut(url: hole.url("/never"), seconds: 1, kind: .idle)))
        #expect(seconds >= 0.9 && seconds < 19, "connect timeout of 1 s took \(seconds) s")
        print("measured: connect (idle) timeout 1 s fired after \(String(format: "%.2f", seconds)) s")
    }

    @Test func tricklingServerTimesOutOnTheTotalClock() async throws {
        // A byte every 0.3 s keeps the idle clock from firing; the total clock must.
        try await withLoopbackServer({ _ in .trickle(chunk: Data("<".utf8), interval: 0.3, count: 200) }) { server in
            let fetcher = makeTestFetcher(idleTimeout: 3, totalTimeout: 1.5)
            let (outcome, seconds) = await measure { await fetcher.fetch(FetchRequest(url: server.url("/slow"))) }
            #expect(outcome == .failed(.timedOut(url: server.url("/slow"), seconds: 1.5, kind: .total)))
            #expect(seconds >= 1.4 && seconds < 28, "total timeout of 1.5 s took \(seconds) s")
            print("measured: total timeout 1.5 s fired after \(String(format: "%.2f", seconds)) s")
        }
    }

    @Test func endlessBodyIsCutAtTheCap() async throws {
        try await withLoopbackServer({ _ in .endless() }) { server in
            let cap = 512 * 1024
            let fetcher = makeTestFetcher(idleTimeout: 5, totalTimeout: 30, maxBodySize: cap)
            let (outcome, seconds) = await measure { await fetcher.fetch(FetchRequest(url: server.url("/endless"))) }
            #expect(outcome == .failed(.tooLarge(url: server.url("/endless"), limit: cap)))
            #expect(seconds < 25)
            // The transfer really stopped: the server could only push what the socket buffers
            // and the client's in-flight chunks held after the cap, not an endless stream.
            try await Task.sleep(for: .milliseconds(300))
            let sent = server.bytesSent
            try await Task.sleep(for: .milliseconds(300))
            #expect(server.bytesSent == sent, "server still sending after the abort")
            // URLSession on Linux queues chunks for the delegate without back-pressure, so
            // what passes before the cap is seen depends on the delegate's lag; at 30 MB/s it
            // is a few MB (socket buffers included), where an uncapped transfer keeps going.
            #expect(sent < 32 * 1024 * 1024, "server sent \(sent) bytes for a \(cap)-byte cap")
            print("measured: endless body aborted after \(String(format: "%.2f", seconds)) s, server sent \(sent) bytes")
        }
    }

    /// A full-speed endless body on loopback: `URLSessionTask.cancel()` on Linux can take
    /// seconds to land while libcurl keeps reading, so gigabytes may pass; what must hold is
    /// that memory stays bounded (before the fix, the cancel blocked the delegate and the
    /// undelivered chunks reached 2.5 GB of RSS) and that the transfer does stop.
    @Test func fullSpeedEndlessBodyKeepsMemoryBounded() async throws {
        try await withLoopbackServer({ _ in .endless(fullSpeed: true) }) { server in
            let cap = 512 * 1024
            let fetcher = makeTestFetcher(idleTimeout: 5, totalTimeout: 30, maxBodySize: cap)
            // Other suites run in this process at the same time: measure what the flood adds,
            // from a peak reset just before it (Linux: clear_refs 5 resets VmHWM).
            Self.resetPeakResident()
            let baseline = Self.residentMegabytes(field: "VmRSS:")
            let (outcome, seconds) = await measure { await fetcher.fetch(FetchRequest(url: server.url("/flood"))) }
            #expect(outcome == .failed(.tooLarge(url: server.url("/flood"), limit: cap)))
            let peak = Self.residentMegabytes(field: "VmHWM:") - baseline
            #expect(peak < 400, "peak RSS grew by \(peak) MB")
            try await Task.sleep(for: .milliseconds(300))
            let sent = server.bytesSent
            try await Task.sleep(for: .milliseconds(300))
            #expect(server.bytesSent == sent, "server still sending after the abort")
            print("measured: full-speed endless body aborted after \(String(format: "%.2f", seconds)) s, server sent \(sent / 1_000_000) MB, peak RSS +\(peak) MB")
        }
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
            let outcome = await makeTestFetcher(maxBodySize: 100_000).fetch(FetchRequest(url: server.url("/big")))
            #expect(outcome == .failed(.tooLarge(url: server.url("/big"), limit: 100_000)))
        }
    }

    @Test func bodyExactlyAtTheCapIsAccepted() async throws {
        let body = Data(repeating: UInt8(ascii: "x"), count: 100_000)
        try await withLoopbackServer({ _ in .respond(status: 200, headers: [], body: body) }) { server in
            let outcome = await makeTestFetcher(maxBodySize: 100_000).fetch(FetchRequest(url: server.url("/fits")))
            #expect(outcome.body == body)
        }
    }

    @Test func gzipBombIsCutAtTheCapAfterDecoding() async throws {
        // Few bytes on the wire would be better, but even stored gzip shows that the cap
        // applies to the decoded body, whatever Content-Length says.
        let decoded = Data(repeating: UInt8(ascii: "a"), count: 400_000)
        let compressed = gzipStored(decoded)
        try await withLoopbackServer({ _ in
            .respond(status: 200, headers: [("Content-Encoding", "gzip")], body: compressed)
        }) { server in
            let outcome = await makeTestFetcher(maxBodySize: 100_000).fetch(FetchRequest(url: server.url("/bomb")))
            #expect(outcome == .failed(.tooLarge(url: server.url("/bomb"), limit: 100_000)))
        }
    }

    @Test func cancellingFetchAllCancelsRunningAndWaitingFetches() async throws {
        try await withLoopbackServer({ _ in .stall(seconds: 30) }) { server in
            // Two run (maxPerHost), four wait in the limiter: both kinds must end.
            let fetcher = makeTestFetcher(maxPerHost: 2, idleTimeout: 20, totalTimeout: 30)
            let requests = (0..<6).map { FetchRequest(url: server.url("/hang/\($0)")) }
            let outcomes = Mutex<[FetchOutcome]>([])
            let start = Date()
            let task = Task {
                await fetcher.fetchAll(requests) { _, outcome in outcomes.withLock { $0.append(outcome) } }
            }
            try await Task.sleep(for: .milliseconds(300))
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
            let task = Task { await fetcher.fetch(FetchRequest(url: server.url("/hang"))) }
            try await Task.sleep(for: .milliseconds(300))
            task.cancel()
            let outcome = await task.value
            #expect(outcome == .failed(.cancelled(url: server.url("/hang"))))
            #expect(Date().timeIntervalSince(start) < 25)  // the server would stall for 30 s
        }
    }
}
