import Foundation
import Testing

@testable import ZeaderKit

/// `--json` output carries feed text without the invisible controls the terminal never
/// sees either (bidi marks, BOM, tag characters), and keeps what scripts and emoji need.
@Suite struct JSONTextSanitizingTests {
    @Test func invisibleControlsAreLeftOut() {
        var out = ""
        JSONText.appendString("\u{FEFF}Sa\u{200F}fe\u{061C} \u{E0041}\u{E0042}title\u{200E}\u{2066}", to: &out)
        #expect(out == #""Safe title""#)
        out = ""
        JSONText.appendStrings(["a\u{FEFF}", "می‌خواهم", "👩‍👩‍👧"], to: &out)
        #expect(out == #"["a","می‌خواهم","👩‍👩‍👧"]"#)
    }
}
