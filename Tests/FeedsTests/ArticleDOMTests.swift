import Foundation
import Testing

@testable import Feeds

/// The extractor's tree: text measured as Readability measures it, HTML written back safely.
@Suite("Article tree")
struct ArticleDOMTests {
    @Test(
        "runs of two or more white-space characters become one space; a lone one stays",
        arguments: [
            ("a  b", "a b"), ("a\tb", "a\tb"), ("a\n\n\nb", "a b"), ("a\u{A0}\u{A0}b", "a b"), ("a\u{A0}b", "a\u{A0}b"),
            ("a\u{2003}\u{3000}b", "a b"), ("a\u{FEFF} b", "a b"), ("日本  語", "日本 語"), ("end  ", "end "), ("", ""),
            ("no-break\u{A0}", "no-break\u{A0}"), ("é\u{2028}\u{2029}é", "é é"),
        ])
    func collapsing(text: String, expected: String) {
        #expect(ArticleDOM.collapsingSpaces(text) == expected)
    }

    @Test("the text length counts what innerText would hold, in UTF-16 units")
    func innerTextLength() {
        let html = "<p>  one\u{A0}\u{A0}two   <b>three</b> 😀 \u{3000} </p>"
        let parsed = Data(html.utf8).withUnsafeBytes { ArticleDOM.parse($0) }
        let paragraph = parsed.dom.elements(in: parsed.body, named: ["p"])[0]
        let text = parsed.dom.innerText(of: paragraph)
        #expect(text == "one two three 😀")
        #expect(parsed.dom.innerTextLength(of: paragraph) == text.utf16.count)
    }

    @Test("text and attributes are escaped when written back as HTML")
    func escaping() {
        #expect(ArticleDOM.escaped("a < b & c > d \"q\"\u{A0}é", quote: false) == "a &lt; b &amp; c &gt; d \"q\"&nbsp;é")
        #expect(ArticleDOM.escaped("say \"hi\" & <go>", quote: true) == "say &quot;hi&quot; &amp; &lt;go&gt;")
        #expect(ArticleDOM.escaped("plain text, ünïcode", quote: true) == "plain text, ünïcode")
        let parsed = Data("<p title='x\"><script>'>1 &lt; 2</p>".utf8).withUnsafeBytes { ArticleDOM.parse($0) }
        #expect(parsed.dom.outerHTML(of: parsed.body) == "<body><p title=\"x&quot;&gt;&lt;script&gt;\">1 &lt; 2</p></body>")
    }
}
