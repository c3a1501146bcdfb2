import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing

/// newsboat's `user-agent`, `download-retries` and `download-timeout` reach `zeader refresh`'s
/// fetches (the reader's refresh is built from the same options).
@Suite struct NewsboatFetchSettingsCLITests {
    /// A folder with the config file holding `config`, and the store's path.
    func setUp(config: String) throws -> (dir: URL, db: String) {
        let dir = try temporaryDirectory()
        let configDir = dir.appendingPathComponent("config/zeader")
        try FileManager.default.createDirectory(at: configDir, withIntermediateDirectories: true)
        try config.write(to: configDir.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        return (dir, dir.appendingPathComponent("z.sqlite").path)
    }

    @Test(arguments: ["user-agent \"Mozilla/5.0 (X11; Linux x86_64) Zeader-test\"\n", ""])
    func userAgentNamesEveryFetch(config: String) async throws {
        let agents = Box<[String]>([])
        try await withLoopbackServer({ request in
            agents.value.withLock { $0.append(request.headers["user-agent"] ?? "") }
            return .ok(rss(items: [("g1", "One")]))
        }) { http in
            let (dir, db) = try setUp(config: config)
            defer { try? FileManager.default.removeItem(at: dir) }
            var r = try zeader(["add", http.url("/feed").absoluteString, "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            let seen = agents.value.withLock { $0 }
            #expect(seen.count >= 2)
            let expected = config.isEmpty ? "zeader/" : "Mozilla/5.0 (X11; Linux x86_64) Zeader-test"
            #expect(seen.allSatisfy { $0.hasPrefix(expected) }, "\(seen)")
        }
    }

    /// The feed answers 503 (no Retry-After) `failures` times, then the feed.
    @Test(arguments: [("", 1, 1), ("download-retries 3\n", 2, 3), ("download-retries 2\n", 2, 2), ("download-retries 9\n", 1, 9)])
    func downloadRetriesFetchesAFailingFeedAgain(config: String, failures: Int, attempts: Int) async throws {
        let succeeds = attempts > failures
        let served = Box(0)
        try await withLoopbackServer({ request in
            let count = served.value.withLock { n -> Int in
                n += 1
                return n
            }
            return count <= failures ? .status(503) : .ok(rss(items: [("g1", "One")]))
        }) { http in
            let (dir, db) = try setUp(config: config)
            defer { try? FileManager.default.removeItem(at: dir) }
            let url = http.url("/feed").absoluteString
            // Imported without a fetch, so that the refresh makes the first request.
            var r = try zeader(["import", "-", "--db", db], in: dir, input: Data((url + "\n").utf8))
            #expect(r.status == 0, "\(r.stderr)")
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == (succeeds ? 0 : 1), "\(r.stdout) \(r.stderr)")
            #expect(served.value.withLock { $0 } == min(failures + 1, attempts))
        }
    }

    @Test func aFeedThatKeepsRefusingIsNotFetchedAgain() async throws {
        let served = Box(0)
        try await withLoopbackServer({ _ in
            served.value.withLock { $0 += 1 }
            return .status(404)
        }) { http in
            let (dir, db) = try setUp(config: "download-retries 5\n")
            defer { try? FileManager.default.removeItem(at: dir) }
            let url = http.url("/feed").absoluteString
            _ = try zeader(["import", "-", "--db", db], in: dir, input: Data((url + "\n").utf8))
            let r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 1)
            #expect(served.value.withLock { $0 } == 1)
        }
    }

    @Test func downloadTimeoutEndsAFetchThatTakesLonger() async throws {
        try await withLoopbackServer({ _ in .stall(seconds: 30) }) { http in
            let (dir, db) = try setUp(config: "download-timeout 1\n")
            defer { try? FileManager.default.removeItem(at: dir) }
            let url = http.url("/feed").absoluteString
            _ = try zeader(["import", "-", "--db", db], in: dir, input: Data((url + "\n").utf8))
            let r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 1)
            #expect(
                (r.stdout + r.stderr).contains("1 s") || (r.stdout + r.stderr).contains("timed out"), "\(r.stdout) \(r.stderr)")
        }
    }
}

/// A lock the server's handler and the test share.
private final class Box<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
}
