import Foundation
import Testing

@testable import ZeaderTUI

/// The browser `LinkOpener.run` starts inherits the terminal and nothing else of the
/// reader's: no other descriptor, no blocked or ignored signal.
@Suite struct LinkOpenerSpawnTests {
    /// The descriptors a program started by `LinkOpener.run` holds (`ls` lists its own: the
    /// shell's 0-2, and 3 for the directory it reads).
    private func inheritedDescriptors() throws -> [Int] {
        try output(of: { "ls /proc/self/fd > '\($0)'" }).split(separator: "\n").compactMap { Int($0) }
    }

    /// The blocked and ignored signal masks of a program started by `LinkOpener.run` (`cp`
    /// copies its own status: a shell would set its mask itself).
    private func inheritedSignals() throws -> (blocked: UInt64, ignored: UInt64) {
        let lines = try output(direct: { ["/bin/cp", "/proc/self/status", $0] }).split(separator: "\n")
        func mask(_ name: String) -> UInt64 {
            lines.first { $0.hasPrefix(name) }.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) } ?? .max
        }
        return (mask("SigBlk:"), mask("SigIgn:"))
    }

    /// What a program run through `LinkOpener.run` wrote to a temporary file: a shell
    /// command, or a program's arguments, given the file's path.
    private func output(of command: ((String) -> String)? = nil, direct: ((String) -> [String])? = nil) throws -> String {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-spawn-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let argv = command.map { ["/bin/sh", "-c", $0(out.path)] } ?? direct?(out.path) ?? []
        #expect(try LinkOpener.run(argv).get() == 0)
        return try String(contentsOf: out, encoding: .utf8)
    }

    @Test func theBrowserInheritsOnlyTheTerminal() throws {
        // A descriptor without close-on-exec, as a pipe or socket some library opened.
        let leaky = open("/dev/null", O_RDONLY)
        #expect(leaky > 3)
        defer { close(leaky) }
        #expect(try inheritedDescriptors() == [0, 1, 2, 3])
    }

    @Test func theBrowserStartsWithDefaultSignals() throws {
        // The calling thread blocks SIGINT and SIGWINCH (as a Dispatch worker thread does),
        // and SIGPIPE is ignored (as the reader does after piping to a command).
        var block = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGINT)
        sigaddset(&block, SIGWINCH)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &block, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let oldPipe = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, oldPipe) }
        let child = try inheritedSignals()
        #expect(child.blocked == 0)
        let bit = { (signal: Int32) -> UInt64 in 1 << UInt64(signal - 1) }
        #expect(child.ignored & (bit(SIGPIPE) | bit(SIGINT) | bit(SIGWINCH)) == 0)
    }

    @Test func aMissingProgramIsNamed() {
        let result = LinkOpener.run(["zeader-no-such-browser", "https://example.org/"])
        #expect(throws: LinkOpener.RefusedLink.self) { try result.get() }
        if case .failure(let error) = result { #expect(error.description.contains("zeader-no-such-browser")) }
    }
}
