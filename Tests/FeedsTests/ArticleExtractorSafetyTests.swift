import Foundation
import Testing

@testable import Feeds

/// Hostile pages: every input ends in an article or an ``ArticleExtractionError``, never a
/// crash, within the size, element and depth caps.
@Suite("Article extraction on hostile pages")
struct ArticleExtractorSafetyTests {
    @Test("a page over the size cap is refused before it is parsed")
    func sizeCap() {
        let limit = ArticleExtractor.Limits.maxInputBytes
        let data = Data(repeating: UInt8(ascii: "a"), count: limit + 1)
        #expect(throws: ArticleExtractionError.tooLarge(size: limit + 1, limit: limit)) {
            try ArticleExtractor.extract(html: data, baseURL: nil)
        }
    }

    @Test("empty and white-space-only pages are named as such", arguments: ["", " ", "\n\t\r\n  \u{0C}"])
    func emptyPages(text: String) {
        #expect(throws: ArticleExtractionError.empty) { try ArticleExtractor.extract(html: Data(text.utf8), baseURL: nil) }
    }

    @Test("binary data is not a page")
    func binary() {
        var bytes = [UInt8](repeating: 0, count: 4096)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 7919 >> 3) }
        #expect(throws: ArticleExtractionError.notText) { try ArticleExtractor.extract(html: Data(bytes), baseURL: nil) }
        // A PNG's signature and header.
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52]
        #expect(throws: ArticleExtractionError.notText) { try ArticleExtractor.extract(html: Data(png), baseURL: nil) }
    }

    @Test("a UTF-16 page with its byte order mark is read")
    func utf16Page() throws {
        let html =
            "<html><body><p>" + String(repeating: "Words in UTF-16, with commas, to read. ", count: 20) + "</p></body></html>"
        var data = Data([0xFF, 0xFE])
        data.append(html.data(using: .utf16LittleEndian)!)
        let article = try ArticleExtractor.extract(html: data, baseURL: nil)
        #expect(article.text.contains("Words in UTF-16"))
    }

    @Test("bytes that are not UTF-8 are read in the server's charset, else in the page's own")
    func charsets() throws {
        let text = String(repeating: "Привет, мир, это длинный текст статьи. ", count: 20)
        let cp1251 = try #require(("<html><body><p>" + text + "</p></body></html>").data(using: .windowsCP1251))
        var article = try ArticleExtractor.extract(html: cp1251, baseURL: nil, charset: "windows-1251")
        #expect(article.text.contains("Привет, мир"))
        article = try ArticleExtractor.extract(html: cp1251, baseURL: nil, charset: "no-such-charset")
        #expect(!article.text.isEmpty)
        let declared = try #require(
            ("<html><head><meta charset=\"windows-1251\"></head><body><p>" + text + "</p></body></html>").data(
                using: .windowsCP1251))
        article = try ArticleExtractor.extract(html: declared, baseURL: nil)
        #expect(article.text.contains("Привет, мир"))
        // Valid UTF-8 stays UTF-8, whatever the server or the page claim.
        let utf8 = Data(("<html><head><meta charset=\"iso-8859-1\"></head><body><p>" + text + "</p></body></html>").utf8)
        article = try ArticleExtractor.extract(html: utf8, baseURL: nil, charset: "iso-8859-1")
        #expect(article.text.contains("Привет, мир"))
    }

    @Test("an element with thousands of attributes is refused before the parser's quadratic check")
    func attributeCap() throws {
        let limit = ArticleExtractor.Limits.maxAttributesPerElement
        let text = String(repeating: "Words, with commas, for an article. ", count: 20)
        func page(attributes count: Int, quoted: Bool) -> Data {
            let attributes = (0..<count).map { quoted ? "data-a\($0)=\"v w\"" : "a\($0)" }.joined(separator: " ")
            return Data("<html><body><p \(attributes)>\(text)</p></body></html>".utf8)
        }
        for quoted in [true, false] {
            #expect(throws: ArticleExtractionError.tooManyAttributes(limit: limit)) {
                try ArticleExtractor.extract(html: page(attributes: 20_000, quoted: quoted), baseURL: nil)
            }
            #expect(
                try ArticleExtractor.extract(html: page(attributes: limit / 2, quoted: quoted), baseURL: nil).text.contains(
                    "Words"))
        }
        // Words in a script or a style are not attributes.
        let script =
            "<script>var s = '<a " + String(repeating: "x ", count: 5000) + "';</script><STYLE><b "
            + String(repeating: "y ", count: 5000)
            + "</style>"
        let article = try ArticleExtractor.extract(
            html: Data("<html><head>\(script)</head><body><p>\(text)</p></body></html>".utf8), baseURL: nil)
        #expect(article.text.contains("Words"))
    }

    @Test("more elements than the cap: one error naming the count")
    func elementCap() {
        let limit = ArticleExtractor.Limits.maxElements
        let html = "<body>" + String(repeating: "<b>x</b>", count: limit + 10) + "</body>"
        #expect {
            try ArticleExtractor.extract(html: Data(html.utf8), baseURL: nil)
        } throws: { error in
            guard case .tooManyElements(let count, limit)? = error as? ArticleExtractionError else { return false }
            return count > limit
        }
    }

    @Test(
        "nesting tens of thousands deep ends in an answer, not a crash",
        arguments: ["div", "section", "b", "blockquote", "table", "ul"])
    func deepNesting(tag: String) {
        let depth = 50_000
        let html =
            String(repeating: "<\(tag)>", count: depth) + String(repeating: "Deep text, with commas, here. ", count: 30)
            + String(repeating: "</\(tag)>", count: depth)
        _ = try? ArticleExtractor.extract(html: Data(html.utf8), baseURL: nil)
    }

    @Test("a tree deeper than the depth cap keeps its text, attached higher up")
    func depthCapKeepsText() {
        var dom = ArticleDOM()
        let depth = ArticleDOM.maximumDepth + 40
        let html = String(repeating: "<div>", count: depth) + "bottom" + String(repeating: "</div>", count: depth)
        let parsed = Data(html.utf8).withUnsafeBytes { ArticleDOM.parse($0) }
        dom = parsed.dom
        #expect(dom.textContent(of: parsed.body).contains("bottom"))
        let deepest = dom.nodes.indices.map { dom.ancestors(of: $0).count }.max() ?? 0
        #expect(deepest <= ArticleDOM.maximumDepth + 1)
    }

    @Test("broken markup: unclosed tags, stray brackets, bad entities, NUL-free garbage")
    func brokenMarkup() {
        for html in [
            "<p>unclosed <b>bold <i>italic", "<<<>>><p>x</p", "&#0;&#xD800;&bogus;&amp", "<div class=\"a\" id=>text</div",
            "<script>never closed", "<!-- comment never closed <p>text", "<svg><p>in svg</svg>", "<table><td><td><tr>",
            "\u{FEFF}<html><html><body><body><p>twice</p>", "<br><br><br><br>", "<p>" + String(repeating: "<br>", count: 5000),
        ] {
            _ = try? ArticleExtractor.extract(html: Data(html.utf8), baseURL: URL(string: "http://example.org/"))
        }
    }
}

