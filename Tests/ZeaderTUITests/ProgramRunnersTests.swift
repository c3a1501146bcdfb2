import Feeds
import Foundation
import Synchronization
import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// Every program the reader runs for the user (the browser, pipe-to, notify-program) starts
/// as from a shell: descriptors 0 to 2 and no other of the reader's, no blocked or ignored
/// signal; and its command line is split by the one splitter.
@Suite struct ProgramRunnersTests {
    /// The ways the reader runs a program the user configured.
    enum Runner: String, CaseIterable, CustomTestStringConvertible {
        case browser, pipeTo, notifier
        var testDescription: String { rawValue }

        /// Runs `words` (the last word is a file the program writes) and waits for it to end.
        func run(_ words: [String]) throws {
            switch self {
            case .browser:
                #expect(try LinkOpener.run(words).get() == 0)
            case .pipeTo:
                #expect(try CommandRunner.run(words, input: Data("some article text\n".utf8)) == 0)
            case .notifier:
                // The notifier's message is its last argument: here the file it writes.
                let quoted = words.dropLast().map { "'" + $0 + "'" }.joined(separator: " ")
                let ended = DispatchSemaphore(value: 0)
                let problem = Mutex<RefreshNotifier.Problem?>(nil)
                try RefreshNotifier.start(quoted, message: words.last ?? "") { found in
                    problem.withLock { $0 = found }
                    ended.signal()
                }
                ended.wait()
                #expect(problem.withLock { $0 } == nil)
            }
        }
    }

    /// What the program `words(path)` wrote to a temporary file at `path`.
    private func output(_ runner: Runner, _ words: (String) -> [String]) throws -> String {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-runner-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        try runner.run(words(out.path))
        return try String(contentsOf: out, encoding: .utf8)
    }

    @Test(arguments: Runner.allCases) func inheritsOnlyTheTerminal(_ runner: Runner) throws {
        // A descriptor without close-on-exec, as a pipe or socket some library opened.
        let leaky = open("/dev/null", O_RDONLY)
        #expect(leaky > 3)
        defer { close(leaky) }
        // `ls` lists its own: the shell's 0 to 2, and 3 for the directory it reads.
        let listed = try output(runner) { ["/bin/sh", "-c", #"ls /proc/self/fd > "$0""#, $0] }
        #expect(listed.split(separator: "\n").compactMap { Int($0) } == [0, 1, 2, 3])
    }

    @Test(arguments: Runner.allCases) func startsWithDefaultSignals(_ runner: Runner) throws {
        // The calling thread blocks SIGINT and SIGWINCH (as a Dispatch worker thread does),
        // and SIGPIPE is ignored (as a program that writes to pipes does).
        var block = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGINT)
        sigaddset(&block, SIGWINCH)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &block, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let oldPipe = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, oldPipe) }
        // `cp` copies its own status (a shell would set its mask itself).
        let lines = try output(runner) { ["/bin/cp", "/proc/self/status", $0] }.split(separator: "\n")
        func mask(_ name: String) -> UInt64 {
            lines.first { $0.hasPrefix(name) }.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) } ?? .max
        }
        #expect(mask("SigBlk:") == 0)
        // Signals 32 and 33 are glibc's own (thread cancellation, setxid): no program's to set.
        #expect(mask("SigIgn:") & ~(UInt64(0b11) << 31) == 0)
    }

    /// With `run-through-shell no`, the browser's words are split as pipe-to's are.
    @Test func theBrowserIsSplitAsPipeToIs() throws {
        let browsers = [
            #"my-browser --profile "Work Profile" 'new tab'"#, #"my-browser a\ b"#, "\tmy-browser\t-x  ",
            #"my-browser --title "%u here""#,
        ]
        for browser in browsers {
            var expected = try CommandRunner.arguments(browser)
            if expected.contains(where: { $0.contains("%u") }) {
                expected = expected.map { $0.replacingOccurrences(of: "%u", with: "https://swift.org/") }
            } else {
                expected.append("https://swift.org/")
            }
            #expect(
                try LinkOpener.command(for: "https://swift.org/", browser: browser, throughShell: false, environment: [:])
                    == expected)
        }
        #expect(
            try LinkOpener.command(for: "https://swift.org/", browser: nil, environment: ["BROWSER": #"b "x y":lynx"#])
                == ["b", "x y", "https://swift.org/"])
    }

    @Test func aMissingProgramIsNamedOnce() throws {
        #expect(throws: ExportError.self) { try CommandRunner.run(["zeader-no-such-program"]) }
        do {
            _ = try CommandRunner.run(["zeader-no-such-program"])
        } catch {
            #expect(error.description == "cannot run zeader-no-such-program: not found")
        }
    }

    @Test func aMissingBrowserIsNamed() {
        let result = LinkOpener.run(["zeader-no-such-browser", "https://example.org/"])
        #expect(throws: LinkOpener.RefusedLink.self) { try result.get() }
        if case .failure(let error) = result { #expect(error.description.contains("zeader-no-such-browser")) }
    }
}
