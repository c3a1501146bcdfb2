import Foundation
import Testing

/// Runs `Tests/e2e/tui_pictures.py` against the `zeader` binary built beside the tests: the real
/// reader on a pseudo-terminal whose answers to its queries are simulated per protocol (kitty,
/// sixel, iTerm2, plain, silent), an article with the four-squares picture served on 127.0.0.1;
/// what the reader writes is decoded back and each square's colour checked in its quarter;
/// scrolled until the picture is partly above the window, kitty's picture is only placed
/// again (its visible rows) and sixel's and iTerm2's visible rows are drawn.
@Suite struct PicturesEndToEndTests {
    @Test(.timeLimit(.minutes(3))) func eachProtocolsPictureReadsBackWithItsColours() async throws {
        let (status, text) = try await runEndToEndScript("Tests/e2e/tui_pictures.py", interpreter: ["/usr/bin/env", "python3"])
        #expect(status == 0, "\(text)")
        #expect(text.contains("pictures: 9 checks, 0 failed"), "\(text)")
    }
}

/// Runs `Tests/e2e/xterm_pictures.py`: the reader in `xterm -ti vt340` under Xvfb, a screenshot
/// (xwd) showing the four squares' colours in their places below the article's first lines
/// (skipped where Xvfb, xterm or xwd is missing).
@Suite struct XtermPicturesEndToEndTests {
    @Test(.timeLimit(.minutes(3))) func sixelPictureShowsInARealTerminal() async throws {
        let (status, text) = try await runEndToEndScript(
            "Tests/e2e/xterm_pictures.py", interpreter: ["/usr/bin/env", "python3"])
        #expect(status == 0, "\(text)")
        #expect(text.contains("xterm-pictures: 0 failed") || text.contains("skipped"), "\(text)")
    }
}

/// Runs `Tests/e2e/tmux_pictures.py`: the reader in the real tmux, in a split window's right
/// pane, tmux on a pseudo-terminal playing kitty. With `allow-passthrough on` the picture
/// reaches the outer terminal at the pane's place and scrolling sends placements only; with
/// it off, a mosaic (skipped where tmux is missing).
@Suite struct TmuxPicturesEndToEndTests {
    @Test(.timeLimit(.minutes(3))) func picturesGoThroughTmuxsPassthroughWhereItIsOn() async throws {
        let (status, text) = try await runEndToEndScript(
            "Tests/e2e/tmux_pictures.py", interpreter: ["/usr/bin/env", "python3"])
        #expect(status == 0, "\(text)")
        #expect(text.contains("tmux-pictures: 0 failed") || text.contains("skipped"), "\(text)")
    }
}
