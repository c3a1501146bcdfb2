import Foundation
import Testing

@testable import Feeds

@Suite("Dates")
struct DateParserTests {
    static let cases: [(String, String?)] = [
        // RFC 822 and its variants
        ("Wed, 02 Oct 2002 13:00:00 GMT", "2002-10-02T13:00:00Z"),
        ("Wed, 02 Oct 2002 15:00:00 +0200", "2002-10-02T13:00:00Z"),
        ("Wed, 6 Apr 2022 21:07:47 +0000", "2022-04-06T21:07:47Z"),
        ("Thu, 07 Dec 17 10:00:29 -0800", "2017-12-07T18:00:29Z"),
        ("Sat, 01 Jun 2024 05:31 -0500", "2024-06-01T10:31:00Z"),
        ("08 Sep 2012 12:00:00 EST", "2012-09-08T17:00:00Z"),
        ("Sun, 12 August 2012", "2012-08-12T00:00:00Z"),
        ("Mon, 10 Feb 2020 12:00:00 PST", "2020-02-10T20:00:00Z"),
        ("Tue, 10 Jun 2003 04:00:00 -0000", "2003-06-10T04:00:00Z"),
        ("mer, 16 nov 2022 00:38:15 +0100", "2022-11-15T23:38:15Z"),
        ("10 Jun 2003 Tue 04:00:00 GMT", "2003-06-10T04:00:00Z"),
        ("Tuesday, 10-Jun-03 04:00:00 UT", "2003-06-10T04:00:00Z"),
        ("Jun 10, 2003 4:00 PM EDT", "2003-06-10T20:00:00Z"),
        ("Fri, 30 Oct 2020 09:00:00 +05:30", "2020-10-30T03:30:00Z"),
        ("Sun, 01 Jan 2023 10:00:00 CEST", "2023-01-01T08:00:00Z"),
        ("  Wed, 02 Oct 2002 13:00:00 GMT \n", "2002-10-02T13:00:00Z"),
        // ISO 8601 / RFC 3339 / W3C-DTF
        ("2003-12-13T18:30:02Z", "2003-12-13T18:30:02Z"),
        ("2003-12-13T18:30:02.25Z", "2003-12-13T18:30:02Z"),
        ("2015-09-08T07:21:41.000-07:00", "2015-09-08T14:21:41Z"),
        ("2003-12-13T18:30:02+01:00", "2003-12-13T17:30:02Z"),
        ("2003-12-13T18:30:02+0100", "2003-12-13T17:30:02Z"),
        ("2003-12-13t18:30:02z", "2003-12-13T18:30:02Z"),
        ("2003-12-13 18:30:02", "2003-12-13T18:30:02Z"),
        ("2018-01-06T08:00", "2018-01-06T08:00:00Z"),
        ("2022-12-17", "2022-12-17T00:00:00Z"),
        ("2022-12", "2022-12-01T00:00:00Z"),
        ("20031213T183002Z", "2003-12-13T18:30:02Z"),
        ("2003-12-13T18:30:02 GMT", "2003-12-13T18:30:02Z"),
        ("2020/1/10 14:33:00", "2020-01-10T14:33:00Z"),
        // not dates
        ("", nil), ("yesterday", nil), ("2003-13-45T99:00:00Z", nil), ("Tue, 45 Foo 2003", nil),
    ]

    @Test(arguments: cases)
    func parses(_ input: String, _ expected: String?) {
        let date = FeedDateParser.date(from: input)
        #expect(date.map(ContractJSONWriter.iso8601) == expected, "\(input)")
    }

    @Test func contractFormatting() {
        #expect(ContractJSONWriter.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(ContractJSONWriter.iso8601(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        #expect(ContractJSONWriter.iso8601(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(ContractJSONWriter.iso8601(Date(timeIntervalSince1970: 1.999)) == "1970-01-01T00:00:01Z")
    }

    @Test(arguments: [
        0, 951_782_400, -1, 1.999, 1_717_243_860, -62_135_596_800, 253_402_300_799, -62_135_596_801, 253_402_300_800,
    ])
    func byteFormattingMatchesTheString(_ seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        var bytes: [UInt8] = []
        ContractJSONWriter.appendISO8601(date, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == ContractJSONWriter.iso8601(date))
    }
}

@Suite("URL resolution")
struct URLResolverTests {
    // RFC 3986 §5.4 examples.
    static let base = "http://a/b/c/d;p?q"
    static let cases: [(String, String)] = [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), (";x", "http://a/b/c/;x"), ("", "http://a/b/c/d;p?q"),
        (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../g", "http://a/b/g"),
        ("../..", "http://a/"), ("../../g", "http://a/g"), ("../../../g", "http://a/g"), ("/./g", "http://a/g"),
        ("g.", "http://a/b/c/g."), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
    ]

    @Test(arguments: cases)
    func resolves(_ reference: String, _ expected: String) {
        #expect(FeedURLResolver.resolve(reference, against: Self.base) == expected)
    }

    @Test func keepsWhatItCannotResolve() {
        #expect(FeedURLResolver.resolve("posts/1", against: nil) == "posts/1")
        #expect(FeedURLResolver.resolve("posts/1", against: "not a url") == "posts/1")
        #expect(FeedURLResolver.resolve("a b|c", against: "https://x.example/d/") == "https://x.example/d/a b|c")
    }

    /// Link attributes in any case, their values trimmed of the white space
    /// `CharacterSet.whitespaces` trims (tabs, spaces, no-break and other Unicode spaces),
    /// never of newlines; other attributes and absolute links untouched.
    @Test func resolvesTheLinksOfAnArticle() {
        func resolved(_ html: String) -> String {
            String(
                decoding: FeedURLResolver.resolvingLinks(inHTML: Array(html.utf8), against: "https://x.example/a/b"),
                as: UTF8.self)
        }
        #expect(
            resolved(#"<a HREF=" c ">x</a><img Src='/d.png' alt="e">"#)
                == #"<a HREF="https://x.example/a/c">x</a><img Src='https://x.example/d.png' alt="e">"#)
        #expect(resolved("<a href=\"\t\u{A0}c\u{3000} \">") == #"<a href="https://x.example/a/c">"#)
        #expect(
            resolved(#"<a hrefs="c" title="/d" href="https://y.example/e"><q cite=f>"#)
                == #"<a hrefs="c" title="/d" href="https://y.example/e"><q cite=https://x.example/a/f>"#)
        #expect(resolved(#"<a href=" #top ">"#) == #"<a href=" #top ">"#)
        func trimmed(_ value: String) -> String {
            Array(value.utf8).withUnsafeBufferPointer { FeedURLResolver.trimmedLinkValue($0) }
        }
        #expect(trimmed(" \t a b\u{A0}") == "a b")
        #expect(trimmed("\nc\n") == "\nc\n")
        #expect(trimmed("é ") == "é")
        #expect(trimmed("  ").isEmpty)
    }
}
