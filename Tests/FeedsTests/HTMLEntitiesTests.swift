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
}
