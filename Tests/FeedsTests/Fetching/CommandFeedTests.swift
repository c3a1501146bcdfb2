import Foundation
import LoopbackHTTPServer
import Testing

@testable import Feeds

/// exec: and filter: feeds, run with small scripts.
@Suite("FeedFetcher: exec: and filter: feeds")
struct CommandFeedTests {
    static let rss =
        #"<rss version="2.0"><channel><title>From a program</title><item><guid>1</guid><title>Old title</title></item></channel></rss>"#

    /// A script in a fresh folder (removed by the caller), executable.
    func script(_ body: String, name: String = "feed.sh") throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-exec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try writeExecutableScript(body, to: directory.appendingPathComponent(name))
    }

    func fetch(_ subscription: String, fetcher: FeedFetcher = makeTestFetcher()) async throws -> FetchOutcome {
        await fetcher.fetch(FeedRequest(url: try #require(CommandFeed.requestURL(subscription))))
    }

    @Test func execRunsTheProgramWithItsArgumentsAndNoShell() async throws {
        let program = try script(#"printf '%s\n' "$1" > "$(dirname "$0")/arg"; cat <<'EOF'"# + "\n\(Self.rss)\nEOF")
        defer { try? FileManager.default.removeItem(at: program.deletingLastPathComponent()) }
        // `;` and `$(…)` stay inside one argument: no shell ever sees them.
        let outcome = try await fetch("exec:\(program.path) 'a; $(touch pwned) b'")
        let body = try #require(outcome.body)
        #expect(try FeedParser.parse(data: body, url: nil).title == "From a program")
        let argument = try String(contentsOf: program.deletingLastPathComponent().appendingPathComponent("arg"), encoding: .utf8)
        #expect(argument == "a; $(touch pwned) b\n")
        #expect(!FileManager.default.fileExists(atPath: "pwned"))
    }

    @Test func aFailingProgramIsReportedWithItsFirstStderrLine() async throws {
        let program = try script("echo 'no network today' >&2; echo 'second line' >&2; exit 3")
        defer { try? FileManager.default.removeItem(at: program.deletingLastPathComponent()) }
        let subscription = "exec:\(program.path) --all"
        let error = try #require(try await fetch(subscription).error)
        #expect(error.description == "\(subscription): \(program.path) failed (exit status 3): no network today")
        let missing = try #require(try await fetch("exec:/nonexistent/zeader-feed").error)
        #expect(missing.description.hasPrefix("exec:/nonexistent/zeader-feed: cannot run /nonexistent/zeader-feed"))
    }

    /// A feed's program starts as from a shell: none of our other descriptors (a store, a
    /// socket), no blocked signal, none ignored (its own `head` must die of SIGPIPE).
    @Test(arguments: ["exec", "filter"])
    func theProgramInheritsOnlyItsPipesAndDefaultSignals(_ form: String) async throws {
        // What the program saw, as its failure's first stderr line (filter: feeds it a body).
        let program = try script(
            #"cat > /dev/null; echo "fds=$(ls /proc/self/fd | tr '\n' ' ')"#
                + #" $(grep -E '^Sig(Blk|Ign)' /proc/self/status | tr '\n\t' '  ')" >&2; exit 1"#)
        defer { try? FileManager.default.removeItem(at: program.deletingLastPathComponent()) }
        let error = try await withStateAProgramMustNotInherit { leaky in
            #expect(leaky > 3)
            return try await withLoopbackServer({ _ in .ok(Self.rss) }) { server in
                let subscription = form == "exec" ? "exec:\(program.path)" : "filter:\(program.path):\(server.url("/"))"
                return try #require(try await fetch(subscription).error)
            }
        }
        // `ls` in `$(…)`: 0, its pipe to the shell as 1, 2, and 3 for the directory it reads.
        // Signals 32 and 33 are glibc's own (thread cancellation, setxid).
        #expect(error.description.contains("fds=0 1 2 3  SigBlk: 0000000000000000 SigIgn: 0000000180000000"))
    }

    /// A program file someone keeps open for writing cannot be run ("Text file busy"): after
    /// a few short retries (a descriptor inherited by a process forking at that moment goes
    /// away on its own) the fetch fails naming the program and the system's reason.
    @Test func aProgramFileHeldOpenForWritingIsTextFileBusy() async throws {
        let program = try script("echo never")
        defer { try? FileManager.default.removeItem(at: program.deletingLastPathComponent()) }
        let writer = open(program.path, O_WRONLY | O_CLOEXEC)
        try #require(writer >= 0)
        defer { close(writer) }
        let error = try #require(try await fetch("exec:\(program.path)").error)
        #expect(error.description == "exec:\(program.path): cannot run \(program.path): Text file busy")
    }

    @Test func aSlowProgramIsKilledAtTheTimeout() async throws {
        let program = try script("sleep 30")
        defer { try? FileManager.default.removeItem(at: program.deletingLastPathComponent()) }
        // Had it not been killed, `sleep` would exit 0 with no output: a fetched, empty body.
        let outcome = try await fetch("exec:\(program.path)", fetcher: makeTestFetcher(totalTimeout: 1))
        guard case .failed(.timedOut(_, 1, .total)) = outcome else {
            Issue.record("expected a timeout, got \(outcome)")
            return
        }
    }

    @Test func outputOverTheCapIsRefused() async throws {
        let program = try script("yes '<item>more</item>'")
        defer { try? FileManager.default.removeItem(at: program.deletingLastPathComponent()) }
        guard
            case .failed(.tooLarge(_, 100_000)) = try await fetch(
                "exec:\(program.path)", fetcher: makeTestFetcher(maxBodySize: 100_000))
        else {
            Issue.record("expected the cap")
            return
        }
    }

    @Test func filterPipesTheFetchedFeedThroughTheProgram() async throws {
        let program = try script("sed 's/Old title/New title/'")
        defer { try? FileManager.default.removeItem(at: program.deletingLastPathComponent()) }
        try await withLoopbackServer({ _ in .ok(Self.rss) }) { server in
            let outcome = try await fetch("filter:\(program.path):\(server.url("/feed").absoluteString)")
            let feed = try FeedParser.parse(data: try #require(outcome.body), url: nil)
            #expect(feed.items.first?.title == "New title")
        }
        try await withLoopbackServer({ _ in .status(404) }) { server in
            let outcome = try await fetch("filter:\(program.path):\(server.url("/feed").absoluteString)")
            #expect(outcome.error?.httpStatus == 404)
        }
    }

    @Test func subscriptionsAreRead() {
        let environment = ["HOME": "/home/u"]
        #expect(
            CommandFeed(subscription: "exec:~/bin/feed --x \"a b\"", environment: environment)?.argv == [
                "/home/u/bin/feed", "--x", "a b",
            ])
        let filter = CommandFeed(subscription: "filter:~/bin/clean:https://x.example/f?a=1", environment: environment)
        #expect(filter?.argv == ["/home/u/bin/clean"] && filter?.sourceURL?.absoluteString == "https://x.example/f?a=1")
        #expect(CommandFeed(subscription: "exec:") == nil)
        #expect(CommandFeed(subscription: "filter:cmd-without-url") == nil)
        #expect(CommandFeed(subscription: "filter:cmd:ftp://x.example/") == nil)
        #expect(CommandFeed(subscription: "https://x.example/") == nil)
        let url = CommandFeed.requestURL("exec:~/bin/feed --x 100%")
        #expect(url.map(CommandFeed.subscription(of:)) == "exec:~/bin/feed --x 100%")
    }
}
