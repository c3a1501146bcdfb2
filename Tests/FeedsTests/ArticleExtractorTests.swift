import Foundation
import Testing

@testable import Feeds

/// The article of a page as ``ArticleExtractor`` finds it, against Readability's own
/// expectations (`Fixtures/articles`) and page by page for each rule.
@Suite("Article extraction")
struct ArticleExtractorTests {
    static let pageURL = URL(string: "http://fakehost/test/page.html")!

    static func extract(_ html: String, base: URL? = pageURL) throws -> Article {
        try ArticleExtractor.extract(html: Data(html.utf8), baseURL: base)
    }

    /// A page whose article is `body` among navigation and a footer: long enough that no
    /// rule is loosened.
    static func page(_ body: String, head: String = "") -> String {
        let filler = String(repeating: "This paragraph has enough words, commas, and sentences to count as text. ", count: 6)
        return """
            <html><head><title>A story about things</title>\(head)</head><body>
            <nav class="menu"><a href="/">Home</a> <a href="/news">News</a></nav>
            <div id="story"><p>\(filler)</p>\(body)<p>\(filler)</p></div>
            <div class="footer">Copyright notice, links, contact.</div>
            </body></html>
            """
    }

    /// Word multisets, lower-cased, as the scorer counts them.
    static func words(_ text: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        let separators = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_")).inverted
        for word in text.lowercased().components(separatedBy: separators) where !word.isEmpty { counts[word, default: 0] += 1 }
        return counts
    }

