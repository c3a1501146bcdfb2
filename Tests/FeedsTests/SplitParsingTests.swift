import Foundation
import Testing

@testable import Feeds

/// Large feeds are parsed in two halves on two cores; the result must be exactly what a
/// parse in one piece gives.
@Suite("Parsing in halves")
struct SplitParsingTests {
    static func limits(split: Bool) -> FeedParser.Limits {
        var limits = FeedParser.Limits()
        limits.parallelParsingThreshold = split ? 0 : Int.max
        return limits
    }

    static func bigFeed(atom: Bool, items: Int) -> String {
        var xml =
            atom
            ? "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\" xml:base=\"https://big.example/\"><title>Big</title><author><name>Feed Author</name></author>"
            : "<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\"><channel xml:base=\"https://big.example/\"><title>Big</title>"
        for index in 0..<items {
            // Item-like text inside CDATA and comments must not be taken for a cut point.
            let body = "<![CDATA[<p>Body \(index) <item> & <entry> not tags</p>]]>"
            if atom {
                xml +=
                    "<entry><title>Entry \(index)</title><id>e\(index)</id><link href=\"e/\(index)\"/><updated>2024-01-01T00:00:00Z</updated><content type=\"html\">\(body)</content></entry><!-- <entry> -->\n"
            } else {
                xml +=
                    "<item><title>Item \(index) &amp; co</title><link>i/\(index)</link><content:encoded>\(body)</content:encoded></item><!-- <item> -->\n"
            }
        }
        xml += atom ? "</feed>" : "<link>https://big.example/site</link></channel></rss>"
        return xml
    }

    @Test(arguments: [false, true])
    func halvesGiveTheSameFeed(atom: Bool) throws {
        let data = Data(Self.bigFeed(atom: atom, items: 400).utf8)
        let whole = try FeedParser.parse(data: data, limits: Self.limits(split: false))
        let halves = try FeedParser.parse(data: data, limits: Self.limits(split: true))
        #expect(whole.items.count == 400)
        #expect(halves == whole)
        #expect(halves.warnings.isEmpty, "the cut itself is not reported as an error")
    }

    @Test func channelElementsAfterTheItemsAreFound() throws {
        let feed = try FeedParser.parse(data: Data(Self.bigFeed(atom: false, items: 50).utf8), limits: Self.limits(split: true))
        #expect(feed.link == "https://big.example/site")
    }

    @Test func cutPointIsAnItemStartOutsideCDATAAndComments() throws {
        let xml = Array(Self.bigFeed(atom: false, items: 20).utf8)
        let cut = try #require(xml.withUnsafeBufferPointer { FeedXMLSplitter.split($0) })
        #expect(Array(xml[cut.middle..<(cut.middle + 6)]) == Array("<item>".utf8))
        let ranges = xml.withUnsafeBufferPointer { FeedXMLSplitter.protectedRanges($0, upTo: cut.middle) }
        #expect(!ranges.contains { $0.contains(cut.middle) })
        #expect(xml.withUnsafeBufferPointer { FeedXMLSplitter.split(UnsafeBufferPointer(rebasing: $0[..<100])) } == nil)
    }

    @Test(arguments: [false, true])
    func theRepairPassShowsWhereTheSplitterCanStart(atom: Bool) throws {
        // `&amp;` in every item makes the repair copy nothing (it is valid XML); a bare `&`
        // makes it copy, which shifts positions: the hint must be in the repaired bytes.
        for bare in [false, true] {
            var xml = Self.bigFeed(atom: atom, items: 200)
            if bare { xml = xml.replacingOccurrences(of: "&amp; co", with: "& co") }
            let input = Array(xml.utf8)
            let repaired = try input.withUnsafeBufferPointer { try FeedXMLRepair.repair($0, maxEntityExpansion: 1 << 20) }
            let document = repaired.bytes ?? Array(input[repaired.offset...])
            let hint = try #require(repaired.outsideAfterMiddle)
            #expect(hint >= input.count / 2 - repaired.offset && hint < document.count)
            let ranges = document.withUnsafeBufferPointer { FeedXMLSplitter.protectedRanges($0, upTo: document.count) }
            #expect(!ranges.contains { $0.contains(hint) && $0.lowerBound != hint })
            let cut = try #require(document.withUnsafeBufferPointer { FeedXMLSplitter.split($0, outsideAfterMiddle: hint) })
            #expect(cut.middle >= hint)
            #expect(!ranges.contains { $0.contains(cut.middle) })
            #expect(Array(document[cut.middle..<(cut.middle + (atom ? 7 : 6))]) == Array((atom ? "<entry>" : "<item>").utf8))
        }
    }

    @Test func everyFixtureParsesTheSameInHalves() throws {
        for name in FuzzTests.fixtureNames {
            let data = try fixture(name)
            let whole = try? FeedParser.parse(data: data, limits: Self.limits(split: false))
            let halves = try? FeedParser.parse(data: data, limits: Self.limits(split: true))
            #expect(whole?.items == halves?.items, "\(name)")
            #expect(whole?.title == halves?.title, "\(name)")
        }
    }
}
