import Testing

@testable import Feeds
@testable import ZeaderConfig
@testable import ZeaderTUI

/// An article's `<strong>` is bold and its links and `<u>` underlined on the screen, also under a
/// newsboat `color article` line (which sets plain text's colour and attributes).
@Suite struct ArticleEmphasisTests {
    @Test func plainTextKeepsItsBoldAndUnderlineUnderAColorArticleLine() throws {
        for config in ["", "color article cyan default\n", "color article cyan default\ncolor listnormal cyan default\n"] {
            let rules = try ReaderConfig.parse(config, file: "config").colorRules
            let palette = Palette(rules: rules, hasColor: true, colorCount: 256)
            #expect(palette.look(Style(bold: true)).attributes.contains(.bold), "\(config)")
            #expect(palette.look(Style(underline: true)).attributes.contains(.underline), "\(config)")
            #expect(palette.look(.normal).attributes.isEmpty, "\(config)")
        }
    }

    @Test func theArticleViewDrawsTheSpansOverTheLine() {
        var buffer = ScreenBuffer(width: 30, height: 2)
        let spans = [
            TextSpan(line: 0, start: 2, count: 4, bold: true, underline: false),
            TextSpan(line: 0, start: 8, count: 2, bold: false, underline: true),
        ]
        buffer.write("A bold 日本語 x", spans: spans, x: 1, y: 0, style: .normal)
        let styles = (0..<15).map { buffer[$0, 0].style }
        #expect(styles[1] == .normal)
        #expect((3...6).allSatisfy { styles[$0] == Style(bold: true) })
        #expect(styles[7] == .normal)
        // 日本語: the span's two characters are four columns.
        #expect(styles[8] == .normal && styles[9] == .normal)
        #expect((10...13).allSatisfy { styles[$0] == Style(underline: true) }, "\(styles)")
        #expect(styles[14] == .normal)
    }
}
