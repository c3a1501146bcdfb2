import Foundation
import Testing

@testable import Feeds

@Suite("Text helpers")
struct TextTests {
    @Test func controlCharactersAreFoundAtEveryLengthAndPosition() {
        // The scan reads 16 and 8 bytes at a time: no word boundary may hide a control or
        // read past the end.
        for length in 0...48 {
            let clean = Array(repeating: UInt8(ascii: "a"), count: length)
            #expect(clean.withUnsafeBufferPointer { FeedText.firstControlCharacter(in: $0) } == nil)
            for position in 0..<length {
                for control: [UInt8] in [[0x01], [0x7F], [0xC2, 0x85], [0x0D]] where position + control.count <= length {
                    var bytes = clean
                    bytes.replaceSubrange(position..<(position + control.count), with: control)
                    #expect(
                        bytes.withUnsafeBufferPointer { FeedText.firstControlCharacter(in: $0) } == position,
                        "\(length) \(position)")
                }
                var harmless = clean
                harmless[position] = 0x0A  // LF and TAB stay
                #expect(harmless.withUnsafeBufferPointer { FeedText.firstControlCharacter(in: $0) } == nil)
            }
        }
    }

    /// The preview as first written (one scalar at a time), for comparison.
    static func referencePreview(_ text: String, limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        let bytes = Array(text.utf8)
        var scalars = 0
        var index = 0
        var lastSpace = -1
        var lastSpaceScalars = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte & 0xC0 != 0x80 {
                if scalars == limit { break }
                scalars += 1
                if byte == 0x20 || byte == 0x0A {
                    lastSpace = index
                    lastSpaceScalars = scalars
                }
            }
            index += 1
        }
        guard index < bytes.count else { return text }
        var cut = index
        if lastSpace >= 0 && scalars - lastSpaceScalars < limit / 4 { cut = lastSpace }
        while cut > 0 && (bytes[cut - 1] == 0x20 || bytes[cut - 1] == 0x0A) { cut -= 1 }
        return String(decoding: bytes[..<cut], as: UTF8.self) + "…"
    }

    @Test func previewMatchesTheScalarByScalarRule() {
        var rng = FuzzTests.SplitMix64(state: 0x9E7)
        let pieces = ["a", "word", " ", "  ", "\n", "é", "北京", "🚀", "x\u{301}", ".", "longerword"]
        for _ in 0..<2000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...120, using: &rng) { text += pieces.randomElement(using: &rng)! }
            for limit in [1, 3, 4, 7, 8, 9, 16, 40, 300] {
                #expect(FeedText.preview(text, limit: limit) == Self.referencePreview(text, limit: limit), "\(limit) \(text)")
            }
        }
    }

    @Test func previewCutsAtAWordBoundary() {
        #expect(FeedText.preview("short text", limit: 300) == "short text")
        let long = String(repeating: "word ", count: 100)  // 500 scalars
        let preview = FeedText.preview(long, limit: 52)
        #expect(preview == String(repeating: "word ", count: 10).dropLast() + "…")
        let accented = String(repeating: "é", count: 20)
        #expect(FeedText.preview(accented, limit: 10) == String(repeating: "é", count: 10) + "…")
        #expect(FeedText.preview(accented, limit: 20) == accented)
    }

    @Test func markupBecomesText() {
        #expect(FeedMarkup.plainText("<p>One</p><p>Two<br>three</p>") == "One\n\nTwo\nthree")
        #expect(FeedMarkup.plainText("a <script>var x = '<p>';</script>b<style>p{}</style> c") == "a b c")
        #expect(
            FeedMarkup.plainText("x &lt; y &amp;&amp; &#8220;q&#8221; &eacute; &#x1F680; &bogus; 5 < 6")
                == "x < y && “q” é 🚀 &bogus; 5 < 6")
        #expect(FeedMarkup.plainText("<a href=\"x>y\">link</a>   text\n\n more") == "link text more")
        #expect(FeedMarkup.plainText("<!-- hidden --><![CDATA[x]]>shown") == "shown")
    }

    @Test func whitespaceAndControls() {
        #expect(FeedText.collapsingWhitespace("  a \n\t b  ") == "a b")
        #expect(FeedText.collapsingWhitespace("already clean") == "already clean")
        var bytes = Array("a\u{1B}b\u{85}c\r\nd".utf8)
        FeedText.stripControlCharacters(&bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "abc\nd")
        let long = String(repeating: "clean text ", count: 20) + "\u{7}" + String(repeating: "more ", count: 20)
        #expect(!FeedText.sanitized(long).contains("\u{7}"))
    }

    @Test func stableHashIsStable() {
        #expect(FeedText.stableHash(["https://a.example/1", "Title"]) == FeedText.stableHash(["https://a.example/1", "Title"]))
        #expect(FeedText.stableHash(["a", "bc"]) != FeedText.stableHash(["ab", "c"]))
        #expect(FeedText.stableHash([""]).count == 16)
    }
}
