/// Decoding of HTML character references: every named reference of the HTML standard
/// (2,231 names, including the legacy ones that work without a semicolon, such as
/// `&amp` and `&copy`) and numeric ones (`&#233;`, `&#xE9;`), with the standard's repairs:
/// code points 0x80–0x9F read as windows-1252 (`&#146;` is ’), and NUL, surrogates and
/// out-of-range values become U+FFFD. An ampersand that starts no reference stays as it is.
///
/// ```swift
/// HTMLEntities.decode("Caf&eacute; &amp; bar &#8212; &hellip;")  // "Café & bar — …"
/// HTMLEntities.decode("AT&T")                                    // "AT&T"
/// ```
public enum HTMLEntities {
    /// Decodes the character references in `text`.
    ///
    /// In attribute values (`inAttribute: true`) a legacy name without its semicolon that
    /// is followed by a letter, digit or `=` is left alone, as browsers do, so that URLs
    /// such as `?a=1&copy=2` survive.
    ///
    /// ```swift
    /// HTMLEntities.decode("&lt;b&gt;")                          // "<b>"
    /// HTMLEntities.decode("?x=1&copy=2", inAttribute: true)    // "?x=1&copy=2"
    /// ```
    public static func decode(_ text: String, inAttribute: Bool = false) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte != UInt8(ascii: "&") {
                out.append(byte)
                index += 1
                continue
            }
            if let (replacement, length) = reference(in: bytes, at: index, inAttribute: inAttribute) {
                out.append(contentsOf: replacement.utf8)
                index += length
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The replacement text and byte length of the reference starting at `start` (an `&`).
    static func reference(
        in bytes: [UInt8], at start: Int, inAttribute: Bool
    ) -> (String, Int)? {
        var index = start + 1
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "#") {
            return numericReference(in: bytes, at: start)
        }
        // The run of ASCII letters and digits after '&'; the longest name is 32 bytes.
        let nameStart = index
        while index < bytes.count, index - nameStart < 40, isAlphanumeric(bytes[index]) {
            index += 1
        }
        guard index > nameStart else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ";") {
            if let value = commonReference(bytes, from: nameStart, to: index) { return (value, index + 1 - start) }
            let name = String(decoding: bytes[nameStart...index], as: UTF8.self)
            if let value = table[name] { return (value, index + 1 - start) }
        }
        // Legacy names match without a semicolon, longest first (`&notit;` → "¬it;").
        var end = min(index, nameStart + 6)
        while end > nameStart {
            let name = String(decoding: bytes[nameStart..<end], as: UTF8.self)
            if let value = table[name] {
                if inAttribute, end < bytes.count,
                    isAlphanumeric(bytes[end]) || bytes[end] == UInt8(ascii: "=")
                {
                    return nil
                }
                return (value, end - start)
            }
            end -= 1
        }
        return nil
    }

    /// The value of `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;` and `&nbsp;` (the name is
    /// `bytes[start..<end]`, followed by `;`), the same as ``table``'s, found without
    /// making a string or building the table.
    @inline(__always)
    private static func commonReference(_ bytes: [UInt8], from start: Int, to end: Int) -> String? {
        switch end - start {
        case 2:
            guard bytes[start + 1] == UInt8(ascii: "t") else { return nil }
            if bytes[start] == UInt8(ascii: "l") { return "<" }
            if bytes[start] == UInt8(ascii: "g") { return ">" }
            return nil
        case 3:
            return bytes[start] == UInt8(ascii: "a") && bytes[start + 1] == UInt8(ascii: "m")
                && bytes[start + 2] == UInt8(ascii: "p") ? "&" : nil
        case 4:
            let word =
                UInt32(bytes[start]) | UInt32(bytes[start + 1]) << 8 | UInt32(bytes[start + 2]) << 16
                | UInt32(bytes[start + 3]) << 24
            switch word {
            case 0x7073_626E: return "\u{A0}"  // nbsp
            case 0x746F_7571: return "\""  // quot
            case 0x736F_7061: return "'"  // apos
            default: return nil
            }
        default:
            return nil
        }
    }

    private static func numericReference(in bytes: [UInt8], at start: Int) -> (String, Int)? {
        var index = start + 2
        var hex = false
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "x") {
            hex = true
            index += 1
        }
        let digitsStart = index
        var value: UInt32 = 0
        while index < bytes.count, let digit = digitValue(bytes[index], hex: hex) {
            value = min(value &* (hex ? 16 : 10) &+ digit, 0x110000)
            index += 1
        }
        guard index > digitsStart else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ";") { index += 1 }
        return (String(scalarForReference(value)), index - start)
    }

    /// The scalar a numeric reference stands for, with the HTML standard's repairs.
    static func scalarForReference(_ value: UInt32) -> Unicode.Scalar {
        let replacement = Unicode.Scalar(0xFFFD)!
        if value == 0 || value > 0x10FFFF || (0xD800...0xDFFF).contains(value) { return replacement }
        if (0x80...0x9F).contains(value), let mapped = windows1252[value] {
            return Unicode.Scalar(mapped) ?? replacement
        }
        return Unicode.Scalar(value) ?? replacement
    }

    private static func digitValue(_ byte: UInt8, hex: Bool) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// Name (with its ';' where one is required) → replacement text.
    static let table: [String: String] = {
        // Read byte by byte: splitting the text into Characters is slow, and the first feed
        // with an uncommon reference pays for it.
        var table: [String: String] = [:]
        table.reserveCapacity(2300)
        var packed = packedTable
        packed.withUTF8 { bytes in
            var index = 0
            let count = bytes.count
            while index < count {
                while index < count, bytes[index] == 0x20 || bytes[index] == 0x0A { index += 1 }
                let entryStart = index
                while index < count, bytes[index] != 0x20 && bytes[index] != 0x0A { index += 1 }
                guard index > entryStart else { continue }
                // `name:scalars`; the name never holds a colon, the last one is the separator.
                var colon = index - 1
                while colon > entryStart, bytes[colon] != UInt8(ascii: ":") { colon -= 1 }
                guard bytes[colon] == UInt8(ascii: ":") else { continue }
                var value = String.UnicodeScalarView()
                var code: UInt32 = 0
                var digits = 0
                for position in (colon + 1)...index {
                    let byte = position < index ? bytes[position] : UInt8(ascii: ",")
                    if byte == UInt8(ascii: ",") {
                        if digits > 0, let scalar = Unicode.Scalar(code) { value.append(scalar) }
                        code = 0
                        digits = 0
                    } else if let digit = digitValue(byte, hex: true) {
                        code = code &* 16 &+ digit
                        digits += 1
                    }
                }
                table[String(decoding: UnsafeBufferPointer(rebasing: bytes[entryStart..<colon]), as: UTF8.self)] =
                    String(value)
            }
        }
        return table
    }()

    /// What the HTML standard makes of numeric references to 0x80–0x9F.
    private static let windows1252: [UInt32: UInt32] = [
        0x80: 0x20AC, 0x82: 0x201A, 0x83: 0x0192, 0x84: 0x201E, 0x85: 0x2026, 0x86: 0x2020,
        0x87: 0x2021, 0x88: 0x02C6, 0x89: 0x2030, 0x8A: 0x0160, 0x8B: 0x2039, 0x8C: 0x0152,
        0x8E: 0x017D, 0x91: 0x2018, 0x92: 0x2019, 0x93: 0x201C, 0x94: 0x201D, 0x95: 0x2022,
        0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02DC, 0x99: 0x2122, 0x9A: 0x0161, 0x9B: 0x203A,
        0x9C: 0x0153, 0x9E: 0x017E, 0x9F: 0x0178,
    ]
}
