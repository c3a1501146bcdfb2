import Foundation

/// Byte-level helpers that turn text captured from a feed into safe `String`s.
///
/// Feed text reaches a terminal and stdout, so every control character except `\n` and
/// `\t` is removed (C0, DEL and C1, which also takes the ESC of escape sequences), and
/// `\r\n` / `\r` become `\n`.
///
/// ```swift
/// FeedText.sanitized("a\u{1B}[31mb\r\nc")   // "a[31mb\nc"
/// ```
enum FeedText {
    /// `string` without control characters other than `\n` and `\t`; CR and CRLF become LF.
    static func sanitized(_ string: String) -> String {
        var string = string
        let clean = string.withUTF8 { firstControlCharacter(in: $0) == nil }
        if clean { return string }
        var bytes = Array(string.utf8)
        return makeString(&bytes, trim: false) ?? ""
    }

    /// The index of the first byte `stripControlCharacters` would remove, if any.
    static func firstControlCharacter(in buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = buffer.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let count = buffer.count
        var index = 0
        while index < count {
            // Sixteen bytes at a time while none may be a control (the usual case).
            while index + 16 <= count {
                let low = controlFlags(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
                let high = controlFlags(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)))
                if low | high != 0 { break }
                index += 16
            }
            if index == count { break }
            if index + 8 <= count {
                let flags = controlFlags(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
                if flags == 0 {
                    index += 8
                    continue
                }
                index += flags.trailingZeroBitCount >> 3  // the first byte that may be one
            }
            let byte = buffer[index]
            if byte < 0x20 {
                if byte != 0x0A && byte != 0x09 { return index }
            } else if byte == 0x7F {
                return index
            } else if byte == 0xC2, index + 1 < count, buffer[index + 1] >= 0x80, buffer[index + 1] <= 0x9F {
                return index
            }
            index += 1
        }
        return nil
    }

    /// The `String` of UTF-8 `bytes`: the same as `String(decoding: bytes, as: UTF8.self)`
    /// (invalid sequences become U+FFFD), with the bytes checked once by
    /// ``FeedXMLEncoding/checkUTF8(_:)``, which skips ASCII runs sixteen bytes at a time,
    /// instead of by the standard library's byte-by-byte check (most of a parse's string
    /// making: an item's body is mostly ASCII with a few other characters).
    static func string(utf8 bytes: UnsafeBufferPointer<UInt8>) -> String {
        let check = FeedXMLEncoding.checkUTF8(bytes)
        guard check != .invalid else { return String(decoding: bytes, as: UTF8.self) }
        if #available(macOS 26, *) {
            // Checked just above: the bytes are valid UTF-8, so the unchecked span is sound.
            return String(copying: UTF8Span(unchecked: bytes.span, isKnownASCII: check == .ascii))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``string(utf8:)-(UnsafeBufferPointer<UInt8>)`` of the bytes of an array.
    static func string(utf8 bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { string(utf8: $0) }
    }

    /// Whether `text` contains the ASCII `part`, as Foundation's `contains` says: compared
    /// on the bytes when `text` is all ASCII (a MIME type, say), where Foundation's
    /// search bridges each call to `NSString` (twice per Atom entry); by Foundation otherwise (its search is by characters, not bytes).
    static func contains(_ text: String, ascii part: StaticString) -> Bool {
        var text = text
        let found: Bool? = text.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            let needle = UnsafeBufferPointer(start: part.utf8Start, count: part.utf8CodeUnitCount)
            guard let first = needle.first else { return true }
            guard needle.count <= bytes.count else { return false }
            for start in 0...(bytes.count - needle.count) where bytes[start] == first {
                if zip(needle, bytes[start..<(start + needle.count)]).allSatisfy({ $0 == $1 }) { return true }
            }
            return false
        }
        return found ?? text.contains(part.description)
    }

    /// Strips control characters from UTF-8 `bytes` in place and returns the string, trimmed
    /// of surrounding white space when `trim` is set; `nil` when nothing is left.
    static func makeString(_ bytes: inout [UInt8], trim: Bool) -> String? {
        bytes.withUnsafeMutableBufferPointer { makeString($0, trim: trim) }
    }

