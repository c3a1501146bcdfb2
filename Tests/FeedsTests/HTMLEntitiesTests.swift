import Testing

@testable import Feeds

@Suite("HTML entities")
struct HTMLEntitiesTests {
    @Test(arguments: [
        ("&amp;&lt;&gt;&quot;&apos;", "&<>\"'"),
        ("Caf&eacute; &mdash; &hellip; &nbsp;!", "Café — … \u{A0}!"),
        ("&copy 2024 &AMP &lt3", "© 2024 & <3"),
        ("&#233;&#xE9;&#XE9;&#0233", "éééé"),
        ("&#128512;", "😀"),
        ("&#146;&#150;&#128;", "’–€"),
        ("&#0;&#xD800;&#x110000;&#99999999999;", "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"),
        ("&notit;", "¬it;"),
        ("&notin;", "∉"),
        ("&NotNestedGreaterGreater;", "\u{2AA2}\u{338}"),
        ("&CounterClockwiseContourIntegral;", "∳"),
        ("AT&T & &unknown; &#; &#x; &", "AT&T & &unknown; &#; &#x; &"),
        ("&rarr;&larr;&harr;&trade;&euro;&sup2;&frac12;", "→←↔™€²½"),
        ("&Alpha;&beta;&Omega;", "ΑβΩ"),
        ("no entities at all", "no entities at all"),
        ("&amp;amp;", "&amp;"),
    ])
    func decodes(input: String, expected: String) {
        #expect(HTMLEntities.decode(input) == expected)
    }

    @Test func attributesKeepLegacyNamesBeforeLettersAndEquals() {
        #expect(HTMLEntities.decode("?a=1&copy=2&not=3", inAttribute: true) == "?a=1&copy=2&not=3")
        #expect(HTMLEntities.decode("?a=1&amp;b=2", inAttribute: true) == "?a=1&b=2")
        #expect(HTMLEntities.decode("&copy 2024", inAttribute: true) == "© 2024")
        #expect(HTMLEntities.decode("?a=1&copy=2") == "?a=1©=2")
    }

    @Test func theWholeStandardTableIsLoaded() {
        #expect(HTMLEntities.table.count == 2231)
        #expect(HTMLEntities.table["amp"] == "&")
        #expect(HTMLEntities.table["zwnj;"] == "\u{200C}")
    }

    @Test func theTableHoldsEveryEntryOfThePackedText() {
        // The packed text read the plain way (split into entries, then name and scalars).
        var expected: [String: String] = [:]
        for entry in HTMLEntities.packedTable.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            guard let colon = entry.lastIndex(of: ":") else { continue }
            let scalars = entry[entry.index(after: colon)...].split(separator: ",").compactMap {
                UInt32($0, radix: 16).flatMap(Unicode.Scalar.init)
            }
            expected[String(entry[..<colon])] = String(String.UnicodeScalarView(scalars))
        }
        #expect(HTMLEntities.table == expected)
        #expect(HTMLEntities.table["NotNestedGreaterGreater;"] == "\u{2AA2}\u{338}")
    }

    @Test func commonReferencesDecodeAsTheTableSays() {
        for name in ["amp;", "lt;", "gt;", "quot;", "apos;", "nbsp;"] {
            let decoded = HTMLEntities.reference(in: Array("&\(name) tail".utf8), at: 0, inAttribute: false)
            #expect(decoded?.0 == HTMLEntities.table[name], "\(name)")
            #expect(decoded?.1 == name.utf8.count + 1, "\(name)")
        }
        // Near misses fall back to the table: a legacy name without its semicolon, or nothing.
        #expect(
            HTMLEntities.reference(in: Array("&ampx;".utf8), at: 0, inAttribute: false).map { [$0.0, "\($0.1)"] } == ["&", "4"])
        #expect(
            HTMLEntities.reference(in: Array("&ltx;".utf8), at: 0, inAttribute: false).map { [$0.0, "\($0.1)"] } == ["<", "3"])
        #expect(HTMLEntities.reference(in: Array("&nbs;".utf8), at: 0, inAttribute: false) == nil)
        #expect(HTMLEntities.reference(in: Array("&quo;".utf8), at: 0, inAttribute: false) == nil)
        #expect(HTMLEntities.reference(in: Array("&QUOT;".utf8), at: 0, inAttribute: false)?.0 == "\"")
    }
}
