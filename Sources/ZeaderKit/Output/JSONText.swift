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
        out.unicodeScalars.append("\"")
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                let v = scalar.value
                if v < 0x20 || (v >= 0x7F && v <= 0x9F) || v == 0x2028 || v == 0x2029 {
                    out += String(format: "\\u%04x", v)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out.unicodeScalars.append("\"")
    }

    /// Appends a date as a JSON string `"YYYY-MM-DDTHH:MM:SSZ"`, or `null`.
    ///
    /// ```swift
    /// JSONText.appendDate(item.published, to: &out)
    /// ```
    public static func appendDate(_ value: Date?, to out: inout String) {
        guard let value else {
            out += "null"
            return
        }
        out += "\"" + timestamp(value) + "\""
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` in UTC.
    ///
    /// ```swift
    /// JSONText.timestamp(Date(timeIntervalSince1970: 0))   // "1970-01-01T00:00:00Z"
    /// ```
    public static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
