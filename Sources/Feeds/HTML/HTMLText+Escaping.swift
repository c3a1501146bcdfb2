import Foundation

/// Escaping plain text for HTML: `&`, `<` and `>` become `&amp;`, `&lt;` and `&gt;`
/// (quotes are left, the result is element content, not an attribute).
///
/// ```swift
/// HTMLText.escaped("a < b & c")  // "a &lt; b &amp; c"
/// ```
extension HTMLText {
    /// `text` with `&`, `<` and `>` escaped; itself (no copy) when it has none.
    static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// UTF-8 `bytes` with `&`, `<` and `>` escaped (the same as ``escaped(_:)`` on their
    /// string); themselves when they have none.
    static func escapedUTF8(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E }) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 64)
        for byte in bytes {
            switch byte {
            case 0x26: out.append(contentsOf: "&amp;".utf8)
            case 0x3C: out.append(contentsOf: "&lt;".utf8)
            case 0x3E: out.append(contentsOf: "&gt;".utf8)
            default: out.append(byte)
            }
        }
        return out
    }
}
