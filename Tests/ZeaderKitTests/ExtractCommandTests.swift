import Foundation
import LoopbackHTTPServer
import Testing

/// `zeader extract` through the built binary: files and loopback pages in, text, HTML or
/// JSON out; one line and exit 1 for a page without an article, exit 2 for bad arguments.
@Suite("zeader extract, end to end", .serialized)
struct ExtractCommandTests {
    static let story = """
        <html lang="en"><head><title>The river rose by two metres | Town News</title>
        <meta name="author" content="Ann Writer"><meta property="og:site_name" content="Town News"></head><body>
        <nav class="menu"><a href="/">Home</a> <a href="/sport">Sport</a></nav>
        <div class="article">
        <p>The river rose by two metres overnight, flooding the lower town, the market and the <a href="/mill">old mill</a>.</p>
        <p>Residents, shopkeepers and the mayor gathered on the bridge at dawn, counting the damage.</p>
        <p>Engineers say the levee held, but the pumps, the drains and the sluices were overwhelmed.</p>
        <p>The water is expected to fall by Friday, when the cleaning, the repairs and the claims begin.</p>
        <p>Volunteers, neighbours and the fire brigade have moved furniture, animals and stock uphill.</p>
        <p>The school, the library and the clinic will stay closed until the council says the roads are safe.</p>
        <p>Insurers, lawyers and loss adjusters are expected in town by the weekend, the mayor said.</p>
        <img src="flood.jpg" alt="The flooded market square">
        </div>
        <div class="footer">Copyright Town News, all rights reserved.</div>
        </body></html>
        """

