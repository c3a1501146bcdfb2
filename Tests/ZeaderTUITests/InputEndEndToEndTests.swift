import Foundation
import LoopbackHTTPServer
import Testing

/// Runs `Tests/e2e/tui_input_end.py` against the `zeader` binary built beside the tests: the
/// real reader started by `timeout` (its own process group) or with `&`, sent to the
/// background while running, and on a terminal that closes; each time it exits by itself with one line on
/// stderr, within a generous bound, instead of spinning.
@Suite struct InputEndEndToEndTests {
    @Test(.timeLimit(.minutes(3))) func readerThatCannotReadItsTerminalExits() async throws {
        let (status, text) = try await runEndToEndScript("Tests/e2e/tui_input_end.py", interpreter: ["/usr/bin/env", "python3"])
        #expect(status == 0, "\(text)")
        #expect(text.contains("input-end: 4 checks, 0 failed"), "\(text)")
    }
}
