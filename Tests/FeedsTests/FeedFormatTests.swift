import Foundation
import Testing

@testable import Feeds

@Suite("Feed formats")
struct FeedFormatTests {
    @Test func rss2WithExtensions() throws {
        let feed = try parseFixture("rss2-full.xml")
        #expect(feed.format == .rss2)
        #expect(feed.title == "Zeader Test Kitchen")
        #expect(feed.link == "https://kitchen.example/")
        #expect(feed.items.count == 3)
        let first = feed.items[0]
        #expect(first.id == "kitchen-0001")
        #expect(first.title == "Crème brûlée & friends")
        #expect(first.link == "https://kitchen.example/posts/creme-brulee")
        #expect(first.author == "Zoë Müller")
        #expect(first.published == utc("2024-06-04T07:15:00Z"))
        #expect(first.categories == ["Desserts", "French"])
        #expect(first.content == #"<p>Heat the cream &amp; sugar. <a href="/tips">Tips</a></p>"#)
        #expect(first.summary == "A classic dessert.")
        #expect(first.enclosures.map(\.url) == ["https://kitchen.example/audio/1.mp3", "https://kitchen.example/img/1.jpg"])
        #expect(first.enclosures.first?.length == 12345)
        #expect(first.enclosures.first?.type == "audio/mpeg")

        let second = feed.items[1]
        #expect(second.id == "https://kitchen.example/posts/2")
        #expect(second.link == "https://kitchen.example/posts/2", "a permalink guid is the link")
        #expect(second.author == "Chef Ana", "'email (Name)' gives the name")
        #expect(second.published == utc("2024-06-05T10:00:00Z"))
        #expect(second.content == "Plain description")

        let third = feed.items[2]
        #expect(third.author == "Only iTunes")
        #expect(third.published == nil)
        #expect(third.id.hasPrefix("zeader:"), "items without guid get a derived id")
    }

    @Test func derivedIDsAreStable() throws {
        let once = try parseFixture("rss2-full.xml").items[2].id
        let twice = try parseFixture("rss2-full.xml").items[2].id
        #expect(once == twice)
        let other = try parse(
            "<rss version=\"2.0\"><channel><item><title>No guid, no date</title><link>https://kitchen.example/posts/4</link></item></channel></rss>"
        )
        #expect(other.items[0].id != once)
    }

    @Test func rssWithoutVersionIsRSS2() throws {
        let feed = try parseFixture("rss-no-version.xml")
        #expect(feed.format == .rss2)
        #expect(feed.items.first?.published == utc("2017-12-07T18:00:29Z"))
    }

    @Test func rss092ItemsWithOnlyDescriptions() throws {
        let feed = try parseFixture("rss092-description-only.xml")
        #expect(feed.format == .rss09)
        #expect(feed.items.count == 2)
        #expect(feed.items[0].title == nil)
        #expect(feed.items[0].summary == "First entry")
        #expect(feed.items[0].enclosures.count == 1)
        #expect(feed.items[0].id != feed.items[1].id)
    }

    @Test func rss1RDF() throws {
        let feed = try parseFixture("rss1-rdf.xml")
        #expect(feed.format == .rss1)
        #expect(feed.title == "RDF Site")
        #expect(feed.link == "http://rdf.example/")
        #expect(feed.items.count == 2)
        #expect(feed.items[0].id == "http://rdf.example/a")
        #expect(feed.items[0].author == "Debian Team")
        #expect(feed.items[0].published == utc("2022-12-17T00:00:00Z"))
        #expect(feed.items[0].content == "<p>Long</p>")
        #expect(feed.items[0].summary == "Short")
        #expect(feed.items[1].link == "http://rdf.example/b", "rdf:about stands in for a missing link")
        #expect(feed.items[1].published == utc("2017-06-21T17:33:10Z"))
    }

    @Test func rss090() throws {
        let feed = try parseFixture("rss090.xml")
        #expect(feed.format == .rss09)
        #expect(feed.title == "Mozilla Dot Org")
        #expect(feed.items.first?.link == "http://www.mozilla.org/status/")
    }

