import Foundation
import Testing

@testable import Feeds

/// Feed correctness (issue 13): the categories real feeds still got wrong, each with
/// fixtures of its own in `Fixtures/correctness/` (named by category number), read both
/// through ``FeedParser/parse(data:url:contentTypeCharset:limits:)`` and through the
/// contract JSON that `zeader parse` prints.
@Suite("Feed correctness")
struct FeedCorrectnessTests {
    /// The contract JSON of `zeader parse`, decoded.
    struct Contract: Decodable {
        struct Item: Decodable {
            var id: String
            var title: String?
            var link: String?
            var author: String?
            var published: String?
            var updated: String?
            var summary: String?
            var content: String?
        }
        var format: String
        var title: String?
        var link: String?
        var items: [Item]
    }

    /// The fixture parsed both ways; the two must agree on every contract field.
    static func read(_ name: String, base: String? = nil) throws -> ParsedFeed {
        let data = try fixture("correctness/\(name)")
        let url = base.flatMap { URL(string: $0) }
        let feed = try FeedParser.parse(data: data, url: url)
        var json: [UInt8] = []
        try FeedParser.writeContractJSON(data: data, url: url) { json.append(contentsOf: $0) }
        let contract = try JSONDecoder().decode(Contract.self, from: Data(json))
        #expect(contract.format == feed.format.rawValue)
        #expect(contract.title == feed.title)
        #expect(contract.link == feed.link)
        #expect(contract.items.map(\.id) == feed.items.map(\.id))
        #expect(contract.items.map(\.title) == feed.items.map(\.title))
        #expect(contract.items.map(\.link) == feed.items.map(\.link))
        #expect(contract.items.map(\.author) == feed.items.map(\.author))
        #expect(contract.items.map(\.summary) == feed.items.map(\.summary))
        #expect(contract.items.map(\.content) == feed.items.map(\.content))
        return feed
    }

    // MARK: - 1. base64 text constructs

    @Test func atom03Base64IsDecodedAtFeedAndEntryLevel() throws {
        let feed = try Self.read("1-atom03-base64.xml")
        #expect(feed.format == .atom03)
        #expect(feed.title == "Feed Title")
        #expect(feed.items.map(\.title) == ["Entry Title", "Plain escaped"])
        #expect(feed.items[0].summary == "Summary bold")
        #expect(feed.items[0].content == "<p>Content &amp; more</p>")
        // Binary content is absent, not base64: the entry's body falls back to its summary.
        #expect(feed.items[1].summary == "text/plain by default")
        #expect(feed.items[1].content == "text/plain by default")
    }

    @Test func atom10NonTextMimeTypesAreDecodedOrLeftOut() throws {
        let feed = try Self.read("1-atom10-octet-stream.xml")
        #expect(feed.title == "Octet Feed")
        #expect(feed.items[0].summary == "Summary as bytes")
        #expect(feed.items[0].content == "Body as bytes")
        #expect(feed.items[1].content == nil, "a PNG is not shown as base64")
        #expect(feed.items[1].summary == nil)
        #expect(feed.items[2].content == "\(Data("left as written".utf8).base64EncodedString())", "text/plain is not base64")
    }

    // MARK: - 2. Atom 0.3 under its historical namespaces

    @Test(arguments: 0..<6) func atom03HistoricalNamespacesAreRead(_ index: Int) throws {
        let feed = try Self.read("2-atom03-namespace-\(index).xml")
        #expect(feed.format == .atom03)
        #expect(feed.title == "Old Atom \(index)")
        #expect(feed.link == "http://old.example/\(index)/")
        let item = try #require(feed.items.first)
        #expect(item.id == "tag:old.example,2003:\(index)-1")
        #expect(item.link == "http://old.example/\(index)/1")
        #expect(item.author == "Mark")
        #expect(item.published == utc("2003-12-13T12:29:29Z"))
        #expect(item.updated == utc("2003-12-13T18:30:02Z"))
    }

    // MARK: - 3. rel="self" is the feed's own URL, not its site

