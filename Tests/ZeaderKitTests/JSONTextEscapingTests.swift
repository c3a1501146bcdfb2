import Foundation
import Testing

@testable import ZeaderKit

/// `JSONText.appendEscaped` copies runs of bytes that need no escape; it must escape
/// exactly what the scalar-by-scalar definition escapes, wherever the special characters
/// fall (first, last, adjacent, inside multi-byte text).
@Suite struct JSONTextEscapingTests {
    /// The definition: quotes, backslashes, C0 and C1 controls, DEL, U+2028 and U+2029.
    static func reference(_ value: String) -> String {
        var out = "\""
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
        return out + "\""
    }

    static func escaped(_ value: String) -> String {
        var out = "prefix:"
        JSONText.appendEscaped(value, to: &out)
        return String(out.dropFirst("prefix:".count))
    }

    @Test func edgeCasesMatchTheDefinition() {
        let cases = [
            "", "plain", "\"", "\\", "\u{0}", "\u{1B}[31m", "a\u{7F}b", "\u{80}", "\u{9F}", "\u{A0}", "\u{FF}",
            "\u{2027}\u{2028}\u{2029}\u{202A}", "€\u{2028}€", "\u{E2}", "日本\n語\t", "\u{1F600}\"\u{1F600}",
            "ends with \u{85}", "\u{2029}", "\r\n\r\n", "Â\u{80}Â", "e\u{301}\u{9B}",
        ]
        for value in cases {
            #expect(Self.escaped(value) == Self.reference(value), "\(value.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func randomTextMatchesTheDefinition() {
        // Scalars drawn from the escaped ones, their UTF-8 neighbours and ordinary text.
        let pool: [UInt32] = [
            0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x22, 0x41, 0x5C, 0x7E, 0x7F, 0x80, 0x85, 0x9F, 0xA0, 0xC2, 0xE2, 0xFF,
            0x100, 0x7FF, 0x800, 0x2000, 0x2027, 0x2028, 0x2029, 0x202F, 0x20AC, 0xFFFD, 0x1F600,
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var value = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                value.append(Unicode.Scalar(pool.randomElement(using: &generator)!)!)
            }
            let text = String(value)
            #expect(Self.escaped(text) == Self.reference(text), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func timestampsAreZeroPaddedUTC() {
        #expect(JSONText.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(JSONText.timestamp(Date(timeIntervalSince1970: 1_700_000_000.9)) == "2023-11-14T22:13:20Z")
        // As `date -u -d @-31536000000`.
        #expect(JSONText.timestamp(Date(timeIntervalSince1970: -86_400 * 365 * 1_000)) == "0970-08-31T00:00:00Z")
    }
}
