import Testing

@testable import Feeds

@Suite("FeedFetcher: a response's header lines")
struct HTTPHeaderLineTests {
    @Test func statusLines() {
        #expect(HTTPHeaderLine(Array("HTTP/1.1 200 OK\r\n".utf8)) == .status(200))
        #expect(HTTPHeaderLine(Array("HTTP/2 304\r\n".utf8)) == .status(304))
        #expect(HTTPHeaderLine(Array("HTTP/1.1  503 Service Unavailable\r\n".utf8)) == .status(503))
        #expect(HTTPHeaderLine(Array("HTTP/1.0 100 Continue\r\n".utf8)) == .status(100))
    }

    @Test func aStatusLineWithoutACodeIsZero() {
        #expect(HTTPHeaderLine(Array("HTTP/1.1\r\n".utf8)) == .status(0))
        #expect(HTTPHeaderLine(Array("HTTP/1.1 abc\r\n".utf8)) == .status(0))
        #expect(HTTPHeaderLine(Array("HTTP/1.1 2x0 OK\r\n".utf8)) == .status(0))
        #expect(HTTPHeaderLine(Array("HTTP/1.1 99999999999999999999999 OK\r\n".utf8)) == .status(0))
    }

    @Test func fieldsAreLowercasedAndTrimmed() {
        #expect(HTTPHeaderLine(Array("Content-Type: text/xml\r\n".utf8)) == .field(name: "content-type", value: "text/xml"))
        #expect(HTTPHeaderLine(Array("ETag:\"abc\"\r\n".utf8)) == .field(name: "etag", value: "\"abc\""))
        #expect(HTTPHeaderLine(Array("  X-Thing \t:  a: b \t\r\n".utf8)) == .field(name: "x-thing", value: "a: b"))
        #expect(HTTPHeaderLine(Array("Empty:\r\n".utf8)) == .field(name: "empty", value: ""))
        #expect(
            HTTPHeaderLine(Array("Last-Modified: Mon, 07 Dec 2026 14:00:00 GMT\n".utf8))
                == .field(name: "last-modified", value: "Mon, 07 Dec 2026 14:00:00 GMT"))
    }

    @Test func aValueKeepsWhatItSentAndInvalidUTF8IsRepaired() {
        #expect(HTTPHeaderLine(Array("Title: Café\r\n".utf8)) == .field(name: "title", value: "Café"))
        #expect(HTTPHeaderLine([0x58, 0x3A, 0x20, 0xFF, 0x61, 0x0D, 0x0A]) == .field(name: "x", value: "\u{FFFD}a"))
        // Only ASCII letters are lowered: a name is a token, anything else is kept as sent.
        #expect(HTTPHeaderLine(Array("X-É: 1\r\n".utf8)) == .field(name: "x-É", value: "1"))
    }

    @Test func theBlankLineEndsTheHead() {
        #expect(HTTPHeaderLine(Array("\r\n".utf8)) == .end)
        #expect(HTTPHeaderLine(Array("\n".utf8)) == .end)
        #expect(HTTPHeaderLine(Array(" \t\r\n".utf8)) == .end)
        #expect(HTTPHeaderLine([UInt8]()) == .end)
    }

    @Test func aLineWithoutAColonIsIgnored() {
        #expect(HTTPHeaderLine(Array("garbage\r\n".utf8)) == .ignored)
        #expect(HTTPHeaderLine(Array("http/1.1 200 OK\r\n".utf8)) == .ignored)
    }
}
