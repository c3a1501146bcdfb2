/// Widths of text in terminal columns, and cleaning of text before it reaches a terminal.
///
/// Widths follow what terminals (xterm, VTE, kitty, tmux) draw: East Asian Wide and
/// Fullwidth characters and emoji take two columns; combining marks, zero-width
/// characters and controls take none; everything else takes one. Widths are counted per
/// `Character` (extended grapheme cluster), so an emoji sequence joined with U+200D, a
/// flag, or a letter with its accents is measured as the one glyph it is drawn as.
///
/// ```swift
/// DisplayWidth.of("日本語")   // 6
/// DisplayWidth.of("e\u{301}") // 1
/// ```
public enum DisplayWidth {
    /// The number of terminal columns one Unicode scalar occupies on its own: 0, 1 or 2.
    ///
    /// ```swift
    /// DisplayWidth.of(Unicode.Scalar(0x4E2D)!)  // 2 (中)
    /// DisplayWidth.of(Unicode.Scalar(0x0301)!)  // 0 (combining acute accent)
    /// ```
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x7F { return value >= 0x20 ? 1 : 0 }
        if value < 0xA0 { return 0 }  // DEL and the C1 controls
        if value < 0x300 { return 1 }  // Latin-1 and Latin Extended: nothing special here
        if contains(zeroWidthRanges, value) { return 0 }
        if contains(wideRanges, value) { return 2 }
        return 1
    }

    /// The number of terminal columns one character (grapheme cluster) occupies: 0, 1 or 2.
    ///
    /// ```swift
    /// DisplayWidth.of("👩‍💻" as Character)  // 2
    /// DisplayWidth.of("a" as Character)     // 1
    /// ```
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.count == 1 { return of(first) }
        // Regional indicator pairs are drawn as one flag, two columns wide.
        if (0x1F1E6...0x1F1FF).contains(first.value) { return 2 }
        var width = 0
        var emojiBase = false
        for scalar in scalars {
            switch scalar.value {
            case 0xFE0F:  // VS16 asks for the emoji presentation: two columns
                if emojiBase { width = 2 }
            case 0xFE0E:  // VS15 asks for the text presentation: one column
                if emojiBase { width = 1 }
            default:
                if width == 0 {
                    width = of(scalar)
                    emojiBase = width > 0 && scalar.properties.isEmoji
                }
            }
        }
        return width
    }

    /// The number of terminal columns a string occupies on one line (a tab or newline
    /// counts as zero; lay such text out line by line and expand tabs first).
    ///
    /// ```swift
    /// DisplayWidth.of("abc")      // 3
    /// DisplayWidth.of("한국어 ok") // 9
    /// ```
    public static func of<S: StringProtocol>(_ string: S) -> Int {
        var ascii = 0
        var allPrintableASCII = true
        for byte in string.utf8 {
            if byte >= 0x20 && byte < 0x7F {
                ascii += 1
            } else {
                allPrintableASCII = false
                break
            }
        }
        if allPrintableASCII { return ascii }
        // Summing scalar widths gives the per-character answer (a base and its combining
        // marks, Hangul jamo) unless a scalar joins or restyles its neighbours: ZWJ,
        // variation selectors, regional indicators, skin-tone modifiers. Those strings
        // are measured character by character.
        var width = 0
        for scalar in string.unicodeScalars {
            switch scalar.value {
            case 0x200D, 0xFE0E, 0xFE0F, 0x1F1E6...0x1F1FF, 0x1F3FB...0x1F3FF:
                var total = 0
                for character in string { total += of(character) }
                return total
            default:
                width += of(scalar)
            }
        }
        return width
    }

    /// The longest prefix of `string` that fits in `columns` terminal columns, never
    /// cutting a character (a wide character that would straddle the edge is left out).
    ///
    /// ```swift
    /// DisplayWidth.prefix("日本語", columns: 5)  // "日本"
    /// DisplayWidth.prefix("hello", columns: 3)  // "hel"
    /// ```
    public static func prefix(_ string: String, columns: Int) -> String {
        guard columns > 0 else { return "" }
        var used = 0
        var end = string.startIndex
        for index in string.indices {
            let width = of(string[index])
            if used + width > columns { break }
            used += width
            end = string.index(after: index)
        }
        return String(string[..<end])
    }

    /// `string` cut to at most `columns` columns, then padded with spaces to exactly
    /// `columns` columns (a cut wide character leaves one extra space).
    ///
    /// ```swift
    /// DisplayWidth.padded("日本", toColumns: 6)  // "日本  "
    /// DisplayWidth.padded("日本", toColumns: 3)  // "日 "
    /// ```
    public static func padded(_ string: String, toColumns columns: Int) -> String {
        let cut = prefix(string, columns: columns)
        let width = of(cut)
        return width < columns ? cut + String(repeating: " ", count: columns - width) : cut
    }

    /// `text` cut into lines of at most `width` columns between any two characters (for
    /// URLs, which have no good place to break); a character wider than `width` gets a line
    /// of its own.
    ///
    /// ```swift
    /// DisplayWidth.lines("https://example.org/a", width: 10)  // ["https://ex", "ample.org/", "a"]
    /// ```
    public static func lines(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        for character in text {
            let characterWidth = of(character)
            if lineWidth > 0, lineWidth + characterWidth > width {
                lines.append(line)
                line = ""
                lineWidth = 0
            }
            line.append(character)
            lineWidth += characterWidth
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// Removes what could steer a terminal from feed-provided text: C0 controls except
    /// `\n` and `\t` (so also `\r`), DEL, C1 controls, escape sequences (CSI, OSC, DCS and
    /// the two-character forms, with their parameters and payloads), and invisible characters
    /// that change how the rest reads: the bidirectional controls (embeddings, overrides and
    /// isolates U+202A–U+202E, U+2066–U+2069; the marks LRM, RLM and ALM, U+200E, U+200F,
    /// U+061C), which can make text display in an order other than the one it is stored in;
    /// the deprecated format controls U+206A–U+206F; the byte order mark U+FEFF; the
    /// interlinear annotation controls U+FFF9–U+FFFB; and tag characters (U+E0000–U+E007F),
    /// which hide ASCII text, except inside an emoji tag sequence (a flag such as England's:
    /// U+1F3F4, tags, U+E007F). The line and paragraph separators U+2028 and U+2029 become
    /// `\n`. Joiners stay: ZWJ builds emoji sequences, ZWNJ and ZWSP shape and break
    /// Persian, Indic and Thai text.
    ///
    /// A C1 control is removed alone, without what follows it: in feeds it is far more
    /// often a mis-decoded windows-1252 byte than the start of a sequence, and the text
    /// after it is harmless once the control is gone.
    ///
    /// ```swift
    /// DisplayWidth.sanitizeForTerminal("\u{1B}[31mred\u{1B}[0m\r\n")  // "red\n"
    /// DisplayWidth.sanitizeForTerminal("a\u{202E}b")                  // "ab"
    /// DisplayWidth.sanitizeForTerminal("\u{FEFF}x\u{E0041}\u{200F}")   // "x"
    /// ```
    public static func sanitizeForTerminal(_ s: String) -> String {
        if !needsSanitizing(s) { return s }
        var out = String.UnicodeScalarView()
        var scalars = s.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        while let scalar = pending ?? scalars.next() {
            pending = nil
            let value = scalar.value
            switch value {
            case 0x0A, 0x09:
                out.append(scalar)
            case 0x1B:  // ESC: drop the whole sequence
                guard let next = scalars.next() else { break }
                switch next.value {
                case 0x5B:  // CSI: parameters and intermediates, then one final byte
                    pending = skipControlSequence(&scalars)
                case 0x5D, 0x50, 0x58, 0x5E, 0x5F:  // OSC, DCS, SOS, PM, APC: up to BEL or ST
                    pending = skipControlString(&scalars)
                case 0x20...0x2F:  // nF: intermediates, then a final byte
                    pending = skipIntermediates(&scalars)
                case 0x30...0x7E:  // two-character sequence (Fp, Fe, Fs): already consumed
                    break
                default:
                    pending = next  // ESC followed by ordinary text: keep the text
                }
            case 0x2028, 0x2029:
                out.append("\n")
            case 0x1F3F4:  // a black flag: the tags that follow may spell a subdivision's flag
                out.append(scalar)
                pending = keepTagSequence(&scalars, into: &out)
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x206F, 0xFEFF,
                0xFFF9...0xFFFB, 0xE0000...0xE007F:
                break
            default:
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// After U+1F3F4: keeps the tag characters U+E0020–U+E007E that follow when U+E007F
    /// ends them (an emoji tag sequence), else drops them; returns the first scalar read past
    /// them, if any.
    private static func keepTagSequence(
        _ scalars: inout String.UnicodeScalarView.Iterator, into out: inout String.UnicodeScalarView
    ) -> Unicode.Scalar? {
        var tags = String.UnicodeScalarView()
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0xE0020...0xE007E where tags.count < 32:
                tags.append(scalar)
            case 0xE007F where !tags.isEmpty:
                out.append(contentsOf: tags)
                out.append(scalar)
                return nil
            default:
                return scalar  // not a tag sequence: its tags are dropped with the sanitizer's rule
            }
        }
        return nil
    }

    /// Whether `s` has anything ``sanitizeForTerminal(_:)`` removes or changes, judged on
    /// its UTF-8 bytes: C0 controls other than `\n` and `\t`, DEL, C1 controls (C2 80–C2 9F),
    /// ALM (D8 9C), the marks, separators and bidi and format controls of E2 80 8E–8F,
    /// E2 80 A8–AE and E2 81 A6–AF, the BOM (EF BB BF), the annotation controls (EF BF B9–BB)
    /// and tag characters (F3 A0 80–81 ..).
    private static func needsSanitizing(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { needsSanitizing(utf8: $0) }
    }

    /// ``needsSanitizing(_:)`` of the string whose UTF-8 bytes are `bytes`.
    static func needsSanitizing(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = 0
        while index < count {
            // Eight bytes at a time while none can start anything removed (called for
            // every item's summary: most text has nothing to remove).
            if index + 8 <= count, !mayNeedSanitizing(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index += 8
                continue
            }
            switch bytes[index] {
            case 0x00...0x08, 0x0B...0x1F, 0x7F:
                return true
            case 0xC2:
                if index + 1 < count, (0x80...0x9F).contains(bytes[index + 1]) { return true }
            case 0xE2:
                if index + 2 < count {
                    let second = bytes[index + 1]
                    let third = bytes[index + 2]
                    if second == 0x80 && (0x8E...0x8F).contains(third) { return true }
                    if second == 0x80 && (0xA8...0xAE).contains(third) { return true }
                    if second == 0x81 && (0xA6...0xAF).contains(third) { return true }
                }
            case 0xD8:
                if index + 1 < count, bytes[index + 1] == 0x9C { return true }
            case 0xEF:
                if index + 2 < count {
                    let second = bytes[index + 1]
                    let third = bytes[index + 2]
                    if second == 0xBB && third == 0xBF { return true }
                    if second == 0xBF && (0xB9...0xBB).contains(third) { return true }
                }
            case 0xF3:
                if index + 2 < count, bytes[index + 1] == 0xA0, (0x80...0x81).contains(bytes[index + 2]) { return true }
            default:
                break
            }
            index += 1
        }
        return false
    }

    /// Whether any of the eight bytes in `word` is below 0x20, 0x7F, or the lead byte of
    /// a C1 control (0xC2), of ALM (0xD8), of a bidi or format control (0xE2), of the BOM
    /// (0xEF) or of a tag character (0xF3): a prefilter, exact checks follow.
    @inline(__always)
    private static func mayNeedSanitizing(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func has(_ byte: UInt64) -> UInt64 {
            let x = word ^ (ones &* byte)
            return (x &- ones) & ~x & highs
        }
        let below20 = (word &- ones &* 0x20) & ~word & highs
        return below20 | has(0x7F) | has(0xC2) | has(0xD8) | has(0xE2) | has(0xEF) | has(0xF3) != 0
    }

    /// Skips CSI parameters (0x20–0x3F) up to and including the final byte (0x40–0x7E);
    /// returns the first scalar that is not part of the sequence, if one was read.
    private static func skipControlSequence(
        _ scalars: inout String.UnicodeScalarView.Iterator
    ) -> Unicode.Scalar? {
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x20...0x3F: continue
            case 0x40...0x7E: return nil
            default: return scalar  // malformed: end the sequence here, keep the rest
            }
        }
        return nil
    }

    /// Skips an OSC/DCS-style string up to BEL, ESC \ or C1 ST.
    private static func skipControlString(
        _ scalars: inout String.UnicodeScalarView.Iterator
    ) -> Unicode.Scalar? {
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x07, 0x9C: return nil
            case 0x1B:
                guard let next = scalars.next() else { return nil }
                return next.value == 0x5C ? nil : next
            default: continue
            }
        }
        return nil
    }

    /// Skips nF intermediates (0x20–0x2F) and the final byte (0x30–0x7E).
    private static func skipIntermediates(
        _ scalars: inout String.UnicodeScalarView.Iterator
    ) -> Unicode.Scalar? {
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x20...0x2F: continue
            case 0x30...0x7E: return nil
            default: return scalar
            }
        }
        return nil
    }

    private static func contains(_ ranges: [(UInt32, UInt32)], _ value: UInt32) -> Bool {
        var low = 0
        var high = ranges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = ranges[middle]
            if value < range.0 {
                high = middle - 1
            } else if value > range.1 {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }
}