    @Test(arguments: ["3-rss-self-before-link.xml", "3-rss-self-undeclared-prefix.xml"])
    func selfLinksAreNotTheSiteLink(_ name: String) throws {
        let feed = try Self.read(name)
        #expect(feed.link == "http://self.example/")
        #expect(feed.items.first?.link == "http://self.example/1")
    }

    @Test func alternateIsTheSiteWhenThereIsNoRSSLink() throws {
        let feed = try Self.read("3-rss-self-only-and-alternate.xml")
        #expect(feed.link == "http://self.example/site/")
        #expect(feed.items.first?.link == "http://self.example/perma/1")
    }

    @Test func rdfSelfLinkIsNotTheSiteLink() throws {
        let feed = try Self.read("3-rdf-self.xml")
        #expect(feed.link == "http://self.example/")
    }

    // MARK: - 4. relative URLs inside content

    @Test func rssContentLinksResolveAgainstTheFeedURLAndXMLBase() throws {
        let feed = try Self.read("4-rss-relative-content.xml", base: "http://rel.example/feed/rss.xml")
        #expect(feed.items[0].link == "http://rel.example/posts/1")
        #expect(
            feed.items[0].content
                == ##"<p><a href="http://rel.example/posts/2">next</a> <img src="http://rel.example/feed/img/a.png"> <a href="#top">top</a> <a href="mailto:a@rel.example">mail</a></p>"##
        )
        #expect(
            feed.items[1].content
                == #"<p><img src='http://cdn.rel.example/2024/pic.jpg' alt="p"> <a href=http://cdn.rel.example/about>about</a> <a href="https://abs.example/x">abs</a></p>"#
        )
    }

    @Test func withoutAnyBaseContentIsLeftAsWritten() throws {
        let feed = try Self.read("4-rss-relative-content.xml")
        #expect(feed.items[0].content?.contains(#"href="/posts/2""#) == true)
        #expect(feed.items[1].content?.contains("http://cdn.rel.example/2024/pic.jpg") == true, "xml:base alone is a base")
    }

    @Test func atomContentLinksResolveAgainstXMLBaseOfEntryAndAncestors() throws {
        let feed = try Self.read("4-atom-relative-content.xml", base: "http://ignored.example/atom.xml")
        #expect(feed.items[0].link == "http://atomrel.example/blog/entries/1")
        #expect(
            feed.items[0].content
                == #"<a href="http://atomrel.example/blog/entries/2">two</a><img src="http://atomrel.example/logo.png">"#)
        let xhtml = try #require(feed.items[1].content)
        #expect(xhtml.contains(#"href="http://atomrel.example/other/page""#), "\(xhtml)")
        #expect(xhtml.contains(#"src="http://atomrel.example/other/i.gif""#), "\(xhtml)")
    }

    @Test func rdfDescriptionLinksResolve() throws {
        let feed = try Self.read("4-rdf-relative-content.xml", base: "http://rdfrel.example/index.rdf")
        #expect(feed.items.first?.content == #"<a href="http://rdfrel.example/more.html">more</a>"#)
    }

    // MARK: - 5. dc:title and dc:author

    @Test func dcTitleAndAuthorStandInForMissingOnes() throws {
        let feed = try Self.read("5-rss-dc-title-author.xml")
        #expect(feed.title == "DC channel title")
        #expect(feed.items.map(\.title) == ["DC only", "Own title", "Creator too"])
        #expect(feed.items.map(\.author) == ["Ann Author", "Bob", "Dee"])
    }

    @Test func channelTitleWinsOverDCTitle() throws {
        let feed = try Self.read("5-rss-dc-channel-title-both.xml")
        #expect(feed.title == "Channel first")
        #expect(feed.items.first?.title == "Item")
    }

    @Test func rdfDCTitleAndAuthor() throws {
        let feed = try Self.read("5-rdf-dc-title.xml")
        #expect(feed.title == "RDF via DC")
        #expect(feed.items.first?.title == "RDF item")
        #expect(feed.items.first?.author == "Eve")
    }

    // MARK: - 6. JSON Feed with a short or missing version

    @Test(arguments: ["1.0", "1.1", "1"]) func shortJSONFeedVersionsAreRead(_ version: String) throws {
        let feed = try Self.read("6-jsonfeed-version-\(version).json")
        #expect(feed.format == .jsonfeed)
        #expect(feed.title == "Short \(version)")
        #expect(feed.items.map(\.link) == ["https://json.example/1"])
        #expect(feed.items.first?.published == utc("2024-01-01T00:00:00Z"))
    }

    @Test func anyObjectWithItemsIsAJSONFeed() throws {
        let feed = try Self.read("6-jsonfeed-no-version.json")
        #expect(feed.items.map(\.id) == ["a"])
    }

    @Test func anObjectWithAnOtherVersionAndNoItemsIsStillRefused() throws {
        #expect(throws: FeedParseError.self) {
            try FeedParser.parse(data: fixture("correctness/6-jsonfeed-other-version-no-items.json"))
        }
    }

    // MARK: - 7. legacy single-byte encodings

    static let encodings: [(String, String)] = [
        ("7-encoding-cp437.xml", "ÇüΘ"),
        ("7-encoding-cp850.xml", "ÇüÚ"),
        ("7-encoding-cp861.xml", "ÇüΘ"),
        ("7-encoding-cp866.xml", "АБщ"),
        ("7-encoding-macroman.xml", "ÄÅÈ"),
        ("7-encoding-maccentraleurope.xml", "ÄĀť"),
        ("7-encoding-macgreek.xml", "Ä¹ι"),
        ("7-encoding-maciceland.xml", "ÄÅÈ"),
        ("7-encoding-maclatin2.xml", "ÄĀť"),
        ("7-encoding-macturkish.xml", "ÄÅÈ"),
        ("7-encoding-windows-1251.xml", "ЂЃй"),
        ("7-encoding-x-mac-cyrillic.xml", "АБй"),
        ("7-encoding-ibm850.xml", "ÇüÚ"),
        ("7-encoding-ebcdic-cp037.xml", "éø[]"),
        ("7-encoding-ebcdic-cp500.xml", "éø[]"),
        ("7-encoding-ebcdic-cp1140.xml", "éø[]"),
        ("7-encoding-ebcdic-cp273.xml", "éø[]"),
    ]

    @Test(arguments: encodings) func legacyCodePagesAreDecodedByTheirDeclaredName(_ name: String, _ expected: String) throws {
        let feed = try Self.read(name)
        #expect(feed.title == "T \(expected)")
        #expect(feed.items.first?.title == expected)
    }

    @Test func encodingNamesAreReadWithTheirUsualSpellings() {
        for label in ["macroman", "x-mac-roman", "MacRoman", "mac"] {
            #expect(FeedXMLEncoding.canonicalName(label) == "MACINTOSH")
        }
        #expect(FeedXMLEncoding.alternativeNames("WIN-1251").contains("WINDOWS-1251"))
        #expect(FeedXMLEncoding.alternativeNames("X-CP850").contains("CP850"))
        #expect(FeedXMLEncoding.alternativeNames("IBM-866").contains("IBM866"))
    }

    // MARK: - 8. conflicting dates

    @Test func atom03IssuedIsThePublicationDateWhicheverComesFirst() throws {
        let feed = try Self.read("8-atom03-issued-created.xml")
        #expect(
            feed.items.map(\.published) == [
                utc("2004-01-02T00:00:00Z"), utc("2004-01-03T00:00:00Z"), utc("2004-01-04T00:00:00Z"),
                utc("2004-01-06T00:00:00Z"),
            ])
        #expect(feed.items[0].updated == utc("2004-01-05T00:00:00Z"))
    }

    @Test func atom10PublishedWinsOverIssued() throws {
        let feed = try Self.read("8-atom10-published-issued.xml")
        #expect(feed.items.first?.published == utc("2004-01-02T00:00:00Z"))
        #expect(feed.items.first?.updated == utc("2004-01-09T00:00:00Z"))
    }
}