    static func f1(_ got: [String: Int], _ want: [String: Int]) -> Double {
        let common = got.reduce(0) { $0 + min($1.value, want[$1.key] ?? 0) }
        let precision = Double(common) / Double(max(1, got.values.reduce(0, +)))
        let recall = Double(common) / Double(max(1, want.values.reduce(0, +)))
        return precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall)
    }

    // MARK: - Readability's pages

    @Test(
        "Readability's test pages: the same words and metadata",
        arguments: [
            "003-metadata-preferred", "base-url-base-element-relative", "hidden-nodes", "js-link-replacement",
            "remove-aria-hidden", "replace-brs", "rtl-1", "title-and-h1-discrepancy", "nytimes-1",
        ])
    func readabilityPage(name: String) throws {
        let source = try fixture("articles/\(name)/source.html")
        let expected = String(decoding: try fixture("articles/\(name)/expected.html"), as: UTF8.self)
        let metadata = try #require(
            try JSONSerialization.jsonObject(with: fixture("articles/\(name)/expected-metadata.json")) as? [String: Any])
        let article = try ArticleExtractor.extract(html: source, baseURL: Self.pageURL)
        let score = Self.f1(Self.words(article.text), Self.words(HTMLText.plainText(expected)))
        #expect(score >= 0.95, "\(name): word F1 \(score)")
        #expect(article.title == metadata["title"] as? String)
        #expect(article.byline == metadata["byline"] as? String)
        #expect(article.excerpt == metadata["excerpt"] as? String)
        #expect(article.siteName == metadata["siteName"] as? String)
        #expect(article.direction == metadata["dir"] as? String)
        #expect(article.publishedTime == metadata["publishedTime"] as? String)
    }

    // MARK: - Choosing the article

    @Test("the article is kept; navigation, sidebars, comments and footers are not")
    func clutterLeftOut() throws {
        let html = """
            <html><head><title>Report on the river</title></head><body>
            <div class="sidebar"><p>Popular: ten things, five more things, and other things to click.</p></div>
            <div class="article-body">
            <p>The river rose by two metres overnight, flooding the lower town, the market and the old mill.</p>
            <p>Residents, shopkeepers and the mayor gathered on the bridge at dawn, counting the damage.</p>
            <p>Engineers say the levee held, but the pumps, the drains and the sluices were overwhelmed.</p>
            <p>The water is expected to fall by Friday, when the cleaning, the repairs and the claims begin.</p>
            <p>Volunteers, neighbours and the fire brigade have moved furniture, animals and stock uphill.</p>
            <p>The school, the library and the clinic will stay closed until the council says the roads are safe.</p>
            <p>Insurers, lawyers and loss adjusters are expected in town by the weekend, the mayor said.</p>
            </div>
            <div id="comments"><p>Comment: first, second, third, and a long reply to the reply.</p></div>
            <footer><p>Copyright, terms, privacy, contact, about us, and more links.</p></footer>
            </body></html>
            """
        let article = try Self.extract(html)
        #expect(article.text.contains("The river rose by two metres"))
        #expect(article.text.contains("fire brigade"))
        #expect(!article.text.contains("Popular"))
        #expect(!article.text.contains("Comment:"))
        #expect(!article.text.contains("Copyright"))
    }

    @Test(
        "hidden parts are dropped, however the style is written",
        arguments: [
            "style=\"display:none\"", "style=\"DISPLAY : NONE\"", "style='color:red; display: none !important'",
            "style=\"visibility:hidden\"", "style=\"Visibility: Hidden\"", "hidden", "HIDDEN=\"hidden\"", "aria-hidden=\"true\"",
        ])
    func hiddenNodes(attribute: String) throws {
        let article = try Self.extract(Self.page("<p \(attribute)>Secret words, never shown, here in a hidden paragraph.</p>"))
        #expect(!article.text.contains("Secret"), "\(attribute)")
        #expect(article.text.contains("enough words"))
    }

    @Test("forms, buttons, inputs and share widgets are cleaned out of the article")
    func formsAndShareWidgetsCleaned() throws {
        let article = try Self.extract(
            Self.page(
                """
                <form action="/subscribe"><p>Subscribe</p><input name="email"><button>Sign up now</button></form>
                <div class="share-buttons"><a href="/fb">Facebook</a> <span>Share this</span></div>
                <div class="social_share"><span>Tweet it</span></div>
                <select><option>Choose an edition</option></select>
                """))
        for word in ["Subscribe", "Sign up", "Share this", "Tweet", "Choose an edition"] {
            #expect(!article.text.contains(word), "\(word)")
        }
    }

    @Test("a block that only says Advertisement or Loading… is removed")
    func adAndLoadingBlocks() throws {
        let article = try Self.extract(
            Self.page(
                "<div><p>Advertisement</p><img src=ad.gif></div><div><p>Loading…</p><img src=spin.gif></div>"
                    + "<div><p>WERBUNG</p><img src=w.gif></div><div><p>loading...</p><img src=x.gif></div>"))
        #expect(!article.text.contains("Advertisement"))
        #expect(!article.text.lowercased().contains("loading"))
        #expect(!article.text.contains("WERBUNG"))
    }

    @Test("double <br> becomes paragraphs; <font> becomes <span>")
    func breaksAndFonts() throws {
        let article = try Self.extract(Self.page("<div>First line, plain.<br><br>Second line, <font color=red>red</font>.</div>"))
        #expect(article.html.contains("<p>Second line, <span color=\"red\">red</span>.</p>"))
        #expect(!article.html.contains("<font"))
    }

    @Test("a page with no text at all has no article")
    func noArticle() {
        #expect(throws: ArticleExtractionError.noArticle) {
            try Self.extract("<html><body><div><img src=a.png></div></body></html>")
        }
    }

    // MARK: - Links and images

    @Test("relative links and images are resolved against the page's URL, or its <base href>")
    func relativeURLs() throws {
        let body = """
            <p>See <a href="other.html">this</a>, <a href="/root">that</a>, <a href="//cdn.example/x">cdn</a>
            and <a href="#notes">notes</a>. <img src="pic.png" srcset="a.jpg 1x, b.jpg 2x"></p>
            """
        var article = try Self.extract(Self.page(body), base: URL(string: "https://example.org/news/story.html"))
        #expect(article.html.contains("href=\"https://example.org/news/other.html\""))
        #expect(article.html.contains("href=\"https://example.org/root\""))
        #expect(article.html.contains("href=\"https://cdn.example/x\""))
        #expect(article.html.contains("href=\"#notes\""))
        #expect(article.html.contains("src=\"https://example.org/news/pic.png\""))
        #expect(article.html.contains("srcset=\"https://example.org/news/a.jpg 1x, https://example.org/news/b.jpg 2x\""))
        article = try Self.extract(
            Self.page(body, head: "<base href=\"/assets/\">"), base: URL(string: "https://example.org/news/story.html"))
        #expect(article.html.contains("href=\"https://example.org/assets/other.html\""))
        #expect(article.html.contains("href=\"https://example.org/assets/#notes\""))
    }

    @Test(
        "javascript: links become their text, whatever their case or spacing",
        arguments: [
            "javascript:void(0)", "JavaScript:go()", "  javascript:x()", "\u{1}javascript:x()", "java\tscript:x()",
            "JAVA\nSCRIPT:x()",
        ])
    func scriptLinks(href: String) throws {
        let article = try Self.extract(Self.page("<p>Press <a href=\"\(href)\">here</a> to go on, then read on.</p>"))
        #expect(!article.html.lowercased().contains("javascript"), "\(href)")
        #expect(article.text.contains("Press here to go on"))
    }

    @Test(
        "lazy images get their real address from data attributes",
        arguments: [
            ("<img data-src=\"photo.jpg\">", "src=\"http://fakehost/test/photo.jpg\""),
            ("<img class=\"lazy\" src=\"placeholder.gif\" data-original=\"big.PNG\">", "src=\"http://fakehost/test/big.PNG\""),
            (
                "<img data-srcset=\"a.webp 1x, b.webp 2x\">",
                "srcset=\"http://fakehost/test/a.webp 1x, http://fakehost/test/b.webp 2x\""
            ),
            ("<figure data-lazy=\"fig.jpeg\"></figure>", "src=\"http://fakehost/test/fig.jpeg\""),
        ])
    func lazyImages(image: String, expected: String) throws {
        let article = try Self.extract(Self.page("<p>A photo, below, of the scene.</p>\(image)<p>Caption, words, more.</p>"))
        #expect(article.html.contains(expected), "\(image): \(article.html)")
    }

    // MARK: - Metadata

    @Test("JSON-LD metadata comes first, then OpenGraph and meta tags")
    func metadataSources() throws {
        let jsonLD = """
            <script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle",
            "headline":"Headline from JSON-LD","author":[{"name":"Ann Writer"},{"name":"Bob Editor"}],
            "description":"What it is about.","publisher":{"name":"The Daily"},"datePublished":"2024-05-01T10:00:00Z"}</script>
            """
        let metas = """
            <meta property="og:title" content="OpenGraph title"><meta property="og:site_name" content="OG Site">
            <meta name="author" content="Meta Author"><meta name="description" content="Meta description">
            <meta property="article:published_time" content="2023-01-01">
            """
        var article = try Self.extract(Self.page("", head: jsonLD + metas))
        #expect(article.title == "Headline from JSON-LD")
        #expect(article.byline == "Ann Writer, Bob Editor")
        #expect(article.excerpt == "What it is about.")
        #expect(article.siteName == "The Daily")
        #expect(article.publishedTime == "2024-05-01T10:00:00Z")
        article = try Self.extract(Self.page("", head: metas))
        #expect(article.title == "OpenGraph title")
        #expect(article.byline == "Meta Author")
        #expect(article.excerpt == "Meta description")
        #expect(article.siteName == "OG Site")
        #expect(article.publishedTime == "2023-01-01")
    }

    @Test("JSON-LD that is broken, not schema.org or not an article is ignored")
    func jsonLDIgnored() throws {
        for script in [
            "{\"@context\":\"https://schema.org\",\"@type\":\"Article\",\"headline\":",
            "{\"@context\":\"https://example.org\",\"@type\":\"Article\",\"headline\":\"Wrong context\"}",
            "{\"@context\":\"https://schema.org\",\"@type\":\"Recipe\",\"name\":\"Soup\"}",
            "[1, \"x\", null]",
        ] {
            let article = try Self.extract(Self.page("", head: "<script type=\"application/ld+json\">\(script)</script>"))
            #expect(article.title == "A story about things", "\(script)")
        }
    }

    @Test(
        "the title loses the site's name around it",
        arguments: [
            ("Rain expected all week long | The Weather Site", "Rain expected all week long"),
            ("The Weather Site » Rain expected all week long", "The Weather Site » Rain expected all week long"),
            ("Rain expected all week long - The Weather Site", "Rain expected all week long"),
            ("Weather: Rain expected all week long here", "Rain expected all week long here"),
        ])
    func titles(title: String, expected: String) throws {
        let html = Self.page("").replacingOccurrences(of: "<title>A story about things</title>", with: "<title>\(title)</title>")
        #expect(try Self.extract(html).title == expected)
    }

    @Test("the language, the direction and the byline are read from the page")
    func languageDirectionByline() throws {
        let html = """
            <html lang="ar" dir="rtl"><head><title>مقال طويل عن شيء مهم جدا</title></head><body>
            <div class="byline">By Layla Haddad</div>
            <div>\(String(repeating: "<p>هذا نص طويل، فيه فواصل، وجمل كثيرة، ليكون مقالا حقيقيا يمكن قراءته بسهولة.</p>", count: 8))</div>
            </body></html>
            """
        let article = try Self.extract(html)
        #expect(article.lang == "ar")
        #expect(article.direction == "rtl")
        #expect(article.byline == "By Layla Haddad")
        #expect(!article.text.contains("Layla"))
    }

    @Test("control characters and escape sequences in the page never reach the output")
    func controlCharactersRemoved() throws {
        let article = try Self.extract(
            Self.page(
                "<p>Bell\u{07} and escape \u{1B}[31mred\u{1B}[0m, and C1 \u{9B}2J, in a paragraph of text.</p>",
                head: "<meta name=\"author\" content=\"Eve\u{1B}]0;owned\u{07}\">"))
        for field in [article.html, article.text, article.byline ?? ""] {
            #expect(
                !field.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" || (0x7F...0x9F).contains($0.value) }
            )
        }
    }
}
