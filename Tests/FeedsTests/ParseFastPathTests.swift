import Foundation
import Testing

@testable import Feeds

/// The fast paths of a feed's parse: each gives what the plain code gave (the expected
/// values here were produced by the byte-by-byte implementations they replaced).
@Suite struct ParseFastPathTests {
    /// Links in HTML with odd quoting and spacing, tags cut off at the end, `<` that opens
    /// no tag, quotes and `>` inside values: the memchr-driven scan finds what the
    /// byte-by-byte one found.
    @Test func resolvesLinksInOddlyQuotedHTML() {
        let cases: [(String, String)] = [
            ("<a href=\"x", "<a href=\"https://x.example/a/x"),
            ("<a href=\'/y>z\'>t</a>", "<a href=\'https://x.example/y%3Ez\'>t</a>"),
            ("<a href=/p>q</a>", "<a href=https://x.example/p>q</a>"),
            ("<a href = \" r \" >", "<a href = \"https://x.example/a/r\" >"),
            ("a < b = c <1 href=\"s\"> <a", "a < b = c <1 href=\"s\"> <a"),
            ("<a href=", "<a href="),
            ("<a href", "<a href"),
            (
                "<img src=\"u\" src=\'v\' data=w/>",
                "<img src=\"https://x.example/a/u\" src=\'https://x.example/a/v\' data=https://x.example/a/w/>"
            ),
            ("<A HREF=\'x\"y\'>", "<A HREF=\'https://x.example/a/x%22y\'>"),
            ("<a title=\"<a href=\'z\'>\" href=\"q\">", "<a title=\"<a href=\'z\'>\" href=\"https://x.example/a/q\">"),
            ("x=y no tags", "x=y no tags"),
            ("<p class=c><a  href  =  k>", "<p class=c><a  href  =  https://x.example/a/k>"),
            ("<a href=\"http://abs/\">", "<a href=\"http://abs/\">"),
            ("<a href=\"?q\">", "<a href=\"https://x.example/a/b?q\">"),
            ("<a href=\"//h/p\">", "<a href=\"https://h/p\">"),
            ("<a/href=\"n\">", "<a/href=\"n\">"),
            ("<a href=\"é\">", "<a href=\"https://x.example/a/é\">"),
            ("<a href=\"a b>c\">", "<a href=\"https://x.example/a/a%20b%3Ec\">"),
            ("<a\thref=\"t\"\n>", "<a\thref=\"https://x.example/a/t\"\n>"),
            ("", ""),
            ("<a href=\"#\u{301}x\">", "<a href=\"https://x.example/a/#\u{301}x\">"),
            ("<a href=\"\t#top \">", "<a href=\"\t#top \">"),
            ("<a href=\"\u{A0}https://y.example/\">", "<a href=\"\u{A0}https://y.example/\">"),
            ("<a href=\"https://y.example/\u{A0}\">", "<a href=\"https://y.example/\u{A0}\">"),
            (
                "<a href=\"mailto:me@x.example\" src=\'HTTP://Z/\' cite=\"1http:x\">",
                "<a href=\"mailto:me@x.example\" src=\'HTTP://Z/\' cite=\"https://x.example/a/1http:x\">"
            ),
        ]
        for (html, expected) in cases {
            let resolved = FeedURLResolver.resolvingLinks(inHTML: Array(html.utf8), against: "https://x.example/a/b")
            #expect(String(decoding: resolved, as: UTF8.self) == expected, "\(html)")
        }
    }

    /// `FeedText.string(utf8:)` gives what `String(decoding:as:)` gives: ASCII, valid
    /// UTF-8 with non-ASCII at and across the sixteen-byte steps of its check, and invalid
    /// sequences (stray continuation, cut short at the end, overlong, surrogate, past
    /// U+10FFFF, bytes UTF-8 never uses) repaired into U+FFFD the same way.
    @Test func makesStringsAsStringDecodingDoes() {
        let ascii = Array("0123456789abcdef0123456789abcdef!".utf8)
        let inserts: [[UInt8]] = [
            [0xC3, 0xA9], [0xE6, 0x97, 0xA5], [0xF0, 0x9F, 0x98, 0x80], [0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xE6, 0x97], [0xBF],
        ]
        var samples: [[UInt8]] = [[], ascii, Array("é".utf8), Array("日本語 text".utf8), [0x80], [0xC3], [0xE6, 0x97]]
        for position in [0, 7, 8, 14, 15, 16, 17, 31, 32] {
            for insert in inserts {
                var bytes = ascii
                bytes.insert(contentsOf: insert, at: position)
                samples.append(bytes)
                samples.append(Array(bytes[..<(position + insert.count)]))  // the sequence last
            }
        }
        for bytes in samples {
            let made = FeedText.string(utf8: bytes)
            let expected = String(decoding: bytes, as: UTF8.self)
            #expect(made == expected, "\(bytes)")
            #expect(Array(made.utf8) == Array(expected.utf8), "\(bytes)")
            #expect(made.unicodeScalars.count == expected.unicodeScalars.count, "\(bytes)")
        }
        #expect(FeedXMLEncoding.checkUTF8(UnsafeBufferPointer(start: nil, count: 0)) == .ascii)
        #expect(ascii.withUnsafeBufferPointer { FeedXMLEncoding.checkUTF8($0) } == .ascii)
        #expect(Array("aé".utf8).withUnsafeBufferPointer { FeedXMLEncoding.checkUTF8($0) } == .valid)
        #expect(([0x61, 0xED, 0xA0, 0x80] as [UInt8]).withUnsafeBufferPointer { FeedXMLEncoding.checkUTF8($0) } == .invalid)
    }

