import Foundation
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

/// `zeader sync add` on a device with feeds of its own: they stay local, one line says how
/// many and how to move them; `zeader sync move --all-local ACCOUNT` moves them.
@Suite("Local feeds when an account is added")
struct SyncMoveAllLocalTests {
    static let feeds = ["http://127.0.0.1:9/a.xml", "HTTPS://127.0.0.1:9/b.xml"]
    static let command = "exec:printf x"

    @Test("sync add keeps them local and says so in one line; move --all-local puts the http(s) ones in the account")
    func addKeepsThenMoveAllLocalMoves() async throws {
        let server = try FakeGReaderServer()
        server.update { $0.subscriptions = [] }  // subscribes what it is asked to
        let other = try FakeGReaderServer()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("z.sqlite").path
        func run(_ arguments: [String]) async throws -> CommandResult {
            try await waitingOffThePool {
                try zeader(["--db", db] + arguments, in: directory, environment: ["ZEADER_SYNC_PASSWORD": "secret"])
            }
        }
        for feed in Self.feeds + [Self.command] {
            let r = try await run(["add", "--no-fetch", feed])
            #expect(r.status == 0, "\(r.stderr)")
        }
        var r = try await run(["sync", "add", server.apiURL, "--user", "alice", "--name", "home"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(r.stdout)")
        #expect(
            lines.last == "2 local feeds stay local, refreshed here (zeader sync move --all-local home puts them in the account)")
        r = try await run(["sync"])
        #expect(r.status == 0, "\(r.stderr)")
        var posts: [String] = []
        server.update { posts = $0.posts }
        #expect(!posts.contains { $0.hasPrefix("subscription/quickadd") }, "\(posts)")

        for wrong in [["--all-local"], ["--all-local", "home", "extra"], ["x.xml", "--all-local", "home"]] {
            r = try await run(["sync", "move"] + wrong)
            #expect(r.status == 2, "\(wrong)")
        }
        r = try await run(["sync", "move", "--all-local", "nope"])
        #expect(r.status == 2)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("no sync account named 'nope'"), "\(r.stderr)")
        r = try await run(["sync", "add", "--all-local", "home"])
        #expect(r.status == 2)

        r = try await run(["sync", "move", "--all-local", "home"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "moved to home: 2 local feeds\n")
        r = try await run(["sync"])
        #expect(r.status == 0, "\(r.stderr)")
        server.update { posts = $0.posts }
        let added = posts.filter { $0.hasPrefix("subscription/quickadd ") }
        #expect(added.count == 2 && !added.contains { $0.contains("exec") }, "\(posts)")
        r = try await run(["sync", "move", "--all-local", "home"])
        #expect(r.stdout == "moved to home: 0 local feeds\n")

        // A second account: nothing local but the command feed, which no server takes: no line.
        r = try await run(["sync", "add", other.apiURL, "--user", "bob", "--name", "work"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("stay"), "\(r.stdout)")
        let store = try ZeaderStore.open(at: URL(fileURLWithPath: db))
        let context = store.container.newBackgroundContext()
        try context.performAndWait { () throws -> Void in
            #expect(try Server.findFirst(byAttribute: "url", value: .string(Self.command), in: context)?.account == nil)
        }
    }

    @Test("the line counts one feed as one", arguments: [(1, "1 local feed stays local"), (3, "3 local feeds stay local")])
    func theLineCounts(count: Int, start: String) {
        #expect(Messages.localFeedsStayLocal(count: count, account: "a").hasPrefix(start + ", refreshed here"))
    }
}
