extension HTMLText {
    /// The byte-level engine of ``plainText(_:)``: one pass over the UTF-8 bytes, no
    /// tokens, no per-tag allocation beyond short tag names, since parsers call it for
    /// every item's summary.
    static func fastPlainText(_ html: String) -> String {
        fastPlainText(utf8: Array(html.utf8))
    }

    /// ``fastPlainText(_:)`` of HTML already held as UTF-8 bytes (a parser's captured
    /// text), without making a `String` of the HTML first.
    static func fastPlainText(utf8 bytes: [UInt8]) -> String {
        var output = plainTextOutput(utf8: bytes)
        return output.finish()
    }

    /// The UTF-8 bytes of ``fastPlainText(utf8:)``, when they are found without making a
    /// `String` (they are valid UTF-8 with nothing for the terminal sanitizer to remove,
    /// which is nearly always); `nil` otherwise.
    ///
    /// With `scalarLimit`, the work stops once the text holds more than that many
    /// characters (Unicode scalars): the result is then only a prefix of the text, whose
    /// first `scalarLimit + 1` characters are exact (what a preview of that length needs).
    static func fastPlainTextUTF8(_ bytes: [UInt8], scalarLimit: Int = .max) -> [UInt8]? {
        var output = plainTextOutput(utf8: bytes, stopAfterScalars: scalarLimit == .max ? .max : scalarLimit + 2)
        return output.finishUTF8()
    }