    func withPage(_ html: String, _ body: (URL, URL) throws -> Void) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("page.html")
        try html.write(to: file, atomically: true, encoding: .utf8)
        try body(dir, file)
    }

    @Test("a file gives the article's text, one line per paragraph, no menu, footer, link numbers or image placeholders")
    func textOfAFile() throws {
        try withPage(Self.story) { dir, file in
            let r = try zeader(["extract", file.path], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.isEmpty)
            #expect(
                r.stdout.contains(
                    "The river rose by two metres overnight, flooding the lower town, the market and the old mill.\n"))
            #expect(r.stdout.contains("fire brigade"))
            for absent in ["Home", "Sport", "Copyright", "[1]", "Links:", "[image"] {
                #expect(!r.stdout.contains(absent), "\(absent)")
            }
        }
    }

    @Test("--json prints the contract's keys; --html the article with absolute links")
    func jsonAndHTML() throws {
        try withPage(Self.story) { dir, file in
            var r = try zeader(["extract", file.path, "--json", "--base-url", "https://news.example/2026/flood.html"], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            for key in ["title", "byline", "excerpt", "siteName", "publishedTime", "lang", "text", "html"] {
                #expect(object.keys.contains(key), "\(key)")
            }
            #expect(object["title"] as? String == "The river rose by two metres")
            #expect(object["byline"] as? String == "Ann Writer")
            #expect(object["siteName"] as? String == "Town News")
            #expect(object["lang"] as? String == "en")
            #expect(object["publishedTime"] is NSNull)
            #expect((object["text"] as? String)?.contains("sluices were overwhelmed") == true)
            r = try zeader(["extract", "--html", file.path, "--base-url", "https://news.example/2026/flood.html"], in: dir)
            #expect(r.status == 0)
            #expect(r.stdout.hasPrefix("<div"))
            #expect(r.stdout.contains("href=\"https://news.example/mill\""))
            #expect(r.stdout.contains("src=\"https://news.example/2026/flood.jpg\""))
        }
    }

    @Test("a URL is fetched from a loopback server; its address is the base of relative links")
    func fetchedURL() throws {
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/story": .ok(Self.story, contentType: "text/html; charset=utf-8")
            case "/image": .respond(status: 200, headers: [("Content-Type", "image/png")], body: Data([0x89, 0x50, 0x4E, 0x47]))
            case "/endless": .endless(fullSpeed: true)
            case "/cyrillic":
                .respond(
                    status: 200, headers: [("Content-Type", "text/html; charset=windows-1251")],
                    body: Self.story.replacingOccurrences(
                        of: "The river rose by two metres overnight", with: "Река поднялась за ночь"
                    )
                    .data(using: .windowsCP1251)!)
            default: .status(404)
            }
        }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var r = try zeader(["extract", server.url("/story").absoluteString, "--html"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("href=\"\(server.url("/mill").absoluteString)\""))
        r = try zeader(["extract", server.url("/missing").absoluteString], in: dir)
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("zeader extract: ") && r.stderr.contains("404"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        r = try zeader(["extract", server.url("/endless").absoluteString], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("10485760") || r.stderr.contains("10 MB"), "\(r.stderr)")
        r = try zeader(["extract", "  " + server.url("/cyrillic").absoluteString + "\n"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Река поднялась за ночь, flooding the lower town"), "\(r.stdout)")
        r = try zeader(["extract", server.url("/image").absoluteString], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr.contains("not an HTML page (Content-Type image/png)"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test(
        "pages with no article, binary data, or no file: exit 1 and one line naming it",
        arguments: [
            ("<html><body><div><img src=a.png></div></body></html>", "no article found on the page"),
            ("   \n  ", "the page is empty"),
            ("\u{0}\u{1}\u{2}PK\u{3}\u{4}", "not an HTML page (binary data)"),
        ])
    func noArticle(html: String, message: String) throws {
        try withPage(html) { dir, file in
            let r = try zeader(["extract", file.path], in: dir)
            #expect(r.status == 1)
            #expect(r.stdout.isEmpty)
            #expect(r.stderr == "zeader extract: \(file.path): \(message)\n", "\(r.stderr)")
        }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try zeader(["extract", dir.appendingPathComponent("absent.html").path], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr.contains("no such file"))
    }

    @Test(
        "bad arguments: exit 2 and one line",
        arguments: [
            (["extract", "ftp://example.org/page.html"], "only http and https pages can be fetched, not ftp:"),
            (["extract", "FILE:///etc/passwd"], "only http and https pages can be fetched, not FILE:"),
            (["extract", "exec:cat /etc/passwd"], "only http and https pages can be fetched, not exec:"),
            (["extract", "javascript:alert(1)"], "only http and https pages can be fetched, not javascript:"),
            (["extract", "http://"], "is not a valid URL"),
            (["extract", "HTTPS:example.org"], "is not a valid URL"),
            (["extract", "x.html", "--json", "--html"], "--json and --html cannot be used together"),
            (["extract", "x.html", "--base-url", "relative/page"], "is not an absolute http(s) URL"),
            (["extract", "x.html", "--base-url", "file:///tmp/x"], "is not an absolute http(s) URL"),
            (["extract"], "Missing expected argument"),
        ])
    func badArguments(arguments: [String], message: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try zeader(arguments, in: dir)
        #expect(r.status == 2, "\(arguments): \(r.stderr)")
        #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test("a hostile page (deep nesting, over the size cap) ends with a line, never a crash")
    func hostilePages() throws {
        let deep = String(repeating: "<div>", count: 200_000) + "text, text, text" + String(repeating: "</div>", count: 200_000)
        try withPage(deep) { dir, file in
            let r = try zeader(["extract", file.path], in: dir)
            #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
            #expect(r.status == 0 || r.stderr.split(separator: "\n").count == 1)
        }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A device that never ends is read only up to the cap.
        var r = try zeader(["extract", "/dev/zero"], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr == "zeader extract: /dev/zero: the page is too large (10485761 bytes; the limit is 10485760)\n")
        let file = dir.appendingPathComponent("huge.html")
        try Data(repeating: UInt8(ascii: "a"), count: 11 << 20).write(to: file)
        r = try zeader(["extract", file.path], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr.contains("the page is too large"), "\(r.stderr)")
    }
}
