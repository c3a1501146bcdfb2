import Foundation
import Testing

@testable import Feeds

@Suite("JSON Feed")
struct JSONFeedTests {
    private func parse(_ json: String, baseURL: URL? = nil) throws -> ParsedFeed {
        try JSONFeedParser.parse(data: Data(json.utf8), baseURL: baseURL)
    }

    private func utc(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    @Test func version10AuthorObject() throws {
        let feed = try parse(
            """
            {"version": "https://jsonfeed.org/version/1", "title": "T", "home_page_url": "https://example.org/",
             "author": {"name": "Feed Author"},
             "items": [{"id": "1", "url": "https://example.org/1", "title": "One",
                        "author": {"name": "Ann", "url": "https://ann.example"},
                        "content_html": "<p>Hi</p>", "date_published": "2017-05-17T08:02:12-07:00"},
                       {"id": "2", "title": "Two", "content_text": "x"}]}
            """)
        #expect(feed.format == .jsonfeed)
        #expect(feed.title == "T")
        #expect(feed.link == "https://example.org/")
        #expect(feed.items[0].author == "Ann")
        #expect(feed.items[0].content == "<p>Hi</p>")
        #expect(feed.items[0].published == utc("2017-05-17T15:02:12Z"))
        #expect(feed.items[1].author == nil, "a feed-level author is not copied onto items")
    }

    @Test func version11AuthorsArrayAndModifiedDate() throws {
        let feed = try parse(
            """
            {"version": "https://jsonfeed.org/version/1.1", "title": "T",
             "items": [{"id": "a", "authors": [{"url": "https://x.example"}, {"name": "Bea"}],
                        "date_published": "2025-01-05T20:40:00-05:00", "date_modified": "2025-01-06T20:02:25.5-05:00"},
                       {"id": "b", "authors": [{"url": "mailto:cy@example.org"}]}]}
            """)
        #expect(feed.items[0].author == "Bea")
        #expect(feed.items[0].published == utc("2025-01-06T01:40:00Z"))
        #expect(feed.items[0].updated == utc("2025-01-07T01:02:25Z")!.addingTimeInterval(0.5))
        #expect(feed.items[1].author == "cy@example.org")
    }

    @Test func contentTextBecomesEscapedHTMLAndSummaryPlainText() throws {
        let feed = try parse(
            """
            {"version": "https://jsonfeed.org/version/1.1", "items": [
              {"id": "1", "content_text": "a < b & c\\nnext line\\n\\nsecond", "summary": "Fish &amp; <b>chips</b>"}]}
            """)
        #expect(feed.items[0].content == "<p>a &lt; b &amp; c<br>\nnext line</p>\n<p>second</p>")
        #expect(feed.items[0].summary == "Fish & chips")
    }

    @Test func contentHTMLWinsOverContentText() throws {
        let feed = try parse(
            #"{"version":"https://jsonfeed.org/version/1.1","items":[{"id":"1","content_html":"<b>h</b>","content_text":"t"}]}"#)
        #expect(feed.items[0].content == "<b>h</b>")
    }

    @Test(arguments: [
        ("2017-05-17T15:02:12Z", "2017-05-17T15:02:12Z"),
        ("2017-05-17t15:02:12z", "2017-05-17T15:02:12Z"),
        ("2017-05-17T08:02:12-07:00", "2017-05-17T15:02:12Z"),
        ("2017-05-17T17:02:12+0200", "2017-05-17T15:02:12Z"),
        ("2017-05-17T17:02:12+02", "2017-05-17T15:02:12Z"),
        ("2017-05-17T15:02:12.123456789Z", "2017-05-17T15:02:12Z"),
        ("2017-05-17T08:02:12.000-07:00", "2017-05-17T15:02:12Z"),
        ("2017-05-17 15:02:12", "2017-05-17T15:02:12Z"),
        ("2018-01-06T08:00", "2018-01-06T08:00:00Z"),
        ("2018-01-06", "2018-01-06T00:00:00Z"),
        ("2016-02-29T23:59:59+00:00", "2016-02-29T23:59:59Z"),
        ("1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"),
    ])
    func rfc3339Dates(input: String, expected: String) {
        let date = JSONFeedParser.parseDate(input)
        #expect(date.map { floor($0.timeIntervalSince1970) } == utc(expected)?.timeIntervalSince1970)
    }

    @Test(arguments: [
        "", "yesterday", "2017-13-01T00:00:00Z", "2017-02-30", "2017-05-17T25:00:00Z",
        "2017-05-17T10:00:00+25:00", "2017-05-17T10:00:00Zjunk", "2017-05-17T10:00:00.Z",
        "Wed, 17 May 2017 15:02:12 GMT",
    ])
    func invalidDatesAreNil(input: String) {
        #expect(JSONFeedParser.parseDate(input) == nil)
    }

    @Test func fractionalSecondsKeepTheirValue() {
        let date = JSONFeedParser.parseDate("2020-01-01T00:00:00.25Z")
        #expect(date?.timeIntervalSince1970 == 1_577_836_800.25)
    }

    @Test func relativeURLsResolveAgainstHomePageThenFeedURLThenBase() throws {
        let home = try parse(
            """
            {"version": "https://jsonfeed.org/version/1.1", "home_page_url": "https://site.example/blog/",
             "feed_url": "https://cdn.example/feed.json",
             "items": [{"id": "1", "url": "posts/1", "attachments": [{"url": "/media/a.mp3", "mime_type": "audio/mpeg", "size_in_bytes": 123}]}]}
            """)
        #expect(home.items[0].link == "https://site.example/blog/posts/1")
        #expect(home.items[0].enclosures == [Enclosure(url: "https://site.example/media/a.mp3", type: "audio/mpeg", length: 123)])

        let feedURLOnly = try parse(
            #"{"version":"https://jsonfeed.org/version/1","feed_url":"https://cdn.example/f/feed.json","items":[{"id":"1","url":"../p"}]}"#
        )
        #expect(feedURLOnly.items[0].link == "https://cdn.example/p")

        let relativeHome = try parse(
            #"{"version":"https://jsonfeed.org/version/1","home_page_url":"/blog/","items":[{"id":"1","url":"x"}]}"#,
            baseURL: URL(string: "https://base.example/feeds/main.json"))
        #expect(relativeHome.link == "https://base.example/blog/")
        #expect(relativeHome.items[0].link == "https://base.example/blog/x")

        let noBase = try parse(#"{"version":"https://jsonfeed.org/version/1","items":[{"id":"1","url":"/only/relative"}]}"#)
        #expect(noBase.items[0].link == "/only/relative")
    }

    @Test func escapedSlashesAndExternalURLFallback() throws {
        let feed = try parse(
            #"{"version":"https:\/\/jsonfeed.org\/version\/1.1","home_page_url":"https:\/\/a.example","items":[{"id":"x","external_url":"https:\/\/b.example\/p?q=1&r=%C3%A9"}]}"#
        )
        #expect(feed.link == "https://a.example")
        #expect(feed.items[0].link == "https://b.example/p?q=1&r=%C3%A9")
    }

    @Test func urlWinsOverExternalURL() throws {
        let feed = try parse(
            #"{"version":"https://jsonfeed.org/version/1","items":[{"id":"1","url":"https://own.example/1","external_url":"https://other.example/"}]}"#
        )
        #expect(feed.items[0].link == "https://own.example/1")
    }

    @Test func tagsAsArrayOrCommaSeparatedString() throws {
        let feed = try parse(
            """
            {"version": "https://jsonfeed.org/version/1", "items": [
              {"id": "1", "tags": ["Swift", " Linux ", "", "Swift", 3]},
              {"id": "2", "tags": "workflow,omnifocus"},
              {"id": "3", "tags": ""}]}
            """)
        #expect(feed.items[0].categories == ["Swift", "Linux"])
        #expect(feed.items[1].categories == ["workflow", "omnifocus"])
        #expect(feed.items[2].categories == [])
    }

    @Test func itemsWithoutIdGetStableIds() throws {
        let json = """
            {"version": "https://jsonfeed.org/version/1.1", "items": [
              {"title": "No id", "content_html": "<p>a</p>", "date_published": "2020-01-01T00:00:00Z"},
              {"title": "No id either", "content_html": "<p>b</p>"},
              {"url": "https://example.org/u"},
              {"id": 42},
              {"id": "  "}]}
            """
        let first = try parse(json)
        let second = try parse(json)
        #expect(first.items.map(\.id) == second.items.map(\.id))
        #expect(first.items[0].id.hasPrefix("urn:zeader:jsonfeed:"))
        #expect(first.items[0].id != first.items[1].id)
        #expect(first.items[2].id == "https://example.org/u")
        #expect(first.items[3].id == "42")
        #expect(first.items[4].id.hasPrefix("urn:zeader:jsonfeed:"))
    }

    @Test func controlCharactersAndEscapeSequencesAreStripped() throws {
        let feed = try parse(
            #"{"version":"https://jsonfeed.org/version/1","title":"A\u0007B\u001b[2JC","items":[{"id":"1","title":"x\u0000y\r\nz\tw","content_html":"<p>\u001b]0;pwned\u0007ok</p>"}]}"#
        )
        #expect(feed.title == "ABC")
        #expect(feed.items[0].title == "xy\nz\tw")
        #expect(feed.items[0].content == "<p>ok</p>")
    }

    @Test func entitiesInTitlesAreDecodedButAngleBracketsKept() throws {
        let feed = try parse(
            #"{"version":"https://jsonfeed.org/version/1","title":"Q &amp; A","items":[{"id":"1","title":"Die R\u00fcckkehr von <i> und <b> &#8212; &hellip;"}]}"#
        )
        #expect(feed.title == "Q & A")
        #expect(feed.items[0].title == "Die Rückkehr von <i> und <b> — …")
    }

    @Test func byteOrderMarkAndMissingVersionAreTolerated() throws {
        var data = Data([0xEF, 0xBB, 0xBF])
        data.append(Data(#"{"title":"No version","items":[{"id":"1"}]}"#.utf8))
        let feed = try JSONFeedParser.parse(data: data, baseURL: nil)
        #expect(feed.title == "No version")
        #expect(feed.items.count == 1)
    }

    @Test func nonObjectItemsAreSkipped() throws {
        let feed = try parse(#"{"version":"https://jsonfeed.org/version/1","items":[1,"x",null,{"id":"ok"}]}"#)
        #expect(feed.items.map(\.id) == ["ok"])
    }

    // MARK: - Errors

    @Test func notJSONNamesThePosition() {
        #expect {
            try parse("<?xml version=\"1.0\"?><rss/>")
        } throws: { error in
            guard case .notJSON(let detail) = error as? JSONFeedError else { return false }
            return !detail.isEmpty && "\(error)".hasPrefix("not JSON:")
        }
    }

    @Test func emptyInputIsNotJSON() {
        #expect(throws: JSONFeedError.notJSON(detail: "the input is empty")) { try parse("  \n") }
    }

    @Test func truncatedJSONIsNotJSON() {
        #expect {
            try parse(#"{"version":"https://jsonfeed.org/version/1","items":[{"id":"1""#)
        } throws: { error in
            if case .notJSON = error as? JSONFeedError { return true }
            return false
        }
    }

    @Test func arrayAtTopLevelIsNotAFeed() {
        #expect(throws: JSONFeedError.notAnObject(found: "an array")) { try parse("[1, 2]") }
        #expect(throws: JSONFeedError.notAnObject(found: "a string")) { try parse(#""feed""#) }
    }

    @Test func otherVersionWithoutItemsIsNotAFeed() throws {
        // Issue 13: any object with an `items` array is read as JSON Feed, whatever its version.
        #expect(try parse(#"{"version":"2.0","items":[]}"#).format == .jsonfeed)
        #expect {
            try parse(#"{"version":"2.0","title":"no items"}"#)
        } throws: { error in
            guard case .notAFeed(let reason) = error as? JSONFeedError else { return false }
            return reason.contains("\"2.0\"")
        }
    }

    @Test func missingOrWrongItemsIsNotAFeed() {
        #expect(throws: JSONFeedError.notAFeed(reason: "no \"items\" array")) {
            try parse(#"{"version":"https://jsonfeed.org/version/1.1","title":"x"}"#)
        }
        #expect(throws: JSONFeedError.notAFeed(reason: "no \"version\" and no \"items\"")) {
            try parse(#"{"name":"package.json"}"#)
        }
        #expect(throws: JSONFeedError.notAFeed(reason: "\"items\" is an object, not an array")) {
            try parse(#"{"version":"https://jsonfeed.org/version/1","items":{}}"#)
        }
    }
}

@Suite("JSON Feed, hostile input")
struct JSONFeedHostileInputTests {
    @Test func deeplyNestedJSONIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONFeedError.self) { try JSONFeedParser.parse(data: Data(deep.utf8), baseURL: nil) }
        let deepItem =
            #"{"version":"https://jsonfeed.org/version/1","items":[{"id":"1","x":"#
            + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}]}"
        #expect(throws: JSONFeedError.self) { try JSONFeedParser.parse(data: Data(deepItem.utf8), baseURL: nil) }
    }

