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
    /// the two-character forms, with their parameters and payloads), and the bidirectional
    /// embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069), which can
    /// make text display in an order other than the one it is stored in.
    ///
    /// A C1 control is removed alone, without what follows it: in feeds it is far more
    /// often a mis-decoded windows-1252 byte than the start of a sequence, and the text
    /// after it is harmless once the control is gone.
    ///
    /// ```swift
    /// DisplayWidth.sanitizeForTerminal("\u{1B}[31mred\u{1B}[0m\r\n")  // "red\n"
    /// DisplayWidth.sanitizeForTerminal("a\u{202E}b")                  // "ab"
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
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069:
                break
            default:
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whether `s` has anything ``sanitizeForTerminal(_:)`` removes, judged on its UTF-8
    /// bytes: C0 controls other than `\n` and `\t`, DEL, C1 controls (C2 80–C2 9F) and
    /// the bidi controls (E2 80 AA–AE, E2 81 A6–A9).
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
                    if second == 0x80 && (0xAA...0xAE).contains(third) { return true }
                    if second == 0x81 && (0xA6...0xA9).contains(third) { return true }
                }
            default:
                break
            }
            index += 1
        }
        return false
    }

    /// Whether any of the eight bytes in `word` is below 0x20, 0x7F, or the lead byte of
    /// a C1 control (0xC2) or of a bidi control (0xE2): a prefilter, exact checks follow.
    @inline(__always)
    private static func mayNeedSanitizing(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let below20 = (word &- ones &* 0x20) & ~word & highs
        let del = word ^ (ones &* 0x7F)
        let c2 = word ^ (ones &* 0xC2)
        let e2 = word ^ (ones &* 0xE2)
        return below20 | ((del &- ones) & ~del & highs) | ((c2 &- ones) & ~c2 & highs)
            | ((e2 &- ones) & ~e2 & highs) != 0
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
