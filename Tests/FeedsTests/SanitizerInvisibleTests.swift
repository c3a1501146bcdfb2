import Foundation
import Testing

@testable import Feeds

/// Invisible characters that change how the rest of a line reads (bidi marks, the BOM, tag
/// characters that hide ASCII text, annotation and deprecated format controls) do not reach
/// the terminal; the invisible characters scripts and emoji need stay.
@Suite("DisplayWidth.sanitizeForTerminal: invisible characters")
struct SanitizerInvisibleTests {
    /// Each removed class, alone, between ASCII runs long enough for the eight-byte
    /// prefilter, at every offset in the word.
    static let removed: [(String, String)] = [
        ("LRM", "\u{200E}"), ("RLM", "\u{200F}"), ("ALM", "\u{061C}"), ("BOM", "\u{FEFF}"),
        ("RLO", "\u{202E}"), ("LRE", "\u{202A}"), ("RLI", "\u{2067}"), ("PDI", "\u{2069}"),
        ("inhibit symmetric swapping", "\u{206A}"), ("nominal digit shapes", "\u{206F}"),
        ("interlinear annotation anchor", "\u{FFF9}"), ("annotation terminator", "\u{FFFB}"),
        ("language tag", "\u{E0001}"), ("tag A", "\u{E0041}"), ("tag space", "\u{E0020}"), ("cancel tag", "\u{E007F}"),
        ("tag range end", "\u{E007F}\u{E007F}"),
    ]

    @Test(arguments: removed)
    func removedEverywhere(name: String, character: String) {
        for offset in 0..<9 {
            let head = String(repeating: "a", count: offset)
            let input = head + character + "bcdefghijklmnop" + character
            #expect(DisplayWidth.sanitizeForTerminal(input) == head + "bcdefghijklmnop", "\(name) at \(offset)")
        }
        #expect(DisplayWidth.sanitizeForTerminal(character) == "", "\(name) alone")
    }

    @Test func hiddenASCIIInTagsIsDropped() {
        // "ignore" spelled in tag characters after a visible word: invisible on screen, so gone.
        let hidden = String(String.UnicodeScalarView("ignore".unicodeScalars.map { Unicode.Scalar($0.value + 0xE0000)! }))
        #expect(DisplayWidth.sanitizeForTerminal("Episode 12" + hidden + " notes") == "Episode 12 notes")
    }

    @Test func emojiTagSequencesStay() {
        let england = "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}"
        #expect(DisplayWidth.sanitizeForTerminal("Go " + england + "!") == "Go " + england + "!")
        // Without the cancel tag it is no flag: the black flag stays, its tags go.
        #expect(DisplayWidth.sanitizeForTerminal("🏴\u{E0067}\u{E0062} x") == "🏴 x")
        #expect(DisplayWidth.sanitizeForTerminal("🏴\u{E007F}") == "🏴")
        // A flag with a hidden message after its tags: only the flag survives.
        #expect(DisplayWidth.sanitizeForTerminal(england + "\u{E0041}\u{E0042}") == england)
    }

    @Test func separatorsBecomeNewlines() {
        #expect(DisplayWidth.sanitizeForTerminal("one\u{2028}two\u{2029}three") == "one\ntwo\nthree")
    }

    @Test func whatScriptsAndEmojiNeedStays() {
        let kept = [
            "👩‍👩‍👧",  // ZWJ sequence
            "می‌خواهم",  // ZWNJ in Persian
            "ภาษา\u{200B}ไทย",  // ZWSP between Thai words
            "❤️",  // a variation selector
            "e\u{301}",  // a combining mark
            "שלום עולם", "مرحبا",  // right-to-left text itself
            "co\u{AD}operate",  // a soft hyphen
        ]
        for text in kept { #expect(DisplayWidth.sanitizeForTerminal(text) == text, "\(text.debugDescription)") }
    }
}
