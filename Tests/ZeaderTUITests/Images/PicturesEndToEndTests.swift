import Foundation
import Testing

/// Runs `Tests/e2e/tui_pictures.py` against the `zeader` binary built beside the tests: the real
/// reader on a pseudo-terminal whose answers to its queries are simulated per protocol (kitty,
/// sixel, iTerm2, plain, silent), an article with the four-squares picture served on 127.0.0.1;
/// what the reader writes is decoded back and each square's colour checked in its quarter.
@Suite struct PicturesEndToEndTests {
    @Test(.timeLimit(.minutes(3))) func eachProtocolsPictureReadsBackWithItsColours() async throws {
        let (status, text) = try await runEndToEndScript("Tests/e2e/tui_pictures.py", interpreter: ["/usr/bin/env", "python3"])
        #expect(status == 0, "\(text)")
        #expect(text.contains("pictures: 6 checks, 0 failed"), "\(text)")
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
