import Foundation
import Testing

/// Runs `Tests/e2e/mouse_tmux.sh` against the `zeader` binary built beside the tests: SGR mouse
/// reports typed into a tmux pane select, open, double click, scroll, open a link and go back;
/// the mouse modes follow `mouse`, terminfo and `:set mouse`, and are off after quitting.
@Suite struct MouseEndToEndTests {
    @Test(.timeLimit(.minutes(3))) func mouseInTmux() async throws {
        let (status, text) = try await runEndToEndScript("Tests/e2e/mouse_tmux.sh")
        #expect(status == 0, "\(text)")
        #expect(text.contains(" checks, 0 failed"), "\(text)")
    }
}
