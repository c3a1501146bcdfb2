import Feeds
import Foundation

/// Small, fast JSON text building for the command line's `--json` output: strings are
/// sanitized for the terminal (feed text never carries control characters or escape
/// sequences to stdout) and escaped; dates are `YYYY-MM-DDTHH:MM:SSZ` in UTC.
///
/// ```swift
/// var out = ""
/// JSONText.appendString("a \"b\"", to: &out)   // "a \"b\""
/// ```
public enum JSONText {
    /// Appends `value` as a JSON string (or `null`), sanitized and escaped.
    ///
    /// ```swift
    /// JSONText.appendString(item.title, to: &out)
    /// ```
    public static func appendString(_ value: String?, to out: inout String) {
        guard let value else {
            out += "null"
            return
        }
        appendEscaped(DisplayWidth.sanitizeForTerminal(value), to: &out)
    }

    /// Appends `values` as a JSON array of strings, each sanitized and escaped.
    ///
    /// ```swift
    /// JSONText.appendStrings(["linux", "news"], to: &out)   // ["linux","news"]
    /// ```
    public static func appendStrings(_ values: [String], to out: inout String) {
        out += "["
        for (n, value) in values.enumerated() {
            if n > 0 { out += "," }
            appendString(value, to: &out)
        }
        out += "]"
    }

    /// Appends `value` as a JSON string escaped but otherwise unchanged (backups keep
    /// every character): quotes, backslashes, C0 and C1 controls, U+2028 and U+2029.
    ///
    /// ```swift
    /// JSONText.appendEscaped("tab\there", to: &out)   // "tab\there"
    /// ```
    public static func appendEscaped(_ value: String, to out: inout String) {
        // Byte by byte over the UTF-8, copying each run that needs no escape in one append
        // (a scalar at a time was a third of `export --json`'s time). Every byte an escape
        // starts at is the first byte of its scalar, so the runs end on scalar boundaries.
        out += "\""
        let utf8 = value.utf8
        var run = utf8.startIndex
        var i = run
        while i != utf8.endIndex {
            let byte = utf8[i]
            var escape: String?
            var length = 1
            switch byte {
            case 0x22: escape = "\\\""
            case 0x5C: escape = "\\\\"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0x00..<0x20, 0x7F: escape = unicodeEscape(UInt32(byte))
            case 0xC2:  // U+0080...U+00FF: C1 controls are U+0080...U+009F
                let next = utf8.index(after: i)
                if next != utf8.endIndex, (0x80...0x9F).contains(utf8[next]) {
                    escape = unicodeEscape(UInt32(utf8[next]))
                    length = 2
                }
            case 0xE2:  // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
                let second = utf8.index(after: i)
                if second != utf8.endIndex, utf8[second] == 0x80 {
                    let third = utf8.index(after: second)
                    if third != utf8.endIndex, utf8[third] == 0xA8 || utf8[third] == 0xA9 {
                        escape = unicodeEscape(0x2000 + UInt32(utf8[third]) - 0x80)
                        length = 3
                    }
                }
            default: break
            }
            guard let escape else {
                i = utf8.index(after: i)
                continue
            }
            out += value[run..<i]
            out += escape
            i = utf8.index(i, offsetBy: length)
            run = i
        }
        out += value[run..<utf8.endIndex]
        out += "\""
    }

    /// `\uXXXX` for a code point below U+10000.
    private static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Appends a date as a JSON string `"YYYY-MM-DDTHH:MM:SSZ"`, or `null` when there is
    /// none or it lies outside ``DateBounds`` (no date, as it would be where it entered).
    ///
    /// ```swift
    /// JSONText.appendDate(item.published, to: &out)
    /// ```
    public static func appendDate(_ value: Date?, to out: inout String) {
        guard let value, DateBounds.contains(value) else {
            out += "null"
            return
        }
        out += "\"" + timestamp(value) + "\""
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` in UTC, for any date: one outside ``DateBounds`` prints as the
    /// nearest end of the range (NaN as the earliest).
    ///
    /// ```swift
    /// JSONText.timestamp(Date(timeIntervalSince1970: 0))   // "1970-01-01T00:00:00Z"
    /// JSONText.timestamp(Date(timeIntervalSince1970: 1e17))   // "9999-12-31T23:59:59Z"
    /// ```
    public static func timestamp(_ date: Date) -> String {
        var seconds = time_t(DateBounds.clamped(date).timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // Digits by hand: String(format:) was a twentieth of `export --json`'s time.
        var text = ""
        text.reserveCapacity(20)
        appendDigits(Int(parts.tm_year) + 1900, width: 4, to: &text)
        text += "-"
        appendDigits(Int(parts.tm_mon) + 1, width: 2, to: &text)
        text += "-"
        appendDigits(Int(parts.tm_mday), width: 2, to: &text)
        text += "T"
        appendDigits(Int(parts.tm_hour), width: 2, to: &text)
        text += ":"
        appendDigits(Int(parts.tm_min), width: 2, to: &text)
        text += ":"
        appendDigits(Int(parts.tm_sec), width: 2, to: &text)
        text += "Z"
        return text
    }

    /// `value` in decimal, zero-padded to `width` digits (as `%0*d`).
    private static func appendDigits(_ value: Int, width: Int, to out: inout String) {
        let digits = String(value.magnitude)
        if value < 0 { out += "-" }
        let pad = width - digits.count - (value < 0 ? 1 : 0)
        if pad > 0 { out += String(repeating: "0", count: pad) }
        out += digits
    }
}
