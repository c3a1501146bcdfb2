import Testing

@testable import Feeds

@Suite("Display width")
struct DisplayWidthTests {
    @Test(
        arguments: [
            ("a", 1), ("~", 1), ("é", 1), ("e\u{301}", 1), ("中", 2), ("한", 2), ("\u{1100}\u{1161}", 2), ("Ａ", 2),
            ("ｱ", 1), ("😀", 2), ("👨‍👩‍👧", 2), ("🇫🇷", 2), ("❤️", 2), ("❤", 1), ("☺︎", 1), ("⌚", 2), ("\u{200B}", 0),
            ("\u{200D}", 0), ("\u{0301}", 0), ("\t", 0), ("\u{1B}", 0), ("\u{85}", 0), ("\u{7F}", 0), ("Ω", 1), ("🫠", 2),
        ] as [(Character, Int)])
    func characterWidths(character: Character, width: Int) {
        #expect(DisplayWidth.of(character) == width, "\(character.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func scalarWidths() {
        #expect(DisplayWidth.of(Unicode.Scalar(0x4E2D)!) == 2)
        #expect(DisplayWidth.of(Unicode.Scalar(0x0301)!) == 0)
        #expect(DisplayWidth.of(Unicode.Scalar(0x20000)!) == 2)  // CJK Extension B
        #expect(DisplayWidth.of(Unicode.Scalar(0xFF01)!) == 2)  // fullwidth !
        #expect(DisplayWidth.of(Unicode.Scalar(0x0041)!) == 1)
        #expect(DisplayWidth.of(Unicode.Scalar(0x0000)!) == 0)
        #expect(DisplayWidth.of(Unicode.Scalar(0x00AD)!) == 1)  // soft hyphen, as glibc's wcwidth
    }

    @Test func stringWidths() {
        #expect(DisplayWidth.of("") == 0)
        #expect(DisplayWidth.of("hello") == 5)
        #expect(DisplayWidth.of("日本語") == 6)
        #expect(DisplayWidth.of("한국어 ok") == 9)
        #expect(DisplayWidth.of("a😀b") == 4)
        #expect(DisplayWidth.of("Cafe\u{301}") == 4)
        #expect(DisplayWidth.of("x\ty") == 2)
        #expect(DisplayWidth.of("日本語"[...]) == 6)
    }

    @Test func prefixNeverSplitsAWideCharacter() {
        #expect(DisplayWidth.prefix("日本語", columns: 5) == "日本")
        #expect(DisplayWidth.prefix("日本語", columns: 1) == "")
        #expect(DisplayWidth.prefix("a😀b", columns: 2) == "a")
        #expect(DisplayWidth.prefix("a😀b", columns: 3) == "a😀")
        #expect(DisplayWidth.prefix("hello", columns: 0) == "")
        #expect(DisplayWidth.prefix("e\u{301}x", columns: 1) == "e\u{301}")
    }

    @Test func paddedFillsExactly() {
        #expect(DisplayWidth.padded("日本", toColumns: 6) == "日本  ")
        #expect(DisplayWidth.padded("日本", toColumns: 3) == "日 ")
        #expect(DisplayWidth.padded("abc", toColumns: 2) == "ab")
        for columns in 0...8 {
            #expect(DisplayWidth.of(DisplayWidth.padded("a日b本c", toColumns: columns)) == columns)
        }
    }

    // MARK: - Sanitizing

    @Test(arguments: [
        ("plain text", "plain text"),
        ("\u{1B}[31mred\u{1B}[0m", "red"),
        ("\u{1B}[38;5;196mx", "x"),
        ("a\u{1B}]0;evil title\u{07}b", "ab"),
        ("a\u{1B}]8;;http://x\u{1B}\\link\u{1B}]8;;\u{1B}\\b", "alinkb"),
        ("a\u{1B}Pq#0;1\u{1B}\\b", "ab"),
        ("a\u{1B}cb", "ab"),
        ("a\u{1B}(Bb", "ab"),
        ("a\u{9B}2Jb", "a2Jb"),
        ("a\u{9D}title\u{9C}b", "atitleb"),
        ("line\r\nnext", "line\nnext"),
        ("tab\there", "tab\there"),
        ("bell\u{07}\u{08}\u{7F}", "bell"),
        ("\u{85}c1\u{9F}", "c1"),
        ("abc\u{202E}cba\u{202C}", "abccba"),
        ("\u{2066}iso\u{2069}", "iso"),
        ("trailing\u{1B}", "trailing"),
        ("trailing\u{1B}[", "trailing"),
        ("日本語 ✓ é", "日本語 ✓ é"),
        ("\u{1B}\u{1B}[1mx", "x"),
    ])
    func sanitizeForTerminal(input: String, expected: String) {
        #expect(DisplayWidth.sanitizeForTerminal(input) == expected)
    }

    @Test func sanitizeLeavesNoControlCharacters() {
        var input = ""
        for value in 0..<0xA0 { input.unicodeScalars.append(Unicode.Scalar(UInt8(value))) }
        let output = DisplayWidth.sanitizeForTerminal(input + "end")
        #expect(
            output.unicodeScalars.allSatisfy {
                $0 == "\n" || $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value))
            })
        #expect(output.hasSuffix("end"))
    }
}
