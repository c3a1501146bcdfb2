import Foundation
import Testing

@testable import Feeds

/// Inputs that crashed the parser or lost content without a word (issue 12): entity chains
/// deep enough to exhaust the stack, numbers too long for an integer, control characters,
/// documents cut off, numbers in HTML that overflow when counted on.
@Suite("No crash, no silent loss")
struct NoCrashNoLossTests {
    // MARK: - Entity chains and fans

    static func entityChain(depth: Int, use: String? = nil) -> String {
        var declarations = "<!ENTITY e0 \"x\">"
        for level in 1..<depth { declarations += "<!ENTITY e\(level) \"&e\(level - 1);\">" }
        let reference = use ?? "&e\(depth - 1);"
        return "<?xml version=\"1.0\"?><!DOCTYPE rss [\(declarations)]>"
            + "<rss version=\"2.0\"><channel><title>T\(reference)</title><item><title>a</title></item></channel></rss>"
    }

    @Test(.timeLimit(.minutes(10))) func entityChainTwentyThousandDeepIsRefusedWithoutRecursion() {
        // Overflowed the stack (SIGSEGV) in the recursive length computation.
        let xml = Self.entityChain(depth: 25_000)
        #expect(throws: FeedParseError(.entityDepthLimit(entity: "e24999", limit: FeedXMLRepair.maxEntityDepth))) {
            try parse(xml)
        }
    }

    @Test func entityChainWithinTheDepthLimitExpands() throws {
        let feed = try parse(Self.entityChain(depth: FeedXMLRepair.maxEntityDepth))
        #expect(feed.title == "Tx")
        #expect(feed.items.count == 1)
    }

    @Test func entityChainOneLevelTooDeepIsRefused() {
        let depth = FeedXMLRepair.maxEntityDepth + 1
        #expect(throws: FeedParseError(.entityDepthLimit(entity: "e\(depth - 1)", limit: FeedXMLRepair.maxEntityDepth))) {
            try parse(Self.entityChain(depth: depth))
        }
    }

    @Test func deepChainThatIsDeclaredButNeverUsedIsHarmless() throws {
        let feed = try parse(Self.entityChain(depth: 30_000, use: ""))
        #expect(feed.title == "T")
    }

    @Test(.timeLimit(.minutes(10))) func wideFanOfSmallEntitiesIsBoundedByTheTotalBudget() {
        // 2,000 entities of 1 KB each, each used 600 times: every single expansion is small,
        // the sum is 1.2 GB.
        var declarations = ""
        var uses = ""
        let kilobyte = String(repeating: "y", count: 1000)
        for index in 0..<2000 { declarations += "<!ENTITY f\(index) \"\(kilobyte)\">" }
        for _ in 0..<600 { for index in stride(from: 0, to: 2000, by: 1) { uses += "&f\(index);" } }
        let xml = "<!DOCTYPE rss [\(declarations)]><rss><channel><title>\(uses)</title></channel></rss>"
        #expect(throws: FeedParseError.self) { try parse(xml) }
    }

    @Test func entityFanSharedByManyParentsIsMeasuredOnce() throws {
        // 40 levels, each referring twice to the one below: 2^40 bytes if expanded, refused
        // by the budget after a few dozen additions (memoized lengths).
        var declarations = "<!ENTITY g0 \"ab\">"
        for level in 1..<40 { declarations += "<!ENTITY g\(level) \"&g\(level - 1);&g\(level - 1);\">" }
        let xml = "<!DOCTYPE rss [\(declarations)]><rss><channel><title>&g39;</title></channel></rss>"
        #expect(throws: FeedParseError(.entityExpansionLimit(entity: "g39", limit: 1 << 20))) { try parse(xml) }
        let small = "<!DOCTYPE rss [\(declarations)]><rss><channel><title>&g3;</title></channel></rss>"
        #expect(try parse(small).title == String(repeating: "ab", count: 8))
    }

    // MARK: - Numbers too long for an integer

    static func rss(pubDate: String) -> String {
        "<rss version=\"2.0\"><channel><title>T</title><item><title>a</title><pubDate>\(pubDate)</pubDate></item>"
            + "<item><title>b</title><pubDate>Tue, 02 Jan 2024 00:00:00 GMT</pubDate></item></channel></rss>"
    }

    @Test(arguments: [
        "Mon, 01 Jan 2024 00:00:00 +9999999999999999999",
        "Mon, 01 Jan 2024 00:00:00 -9999999999999999999",
        "Mon, 01 Jan 2024 00:00:00 +99:99:99:99:99:99:99:99:99:99",
        "Mon, 01 Jan 2024 00:00:00 +1:2:3:4:5:6:7:8:9:0:1:2:3:4:5:6:7:8:9:0",
        "Mon, 01 Jan 2024 99999999999999999999:00:00 GMT",
        "Mon, 01 Jan 2024 00:99999999999999999999:00 GMT",
        "Mon, 01 Jan 2024 00:00:99999999999999999999 GMT",
        "Mon, 99999999999999999999 Jan 2024 00:00:00 GMT",
        "Mon, 01 Jan 99999999999999999999 00:00:00 GMT",
        "Mon, 01 Jan 2024 00:00:00.99999999999999999999999999 GMT",
        "2024-01-01T00:00:00+99999999999999999999",
        "2024-01-01T00:00:00.999999999999999999999999999999Z",
        "99999999999999999999-01-01T00:00:00Z",
    ])
    func numericFieldsOfTwentyDigitsDoNotOverflow(_ text: String) throws {
        _ = FeedDateParser.date(from: text)  // trapped (SIGILL) on the zone's integer overflow
        let feed = try parse(Self.rss(pubDate: text))
        #expect(feed.items.count == 2, "the item after the bad date is still read")
        #expect(feed.items[1].published == utc("2024-01-02T00:00:00Z"))
    }

    @Test func impossibleZonesAreRefusedNotWrapped() {
        #expect(FeedDateParser.date(from: "Mon, 01 Jan 2024 00:00:00 +9999999999999999999") == nil)
        #expect(FeedDateParser.date(from: "Mon, 01 Jan 2024 00:00:00 +2500") == nil)
        #expect(FeedDateParser.date(from: "2024-01-01T00:00:00+25:00") == nil)
        #expect(FeedDateParser.date(from: "Mon, 01 Jan 2024 00:00:00 +0130") == utc("2023-12-31T22:30:00Z"))
        #expect(FeedDateParser.date(from: "Mon, 01 Jan 2024 00:00:00 -01:30") == utc("2024-01-01T01:30:00Z"))
    }

    @Test func jsonFeedDatesWithLongNumbersDoNotOverflow() throws {
        let json = """
            {"version": "https://jsonfeed.org/version/1.1", "title": "J", "items": [
              {"id": "1", "date_published": "2024-01-01T00:00:00.99999999999999999999999999999999999+99999999999999999999"},
              {"id": "2", "date_published": "99999999999999999999-01-01T00:00:00Z"},
              {"id": "3", "date_published": "2024-01-02T00:00:00Z"}]}
            """
        let feed = try FeedParser.parse(data: Data(json.utf8))
        #expect(feed.items.map(\.id) == ["1", "2", "3"])
        #expect(feed.items[2].published == utc("2024-01-02T00:00:00Z"))
    }

    @Test func characterReferencesBeyondUnicodeAreDropped() throws {
        let xml = "<rss><channel><title>a&#99999999999;b&#x7FFFFFFFFFFFFFFFFFFF;c&#1114112;d</title></channel></rss>"
        #expect(try parse(xml).title == "abcd")
        let html = "<p>a&#99999999999;b&#x7FFFFFFFFFFFFFFFFFFF;c</p>"
        #expect(HTMLText.plainText(html) == "a\u{FFFD}b\u{FFFD}c")
    }

    @Test func orderedListNumbersNearIntMaxDoNotOverflow() {
        // Counting on from `start` trapped at Int.max.
        let lines = HTMLText.render(
            "<ol start=\"9223372036854775807\"><li>x</li><li>y</li></ol><ol><li value=\"-9223372036854775808\">z</li><li>w</li></ol>",
            width: 60
        ).lines.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("999999999. x"))
        #expect(lines.contains("1000000000. y"))
        #expect(lines.contains("-999999999. z"))
    }

    @Test func enclosureLengthsTooLargeForAnIntegerAreLeftOut() throws {
        let xml = """
            <rss version="2.0"><channel><title>T</title><item><title>a</title>
            <enclosure url="http://e.example/a.mp3" length="99999999999999999999999" type="audio/mpeg"/></item></channel></rss>
            """
        let item = try #require(try parse(xml).items.first)
        #expect(item.enclosures == [Enclosure(url: "http://e.example/a.mp3", type: "audio/mpeg", length: nil)])
    }

    // MARK: - Control characters

    /// Three items; the first has control characters in a CDATA section, an attribute and
    /// its title; the later ones must survive.
    static let controlCharacters: [UInt8] = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Ctl\u{1}s</title>
        <link>http://ctl.example/</link>
        <item><title>One\u{1B}[31m red</title><link>http://ctl.example/1</link>
        <description><![CDATA[<p>before\u{2}after \u{1B}[0m and\u{0B}more</p>]]></description>
        <content:encoded><![CDATA[<p>full\u{7} body</p>]]></content:encoded></item>
        <item><title>Two</title><link>http://ctl.example/2\u{1F}</link>
        <enclosure url="http://ctl.example/a\u{8}.mp3" type="audio/mpeg"/><description>text\u{0C}here</description></item>
        <item><title>Three</title><link>http://ctl.example/3</link><description>last</description></item>
        </channel></rss>
        """.utf8)

    @Test func controlCharactersInCDATAAttributesAndTextLoseNothingElse() throws {
        // Before: the control character in the CDATA section lost that item's text and both
        // later items, without an error.
        let feed = try FeedParser.parse(data: Data(Self.controlCharacters))
        #expect(feed.title == "Ctls")
        #expect(feed.items.map(\.title) == ["One[31m red", "Two", "Three"])
        #expect(feed.items[0].summary == "beforeafter [0m andmore")
        #expect(feed.items[0].content == "<p>full body</p>")
        #expect(feed.items[1].link == "http://ctl.example/2")
        #expect(feed.items[1].enclosures.first?.url == "http://ctl.example/a.mp3")
        #expect(feed.items[1].summary == "texthere")
        #expect(feed.items[2].summary == "last")
        #expect(feed.warnings.contains("9 control characters removed"))
    }

    @Test func controlCharactersThroughTheContractJSONPath() throws {
        var json: [UInt8] = []
        try FeedParser.writeContractJSON(data: Data(Self.controlCharacters)) { json.append(contentsOf: $0) }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(items.map { $0["title"] as? String } == ["One[31m red", "Two", "Three"])
        #expect(items[0]["content"] as? String == "<p>full body</p>")
        #expect(!json.contains(where: { $0 < 0x20 && $0 != 0x0A }))
    }

    @Test(arguments: [0x01, 0x08, 0x0B, 0x0C, 0x0E, 0x1B, 0x1F, 0x00] as [UInt8])
    func eachControlCharacterInCDATAKeepsLaterItems(_ control: UInt8) throws {
        var bytes = Array("<rss version=\"2.0\"><channel><title>T</title><item><title>a</title><description><![CDATA[x".utf8)
        bytes.append(control)
        bytes += Array("y]]></description></item><item><title>b</title></item></channel></rss>".utf8)
        let feed = try FeedParser.parse(data: Data(bytes))
        #expect(feed.items.map(\.title) == ["a", "b"])
        #expect(feed.items[0].content == "xy")
    }

    @Test(.timeLimit(.minutes(10))) func controlCharacterLateInALargeStreamedFeedKeepsEveryItemOnce() throws {
        // Large enough to be parsed in two halves with items written while parsing: the
        // items written before the control character are not written twice.
        var xml = "<rss version=\"2.0\"><channel><title>Big</title><link>http://big.example/</link>"
        let body = String(repeating: "lorem ipsum dolor sit amet ", count: 40)
        let count = 6000
        for index in 0..<count {
            let control = index == count * 3 / 4 ? "\u{1}" : (index == count / 4 ? "\u{1B}" : "")
            xml +=
                "<item><guid>g\(index)</guid><title>t\(index)</title><description><![CDATA[\(body)\(control)]]></description></item>"
        }
        xml += "</channel></rss>"
        var limits = FeedParser.Limits()
        limits.parallelParsingThreshold = 1 << 20
        var json: [UInt8] = []
        try FeedParser.writeContractJSON(data: Data(xml.utf8), limits: limits) { json.append(contentsOf: $0) }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        let ids = try #require((object["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String })
        #expect(ids == (0..<count).map { "g\($0)" })
        let feed = try FeedParser.parse(data: Data(xml.utf8), limits: limits)
        #expect(feed.items.map(\.id) == (0..<count).map { "g\($0)" })
    }

    @Test func controlCharactersInJSONFeedStringsLoseNothing() throws {
        // Before: "not JSON: Unescaped control character", the whole feed refused.
        var json = Array(#"{"version": "https://jsonfeed.org/version/1.1", "title": "J"#.utf8) + [0x01]
        json += Array(#"x", "items": [{"id": "1", "title": "a"#.utf8) + [0x1B] + Array(#"[31mb", "content_html": "<p>x"#.utf8)
        json += [0x02, 0x0A] + Array(#"y</p>"}, {"id": "2", "title": "two"}]}"#.utf8)
        let feed = try FeedParser.parse(data: Data(json))
        #expect(feed.title == "Jx")
        #expect(feed.items.map(\.title) == ["a[31mb", "two"])
        #expect(feed.items.first?.content == "<p>x\ny</p>")
    }

    // MARK: - Documents cut off

    static let complete = """
        <?xml version="1.0"?>
        <rss version="2.0"><channel><title>T</title>
        <item><title>a</title></item><item><title>b</title></item><item><title>c</title><description>the end</description></item>
        </channel></rss>
        """

    @Test func aDocumentCutOffKeepsItsItemsAndSaysSo() throws {
        let cut = String(Self.complete.prefix(upTo: Self.complete.range(of: "end</description>")!.lowerBound))
        let feed = try parse(cut)
        #expect(feed.items.map(\.title) == ["a", "b", "c"])
        #expect(feed.problems == ["the document is cut off before its closing </rss> tag; the items before the cut are kept"])
        // The `zeader parse` path prints the items and hands the problem back for stderr.
        var json: [UInt8] = []
        let problems = try FeedParser.writeContractJSON(data: Data(cut.utf8)) { json.append(contentsOf: $0) }
        #expect(problems == feed.problems)
        #expect(try JSONDecoder().decode(FeedCorrectnessTests.Contract.self, from: Data(json)).items.count == 3)
    }

    @Test(arguments: ["</channel>", "<item><title>c</title>", "<ite", "</rs"])
    func everyCutIsReported(_ cutBefore: String) throws {
        let end = Self.complete.range(of: cutBefore, options: .backwards)!.lowerBound
        let feed = try parse(String(Self.complete[..<end]))
        #expect(feed.problems.count == 1)
        #expect(feed.items.count >= 2)
    }

    @Test func atomAndRDFCutOffAreReported() throws {
        let atom =
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>A</title><entry><id>1</id><title>x</title></entry><entry><id>2</id><ti"
        #expect(try parse(atom).problems.first?.contains("</feed>") == true)
        let rdf =
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns=\"http://purl.org/rss/1.0/\"><channel><title>R</title></channel><item><title>x</title></item>"
        let feed = try parse(rdf)
        #expect(feed.items.count == 1)
        #expect(feed.problems.first?.contains("</RDF>") == true)
    }

    @Test func completeDocumentsAreNotReportedAsCutOff() throws {
        #expect(try parse(Self.complete).problems.isEmpty)
        #expect(try parse(Self.complete + "\n<!-- generated in 0.2 s -->\n<?pi x?>\n").problems.isEmpty)
        // An unclosed inline tag leaves libxml2 with an element open at the end, but the
        // document ends with its root's end tag: malformed, not cut off.
        let unclosed = Self.complete.replacingOccurrences(of: "<title>b</title>", with: "<title>b</title><b>")
        #expect(try parse(unclosed).problems.isEmpty)
        let prefixed =
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns=\"http://purl.org/rss/1.0/\"><channel><title>R</title></channel><item><title>x</title></item></rdf:RDF>"
        #expect(try parse(prefixed).problems.isEmpty)
    }

    @Test(.timeLimit(.minutes(10))) func aLargeDocumentCutOffIsReportedByTheHalvesPathToo() throws {
        var xml = "<rss version=\"2.0\"><channel><title>Big</title><link>http://big.example/</link>"
        for index in 0..<4000 {
            xml +=
                "<item><guid>g\(index)</guid><title>t\(index)</title><description>\(String(repeating: "z", count: 400))</description></item>"
        }
        var limits = FeedParser.Limits()
        limits.parallelParsingThreshold = 1 << 20
        let cut = Data(xml.utf8.dropLast(150))
        let feed = try FeedParser.parse(data: cut, limits: limits)
        #expect(feed.items.count == 4000)
        #expect(feed.problems.count == 1)
        #expect(try FeedParser.writeContractJSON(data: cut, limits: limits) { _ in } == feed.problems)
        let whole = try FeedParser.parse(data: Data((xml + "</channel></rss>").utf8), limits: limits)
        #expect(whole.problems.isEmpty)
    }
}
