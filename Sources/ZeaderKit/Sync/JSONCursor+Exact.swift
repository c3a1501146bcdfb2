import Foundation

/// Reading that accepts no more than JSONDecoder does, for the readers that stand in for a
/// `Decodable` type and hand anything they do not take back to it (``FeverAnswerScanner``,
/// ``TTRSSHeadlineScanner``): a string that is not UTF-8 or holds a lone surrogate escape,
/// and a number outside JSON's grammar, are not read (nil or false), even where skipped.
extension JSONCursor {
    /// A string, its escapes decoded; nil when none comes next or it is not well-formed,
    /// not UTF-8, or escapes half a surrogate pair.
    mutating func exactString() -> String? {
        guard atString() else { return nil }
        at += 1
        let start = at
        var ascii = true
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                at += 1
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<(at - 1)])
                return ascii ? String(decoding: raw, as: UTF8.self) : String(validating: raw, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start, exact: true) }
            if byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            at += 1
        }
        return nil
    }

    /// Skips one value of any kind as JSONDecoder would read it; false when it is not
    /// well-formed (strings and numbers as ``exactString()`` and JSON's grammar say) or
    /// nests deeper than ``maxDepth``.
    mutating func skipExact(depth: Int) -> Bool {
        skipValue(depth: depth, exact: true)
    }

    /// Skips a number or a literal as JSON's grammar has them.
    mutating func skipExactScalar() -> Bool {
        switch bytes[at] {
        case UInt8(ascii: "t"): return skipWord("true")
        case UInt8(ascii: "f"): return skipWord("false")
        case UInt8(ascii: "n"): return skipWord("null")
        default: return number() != nil
        }
    }

    /// Skips a string without making it when it is ASCII, escapes included (their scalars
    /// are checked as ``exactString()`` checks them).
    mutating func skipExactString() -> Bool {
        guard atString() else { return false }
        let start = at
        at += 1
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                at += 1
                return true
            }
            if byte == UInt8(ascii: "\\") {
                guard at + 1 < bytes.count else { return false }
                at += 2
                switch bytes[at - 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    guard escapedScalar(exact: true) != nil else { return false }
                    continue
                default:
                    return false
                }
            }
            guard byte >= 0x20, byte < 0x80 else { break }
            at += 1
        }
        // Bytes past ASCII are validated where the string is made.
        at = start
        return exactString() != nil
    }

    private mutating func skipWord(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - at >= count, memcmp(bytes.baseAddress! + at, word.utf8Start, count) == 0 else { return false }
        at += count
        return at == bytes.count || Self.endsAWord(bytes[at])
    }

    /// What may follow a number or a literal.
    private static func endsAWord(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || byte == 0x20 || byte == 0x0A
            || byte == 0x0D || byte == 0x09
    }

    /// A number as JSON's grammar has it (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`),
    /// taken; nil (nothing taken) for anything else.
    mutating func number() -> JSONNumber? {
        skipSpace()
        let start = at
        var index = at
        func digits() -> Int {
            let first = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - first
        }
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let whole = digits()
        guard whole > 0, whole == 1 || bytes[index - whole] != UInt8(ascii: "0") else { return nil }
        var plain = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
            plain = false
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return nil }
            plain = false
        }
        guard index == bytes.count || Self.endsAWord(bytes[index]) else { return nil }
        at = index
        guard plain else { return .other }
        // Digits only: their value when it fits, else `.other`.
        var value: UInt64 = 0
        for byte in bytes[(start + (negative ? 1 : 0))..<index] {
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflowTimes, !overflowSum else { return .other }
            value = sum
        }
        if negative {
            guard value <= UInt64(Int64.max) else { return .other }
            return .negative(-Int64(value))
        }
        return .unsigned(value)
    }
}

/// A number ``JSONCursor/number()`` read: a whole number without fraction or exponent as its
/// value, any other (a fraction, an exponent, out of range) as `.other`.
enum JSONNumber: Equatable {
    case unsigned(UInt64)
    /// Below zero (`-0` is `.negative(0)`).
    case negative(Int64)
    case other
}
