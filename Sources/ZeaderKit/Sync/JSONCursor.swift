import Foundation

/// A cursor over the bytes of a JSON document, for readers that take the few members they
/// need straight from the bytes (``ItemRefScanner``, ``ItemContentsScanner``): no tree of
/// the document, a string made only for a value kept. Every method skips white space
/// first; one that does not find what it reads returns nil or false, and the reader gives
/// up on the document (a hostile server cannot make it loop or recurse without bound:
/// nesting in skipped values stops at ``maxDepth``).
///
/// ```swift
/// var cursor = JSONCursor(buffer)
/// if cursor.take(UInt8(ascii: "{")), let key = cursor.string() { … }
/// ```
struct JSONCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0
    /// Nesting allowed in skipped values.
    static let maxDepth = 64

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Whether only white space is left.
    mutating func atEnd() -> Bool {
        skipSpace()
        return at == bytes.count
    }

    mutating func skipSpace() {
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 {
            at += 1
        }
    }

    /// Takes `byte` if it comes next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard at < bytes.count, bytes[at] == byte else { return false }
        at += 1
        return true
    }

    /// Takes `null` if it comes next.
    mutating func takeNull() -> Bool {
        skipSpace()
        guard bytes.count - at >= 4, bytes[at] == UInt8(ascii: "n"), bytes[at + 1] == UInt8(ascii: "u"),
            bytes[at + 2] == UInt8(ascii: "l"), bytes[at + 3] == UInt8(ascii: "l")
        else { return false }
        at += 4
        return true
    }

    /// The next byte that is not white space, not taken; nil at the end.
    mutating func skipSpaceAndPeek() -> UInt8? {
        skipSpace()
        return at < bytes.count ? bytes[at] : nil
    }

    /// Whether a string comes next.
    mutating func atString() -> Bool {
        skipSpace()
        return at < bytes.count && bytes[at] == UInt8(ascii: "\"")
    }

    /// A string, its escapes decoded (a lone surrogate becomes U+FFFD, as do bytes that are
    /// not UTF-8); nil when none comes next or it is not well-formed.
    mutating func string() -> String? {
        guard atString() else { return nil }
        at += 1
        let start = at
        while at < bytes.count {
            switch bytes[at] {
            case UInt8(ascii: "\""):
                at += 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(at - 1)]), as: UTF8.self)
            case UInt8(ascii: "\\"):
                return escapedString(from: start)
            case 0..<0x20:
                return nil  // a control character must be escaped
            default:
                at += 1
            }
        }
        return nil
    }

    /// The rest of a string that has escapes, from its first byte at `start`. Half a
    /// surrogate pair becomes U+FFFD and bytes that are not UTF-8 are repaired, unless `exact`:
    /// then either makes the string nil, as JSONDecoder refuses them.
    mutating func escapedString(from start: Int, exact: Bool = false) -> String? {
        var text: [UInt8] = []
        // An escape is never shorter than what it stands for: the raw string's length is room enough.
        text.reserveCapacity(rawStringEnd(from: at) - start)
        text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<at]))
        // Bytes past ASCII come only from the raw text (an escape's are valid UTF-8): without
        // any, the text needs no validation.
        var ascii = !text.contains { $0 >= 0x80 }
        while at < bytes.count {
            // The bytes up to the next quote, escape or control character, copied as one run.
            let run = at
            while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\"), bytes[at] >= 0x20 {
                if bytes[at] >= 0x80 { ascii = false }
                at += 1
            }
            text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<at]))
            guard at < bytes.count else { return nil }
            let byte = bytes[at]
            at += 1
            switch byte {
            case UInt8(ascii: "\""):
                return exact && !ascii ? String(validating: text, as: UTF8.self) : String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard at < bytes.count else { return nil }
                let escape = bytes[at]
                at += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = escapedScalar(exact: exact) else { return nil }
                    UTF8.encode(scalar) { text.append($0) }
                default:
                    return nil
                }
            default:
                return nil  // a control character must be escaped
            }
        }
        return nil
    }

    /// Where the string the cursor is in ends (its closing quote, else the end of the bytes),
    /// looking from `index`, which is not inside an escape.
    private func rawStringEnd(from index: Int) -> Int {
        var index = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""): return index
            case UInt8(ascii: "\\"): index += 2
            default: index += 1
            }
        }
        return bytes.count
    }

    /// The scalar of a `\u` escape whose `\u` was taken: a surrogate pair makes one scalar,
    /// half of one U+FFFD, or nil when `exact`.
    mutating func escapedScalar(exact: Bool) -> Unicode.Scalar? {
        guard let unit = hexUnit() else { return nil }
        guard (0xD800..<0xE000).contains(unit) else { return Unicode.Scalar(unit) }
        if unit < 0xDC00, bytes.count - at >= 6, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") {
            let mark = at
            at += 2
            if let low = hexUnit(), (0xDC00..<0xE000).contains(low) {
                return Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
            }
            at = mark  // not a pair: the next escape is read on its own
        }
        return exact ? nil : "\u{FFFD}"
    }

    /// The value of one hex digit (either case), nil for any other byte.
    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Four hex digits.
    private mutating func hexUnit() -> UInt16? {
        guard bytes.count - at >= 4 else { return nil }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[at]
            guard let digit = Self.hexDigit(byte) else { return nil }
            value = value << 4 | UInt16(digit)
            at += 1
        }
        return value
    }

    /// Takes a value: a number (or a string holding one) as a whole number, the fraction
    /// dropped, into `value`; nil for any other value or one out of range. False when the
    /// value is not well-formed.
    mutating func integer(into value: inout Int64?) -> Bool {
        value = nil
        if atString() {
            guard let text = string() else { return false }
            value = Int64(text)
            return true
        }
        let start = at
        guard skipValue(depth: 0) else { return false }
        let word = UnsafeBufferPointer(rebasing: bytes[start..<at])
        guard let first = word.first, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return true }  // true, false, null, an object or an array
        let text = String(decoding: word, as: UTF8.self)
        if let whole = Int64(text) {
            value = whole
        } else if let number = Double(text), number.isFinite, abs(number) < 9e18 {
            value = Int64(number)
        }
        return true
    }

    /// Skips one value of any kind; false when it is not well-formed or nests too deep. With
    /// `exact`, its strings, numbers and literals must be what JSONDecoder reads
    /// (``skipExactScalar()``, ``exactString()``).
    mutating func skipValue(depth: Int, exact: Bool = false) -> Bool {
        skipSpace()
        guard at < bytes.count, depth < Self.maxDepth else { return false }
        switch bytes[at] {
        case UInt8(ascii: "\""):
            return skipString(exact: exact)
        case UInt8(ascii: "{"):
            at += 1
            if take(UInt8(ascii: "}")) { return true }
            repeat {
                guard skipString(exact: exact), take(UInt8(ascii: ":")), skipValue(depth: depth + 1, exact: exact) else {
                    return false
                }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            at += 1
            if take(UInt8(ascii: "]")) { return true }
            repeat {
                guard skipValue(depth: depth + 1, exact: exact) else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]"))
        default:
            if exact { return skipExactScalar() }
            // A number or a literal: the bytes up to the next delimiter.
            let start = at
            while at < bytes.count, !Self.isDelimiter(bytes[at]) { at += 1 }
            let word = UnsafeBufferPointer(rebasing: bytes[start..<at])
            if word.elementsEqual("true".utf8) || word.elementsEqual("false".utf8) || word.elementsEqual("null".utf8) {
                return true
            }
            return !word.isEmpty && word.allSatisfy(Self.isNumberByte)
        }
    }

    private mutating func skipString(exact: Bool) -> Bool {
        exact ? skipExactString() : string() != nil
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || byte == 0x20 || byte == 0x0A
            || byte == 0x0D || byte == 0x09
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
    }

    /// An object's members: `member` is called with each key and must take its value.
    /// False when the object is not well-formed or `member` returned false. With `exact`, its
    /// keys are read as ``exactString()`` does.
    mutating func object(exact: Bool = false, _ member: (inout JSONCursor, JSONKey) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = key(exact: exact), take(UInt8(ascii: ":")), member(&self, key) else {
                return false
            }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// A member's key: its bytes when they are plain ASCII without escapes, else the string
    /// decoded (``exactString()`` when `exact`); nil when no well-formed string comes next.
    private mutating func key(exact: Bool) -> JSONKey? {
        guard atString() else { return nil }
        let start = at + 1
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                at = index + 1
                return JSONKey(plain: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { break }
            index += 1
        }
        return (exact ? exactString() : string()).map(JSONKey.init(decoded:))
    }

    /// An array's elements: `element` is called for each and must take it.
    mutating func array(_ element: (inout JSONCursor) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        repeat {
            guard element(&self) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]"))
    }
}

/// An object member's key as ``JSONCursor/object(exact:_:)`` read it. Nearly every key is
/// plain ASCII: it stays the document's bytes and is compared with a name byte by byte, with
/// no string made per member; a key with escapes or bytes past ASCII is decoded first. It
/// points into the document's bytes: keep it no longer than the member's closure runs.
///
/// ```swift
/// cursor.object { cursor, key in
///     switch key {
///     case "id": …
///     default: return cursor.skipValue(depth: 1)
///     }
/// }
/// ```
struct JSONKey {
    /// The key's bytes in the document, when they need no decoding.
    private let plain: UnsafeBufferPointer<UInt8>?
    private let decoded: String?

    init(plain: UnsafeBufferPointer<UInt8>) {
        self.plain = plain
        decoded = nil
    }

    init(decoded: String) {
        plain = nil
        self.decoded = decoded
    }

    static func == (key: JSONKey, name: StaticString) -> Bool {
        if let plain = key.plain {
            // A `switch` tries every name in turn: lengths first, then one memcmp.
            guard plain.count == name.utf8CodeUnitCount else { return false }
            return plain.isEmpty || memcmp(plain.baseAddress!, name.utf8Start, plain.count) == 0
        }
        return name.withUTF8Buffer { key.decoded == String(decoding: $0, as: UTF8.self) }
    }

    /// Lets `switch key` take names as its cases.
    static func ~= (name: StaticString, key: JSONKey) -> Bool { key == name }
}
