import Foundation
import Testing

@testable import Feeds

/// `FeedParser.writeContractJSON(data:…)` writes items from the parser straight to JSON;
/// its bytes must be exactly those of `parse(…)` followed by `contractJSON()`.
@Suite("Contract JSON written while parsing")
struct StreamedContractJSONTests {
    /// The streamed JSON, or the error it threw (with nothing written).
    static func streamed(_ data: Data, url: URL?, limits: FeedParser.Limits) -> Result<Data, FeedParseError> {
        var out = Data()
        do {
            try FeedParser.writeContractJSON(data: data, url: url, limits: limits) { out.append(contentsOf: $0) }
            return .success(out)
        } catch {
            #expect(out.isEmpty, "nothing is written before an error")
            return .failure(error)
        }
    }

    /// The JSON of the parsed feed, or the error `parse` threw.
    static func collected(_ data: Data, url: URL?, limits: FeedParser.Limits) -> Result<Data, FeedParseError> {
        do {
            return .success(try FeedParser.parse(data: data, url: url, limits: limits).contractJSON())
        } catch {
            return .failure(error)
        }
    }

    static func expectSame(_ data: Data, url: URL?, limits: FeedParser.Limits, _ name: String) {
        let streamed = streamed(data, url: url, limits: limits)
        let collected = collected(data, url: url, limits: limits)
        switch (streamed, collected) {
        case (.success(let a), .success(let b)):
            #expect(
                a == b,
                "\(name): \(String(decoding: a.prefix(300), as: UTF8.self)) vs \(String(decoding: b.prefix(300), as: UTF8.self))")
        case (.failure(let a), .failure(let b)):
            #expect(a == b, "\(name)")
        default:
            Issue.record("\(name): \(streamed) vs \(collected)")
        }
    }

    @Test(arguments: [false, true])
    func everyFixtureGivesTheSameBytes(split: Bool) throws {
        for name in FuzzTests.fixtureNames {
            let data = try fixture(name)
            Self.expectSame(
                data, url: URL(string: "https://example.org/feeds/\(name)"), limits: SplitParsingTests.limits(split: split), name)
            Self.expectSame(data, url: nil, limits: SplitParsingTests.limits(split: split), name)
        }
    }

    @Test(arguments: [false, true])
    func largeFeedsInHalvesGiveTheSameBytes(atom: Bool) throws {
        let data = Data(SplitParsingTests.bigFeed(atom: atom, items: 300).utf8)
        let whole = try Self.streamed(data, url: nil, limits: SplitParsingTests.limits(split: false)).get()
        let halves = try Self.streamed(data, url: nil, limits: SplitParsingTests.limits(split: true)).get()
        let collected = try FeedParser.parse(data: data).contractJSON()
        #expect(whole == collected)
        #expect(halves == collected)
        let object = try #require(JSONSerialization.jsonObject(with: halves) as? [String: Any])
        #expect((object["items"] as? [Any])?.count == 300)
    }

    @Test func aFirstHalfWrittenWhileTheSecondIsParsedGivesTheSameBytes() throws {
        // Title and link before the items: the head is settled early and the first half's
        // items go out in pieces of `streamedBytes` while the second half is parsed.
        var xml = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Streamed</title><link>https://s.example/</link>"
        let body = String(repeating: "<p>Some text &amp; more text, with \"quotes\" and é.</p>", count: 6)
        for index in 0..<8000 {
            xml +=
                "<item><title>Item \(index)</title><guid>g\(index)</guid><description><![CDATA[\(body)]]></description></item>\n"
        }
        xml += "<title>Not this one</title></channel></rss>"
        let data = Data(xml.utf8)
        var pieces = 0
        var streamed = Data()
        try FeedParser.writeContractJSON(data: data, limits: SplitParsingTests.limits(split: true)) { chunk in
            pieces += 1
            streamed.append(contentsOf: chunk)
        }
        #expect(pieces > 4, "the first half went out in pieces")
        #expect(streamed == (try FeedParser.parse(data: data, limits: SplitParsingTests.limits(split: false)).contractJSON()))
        let object = try #require(JSONSerialization.jsonObject(with: streamed) as? [String: Any])
        #expect(object["title"] as? String == "Streamed")
        #expect((object["items"] as? [Any])?.count == 8000)
    }

    @Test func itemBodiesOfEveryKindGiveTheSameBytes() {
        let xml = """
            <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
              xmlns:media="http://search.yahoo.com/mrss/" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>T</title>
            <item><title>a</title><itunes:summary>Plain &lt;text&gt; &amp; "quotes"</itunes:summary></item>
            <item><title>b</title><media:description type="html">&lt;b&gt;bold&lt;/b&gt;</media:description></item>
            <item><title>c</title><description>d</description><content:encoded><![CDATA[<p>é\u{7}\\ "x"</p>]]></content:encoded></item>
            <item><description>   </description></item>
            </channel></rss>
            """
        Self.expectSame(Data(xml.utf8), url: nil, limits: FeedParser.Limits(), "rss bodies")
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>A</title>
            <entry><id>1</id><summary>text &lt;b&gt;</summary></entry>
            <entry><id>2</id><summary type="html">&lt;i&gt;s&lt;/i&gt;</summary><content type="text">a &lt; b &amp; c</content></entry>
            <entry><id>3</id><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>x &amp; <br/>y</p></div></content></entry>
            <entry><content type="html">no id, no title, no link</content></entry>
            </feed>
            """
        Self.expectSame(Data(atom.utf8), url: nil, limits: FeedParser.Limits(), "atom bodies")
    }

    @Test func invalidUTF8IsRepairedAsAStringWouldBe() {
        let samples: [[UInt8]] = [
            [0x61, 0xFF, 0x62], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80, 0x22], [0xF4, 0x90, 0x80, 0x80],
            Array("long ascii run before the bad byte \u{1}".utf8) + [0xC0, 0xAF] + Array("é\\".utf8),
            Array("valid: é 北京 🚀 \"q\"\n".utf8),
        ]
        for sample in samples {
            var fromBytes: [UInt8] = []
            sample.withUnsafeBufferPointer { ContractJSONWriter.utf8($0, to: &fromBytes) }
            var fromString: [UInt8] = []
            ContractJSONWriter.string(String(decoding: sample, as: UTF8.self), to: &fromString)
            #expect(fromBytes == fromString, "\(sample)")
        }
    }

    /// Also a fuzz target for the streaming writer: ZEADER_FUZZ_ITERATIONS and
    /// ZEADER_FUZZ_SEED make longer runs, as for FuzzTests.
    @Test(.timeLimit(.minutes(30))) func mutatedFixturesGiveTheSameBytes() throws {
        let environment = ProcessInfo.processInfo.environment
        let iterations = environment["ZEADER_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 400
        var rng = FuzzTests.SplitMix64(state: environment["ZEADER_FUZZ_SEED"].flatMap(UInt64.init) ?? 0xC0FFEE)
        let corpus = try FuzzTests.fixtureNames.map { Array(try fixture($0)) }
        for iteration in 0..<iterations {
            let input = FuzzTests.mutate(corpus[iteration % corpus.count], using: &rng)
            Self.expectSame(
                Data(input), url: URL(string: "https://fuzz.example/feed"),
                limits: SplitParsingTests.limits(split: iteration % 2 == 1), "mutation \(iteration)")
        }
    }

    @Test func summariesFromBytesEqualSummariesFromStrings() throws {
        var rng = FuzzTests.SplitMix64(state: 0x5A11)
        let pieces = [
            "<p>", "</p>", "<b>", "</b>", "<br/>", "&amp;", "&nbsp;", "&#8217;", "&eacute;", "&nb", "\u{AD}", "\u{85}",
            "\u{202E}", "\u{1B}[1m", "é", "北京", "🚀", " ", "  ", "\n", "\t", "word", "<script>x</script>", "<!-- c -->",
        ]
        for round in 0..<600 {
            // Every other round without what the terminal sanitizer removes (the common case).
            let usable = round % 2 == 0 ? pieces.filter { !["\u{85}", "\u{202E}", "\u{1B}[1m"].contains($0) } : pieces
            var html = ""
            for _ in 0..<Int.random(in: 0...(round % 3 == 0 ? 400 : 60), using: &rng) {
                html += usable.randomElement(using: &rng)!
            }
            let bytes = Array(html.utf8)
            let viaString = bytes.withUnsafeBufferPointer { HTMLText.summary(fromText: HTMLText.plainTextPreview($0)) }
            switch bytes.withUnsafeBufferPointer({ HTMLText.summary(fromHTML: $0) }) {
            case .utf8(let summary)?: #expect(summary == viaString.map { Array($0.utf8) }, "\(html)")
            case .string(let summary)?: #expect(summary == viaString, "\(html)")
            case nil: #expect(viaString == nil, "\(html)")
            }
            for limit in [5, 40, 300] {
                let plain = bytes.withUnsafeBufferPointer { HTMLText.plainTextPreview($0) }
                #expect(
                    FeedText.preview(utf8: Array(plain.utf8), limit: limit) == Array(FeedText.preview(plain, limit: limit).utf8))
            }
        }
    }

    /// The author rule as first written (searching by `Character`), for comparison.
    static func referencePersonText(_ value: String) -> String? {
        let collapsed = FeedText.collapsingWhitespace(value)
        guard let last = collapsed.utf8.last else { return nil }
        if last == UInt8(ascii: ")"), let open = collapsed.firstIndex(of: "(") {
            let address = FeedText.trimmingSpaces(collapsed[..<open])
            if address.utf8.contains(UInt8(ascii: "@")) && !address.utf8.contains(UInt8(ascii: " ")) {
                let name = FeedText.trimmingSpaces(
                    collapsed[collapsed.index(after: open)..<collapsed.index(before: collapsed.endIndex)])
                if !name.isEmpty { return name }
            }
        } else if last == UInt8(ascii: ">"), let open = collapsed.lastIndex(of: "<"),
            collapsed[open...].utf8.contains(UInt8(ascii: "@"))
        {
            let name = FeedText.trimmingSpaces(collapsed[..<open])
            if !name.isEmpty { return name }
        }
        return collapsed
    }

    @Test(arguments: [
        "jane@example.org (Jane Doe)", "lilei@example.com (李雷)", "jane@example.org(Jane)", "jane@example.org ( )",
        "(Jane)", "Jane (the editor)", "a@b (\u{301}Jane)", "a@b \u{301}(Jane)", "a@b (Jane\u{301})", "a@b (x (y))",
        "a@b\t(\tJane\t)", "a@b (Jane \u{1F600})", "x\u{301}(a@b) (c)", "a@b ()",
    ])
    func authorsInParenthesesAreReadAsBefore(author: String) throws {
        let xml =
            "<rss version=\"2.0\"><channel><title>T</title><item><title>i</title><author>\(author)</author></item></channel></rss>"
        let feed = try FeedParser.parse(data: Data(xml.utf8))
        #expect(feed.items.first?.author == Self.referencePersonText(author))
    }

    @Test(arguments: [
        "a&#38;b", "&#38;", "x?a=1&#38;b=2&#38;c", "&#38;#38;", "&#3", "&#38", "no ampersand", "&#38;\u{301}x", "é&#38;é",
        "&#38;é", "&amp;", "",
    ])
    func attributeAmpersandsAreUnescapedAsFoundationDoes(value: String) {
        let bytes = Array(value.utf8)
        let expected = Array(value.replacingOccurrences(of: "&#38;", with: "&").utf8)
        if let unescaped = bytes.withUnsafeBufferPointer({ FeedXMLAttributes.unescapingAmpersands($0) }) {
            #expect(unescaped == expected, "\(value)")
        } else {
            // Only a reference followed by a non-ASCII byte is left to Foundation.
            let reference = Array("&#38;".utf8)
            let leftOver = bytes.indices.contains { start in
                start + 5 < bytes.count && Array(bytes[start..<(start + 5)]) == reference && bytes[start + 5] >= 0x80
            }
            #expect(leftOver, "\(value)")
        }
    }
}