    @Test func mutatedFeedsParseOrThrowTypedErrors() throws {
        let seed = Array(
            #"{"version":"https://jsonfeed.org/version/1.1","title":"T &amp; t","home_page_url":"https://h.example/","items":[{"id":1,"url":"/a","title":"A","authors":[{"name":"N"}],"content_html":"<p>x</p>","date_published":"2020-01-01T00:00:00.5+01:00","tags":["t"],"attachments":[{"url":"m.mp3","size_in_bytes":"12"}]},{"content_text":"plain\nline","date_modified":"2020-01-02"}]}"#
                .utf8)
        let inserts: [[UInt8]] = [#"""#, "{", "}", "[", "]", ",", ":", "null", "1e999", #"\u0000"#, #"\ud800"#, "-", "\u{1B}[2J"]
            .map { Array($0.utf8) }
        var generator = FeedsTextRandom(seed: 5)
        var parsed = 0
        for _ in 0..<fuzzIterations(2000) {
            var bytes = seed
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let position = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes.remove(at: position)
                case 1: bytes[position] = UInt8(truncatingIfNeeded: generator.next())
                default: bytes.insert(contentsOf: inserts[Int(generator.next() % UInt64(inserts.count))], at: position)
                }
            }
            do {
                let feed = try JSONFeedParser.parse(data: Data(bytes), baseURL: nil)
                parsed += 1
                for item in feed.items {
                    #expect(!item.id.isEmpty)
                    #expect(!(item.title ?? "").unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" })
                }
            } catch is JSONFeedError {
            } catch {
                Issue.record("unexpected error type \(type(of: error)): \(error)")
            }
        }
        #expect(parsed > 0)
    }

    @Test func binaryGarbageIsNotJSON() {
        var generator = FeedsTextRandom(seed: 99)
        for _ in 0..<fuzzIterations(200) {
            let bytes = (0..<Int(generator.next() % 200)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            do {
                _ = try JSONFeedParser.parse(data: Data(bytes), baseURL: nil)
            } catch is JSONFeedError {
            } catch {
                Issue.record("unexpected error type \(type(of: error)): \(error)")
            }
        }
    }
}
