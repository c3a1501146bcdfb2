import Foundation
import Testing

@testable import Feeds

@Suite("zeader parse JSON contract")
struct ContractJSONTests {
    @Test func everyKeyIsPresentAndNullWhenAbsent() throws {
        let feed = ParsedFeed(format: .rss2, items: [ParsedItem(id: "x")])
        let object = try #require(JSONSerialization.jsonObject(with: feed.contractJSON()) as? [String: Any])
        #expect(Set(object.keys) == ["format", "title", "link", "items"])
        #expect(object["format"] as? String == "rss2")
        #expect(object["title"] is NSNull)
        let item = try #require((object["items"] as? [[String: Any]])?.first)
        #expect(Set(item.keys) == ["id", "title", "link", "author", "published", "updated", "summary", "content"])
        for key in ["title", "link", "author", "published", "updated", "summary", "content"] {
            #expect(item[key] is NSNull, "\(key)")
        }
    }

    @Test func stringsAndDatesRoundTrip() throws {
        let tricky = "quote \" backslash \\ newline \n tab \t bell \u{7} nul \u{0} emoji 🚀 é"
        let feed = ParsedFeed(
            format: .atom10, title: tricky, link: "https://x.example/?a=1&b=2",
            items: [
                ParsedItem(
                    id: "1", title: "T", published: Date(timeIntervalSince1970: 1_700_000_000),
                    updated: Date(timeIntervalSince1970: 1_700_000_001.5), summary: "s", content: "<p>c</p>")
            ])
        let data = feed.contractJSON()
        let object = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["title"] as? String == tricky)
        let item = try #require((object["items"] as? [[String: Any]])?.first)
        #expect(item["published"] as? String == "2023-11-14T22:13:20Z")
        #expect(item["updated"] as? String == "2023-11-14T22:13:21Z")
        #expect(item["content"] as? String == "<p>c</p>")
        #expect(data.last == UInt8(ascii: "\n"))
    }

    @Test func stringsOfEveryLengthRoundTrip() throws {
        // The escaper reads 16 and 8 bytes at a time: every length and position of a
        // special byte, so that no word boundary reads past the end or skips a byte.
        for length in 0...48 {
            for special in [nil, "\"", "\\", "\n", "\u{1}", "é"] as [String?] {
                for position in special == nil ? [0] : Array(0..<max(length, 1)) {
                    var characters = Array(repeating: "a", count: length)
                    if let special, position < length { characters[position] = special }
                    let text = characters.joined()
                    var out: [UInt8] = []
                    ContractJSONWriter.string(text, to: &out)
                    let decoded = try JSONSerialization.jsonObject(with: Data(out), options: .fragmentsAllowed) as? String
                    #expect(decoded == text, "\(length) \(position) \(special ?? "-")")
                    var fromBytes: [UInt8] = []
                    Array(text.utf8).withUnsafeBufferPointer { ContractJSONWriter.utf8($0, to: &fromBytes) }
                    #expect(fromBytes == out)
                }
            }
        }
    }

    @Test func largeFeedsAreWrittenInPieces() throws {
        let items = (0..<3000).map { ParsedItem(id: "\($0)", content: String(repeating: "x", count: 1000)) }
        let feed = ParsedFeed(format: .rss2, items: items)
        var pieces = 0
        var joined = Data()
        feed.writeContractJSON { chunk in
            pieces += 1
            joined.append(contentsOf: chunk)
        }
        #expect(pieces > 1)
        #expect(joined == feed.contractJSON())
    }

    @Test func largeListsKeepTheirOrder() throws {
        let count = 2501
        let feed = ParsedFeed(format: .rss2, items: (0..<count).map { ParsedItem(id: "id-\($0)", title: "t\"\($0)") })
        let object = try #require(JSONSerialization.jsonObject(with: feed.contractJSON()) as? [String: Any])
        let ids = try #require(object["items"] as? [[String: Any]]).compactMap { $0["id"] as? String }
        #expect(ids == (0..<count).map { "id-\($0)" })
    }

    @Test func parsedFixtureMatchesTheContract() throws {
        let feed = try parseFixture("rss2-full.xml")
        let object = try #require(JSONSerialization.jsonObject(with: feed.contractJSON()) as? [String: Any])
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(items.count == 3)
        #expect(items[0]["published"] as? String == "2024-06-04T07:15:00Z")
        #expect(items[0]["title"] as? String == "Crème brûlée & friends")
    }
}