    /// ``makeString(_:trim:)-([UInt8],_)`` of the bytes in `buffer`, which it changes (the
    /// control characters are taken out in place, in front of what is left of it).
    static func makeString(_ buffer: UnsafeMutableBufferPointer<UInt8>, trim: Bool) -> String? {
        var start = 0
        var end = stripControlCharacters(buffer)
        if trim {
            while start < end, isXMLSpace(buffer[start]) { start += 1 }
            while end > start, isXMLSpace(buffer[end - 1]) { end -= 1 }
        }
        if start == end { return nil }
        return string(utf8: UnsafeBufferPointer(rebasing: buffer[start..<end]))
    }

    /// The bytes in `buffer` stripped of control characters and surrounding white space, as
    /// a new array; `nil` when nothing is left. `buffer` changes (the control characters are
    /// taken out in place, in front of what is left of it).
    static func trimmedBytes(_ buffer: UnsafeMutableBufferPointer<UInt8>) -> [UInt8]? {
        let kept = stripControlCharacters(buffer)
        var start = 0
        var end = kept
        while start < end, isXMLSpace(buffer[start]) { start += 1 }
        while end > start, isXMLSpace(buffer[end - 1]) { end -= 1 }
        return start == end ? nil : Array(UnsafeBufferPointer(rebasing: buffer[start..<end]))
    }

    @inline(__always)
    static func isXMLSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// Removes C0 controls (except TAB and LF), DEL and C1 controls (U+0080–U+009F); CR and
    /// CRLF become LF. Leaves the array untouched (no copy) when there is nothing to remove.
    static func stripControlCharacters(_ bytes: inout [UInt8]) {
        // Looked at before any mutable access, which would copy an array that is shared.
        guard bytes.withUnsafeBufferPointer({ firstControlCharacter(in: $0) }) != nil else { return }
        let count = bytes.count
        let kept = bytes.withUnsafeMutableBufferPointer { stripControlCharacters($0) }
        if kept < count { bytes.removeLast(count - kept) }
    }

    /// ``stripControlCharacters(_:)-([UInt8])`` in `buffer`: the kept bytes are moved to
    /// its front; returns how many there are.
    static func stripControlCharacters(_ buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let count = buffer.count
        guard let firstBad = firstControlCharacter(in: UnsafeBufferPointer(buffer)) else { return count }
        var write = firstBad
        var read = firstBad
        while read < count {
            let byte = buffer[read]
            if byte < 0x20 && byte != 0x0A && byte != 0x09 {
                if byte == 0x0D {
                    // CRLF -> LF, lone CR -> LF
                    if !(read + 1 < count && buffer[read + 1] == 0x0A) {
                        buffer[write] = 0x0A
                        write += 1
                    }
                }
                read += 1
            } else if byte == 0x7F {
                read += 1
            } else if byte == 0xC2, read + 1 < count, buffer[read + 1] >= 0x80, buffer[read + 1] <= 0x9F {
                read += 2
            } else {
                buffer[write] = byte
                write += 1
                read += 1
            }
        }
        return write
    }

    /// The high bit of each byte of `word` that may be a control (below 0x20, 0x7F, or 0xC2,
    /// the lead byte of C1 controls): a word-at-a-time prefilter, exact checks follow.
    /// The lowest flagged byte (of a little-endian load: the first in memory) is exact;
    /// bytes after it may be flagged wrongly.
    @inline(__always)
    static func controlFlags(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let below20 = (word &- ones &* 0x20) & ~word & highs
        let del = word ^ (ones &* 0x7F)
        let c2 = word ^ (ones &* 0xC2)
        return below20 | ((del &- ones) & ~del & highs) | ((c2 &- ones) & ~c2 & highs)
    }

