import Foundation
import Testing

@testable import Feeds

@Suite("Hostile input")
struct SafetyTests {
    static let billionLaughs = """
        <?xml version="1.0"?>
        <!DOCTYPE rss [
          <!ENTITY lol "lol">
          <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
          <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
          <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
          <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
          <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
          <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
          <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
          <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
          <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
        ]>
        <rss version="2.0"><channel><title>&lol9;</title></channel></rss>
        """

    // The limits in this file guard against hangs only: a parallel run counts in them the time
    // a test waits for a thread.
    @Test(.timeLimit(.minutes(10))) func billionLaughsIsRefusedFast() {
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(throws: FeedParseError(.entityExpansionLimit(entity: "lol9", limit: 1 << 20))) {
                try parse(Self.billionLaughs)
            }
        }
        #expect(elapsed < .seconds(10), "alone it takes milliseconds; the bound allows for a busy CI machine")
    }

    @Test(.timeLimit(.minutes(10))) func quadraticBlowupIsRefusedFast() {
        let big = String(repeating: "x", count: 100_000)
        let references = String(repeating: "&big;", count: 20_000)  // 2 GB if expanded
        let xml =
            "<?xml version=\"1.0\"?><!DOCTYPE rss [<!ENTITY big \"\(big)\">]><rss><channel><title>\(references)</title></channel></rss>"
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(throws: FeedParseError(.entityExpansionLimit(entity: "big", limit: 1 << 20))) { try parse(xml) }
        }
        #expect(elapsed < .seconds(10), "alone it takes milliseconds; the bound allows for a busy CI machine")
    }

    @Test func selfReferencingEntityIsRefused() {
        let xml = "<!DOCTYPE rss [<!ENTITY a \"x&b;\"><!ENTITY b \"y&a;\">]><rss><channel><title>&a;</title></channel></rss>"
        #expect(throws: FeedParseError(.entityLoop(entity: "a"))) { try parse(xml) }
    }

    @Test func smallInternalEntitiesStillWork() throws {
        let feed = try parseFixture("external-entity.xml")
        #expect(feed.title == "Hello & welcome")
    }

    @Test func externalEntitiesAreNeverLoaded() throws {
        let feed = try parseFixture("external-entity.xml")
        let title = try #require(feed.items.first?.title)
        #expect(!title.contains("root:"), "file:///etc/passwd must not be read")
        #expect(title == "Secret: &secret; &remote;", "external entity references stay as text")
    }

    @Test func externalDTDIsNeverLoadedAndHTMLEntitiesStillWork() throws {
        // The DTD points at a port nothing listens on; loading it would fail or hang.
        let feed = try parseFixture("external-dtd.xml")
        #expect(feed.title == "Café DTD")
        #expect(feed.items.first?.title == "Résumé © 2024")
    }

    @Test func parameterEntitiesAreIgnored() throws {
        let xml = """
            <!DOCTYPE rss [<!ENTITY % remote SYSTEM "http://127.0.0.1:9/x.dtd"> %remote;
            <!ENTITY % a "<!ENTITY b 'bad'>"> %a;]>
            <rss version="2.0"><channel><title>ok &b;</title></channel></rss>
            """
        #expect(try parse(xml).title == "ok &b;")
    }

    @Test func inputSizeCap() {
        var limits = FeedParser.Limits()
        limits.maxInputBytes = 1000
        let data = Data(repeating: UInt8(ascii: " "), count: 1001)
        #expect(throws: FeedParseError(.inputTooLarge(size: 1001, limit: 1000))) {
            try FeedParser.parse(data: data, limits: limits)
        }
        #expect(FeedParser.Limits().maxInputBytes == 128 << 20)
    }

    @Test func controlCharactersAreStripped() throws {
        let feed = try parseFixture("control-characters.xml")
        #expect(feed.items[0].title == "Bell and tab")
        #expect(feed.items[0].content == "line one\nline two")
        let csi = try parse(
            "<rss version=\"2.0\"><channel><title>a\u{9B}31mb\u{85}c</title><item><title>x\u{1B}[2Jy</title></item></channel></rss>"
        )
        #expect(csi.title == "a31mbc", "C1 controls (CSI, NEL) are removed")
        #expect(csi.items.first?.title?.unicodeScalars.contains { $0.value < 0x20 } == false)
        #expect(FeedText.sanitized("a\u{1B}[31mb\r\nc\u{7F}d\u{0}") == "a[31mb\nc" + "d")
        let attributes = try parse(
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns=\"http://purl.org/rss/1.0/\"><item rdf:about=\"x\u{85}y\u{9B}z\"><title type=\"html\">t</title></item></rdf:RDF>"
        )
        #expect(attributes.items.first?.id == "xyz", "ids from attributes are sanitized too")
    }

    @Test func malformedXMLIsRecovered() throws {
        let feed = try parseFixture("malformed-recover.xml")
        #expect(feed.title == "Broken\u{A0}but readable — really")
        #expect(feed.link == "http://broken.example/?a=1&b=2")
        #expect(feed.items.count == 2)
        #expect(feed.items[0].title == "Fish & Chips & more été")
        #expect(feed.items[0].id == "http://broken.example/1?x=1&utm_medium=rss")
        #expect(feed.items[1].title == "After the error & still <fine> – dash", "entities after an error are kept")
        #expect(!feed.warnings.isEmpty)
    }

    @Test func hopelessXMLIsReported() {
        #expect(throws: FeedParseError.self) { try parse("<<<>>> not xml at all") }
        do {
            _ = try FeedParser.parse(data: Data("<<<".utf8), url: URL(string: "https://bad.example/feed"))
        } catch {
            #expect(error.description.hasPrefix("https://bad.example/feed: "), "errors name the feed")
        }
    }
}