    /// The text of `bytes`, or (with `stopAfterScalars`) its beginning: the output is only
    /// ever appended to, so once it holds that many scalar starts, all but the last of
    /// them are complete and final.
    private static func plainTextOutput(utf8 bytes: [UInt8], stopAfterScalars: Int = .max) -> PlainTextOutput {
        var output = PlainTextOutput(capacity: bytes.count)
        let count = bytes.count
        var index = 0
        var scalars = 0
        var countedBytes = 0
        var nextCount = stopAfterScalars  // at least one byte per scalar: no need to count before
        while index < count {
            if output.count >= nextCount {
                scalars += output.scalarStarts(from: countedBytes)
                countedBytes = output.count
                if scalars >= stopAfterScalars { break }
                nextCount = output.count + (stopAfterScalars - scalars)
            }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "<"):
                index = skipMarkup(bytes, at: index, into: &output)
            case UInt8(ascii: "&"):
                if let (replacement, length) = HTMLEntities.reference(in: bytes, at: index, inAttribute: false) {
                    for character in replacement.utf8 { output.append(character) }
                    index += length
                } else {
                    output.append(byte)
                    index += 1
                }
            default:
                // Most bytes are ordinary text: find the end of their run and copy it whole.
                if isOrdinaryText(byte) {
                    let end = bytes.withUnsafeBufferPointer { ordinaryRunEnd($0, from: index) }
                    output.append(run: bytes, from: index, to: end)
                    index = end
                } else {
                    output.append(byte)
                    index += 1
                }
            }
        }
        return output
    }

    /// The end of the run of text starting with the ordinary byte at `start`: ordinary
    /// bytes, and single spaces between two of them (which the output keeps as they are).
    @inline(__always)
    private static func ordinaryRunEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let count = bytes.count
        var end = start + 1
        // The byte before `end` is ordinary here and after every step below.
        while end < count {
            // Eight bytes at a time while they plainly continue the run (nearly all of an
            // article's words); anything else is settled byte by byte.
            if end + 8 <= count,
                continuesRun(
                    UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(fromByteOffset: end, as: UInt64.self))
                )
            {
                end += 8
                continue
            }
            let byte = bytes[end]
            if isOrdinaryText(byte) {
                end += 1
            } else if byte == 0x20, end + 1 < count, isOrdinaryText(bytes[end + 1]) {
                end += 2
            } else {
                break
            }
        }
        return end
    }

    /// Whether the eight bytes of `word` (little-endian), following an ordinary byte, all
    /// belong to the run: none below 0x20, `<`, `&` or 0xC2, no two spaces side by side, and
    /// not a space last (whether one may end the run depends on the byte after it). It may
    /// answer false for a word that does continue the run (the byte-by-byte steps then
    /// decide), never true for one that does not.
    @inline(__always)
    private static func continuesRun(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // High bit of each byte equal to `byte`, exact up to the first such byte (later ones
        // may be set by the borrow: that only sends a word the slow way).
        @inline(__always) func equal(_ byte: UInt64) -> UInt64 {
            let x = word ^ (ones &* byte)
            return (x &- ones) & ~x & highs
        }
        let below20 = (word &- ones &* 0x20) & ~word & highs
        let stops = below20 | equal(0x3C) | equal(0x26) | equal(0xC2)
        let spaces = equal(0x20)
        return stops | (spaces & (spaces >> 8)) == 0 && word >> 56 != 0x20
    }

    /// Bytes that ``PlainTextOutput`` copies as they are and the main loop does not look
    /// at: not markup (`<`, `&`), not white space, not the lead byte of a soft hyphen.
    @inline(__always)
    private static func isOrdinaryText(_ byte: UInt8) -> Bool {
        byte != UInt8(ascii: "<") && byte != UInt8(ascii: "&") && byte > 0x20 && byte != 0xC2
            || byte >= 0x0E && byte < 0x20 || byte == 0x0B
    }

    /// Handles the markup starting at the `<` at `start`; returns where text resumes.
    private static func skipMarkup(_ bytes: [UInt8], at start: Int, into output: inout PlainTextOutput) -> Int {
        let count = bytes.count
        var index = start + 1
        guard index < count else {
            output.append(bytes[start])
            return index
        }
        let next = bytes[index]
        if next == UInt8(ascii: "!") {
            if matches(bytes, at: index + 1, "--") {
                // "<!-->" and "<!--->" are empty comments
                if matches(bytes, at: index + 3, ">") { return index + 4 }
                if matches(bytes, at: index + 3, "->") { return index + 5 }
                return find(bytes, "-->", from: index + 3).map { $0 + 3 } ?? count
            }
            if matches(bytes, at: index + 1, "[CDATA[") {
                let bodyStart = index + 8
                let end = find(bytes, "]]>", from: bodyStart) ?? count
                for position in bodyStart..<end { output.append(bytes[position]) }
                return min(end + 3, count)
            }
            return find(bytes, ">", from: index).map { $0 + 1 } ?? count
        }
        if next == UInt8(ascii: "?") {
            return find(bytes, ">", from: index).map { $0 + 1 } ?? count
        }
        let isEndTag = next == UInt8(ascii: "/")
        if isEndTag { index += 1 }
        guard index < count, isASCIILetter(bytes[index]) else {
            if isEndTag {  // "</>" or "</ junk>": a bogus comment
                return find(bytes, ">", from: index).map { $0 + 1 } ?? count
            }
            output.append(bytes[start])  // a '<' that starts nothing is text
            return start + 1
        }
        let nameStart = index
        while index < count, !isTagNameEnd(bytes[index]) { index += 1 }
        let nameEnd = index
        let name = packedName(bytes[nameStart..<nameEnd])
        // Skip the attributes to the closing '>'; a quote right after '=' (spaces allowed)
        // opens a value that may contain '>'. End tags have no attributes to honour.
        var quote: UInt8 = 0
        var afterEquals = false
        while index < count {
            let byte = bytes[index]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: ">") {
                break
            } else if afterEquals, !isEndTag, byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
                afterEquals = false
            } else if byte == UInt8(ascii: "=") {
                afterEquals = true
            } else if !isSpace(byte) {
                afterEquals = false
            }
            index += 1
        }
        guard index < count else { return count }  // unterminated tag: dropped
        index += 1
        if !isEndTag, packedRawTextElements.contains(name) {
            let selfClosing = bytes[index - 2] == UInt8(ascii: "/")
            if selfClosing { return index }
            let contentStart = index
            let contentEnd = findEndTag(bytes, name: bytes[nameStart..<nameEnd], from: index)
            if name == pack("textarea") || name == pack("xmp") {
                for position in contentStart..<contentEnd.contentEnd { output.append(bytes[position]) }
            }
            return contentEnd.resume
        }
        if !packedInlineElements.contains(name) { output.breakWord() }
        return index
    }

    /// Tag names of up to 8 ASCII bytes, lower-cased, packed into an integer so that
    /// looking one up allocates nothing; longer names (no inline or raw-text element has
    /// one) pack to 0.
    private static func packedName(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        guard bytes.count <= 8 else { return 0 }
        var key: UInt64 = 0
        for byte in bytes {
            key = key << 8 | UInt64(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
        }
        return key
    }

    private static func pack(_ name: String) -> UInt64 {
        packedName(ArraySlice(name.utf8))
    }

    private static let packedInlineElements = Set(HTMLText.inlineElements.map(pack))
    private static let packedRawTextElements = Set(HTMLTokenizer.rawTextElements.map(pack))

    private static func findEndTag(
        _ bytes: [UInt8], name: ArraySlice<UInt8>, from start: Int
    ) -> (contentEnd: Int, resume: Int) {
        let nameBytes = name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        var search = start
        while let open = find(bytes, "</", from: search) {
            let nameStart = open + 2
            let nameEnd = nameStart + nameBytes.count
            if nameEnd <= bytes.count,
                zip(bytes[nameStart..<nameEnd], nameBytes).allSatisfy({ $0 | 0x20 == $1 }),
                nameEnd == bytes.count || isTagNameEnd(bytes[nameEnd])
            {
                let resume = find(bytes, ">", from: nameEnd).map { $0 + 1 } ?? bytes.count
                return (open, resume)
            }
            search = nameStart
        }
        return (bytes.count, bytes.count)
    }

    private static func matches(_ bytes: [UInt8], at index: Int, _ text: StaticString) -> Bool {
        let length = text.utf8CodeUnitCount
        guard index + length <= bytes.count else { return false }
        return text.withUTF8Buffer { pattern in
            for offset in 0..<length where bytes[index + offset] != pattern[offset] { return false }
            return true
        }
    }

    private static func find(_ bytes: [UInt8], _ text: StaticString, from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        let first = text.utf8Start.pointee
        var index = start
        while index < bytes.count {
            if bytes[index] == first, matches(bytes, at: index, text) { return index }
            index += 1
        }
        return nil
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    private static func isTagNameEnd(_ byte: UInt8) -> Bool {
        isSpace(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">")
    }
}

/// Collects plain-text bytes with whitespace collapsed and soft hyphens dropped.
private struct PlainTextOutput {
    private var bytes: [UInt8] = []
    private var pendingSpace = false
    /// A soft hyphen's lead byte (0xC2) waiting to see whether 0xAD follows.
    private var heldC2 = false

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Bytes written so far.
    var count: Int { bytes.count }

    /// How many of the bytes from `start` on begin a scalar (are not continuation bytes).
    func scalarStarts(from start: Int) -> Int {
        var starts = 0
        for index in start..<bytes.count where bytes[index] & 0xC0 != 0x80 { starts += 1 }
        return starts
    }

    mutating func append(_ byte: UInt8) {
        if heldC2 {
            heldC2 = false
            if byte == 0xAD { return }
            emit(0xC2)
        }
        switch byte {
        case 0x20, 0x09, 0x0A, 0x0D, 0x0C:
            pendingSpace = true
        case 0xC2:
            heldC2 = true
        default:
            emit(byte)
        }
    }

    /// Appends `source[start..<end]`, a run that begins with an ordinary byte (see
    /// `HTMLText.ordinaryRunEnd`): once a pending space is written and a held 0xC2 is
    /// settled (a soft hyphen's 0xAD is dropped), the rest is copied as it is, since its
    /// spaces are single ones between ordinary bytes.
    mutating func append(run source: [UInt8], from start: Int, to end: Int) {
        var index = start
        // One by one until the output's state is plain: nothing pending or held, some
        // output already, and the last byte handled not a space.
        while index < end
            && (index == start || pendingSpace || heldC2 || bytes.isEmpty || source[index - 1] == 0x20)
        {
            append(source[index])
            index += 1
        }
        guard index < end else { return }
        source.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[index..<end])) }
    }

    private mutating func emit(_ byte: UInt8) {
        if pendingSpace, !bytes.isEmpty { bytes.append(0x20) }
        pendingSpace = false
        bytes.append(byte)
    }

    mutating func breakWord() {
        if heldC2 {
            heldC2 = false
            emit(0xC2)
        }
        pendingSpace = true
    }

    /// The bytes as they are, when ``finish()`` would give exactly their string; nil when
    /// they are not valid UTF-8 or hold something the terminal sanitizer removes.
    mutating func finishUTF8() -> [UInt8]? {
        breakWord()
        let clean = bytes.withUnsafeBufferPointer { buffer in
            FeedXMLEncoding.isValidUTF8(buffer, from: 0, to: buffer.count) && !DisplayWidth.needsSanitizing(utf8: buffer)
        }
        return clean ? bytes : nil
    }

    mutating func finish() -> String {
        breakWord()
        let text = String(decoding: bytes, as: UTF8.self)
        let clean = DisplayWidth.sanitizeForTerminal(text)
        // Removing a control can leave two spaces side by side, or one at an end.
        return clean.utf8.count == text.utf8.count ? clean : CollapsedText.collapse(clean)
    }
}
