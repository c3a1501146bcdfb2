import Foundation
import Testing

/// Runs `Tests/e2e/tui_newsboat_keys.sh` against the `zeader` binary built beside the tests: a
/// newsboat user's keys in the real reader in tmux (per-view keys, `u` and the link numbers,
/// digits, a macro that sets the browser, `browser` through the shell with a hostile URL).
@Suite struct NewsboatKeysEndToEndTests {
    @Test(.timeLimit(.minutes(3))) func newsboatKeysInTmux() async throws {
        let (status, text) = try await runEndToEndScript("Tests/e2e/tui_newsboat_keys.sh")
        #expect(status == 0, "\(text)")
        #expect(text.contains(" checks, 0 failed"), "\(text)")
    }
}
