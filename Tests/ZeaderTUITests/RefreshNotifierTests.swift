import Foundation
import Testing

@testable import ZeaderConfig

/// `notify-program`'s wait: the notifier's end or the deadline, whichever comes first, with
/// nothing checking in between; a notifier still running at the deadline is left to finish.
@Suite struct RefreshNotifierTests {
    @Test func aProblemIsReportedWhenTheNotifierEnds() async {
        // A deadline an hour away: the answer comes from the notifier's end.
        let hour = Duration.seconds(3600)
        #expect(await RefreshNotifier.run("sh -c 'exit 3'", message: "m", timeout: hour) == .exited(program: "sh", status: 3))
        #expect(
            await RefreshNotifier.run("sh -c 'kill -TERM $$'", message: "m", timeout: hour)
                == .signalled(program: "sh", signal: SIGTERM))
        #expect(await RefreshNotifier.run("true", message: "m", timeout: hour) == nil)
        #expect(
            await RefreshNotifier.run("zeader-no-such-notifier", message: "m", timeout: hour)
                == .cannotStart(.cannotRun(program: "zeader-no-such-notifier", reason: "not found")))
        #expect(await RefreshNotifier.run("  ", message: "m", timeout: hour) == .cannotStart(.emptyCommand))
        #expect(
            RefreshNotifier.Problem.exited(program: "false", status: 1).description
                == "notify-program: false exited with status 1")
    }

    @Test func aNotifierStillRunningAtTheDeadlineIsLeftToFinish() async throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-notify-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer {
            unlink(fifo)
            unlink(fifo + ".out")
        }
        // It waits on the FIFO, its message, until the test writes a line there.
        let problem = await RefreshNotifier.run(
            #"sh -c 'read line < "$0"; echo "$line" > "$0.out"'"#, message: fifo, timeout: .milliseconds(50))
        #expect(problem == nil)

        // Still there: it holds the FIFO open for reading (a writer without one gets ENXIO).
        var writer: Int32 = -1
        for _ in 0..<1000 where writer < 0 {
            writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer < 0 { try await Task.sleep(for: .milliseconds(10)) }
        }
        try #require(writer >= 0, "the notifier was killed at the deadline")
        _ = "finished\n".withCString { write(writer, $0, strlen($0)) }
        close(writer)
        var written: String?
        for _ in 0..<1000 where written != "finished\n" {
            written = try? String(contentsOfFile: fifo + ".out", encoding: .utf8)
            if written != "finished\n" { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(written == "finished\n")
    }

    @Test func theWaitDoesNotPoll() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let source = try String(
            contentsOf: root.appendingPathComponent("Sources/ZeaderConfig/Notify/RefreshNotifier.swift"), encoding: .utf8)
        for sleep in ["Task.sleep", "usleep(", "Thread.sleep", "nanosleep("] {
            #expect(!source.contains(sleep), "RefreshNotifier waits by \(sleep)")
        }
    }
}
