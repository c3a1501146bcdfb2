import Foundation
import LoopbackHTTPServer
import Testing
import ZeaderKit

@testable import zeader

/// `--password-command` runs as from a shell and reads at most a bounded first line.
@Suite struct PasswordInputTests {
    @Test func theCommandGetsNoOtherDescriptorAndDefaultSignals() async throws {
        // `ls` in `$(…)`: 0, its pipe as 1, 2, and 3 for the directory it reads.
        let line = try await withStateAProgramMustNotInherit { leaky in
            #expect(leaky > 3)
            return try PasswordInput.firstLine(
                of: #"echo "$(ls /proc/self/fd | tr '\n' ' ')$(grep -E '^Sig(Blk|Ign)' /proc/self/status | tr '\n\t' '  ')""#)
        }
        // Signals 32 and 33 are glibc's own (thread cancellation, setxid).
        #expect(line == "0 1 2 3 SigBlk: 0000000000000000 SigIgn: 0000000180000000 ")
    }

    @Test func aCommandThatFailsOrFloodsIsOneClearError() throws {
        #expect(throws: ZeaderError.password(.commandFailed(.exited(3)))) {
            try PasswordInput.firstLine(of: "exit 3")
        }
        #expect(ZeaderError.password(.commandFailed(.exited(3))).description == "--password-command failed (exit status 3)")
        #expect(throws: ZeaderError.password(.commandOutputTooLarge(limit: PasswordInput.maxOutput))) {
            try PasswordInput.firstLine(of: "yes")
        }
        #expect(throws: ZeaderError.password(.commandPrintedNothing)) { try PasswordInput.firstLine(of: "true") }
        #expect(try PasswordInput.firstLine(of: "printf 'secret\\r\\nmore'") == "secret")
    }
}
