import Foundation
import Testing

@testable import Feeds

/// Sites' article rules: the selector grammar, what each part matches, and the article made
/// of what a selector chose.
@Suite struct CSSSelectorTests {
    static let page = """
        <html><head><title>Story</title></head><body>
        <div id="main" class="content wide"><p>First <a href="/rel">link</a>.</p><p lang="en-GB">Second.</p>
        <div class="inner"><p>Nested.</p></div></div>
        <aside class="sidebar"><p class="note">Sidebar <b>story</b>.</p><script>alert(1)</script>
        <form><input name="q"></form><img data-src="/lazy.png"></aside>
        <h2 data-kind="Section-Title">Heading</h2><p>After heading.</p><p>Later.</p>
        </body></html>
        """

    /// The text of each element `selector` chooses in ``page``.
    func chosen(_ selector: String, in html: String = page) throws -> [String] {
        let parsed = Data(html.utf8).withUnsafeBytes { ArticleDOM.parse($0, charset: nil) }
        let matches = try CSSSelector(selector).outermostMatches(in: parsed.dom, under: parsed.body)
        return matches.map { parsed.dom.textContent(of: $0).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    @Test func typesIdsClassesAndAttributes() throws {
        #expect(try chosen("aside p") == ["Sidebar story."])
        #expect(try chosen("#main > p") == ["First link.", "Second."])
        #expect(try chosen("div.content.wide > div.inner p") == ["Nested."])
        #expect(try chosen(".CONTENT").isEmpty)  // class names keep their case
        #expect(try chosen("ASIDE > P.note") == ["Sidebar story."])  // tag names do not
        #expect(try chosen("[lang]") == ["Second."])
        #expect(try chosen("p[lang|=en]") == ["Second."])
        #expect(try chosen("[class~=wide]").count == 1)
        #expect(try chosen("[class^=side]") == ["Sidebar story."])
        #expect(try chosen("[data-kind$=title i]") == ["Heading"])
        #expect(try chosen("[data-kind*='tion-T']") == ["Heading"])
        #expect(try chosen("[data-kind=\"section-title\"]").isEmpty)
        #expect(try chosen("[data-kind=\"section-title\" i]") == ["Heading"])
        #expect(try chosen("html body > h2") == ["Heading"])  // the page's own ancestors count
    }

    @Test func combinatorsAndGroups() throws {
        #expect(try chosen("h2 + p") == ["After heading."])
        #expect(try chosen("h2 ~ p") == ["After heading.", "Later."])
        #expect(try chosen("aside ~ h2, #main p") == ["First link.", "Second.", "Nested.", "Heading"])
        // Only the outermost of nested matches: the article holds each element once.
        #expect(try chosen("div, p").count == 4)
        #expect(try chosen("body > p") == ["After heading.", "Later."])
        #expect(try chosen("div > div > p") == ["Nested."])
        #expect(try chosen("section p").isEmpty)
    }

    @Test func whatIsNotCSSIsRefusedWithTheReason() {
        func problem(_ text: String) -> String? {
            do {
                _ = try CSSSelector(text)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(problem("p:first-child")?.contains("pseudo-classes (\":first-child\") are not supported") == true)
        #expect(problem("p::before")?.contains("pseudo-classes") == true)
        #expect(problem("")?.contains("expected a selector") == true)
        #expect(problem("p,")?.contains("expected a selector") == true)
        #expect(problem("p >")?.contains("expected a selector") == true)
        #expect(problem("[href")?.contains("']'") == true)
        #expect(problem("[href='x]")?.contains("unclosed string") == true)
        #expect(problem("[a=>b]") != nil)
        #expect(problem("p {color: red}")?.contains("'{'") == true)
        #expect(problem(String(repeating: "p ", count: 600))?.contains("longer than") == true)
        #expect(problem(Array(repeating: "p", count: 40).joined(separator: " > "))?.contains("compound") == true)
    }

    @Test func aDeepPageIsMatchedInOnePass() throws {
        // Deeply nested elements (as deep as the page is kept) and a selector that fails only
        // at its first compound: backtracking over ancestors would try every choice of eight
        // of them; one pass does not.
        let depth = ArticleDOM.maximumDepth - 20
        let html =
            String(repeating: "<div>", count: depth) + "<p>deep</p>" + String(repeating: "</div>", count: depth)
        #expect(try chosen("section div div div div div div div div p", in: html).isEmpty)
        let found = try chosen("div div div div div div div div p", in: html)
        #expect(found == ["deep"], "\(found.map { $0.prefix(40) })")
    }

    @Test func theArticleIsWhatTheSelectorChose() throws {
        let article = try ArticleExtractor.extract(
            html: Data(Self.page.utf8), baseURL: URL(string: "https://example.org/story/1"),
            selector: try CSSSelector("aside.sidebar, h2"))
        #expect(article.isSelected)
        #expect(article.title == "Story")
        #expect(article.text.contains("Sidebar story."))
        #expect(article.text.contains("Heading"))
        #expect(!article.text.contains("First"))
        // Scripts and forms never make an article; lazy images get their address.
        #expect(!article.html.contains("<script") && !article.html.contains("alert"))
        #expect(!article.html.contains("<form") && !article.html.contains("<input"))
        #expect(article.html.contains("https://example.org/lazy.png"))
        // A selector that matches no text leaves the page's own article.
        let fallback = try ArticleExtractor.extract(
            html: Data(Self.page.utf8), baseURL: nil, selector: try CSSSelector("div.missing"))
        #expect(!fallback.isSelected)
        #expect(fallback.text.contains("First"))
        let blank = try ArticleExtractor.extract(
            html: Data(Self.page.utf8), baseURL: nil, selector: try CSSSelector("aside img"))
        #expect(!blank.isSelected)
    }
}
