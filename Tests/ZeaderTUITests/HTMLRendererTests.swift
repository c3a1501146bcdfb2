import Foundation
import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's `html-renderer`: the article's HTML on the command's standard input, its output shown.
@Suite struct HTMLRendererTests {
    /// Waits until the screen shows `text`, or gives up. It sleeps without holding a thread of
    /// the cooperative pool, where the renderer's task runs.
    func wait(_ h: Harness, for text: String) async -> Bool {
        for _ in 0..<800 {
            if h.screen.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func theCommandsOutputIsTheArticle() async throws {
        let config = try ReaderConfig.parse(
            "html-renderer \"sed -e 's/<[^>]*>//g' | tr a-z A-Z; echo RENDERED-BY-SED\"\n", file: "c")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        #expect(config.articleCommands.htmlRenderer == "sed -e 's/<[^>]*>//g' | tr a-z A-Z; echo RENDERED-BY-SED")
        let h = try Harness(width: 120, config: config)
        h.type(.down, .enter, .enter)
        let rendered = await wait(h, for: "RENDERED-BY-SED")
        #expect(rendered, "\(h.screen)")
        // The body's words, as the command wrote them.
        #expect(h.screen.range(of: "[A-Z]{6,} [A-Z]{3,}", options: .regularExpression) != nil, "\(h.screen)")
    }

    @Test func aRendererThatReadsAllItsInputIsShown() async throws {
        let config = try ReaderConfig.parse("html-renderer \"cat; echo RENDERED-BY-CAT\"\n", file: "c")
        #expect(config.articleCommands.htmlRenderer == "cat; echo RENDERED-BY-CAT")
        let h = try Harness(width: 120, config: config)
        h.type(.down, .enter, .enter)
        let rendered = await wait(h, for: "RENDERED-BY-CAT")
        #expect(rendered, "\(h.screen)")
    }

    @Test func aFailingRendererLeavesZeadersOwnRenderingAndSaysWhy() async throws {
        let config = try ReaderConfig.parse("html-renderer \"echo partial; exit 3\"\n", file: "c")
        let h = try Harness(width: 120, config: config)
        h.type(.down, .enter, .enter)
        let said = await wait(h, for: "html-renderer: echo partial; exit 3")
        #expect(said, "\(h.screen)")
        #expect(!h.screen.contains("partial\n"))
    }

    @Test(arguments: ["internal", "\"\"", "\" internal \""])
    func internalIsZeadersOwn(value: String) throws {
        let config = try ReaderConfig.parse("html-renderer \(value)\n", file: "c")
        #expect(config.articleCommands.htmlRenderer == nil)
        #expect(config.warnings.isEmpty)
    }

    @Test func theHTMLIsEscapedIntoPreformattedText() {
        #expect(ReaderApp.preformatted("a <b> & c") == "<pre>a &lt;b&gt; &amp; c</pre>")
    }
}