    @Test func atom10TextConstructsLinksAndBase() throws {
        let feed = try parseFixture("atom10-full.xml")
        #expect(feed.format == .atom10)
        #expect(feed.title == "Atom Test Feed", "type=html titles become plain text")
        #expect(feed.link == "https://atom.example/blog/", "a link without rel is the alternate, resolved against xml:base")
        #expect(feed.items.count == 3)
        let first = feed.items[0]
        #expect(first.title == "Text title with <tags>", "type=text keeps angle brackets as text")
        #expect(first.link == "https://atom.example/blog/2024/06/first")
        #expect(first.id == "tag:atom.example,2024:1")
        #expect(first.published == utc("2024-06-01T06:00:00Z"), "fractional seconds with an offset")
        #expect(first.updated == utc("2024-06-02T09:30:00Z"))
        #expect(first.author == "Entry Author")
        #expect(first.summary == "Summary & more")
        #expect(first.content == "<p>Hello <b>world</b><br>line</p>", "xhtml content without its wrapper div")
        #expect(first.enclosures == [Enclosure(url: "https://atom.example/blog/media/first.ogg", type: "audio/ogg", length: 42)])

        let second = feed.items[1]
        #expect(second.title == "XHTML title")
        #expect(second.link == "https://cdn.example/absolute-path")
        #expect(second.author == "Feed Author", "entries inherit the feed's author")
        #expect(second.content == "Plain &lt;text&gt; content")
        #expect(second.summary == "Plain <text> content")

        #expect(feed.items[2].link == "https://atom.example/blog/doc.html", "an HTML alternate wins")
        #expect(feed.items[2].updated == utc("2024-06-04T17:00:00Z"))
    }

    @Test func atomSourceElementDoesNotLeakIntoEntry() throws {
        let first = try parseFixture("atom10-full.xml").items[0]
        #expect(first.title != "Source feed title")
        #expect(first.link != "https://source.example/")
    }

    @Test func atom03() throws {
        let feed = try parseFixture("atom03.xml")
        #expect(feed.format == .atom03)
        #expect(feed.link == "http://atom03.example/")
        let entry = try #require(feed.items.first)
        #expect(entry.published == utc("2005-01-01T18:00:00Z"))
        #expect(entry.updated == utc("2005-01-02T03:04:05Z"))
        #expect(entry.author == "Old Timer")
        #expect(entry.content == "<p>Escaped &amp; HTML</p>")
    }

    @Test func atomWithoutNamespaceIsStillAtom() throws {
        let feed = try parse(
            "<feed><title>Bare</title><entry><title>E</title><id>e1</id><link href=\"http://bare.example/e\"/></entry></feed>")
        #expect(feed.format == .atom10)
        #expect(feed.items.first?.link == "http://bare.example/e")
    }

    @Test func relativeLinksAndXMLBase() throws {
        let feed = try parseFixture("rss2-relative-xmlbase.xml")
        #expect(feed.link == "https://blog.example/base/")
        #expect(feed.items[0].link == "https://blog.example/base/sub/posts/one.html")
        #expect(feed.items[1].link == "https://other.example/y/two.html")
        #expect(feed.items[2].link == "https://blog.example/p/3")
        #expect(feed.items[3].link == nil, "a guid marked isPermaLink=false is not a link")
    }

    @Test func feedURLResolvesLinksWithoutXMLBase() throws {
        let feed = try parse(
            "<rss version=\"2.0\"><channel><link>/</link><item><link>posts/1</link><guid>1</guid></item></channel></rss>",
            base: "https://site.example/feeds/main.xml")
        #expect(feed.link == "https://site.example/")
        #expect(feed.items[0].link == "https://site.example/feeds/posts/1")
        let unresolved = try parse("<rss version=\"2.0\"><channel><item><link>posts/1</link></item></channel></rss>")
        #expect(unresolved.items[0].link == "posts/1", "without any base a relative link stays relative")
    }

    @Test func notAFeedIsRefused() throws {
        #expect(throws: FeedParseError(.notAFeed(rootElement: "html"))) { try parseFixture("not-a-feed.html") }
        #expect(throws: FeedParseError(.empty)) { try parse("   \n") }
    }

    @Test func jsonIsDetectedBeforeXML() {
        #expect(FeedParser.looksLikeJSON(Data("\u{FEFF} \n {\"version\": 1}".utf8)))
        #expect(!FeedParser.looksLikeJSON(Data("<rss/>".utf8)))
    }
}