    /// An article with non-ASCII text, a stray windows-1252 byte (the document is UTF-8
    /// otherwise) and a control character: its content and summary come out as before.
    @Test func parsesBodiesWithOtherCharactersAsBefore() throws {
        var document = Array(
            """
            <?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>T</title><link>https://x.example/</link>
            <item><title>A</title><guid>1</guid><description><![CDATA[<p>Zürich café ☕ and 日本語 text, long enough to cross a few words

            """.utf8)
        document.append(0x93)  // windows-1252's left double quote, not UTF-8
        document += Array("quoted\u{7}</p><a href=\"/rel\">link</a>]]></description></item></channel></rss>".utf8)
        let feed = try FeedParser.parse(data: Data(document), url: URL(string: "https://x.example/feed"))
        let item = try #require(feed.items.first)
        #expect(
            item.content
                == "<p>Zürich café ☕ and 日本語 text, long enough to cross a few words\n\u{201C}quoted</p><a href=\"https://x.example/rel\">link</a>"
        )
        #expect(item.summary == "Zürich café ☕ and 日本語 text, long enough to cross a few words \u{201C}quoted link")
    }

    /// `FeedText.contains(_:ascii:)` finds what Foundation's `contains` finds: on the bytes
    /// for ASCII text, through Foundation otherwise ("l" and a combining mark are one
    /// character, no "l").
    @Test func findsASCIIPartsAsFoundationDoes() {
        let samples = [
            "text/html", "application/xhtml+xml", "", "html", "htm", "image/png", "xhtm\u{301}l", "htm\u{301}l", "ttext/htmlx",
        ]
        for sample in samples {
            #expect(FeedText.contains(sample, ascii: "html") == sample.contains("html"), "\(sample)")
            #expect(FeedText.contains(sample, ascii: "/") == sample.contains("/"), "\(sample)")
        }
        #expect(!FeedText.contains("htm\u{301}l", ascii: "html"))
        #expect(FeedText.contains("text/html", ascii: "html"))
    }

    /// The capture buffer grows past its capacity whatever the sizes of the appends, and
    /// holds what an array appended the same way holds.
    @Test func captureBufferHoldsWhatAnArrayHolds() {
        var buffer = FeedCaptureBuffer(capacity: 16)
        var expected: [UInt8] = []
        for round in 0..<200 {
            let chunk = (0..<(round % 37)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ round) }
            chunk.withUnsafeBufferPointer { buffer.append(contentsOf: $0) }
            expected += chunk
            buffer.append(UInt8(truncatingIfNeeded: round))
            expected.append(UInt8(truncatingIfNeeded: round))
            if round % 50 == 49 {
                buffer.append(contentsOf: "é\(round)")
                expected += Array("é\(round)".utf8)
            }
        }
        #expect(buffer.array == expected)
        #expect(buffer.contains { $0 == 0xC3 })
        buffer.removeAll()
        #expect(buffer.isEmpty && buffer.array.isEmpty)
        buffer.append(contentsOf: [0x20, 0x61, 0x1B, 0x0D, 0x0A, 0x62, 0x20])
        #expect(buffer.withUnsafeMutableBufferPointer { FeedText.trimmedBytes($0) } == [0x61, 0x0A, 0x62])
    }

    /// Inline XHTML with `&`, `<`, `>` and `"` in text and attributes, around and across
    /// the eight-byte steps of the escaping scan: written out as before.
    @Test func escapesInlineXHTMLAsBefore() throws {
        let document = """
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><link href="https://x.example/"/>
            <entry><title>E</title><id>e1</id><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p title="a &quot;b&quot; &amp; c &lt;d&gt;">1234567&lt;tag&gt; and AT&amp;T, &#8220;q&#8221; x&gt;y "z" <a href="/rel?a=1&amp;b=2">l</a> long run without specials long run &amp;</p>&lt;</div></content></entry>
            </feed>
            """
        let feed = try FeedParser.parse(data: Data(document.utf8))
        let item = try #require(feed.items.first)
        #expect(
            item.content
                == #"<p title="a &quot;b&quot; &amp; c &lt;d&gt;">1234567&lt;tag&gt; and AT&amp;T, “q” x&gt;y "z" <a href="/rel?a=1&amp;b=2">l</a> long run without specials long run &amp;</p>&lt;"#
        )
        #expect(item.summary == #"1234567<tag> and AT&T, “q” x>y "z" l long run without specials long run & <"#)
    }

    /// The five predefined references, next to each other, cut short, misspelt and at the
    /// end of a text: read as before the repair pass told them apart on their own.
    @Test func readsPredefinedReferencesAsBefore() throws {
        let document = #"""
            <?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://x.example/</link><item><guid>1</guid><title>a&lt;&gt;&amp;&quot;&apos;&lt &am; &ampx; &quot &apos;&apos;</title><description>&lt;p title=&quot;&amp;amp;&quot;&gt;b&amp;&lt;/p&gt;&lt;&gt;&amp;lt;x&amp;gt;</description></item><item><guid>2</guid><title>z&gt;</title><description>&amp;</description></item><item><guid>3</guid><title>y&lt</title></item></channel></rss>
            """#
        let feed = try FeedParser.parse(data: Data(document.utf8))
        let items = feed.items.map { [$0.title, $0.content, $0.summary] }
        #expect(
            items == [
                [#"a<>&"'&lt &am; &ampx; &quot ''"#, #"<p title="&amp;">b&</p><>&lt;x&gt;"#, "b& <><x>"],
                ["z>", "&", "&"], ["y&lt", nil, nil],
            ])
    }
}
