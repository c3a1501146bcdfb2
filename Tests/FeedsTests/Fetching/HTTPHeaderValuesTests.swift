import Foundation
import Testing

@testable import Feeds

@Suite("FeedFetcher: header values")
struct FetchHeaderValueTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func retryAfterSeconds() {
        #expect(HTTPHeaderValues.retryAfter("120", now: now, maximum: 3600) == now.addingTimeInterval(120))
        #expect(HTTPHeaderValues.retryAfter(" 0 ", now: now, maximum: 3600) == now)
    }

    @Test func retryAfterIsClampedToTheMaximum() {
        #expect(HTTPHeaderValues.retryAfter("99999999999", now: now, maximum: 3600) == now.addingTimeInterval(3600))
        #expect(
            HTTPHeaderValues.retryAfter(String(repeating: "9", count: 400), now: now, maximum: 3600)
                == now.addingTimeInterval(3600))
    }

    @Test func retryAfterDates() {
        let imf = HTTPHeaderValues.formatHTTPDate(now.addingTimeInterval(90))
        #expect(HTTPHeaderValues.retryAfter(imf, now: now, maximum: 3600) == now.addingTimeInterval(90))
        // A date in the past means "now".
        #expect(HTTPHeaderValues.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: now, maximum: 3600) == now)
    }

    @Test func allThreeHTTPDateForms() {
        let expected = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(HTTPHeaderValues.parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPHeaderValues.parseHTTPDate("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPHeaderValues.parseHTTPDate("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPHeaderValues.formatHTTPDate(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test(arguments: ["", "soon", "-5", "1.5", "Sun, 99 Nov 1994"])
    func garbageRetryAfterIsIgnored(value: String) {
        #expect(HTTPHeaderValues.retryAfter(value, now: now, maximum: 3600) == nil)
    }

    @Test func contentTypeParameters() {
        #expect(HTTPHeaderValues.contentType("Application/RSS+XML; Charset=\"UTF-8\"") == ("application/rss+xml", "utf-8"))
        #expect(HTTPHeaderValues.contentType("text/xml") == ("text/xml", nil))
        #expect(HTTPHeaderValues.contentType("text/xml; boundary=x; charset=iso-8859-1") == ("text/xml", "iso-8859-1"))
        #expect(HTTPHeaderValues.contentType(nil) == (nil, nil))
        #expect(HTTPHeaderValues.contentType("; charset=") == (nil, nil))
    }
}

@Suite("FeedFetcher: untrusted header numbers")
struct FetchUntrustedHeaderValueTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func retryAfterNeverPassesAYearWhateverTheMaximum() {
        for maximum in [TimeInterval.infinity, .greatestFiniteMagnitude, 1e300] {
            #expect(
                HTTPHeaderValues.retryAfter("99999999999999", now: now, maximum: maximum)
                    == now.addingTimeInterval(HTTPHeaderValues.longestRetryAfter))
        }
        #expect(HTTPHeaderValues.retryAfter("120", now: now, maximum: .nan) == now)
        #expect(HTTPHeaderValues.retryAfter("120", now: now, maximum: -5) == now)
    }

    @Test func retryAfterWithAMegabyteOfDigitsIsClamped() {
        let digits = String(repeating: "7", count: 1_000_000)
        #expect(HTTPHeaderValues.retryAfter(digits, now: now, maximum: 60) == now.addingTimeInterval(60))
        #expect(HTTPHeaderValues.retryAfter(String(repeating: "x", count: 1_000_000), now: now, maximum: 60) == nil)
    }

    @Test func retryAfterDatesAtTheEndsOfTime() {
        #expect(HTTPHeaderValues.retryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now: now, maximum: 60) == now.addingTimeInterval(60))
        #expect(HTTPHeaderValues.retryAfter("Mon, 01 Jan 0001 00:00:00 GMT", now: now, maximum: 60) == now)
    }

    @Test func contentLengthValues() {
        #expect(HTTPHeaderValues.contentLength("1234") == 1234)
        #expect(HTTPHeaderValues.contentLength(String(repeating: "9", count: 30)) == Int64.max)
        #expect(HTTPHeaderValues.contentLength("-1") == nil)
        #expect(HTTPHeaderValues.contentLength("12 34") == nil)
        #expect(HTTPHeaderValues.contentLength(nil) == nil)
    }

    @Test func headerSafeRefusesControlCharacters() {
        #expect(HTTPHeaderValues.headerSafe("\"abc\"") == "\"abc\"")
        #expect(HTTPHeaderValues.headerSafe("W/\"a\tb\"") == "W/\"a\tb\"")
        for bad in ["a\r\nb", "a\nb", "a\u{0}b", "a\u{7F}"] { #expect(HTTPHeaderValues.headerSafe(bad) == nil) }
    }

    @Test func everyStatusHasAReasonPhrase() {
        #expect(HTTPHeaderValues.reasonPhrase(404) == "Not Found")
        for status in [Int.min, -1, 0, 99, 299, 599, 600, Int.max] {
            #expect(!HTTPHeaderValues.reasonPhrase(status).isEmpty)
        }
    }
}
