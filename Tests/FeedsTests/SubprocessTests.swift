import Foundation
import Testing

@testable import Feeds

/// The one way a program is run: argv as given, only descriptors 0 to 2, default signals,
/// a deadline that ends the whole process group, an output cap.
@Suite struct SubprocessTests {
    @Test func feedsInputAndCapturesOutput() throws {
        let outcome = try Subprocess.run(["tr", "a-z", "A-Z"], input: Data("hello\n".utf8), outputLimit: 1024)
        #expect(outcome.termination == .exited(0))
        #expect(String(decoding: outcome.output, as: UTF8.self) == "HELLO\n")
        #expect(!outcome.timedOut && !outcome.outputTooLarge)
    }

    @Test func reportsExitStatusAndSignal() throws {
        #expect(try Subprocess.run(["sh", "-c", "exit 3"]).termination == .exited(3))
        #expect(try Subprocess.run(["sh", "-c", "kill -TERM $$"]).termination == .signalled(SIGTERM))
    }

    @Test func anUnreadInputDoesNotEndUs() throws {
        let big = Data(repeating: 0x61, count: 4 << 20)
        #expect(try Subprocess.run(["true"], input: big).termination == .exited(0))
    }

    @Test func onlyTheGivenDescriptorsAreInherited() throws {
        let leaky = open("/dev/null", O_RDONLY)
        #expect(leaky > 2)
        defer { close(leaky) }
        let outcome = try Subprocess.run(["sh", "-c", "ls /proc/self/fd"], input: Data(), outputLimit: 4096)
        #expect(String(decoding: outcome.output, as: UTF8.self).split(separator: "\n") == ["0", "1", "2", "3"])
    }

    @Test func startsWithEveryDefaultSignalAndNoneBlocked() throws {
        var block = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGINT)
        sigaddset(&block, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &block, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let oldPipe = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, oldPipe) }
        // `cat` reads its own status (a shell would set its mask itself).
        let outcome = try Subprocess.run(["cat", "/proc/self/status"], outputLimit: 64 * 1024)
        let lines = String(decoding: outcome.output, as: UTF8.self).split(separator: "\n")
        func mask(_ name: String) -> UInt64? {
            lines.first { $0.hasPrefix(name) }.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        }
        #expect(mask("SigBlk:") == 0)
        // Signals 32 and 33 are glibc's own (thread cancellation, setxid): no program's to set.
        #expect(mask("SigIgn:").map { $0 & ~(UInt64(0b11) << 31) } == 0)
    }

    @Test func theDeadlineKillsTheWholeGroup() throws {
        // The shell's child holds the output pipe: killing the shell alone would not end the read.
        let captured = try Subprocess.run(["sh", "-c", "sleep 30 & sleep 30"], outputLimit: 1024, timeout: .milliseconds(200))
        #expect(captured.timedOut)
        #expect(captured.termination == .signalled(SIGKILL))
        // Without capture the deadline holds too; the background child is gone with it.
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-group-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: marker) }
        let waited = try Subprocess.run(
            ["sh", "-c", "(sleep 1; touch \"$0\") & sleep 30", marker.path], timeout: .milliseconds(200))
        #expect(waited.timedOut)
        #expect(waited.termination == .signalled(SIGKILL))
        sleep(2)
        #expect(!FileManager.default.fileExists(atPath: marker.path))
    }

    @Test func outputPastTheLimitKillsIt() throws {
        let outcome = try Subprocess.run(["yes"], outputLimit: 100_000, timeout: .seconds(30))
        #expect(outcome.outputTooLarge)
        #expect(outcome.output.count <= 100_000)
        #expect(outcome.termination == .signalled(SIGKILL))
    }

    @Test func aBadCommandIsOneClearError() {
        #expect(throws: Subprocess.Failure.emptyCommand) { try Subprocess.run([]) }
        #expect(throws: Subprocess.Failure.cannotRun(program: "zeader-no-such-program", reason: "not found")) {
            try Subprocess.run(["zeader-no-such-program", "x"])
        }
        #expect(Subprocess.Failure.emptyCommand.description == "no command given")
    }

    @Test func theAsyncFormRunsOffThePool() async throws {
        let outcome = try await Subprocess.run(["echo", "hi"], outputLimit: 64)
        #expect(String(decoding: outcome.output, as: UTF8.self) == "hi\n")
    }
}
