import Foundation
import Testing

/// Runs `Tests/e2e/full_article_tmux.sh` against the `zeader` binary built beside the tests:
/// `w` in the real reader shows the item's web page, served on 127.0.0.1 by the script, in place
/// of the feed's text and back, and the article stays with the item once the server is gone.
@Suite struct FullArticleEndToEndTests {
    @Test(.timeLimit(.minutes(3))) func fullArticleKeyInTmux() async throws {
        let (status, text) = try await runEndToEndScript("Tests/e2e/full_article_tmux.sh")
        #expect(status == 0, "\(text)")
        #expect(text.contains(" checks, 0 failed"), "\(text)")
    }
}