/// Random mutations of Readability's pages (bytes flipped, inserted, deleted, markup
/// spliced in) must give an article or an ``ArticleExtractionError``, never a crash. The
/// seed is fixed so a failure can be replayed; `ZEADER_FUZZ_ITERATIONS` runs longer by hand.
@Suite("Article extraction fuzzing")
struct ArticleExtractorFuzzTests {
    static let tokens: [[UInt8]] = [
        "<", ">", "</div>", "<div>", "<p>", "</p>", "<br><br>", "<table><tr><td>", "<a href=\"javascript:x\">", "<a href=\"",
        "<img data-src=\"x.jpg\">", "<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":[",
        "</script>", "<base href=\"//", "<meta property=\"og:title\" content=\"", "style=\"display:none\"", "&#x9B;", "\u{1B}[2J",
        "<!--", "<![CDATA[", "<noscript>", "<svg>", "<math>", "\u{FEFF}", "<html dir=\"rtl\" lang=\"",
    ].map { Array($0.utf8) }

    @Test("mutated pages give an article or an error")
    func mutatedPages() throws {
        var rng = FuzzTests.SplitMix64(state: UInt64(ProcessInfo.processInfo.environment["ZEADER_FUZZ_SEED"] ?? "") ?? 31)
        let iterations = Int(ProcessInfo.processInfo.environment["ZEADER_FUZZ_ITERATIONS"] ?? "") ?? 40
        let pages = ["replace-brs", "hidden-nodes", "rtl-1", "003-metadata-preferred", "base-url-base-element-relative"]
        for name in pages {
            let source = [UInt8](try fixture("articles/\(name)/source.html"))
            for _ in 0..<iterations {
                var bytes = source
                for _ in 0..<Int.random(in: 1...12, using: &rng) {
                    let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 1...255, using: &rng)
                    case 1: bytes.insert(contentsOf: Self.tokens.randomElement(using: &rng)!, at: position)
                    case 2 where !bytes.isEmpty:
                        bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...512, using: &rng)))
                    default:
                        if bytes.count > 16 {
                            let end = min(bytes.count, position + Int.random(in: 1...1024, using: &rng))
                            bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0..<bytes.count, using: &rng))
                        }
                    }
                }
                do {
                    let article = try ArticleExtractor.extract(html: Data(bytes), baseURL: URL(string: "http://fakehost/test/"))
                    #expect(!article.html.contains("\u{1B}"))
                } catch {
                    // Typed throws: every failure is an ArticleExtractionError.
                    #expect(!error.description.isEmpty)
                }
            }
        }
    }
}
