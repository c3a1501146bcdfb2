import Foundation
import Testing

/// Runs `Tests/e2e/edit_urls_tmux.sh` against the `zeader` binary built beside the tests: `E` in
/// the real reader on a urls file with an `exec:` feed whose command has blanks, a comment, a
/// `query:` line and a `"!"` hidden feed — the file is shown as written, the hidden feed is not
/// listed, and retagging the `exec:` line keeps its command whole and its items.
@Suite struct EditURLsEndToEndTests {
    @Test(.timeLimit(.minutes(2))) func editURLsInTmux() async throws {
        let (status, text) = try await runEndToEndScript("Tests/e2e/edit_urls_tmux.sh")
        #expect(status == 0, "\(text)")
        #expect(text.contains(" checks, 0 failed"), "\(text)")
    }
}
