import Foundation
import Testing

@testable import ZeaderKit

/// `stream/items/contents` pages read straight from their bytes: the same items
/// JSONDecoder reads from well-formed pages, escapes decoded, members of the wrong kind
/// taken as absent, and nil for what is not JSON of that shape.
@Suite("Sync: item contents read from their bytes")
struct ItemContentsScannerTests {
    /// What a test compares of an item.
    static func fields(_ item: GReaderClient.Item) -> [String] {
        [
            item.id, item.title ?? "-", item.author ?? "-", item.published.map { "\($0)" } ?? "-",
            item.updated.map { "\($0)" } ?? "-", item.link ?? "-", (item.categories ?? []).joined(separator: "|"),
            item.origin?.streamId ?? "-", item.summary?.content ?? "-", item.content?.content ?? "-",
            "\(item.isRead)", "\(item.isStarred)",
        ]
    }

    static func scan(_ text: String) -> [GReaderClient.Item]? { ItemContentsScanner.scan(Data(text.utf8)) }

    @Test func aFreshRSSPageReadsAsJSONDecoderReadsIt() throws {
        // FreshRSS's shape, with the members items do not keep, escapes and non-ASCII text.
        var entries: [String] = []
        for n in 0..<40 {
            entries.append(
                #"""
                {"id":"tag:google.com,2005:reader/item/0006610d9662d8\#(String(format: "%02x", n))","crawlTimeMsec":"1795560845793",
                 "timestampUsec":"1795560845793381","published":\#(1_795_395_180 + n),"title":"Feed \#(n) \"quoted\" caf\u00e9 \ud83d\ude00",
                 "author":\#(n % 3 == 0 ? "null" : "\"Ann\\/Bob\""),
                 "canonical":[{"href":"http:\/\/127.0.0.1:5\/f\/\#(n)"}],"alternate":[{"href":"http://127.0.0.1:5/f/\#(n)","type":"text/html"}],
                 "categories":["user/-/state/com.google/reading-list"\#(n % 4 == 0 ? #","user/-/state/com.google/read""# : "")\#(n % 5 == 0 ? #","user/-/state/com.google/starred""# : "")],
                 "origin":{"streamId":"feed/\#(n % 7)","htmlUrl":"http://127.0.0.1:5/","title":"F"},
                 "summary":{"content":"<p>Item \#(n):\n\ta <b>bold<\/b> word — ünïcödé</p>"}\#(n % 2 == 0 ? #","content":{"direction":"ltr","content":"<div>full</div>"}"# : "")}
                """#)
        }
        let page =
            #"{"id":"user/-/state/com.google/reading-list","updated":1795560845,"items":["# + entries.joined(separator: ",")
            + "]}"
        struct Contents: Decodable { var items: [GReaderClient.Item] }
        let decoded = try JSONDecoder().decode(Contents.self, from: Data(page.utf8)).items
        let scanned = try #require(Self.scan(page))
        #expect(scanned.map(Self.fields) == decoded.map(Self.fields))
        #expect(scanned.count == 40)
        #expect(scanned[0].title == "Feed 0 \"quoted\" café 😀")
        #expect(scanned[1].author == "Ann/Bob" && scanned[0].author == nil)
        #expect(scanned[0].isRead && scanned[0].isStarred && !scanned[1].isRead)
        #expect(scanned[0].content?.content == "<div>full</div>" && scanned[1].content == nil)
    }

    @Test func emptyAndAbsentListsAndOddMembers() throws {
        #expect(Self.scan(#"{"items":[]}"#)?.isEmpty == true)
        #expect(Self.scan(#"{"items":null}"#)?.isEmpty == true)
        #expect(Self.scan("{}")?.isEmpty == true)
        // Members of the wrong kind count as absent; an item without an id is left out.
        let odd = try #require(
            Self.scan(
                #"{"items":[{"id":"7","title":12,"published":"1795395180","updated":1.7e9,"canonical":{"href":"x"},"#
                    + #""categories":["a",3,"b"],"origin":"feed/1","summary":{"content":null}},{"title":"no id"},{"id":""}]}"#))
        #expect(odd.count == 1)
        #expect(odd[0].title == nil && odd[0].published == 1_795_395_180 && odd[0].updated == 1_700_000_000)
        #expect(odd[0].link == nil && odd[0].categories == ["a", "b"] && odd[0].origin == nil && odd[0].summary == nil)
        // A lone surrogate becomes U+FFFD; a pair is one character.
        #expect(Self.scan(#"{"items":[{"id":"1","title":"a\ud800b\ud83d\ude00"}]}"#)?.first?.title == "a\u{FFFD}b😀")
    }

    @Test func whatIsNotAPageOfItemsGivesNil() {
        for bad in [
            "", "[]", "null", #"{"items":{}}"#, #"{"items":[1]}"#, #"{"items":[{"id":"1"}]"#, #"{"items":[{"id":"1"}]} x"#,
            #"{"items":[{"id":"1","title":"tab\#there"}]}"#, #"{"items":[{"id":"1","title":"bad \q escape"}]}"#,
            #"{"items":[{"id":"1","title":"\u12"}]}"#, #"{"items":[{"id":"1","title":"unterminated}]}"#,
            #"{"items":[{"id":"1","x":"# + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}]}",
            #"{"items":[{"id":"1","published":tru}]}"#,
        ] {
            #expect(Self.scan(bad) == nil, "\(bad)")
        }
    }

    /// A server that sends an entry's guid gives the first identity a feed's history is matched by.
    @Test func anItemsGuidIsReadWhereTheServerSendsOne() {
        let items = Self.scan(#"{"items":[{"id":"1","guid":"urn:uuid:42"},{"id":"2","guid":7},{"id":"3"}]}"#)
        #expect(items?.map(\.guid) == ["urn:uuid:42", nil, nil])
    }

    @Test func longHexIDsAreReadByTheirBytes() {
        #expect(GReaderClient.number("tag:google.com,2005:reader/item/0006610D9662D865") == 0x0006_610D_9662_D865)
        #expect(GReaderClient.number("tag:google.com,2005:reader/item/00000000ffffffffffffffff") == UInt64.max)
        #expect(GReaderClient.number("tag:google.com,2005:reader/item/1ffffffffffffffff") == nil)  // 65 bits
        #expect(GReaderClient.number("tag:google.com,2005:reader/item/") == nil)
        #expect(GReaderClient.number("tag:google.com,2005:reader/item/12g4") == nil)
    }

    /// Titles and authors come HTML-escaped from the server, with whatever a hostile feed
    /// put in them: they are stored as a refresh would store them.
    @Test func pulledTitlesAreDecodedAndCleanedOfControlCharacters() {
        #expect(FeedSync.displayText("Fish &amp; chips") == "Fish & chips")
        #expect(FeedSync.displayText("a\u{1B}[31mred\u{07}\r\n title") == "ared title")
        #expect(FeedSync.displayText("  <b>Bold</b>\tclaim  ") == "Bold claim")
        #expect(FeedSync.displayText("Plain") == "Plain")
    }
}