    /// A stable 64-bit FNV-1a hash of `parts` (joined by a separator), as 16 hex digits.
    /// Stable across runs and machines, unlike `Hasher`.
    static func stableHash(_ parts: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for (index, part) in parts.enumerated() {
            if index > 0 {
                hash ^= 0x1F
                hash &*= 0x0000_0100_0000_01B3
            }
            for byte in part.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `text` without leading and trailing spaces and tabs (no Foundation bridging).
    static func trimmingSpaces<S: StringProtocol>(_ text: S) -> String {
        var slice = Substring(text)
        while let first = slice.unicodeScalars.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.unicodeScalars.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }

    /// Collapses runs of white space into one space and trims the ends; returns `string`
    /// itself (no copy) when there is nothing to change.
    static func collapsingWhitespace(_ string: String) -> String {
        var string = string
        let clean: Bool = string.withUTF8 { bytes in
            guard let first = bytes.first, let last = bytes.last else { return true }
            if isXMLSpace(first) || isXMLSpace(last) { return false }
            var previousWasSpace = false
            for byte in bytes {
                if byte == 0x20 {
                    if previousWasSpace { return false }
                    previousWasSpace = true
                } else if byte == 0x0A || byte == 0x09 || byte == 0x0D {
                    return false
                } else {
                    previousWasSpace = false
                }
            }
            return true
        }
        if clean { return string }
        var result = ""
        result.reserveCapacity(string.utf8.count)
        var pendingSpace = false
        for scalar in string.unicodeScalars {
            if scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r" {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace { result.append(" ") }
                pendingSpace = false
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether `text` has at least `count` Unicode scalars (counted on its UTF-8 bytes).
    static func scalarCount(_ text: String, atLeast count: Int) -> Bool {
        var text = text
        return text.withUTF8 { scalarCount(utf8: $0, atLeast: count) }
    }

    /// ``scalarCount(_:atLeast:)`` of the string whose UTF-8 bytes are `bytes`.
    static func scalarCount(utf8 bytes: UnsafeBufferPointer<UInt8>, atLeast count: Int) -> Bool {
        if bytes.count < count { return false }
        if bytes.count >= 4 * count { return true }
        var scalars = 0
        for byte in bytes where byte & 0xC0 != 0x80 {
            scalars += 1
            if scalars >= count { return true }
        }
        return false
    }

    /// The plain-text preview kept as an item's summary: at most `limit` Unicode scalars,
    /// cut at a space when one is near the end, and ended with "…" when it had to be cut.
    static func preview(_ text: String, limit: Int) -> String {
        guard text.utf8.count > limit else { return text }  // fewer bytes than limit: fewer scalars too
        var text = text
        return text.withUTF8 { bytes -> String in
            guard let cut = previewCut(bytes, limit: limit) else { return String(decoding: bytes, as: UTF8.self) }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<cut]), as: UTF8.self) + "…"
        }
    }

    /// ``preview(_:limit:)`` of the string whose UTF-8 bytes are `bytes`, as UTF-8 bytes.
    static func preview(utf8 bytes: [UInt8], limit: Int) -> [UInt8] {
        guard bytes.count > limit else { return bytes }
        guard let cut = bytes.withUnsafeBufferPointer({ previewCut($0, limit: limit) }) else { return bytes }
        var preview: [UInt8] = []
        preview.reserveCapacity(cut + 3)
        preview.append(contentsOf: bytes[..<cut])
        preview.append(contentsOf: [0xE2, 0x80, 0xA6])  // …
        return preview
    }

    /// Where ``preview(_:limit:)`` cuts `bytes` (before its "…"); nil when it keeps them all.
    private static func previewCut(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> Int? {
        // Where the scalar after the first `limit` ones starts: counted eight bytes at a
        // time while a whole word fits (continuation bytes are 10xxxxxx).
        let count = bytes.count
        guard let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        var scalars = 0
        var index = 0
        while index + 8 <= count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let continuations = (word & ~(word << 1) & 0x8080_8080_8080_8080).nonzeroBitCount
            guard scalars + 8 - continuations <= limit else { break }
            scalars += 8 - continuations
            index += 8
        }
        while index < count {
            if bytes[index] & 0xC0 != 0x80 {  // a scalar starts here
                if scalars == limit { break }
                scalars += 1
            }
            index += 1
        }
        guard index < count else { return nil }
        // Back to the last space or newline before it, if it is fewer than `limit / 4`
        // scalars back: the cut is made there, at a word's end.
        var cut = index
        var scalarsAfter = 0
        var position = index - 1
        while position >= 0 && scalarsAfter < limit / 4 {
            let byte = bytes[position]
            if byte == 0x20 || byte == 0x0A {
                cut = position
                break
            }
            if byte & 0xC0 != 0x80 { scalarsAfter += 1 }
            position -= 1
        }
        while cut > 0 && (bytes[cut - 1] == 0x20 || bytes[cut - 1] == 0x0A) { cut -= 1 }
        return cut
    }
}
