import Foundation
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

/// `zeader sync` killed with SIGKILL while the server holds its request for the item list,
/// then run again: the change made here reaches the server, and every item is stored once.
@Suite("SIGKILL in the middle of zeader sync")
struct SyncKilledTests {
    @Test("killed mid-sync, the next sync loses nothing and doubles nothing")
    func killedMidSync() async throws {
        let server = try FakeGReaderServer()
        let base = FakeGReaderServer.now
        server.add(ids: [base + 1, base + 2, base + 3])
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("z.sqlite").path
        let environment = ["ZEADER_SYNC_PASSWORD": "secret"]
        func run(_ arguments: [String]) async throws -> CommandResult {
            try await waitingOffThePool { try zeader(["--db", db] + arguments, in: directory, environment: environment) }
        }
        func items() async throws -> [[String: Any]] {
            let r = try await run(["items", "--json"])
            return try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        }
        var r = try await run(["sync", "add", server.apiURL, "--user", "alice"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await run(["sync"])
        #expect(r.status == 0, "\(r.stderr)")
        let first = try await items()
        #expect(first.count == 3)
        let flagged = try #require(first.first { $0["title"] as? String == "Item \(base + 2)" }?["id"] as? String)
        r = try await run(["flag", flagged])
        #expect(r.status == 0, "\(r.stderr)")

        // Two new items; the server holds the next item list until the sync is killed.
        server.add(ids: [base + 4, base + 5])
        let gate = DispatchSemaphore(value: 0)
        let shared = server.shared
        var asked = 0
        server.update { state in
            asked = state.idsRequests
            state.idsOverride = { parameters in
                _ = gate.wait(timeout: .now() + 60)
                shared.state.withLock { $0.idsOverride = nil }
                return FakeGReaderServer.ids(parameters, shared)
            }
        }
        let process = Process()
        process.executableURL = zeaderBinary
        process.arguments = ["--db", db, "sync"]
        process.environment = [
            "HOME": directory.path, "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path, "PATH": "/usr/bin:/bin",
        ].merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Waits for the held request (a minute at most: a sync that never asks fails below).
        for _ in 0..<1200 {
            var now = 0
            server.update { now = $0.idsRequests }
            if now > asked { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        var held = 0
        server.update { held = $0.idsRequests }
        #expect(held > asked, "the sync never asked for the item list")
        kill(process.processIdentifier, SIGKILL)
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        #expect(process.terminationReason == .uncaughtSignal)
        gate.signal()

        r = try await run(["sync"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await run(["sync"])
        #expect(r.status == 0, "\(r.stderr)")
        let after = try await items()
        let titles = after.compactMap { $0["title"] as? String }
        #expect(titles.count == 5 && Set(titles).count == 5, "\(titles)")
        #expect(after.first { $0["id"] as? String == flagged }?["flagged"] as? Bool == true)
        var starred = false
        server.update { state in starred = state.posts.contains { $0.hasPrefix("edit-tag") && $0.contains("starred") } }
        #expect(starred, "the flag never reached the server")
        r = try await run(["sync", "status", "--json"])
        let status = (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])?.first
        #expect(status?["pending"] as? Int == 0)
    }
}
