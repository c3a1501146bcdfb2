import Foundation
import Testing

@testable import Feeds

@Suite("HTML to text")
struct HTMLTextTests {
    private let base = URL(string: "https://example.org/blog/post.html")

    private func lines(_ html: String, width: Int = 40) -> [String] {
        HTMLText.render(html, width: width, baseURL: base).lines
    }

    // MARK: - plainText

    @Test(arguments: [
        ("<b>Fish</b> &amp;&nbsp;chips", "Fish &\u{A0}chips"),
        ("<p>one</p><p>two</p>", "one two"),
        ("a<br>b<br/>c", "a b c"),
        ("  lots \n\n of\t whitespace  ", "lots of whitespace"),
        ("x<script>alert('<b>no</b>')</script>y<style>p{}</style>z", "xyz"),
        ("<SCRIPT type=x>1 < 2</ScRiPt>ok", "ok"),
        ("a<!-- comment <b>x</b> -->b", "ab"),
        ("<![CDATA[raw <b> &amp;]]>", "raw <b> &amp;"),
        ("un<b>closed <i>tags", "unclosed tags"),
        ("5 < 6 and 7 > 3", "5 < 6 and 7 > 3"),
        ("bell\u{07} and \u{1B}[31mred", "bell and red"),
        ("&#27;[2Jclear", "clear"),
        ("soft&shy;hyphen", "softhyphen"),
        ("<em>in</em><strong>line</strong>", "inline"),
        ("<li>a</li><li>b</li>", "a b"),
        ("", ""),
        ("<", "<"),
        ("<!-- unterminated", ""),
        ("text <a href=\"x", "text"),
    ])
    func plainText(html: String, expected: String) {
        #expect(HTMLText.plainText(html) == expected)
    }

    // MARK: - Blocks

    @Test func paragraphsAreSeparatedByBlankLinesAndWrapped() {
        #expect(
            lines("<p>The quick brown fox jumps over the lazy dog.</p><p>Second</p>", width: 20) == [
                "The quick brown fox", "jumps over the lazy", "dog.", "", "Second",
            ])
    }

    @Test func lineBreaks() {
        #expect(lines("one<br>two<br><br>four") == ["one", "two", "", "four"])
        #expect(lines("<br><br>start") == ["start"])
    }

    @Test func nestedLists() {
        let html = """
            <ul>
              <li>one</li>
              <li>two is long enough to wrap
                <ul><li>nested a</li><li>nested b<ol><li>deep</li></ol></li></ul>
              </li>
              <li>three
            </ul>
            <p>after</p>
            """
        #expect(
            lines(html, width: 20) == [
                "  * one",
                "  * two is long",
                "    enough to wrap",
                "    - nested a",
                "    - nested b",
                "      1. deep",
                "  * three",
                "",
                "after",
            ])
    }

    @Test func orderedListsNumberFromStartAndValue() {
        #expect(
            lines("<ol start=\"9\"><li>nine<li>ten<li value=\"20\">twenty<li>next</ol>") == [
                "  9. nine", "  10. ten", "  20. twenty", "  21. next",
            ])
    }

    @Test func listItemWithoutListIsStillAnItem() {
        #expect(lines("<li>stray</li>") == ["  * stray"])
    }

    @Test func blockquotesArePrefixedAndNest() {
        let html =
            "<p>before</p><blockquote><p>quoted text here</p><blockquote>inner</blockquote><p>back</p></blockquote><p>after</p>"
        #expect(
            lines(html, width: 12) == [
                "before", "", "> quoted", "> text here", ">", "> > inner", ">", "> back", "", "after",
            ])
    }

    @Test func preKeepsItsLinesAndWrapsLongOnesWithAMarker() {
        let html =
            "<p>x</p><pre>\nfunc f() {\n\treturn  a &lt; b // a very long line\n}\n</pre><p>y</p>"
        #expect(
            lines(html, width: 20) == [
                "x", "", "func f() {", "        return  a <", "↪ b // a very long l", "↪ ine", "}", "", "y",
            ])
    }

    @Test func preKeepsBlankLinesAndStripsTagsInside() {
        #expect(lines("<pre><code>a\n\n<b>b</b></code></pre>") == ["a", "", "b"])
    }

    @Test func headings() {
        #expect(
            lines("<h1>Title</h1><p>text</p><h2>Sub &amp; more</h2><h3>Small</h3>end") == [
                "Title", "=====", "", "text", "", "Sub & more", "----------", "", "Small", "", "end",
            ])
    }

    @Test func unclosedHeadingEndsAtTheNextBlock() {
        #expect(lines("<h2>Head<p>para</p>") == ["Head", "----", "", "para"])
    }

    @Test func horizontalRuleAndTables() {
        #expect(lines("a<hr>b", width: 10) == ["a", "", "----------", "", "b"])
        #expect(
            lines("<table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table>") == ["k | v", "--+--", "1 | 2"])
    }

    // MARK: - Links and images

    @Test func linksAreNumberedOncePerURLAndListedAtTheEnd() {
        let result = HTMLText.render(
            "<p>See <a href=\"/a\">this</a>, <a href='https://other.example/b'>that</a> and <a href=\"../blog/../a\">this again</a>.</p>",
            width: 60, baseURL: base)
        #expect(result.links == ["https://example.org/a", "https://other.example/b"])
        #expect(
            result.lines == [
                "See this[1], that[2] and this again[1].", "", "Links:", "[1] https://example.org/a",
                "[2] https://other.example/b",
            ])
    }

    @Test func textOnlyHasNoLinkNumbersNoLinkListAndNoPlaceholders() {
        let html = """
            <p>See <a href="/a">this</a> <img src="a.png" alt="a cat"> and <a href="/b"><img alt="thumb" src="t.png"></a>.</p>
            <video src="v.mp4"></video><audio src="a.mp3"></audio><iframe src="https://example.org/e"></iframe>
            <p>Then <a href="https://other.example/c">that</a>, long enough to need wrapping at a small width.</p>
            """
        let result = HTMLText.renderTextOnly(html, width: 30)
        #expect(result.links.isEmpty)
        #expect(
            result.lines == [
                "See this and .", "", "Then that, long enough to need", "wrapping at a small width.",
            ])
        // The layout is still the reader's: lists, headings and quotes keep their shape.
        #expect(
            HTMLText.renderTextOnly("<h2>Title</h2><ul><li>one</ul><blockquote>q</blockquote>", width: 30).lines
                == ["Title", "-----", "", "  * one", "", "> q"])
    }

    @Test func scriptDataAndFragmentLinksAreNotNumbered() {
        let result = HTMLText.render(
            "<a href=\"javascript:alert(1)\">js</a> <a href=\"#top\">top</a> <a href=\"data:text/html,x\">d</a> <a>none</a> <a href=\"mailto:a@b.example\">mail</a>",
            width: 60)
        #expect(result.links == ["mailto:a@b.example"])
        #expect(result.lines.first == "js top d none mail[1]")
    }

    @Test func relativeLinksWithoutBaseStayRelative() {
        #expect(HTMLText.render("<a href=\"/x\">x</a>", width: 20).links == ["/x"])
    }

    @Test func longLinksAreCutInTheList() {
        let url = "https://example.org/" + String(repeating: "abcdefghij", count: 5)
        let result = HTMLText.render("<a href=\"\(url)\">x</a>", width: 30)
        #expect(result.links == [url])
        #expect(result.lines.dropFirst(3).joined() == "[1] " + url)
        #expect(result.lines.allSatisfy { DisplayWidth.of($0) <= 30 })
    }

    @Test func images() {
        // Numbered as links are (newsboat's numbering), so the link list and the article agree.
        #expect(
            lines("<p>A <img src=\"a.png\" alt=\"a  cat\"> and <img src=b.png> <img alt=none></p>") == [
                "A [image: a cat][1] and [image][2]", "[image: none]", "", "Links:", "[1] https://example.org/blog/a.png",
                "[2] https://example.org/blog/b.png",
            ])
        let linked = HTMLText.render("<a href=\"/big.png\"><img alt=\"thumb\" src=\"/small.png\"></a>", width: 40, baseURL: base)
        #expect(linked.lines.first == "[image: thumb][1]")
        #expect(linked.links == ["https://example.org/big.png"])
    }

    @Test func entitiesAndWhitespace() {
        #expect(lines("<p>  Caf&eacute;\n\n  &amp;   &#8220;quotes&#8221;&nbsp;&hellip; </p>") == ["Café & “quotes” …"])
    }

    @Test func mediaAndEmbedsAreLinked() {
        let result = HTMLText.render(
            "<p>Listen:</p><audio controls src=\"/ep1.mp3\">Your browser <b>cannot</b> play it <a href=\"/dl\">download</a> <img alt=x></audio> <iframe src=\"https://video.example/embed/1\"></iframe><video><source src=\"v.webm\"><source src=\"v.mp4\">old browser</video>",
            width: 60, baseURL: URL(string: "https://pod.example/show/"))
        #expect(
            result.links == ["https://pod.example/ep1.mp3", "https://video.example/embed/1", "https://pod.example/show/v.webm"])
        #expect(result.lines.prefix(4) == ["Listen:", "", "[audio][1]", "[embedded][2]"])
        #expect(result.lines[4] == "[video][3]")
    }

    @Test func inlineQuotesGetQuotationMarks() {
        #expect(lines("<p>He said <q>hi</q>.</p>") == ["He said \u{201C}hi\u{201D}."])
    }

    @Test func scriptAndStyleAreDropped() {
        #expect(lines("<style>body{color:red}</style><p>text</p><script>document.write('<p>x</p>')</script>") == ["text"])
    }

    @Test func escapeSequencesInContentAreRemoved() {
        #expect(lines("<p>\u{1B}[2Jsafe&#27;[31m text\r</p>") == ["safe text"])
    }

    // MARK: - Malformed input

    @Test func malformedHTMLStillRenders() {
        #expect(
            lines("<p>unclosed <b>bold <i>italic<div>block</p> < 3 &amp 4 <!-- c --> end") == [
                "unclosed bold italic", "block", "", "< 3 & 4 end",
            ])
        #expect(lines("</p></li></ul></blockquote>text</pre>") == ["text"])
        #expect(
            lines("<a href=\"/x\">open link<p>para") == ["open link", "", "para[1]", "", "Links:", "[1] https://example.org/x"])
        #expect(lines("<p attr=\"unterminated>text") == [])
        #expect(lines("<<>>< <p>>") == ["<<>><", "", ">"])
    }

    @Test func randomMutationsNeverCrashAndKeepTheWidth() {
        let seeds = [
            "<ul><li>one<li>two<ol><li>x</ol></ul><blockquote><p>q</blockquote><pre>a\tb</pre>",
            "<p>日本語の文章です。<a href=\"/x\">リンク</a>😀😀</p><h1>T</h1><img alt=x><table><tr><td>1<td>2</table>",
            "<script>x</script><style>y</style>&amp;&#x41;&notin;<br/><hr><dl><dt>t<dd>d</dl>",
        ]
        var generator = FeedsTextRandom(seed: 0x5EED)
        let pieces = [
            "<", ">", "/", "\"", "'", "=", "&", ";", "#", "<p>", "</li>", "<ul>", "<pre>", "</pre>",
            "<blockquote>", "<a href=", "日", "😀", " ", "\n", "\t", "x", "<!--", "-->", "<![CDATA[",
        ]
        for iteration in 0..<fuzzIterations(1500) {
            var html = Array(seeds[iteration % seeds.count])
            for _ in 0..<Int(generator.next() % 8) {
                let position = Int(generator.next() % UInt64(html.count + 1))
                if generator.next() % 2 == 0, !html.isEmpty, position < html.count {
                    html.remove(at: position)
                } else {
                    html.insert(contentsOf: Array(pieces[Int(generator.next() % UInt64(pieces.count))]), at: position)
                }
            }
            let width = 4 + Int(generator.next() % 40)
            let text = String(html)
            let result = HTMLText.render(text, width: width, baseURL: base)
            for line in result.lines {
                #expect(DisplayWidth.of(line) <= width, "\(text.debugDescription) at \(width): \(line)")
            }
            _ = HTMLText.plainText(text)
        }
    }

    // MARK: - Wrapping

    @Test func wrapBreaksBetweenCJKCharactersButNotBeforeClosingPunctuation() {
        #expect(HTMLText.wrap("日本語の文章です", width: 6) == ["日本語", "の文章", "です"])
        #expect(HTMLText.wrap("これは「テスト」です。", width: 8) == ["これは", "「テス", "ト」で", "す。"])
        #expect(HTMLText.wrap("日本語", width: 5) == ["日本", "語"])
    }

    @Test func wrapNeverSplitsEmojiOrExceedsTheWidth() {
        #expect(HTMLText.wrap("😀😀😀 ok", width: 5) == ["😀😀", "😀 ok"])
        #expect(HTMLText.wrap("👨‍👩‍👧👨‍👩‍👧", width: 3) == ["👨‍👩‍👧", "👨‍👩‍👧"])
        #expect(HTMLText.wrap("supercalifragilistic", width: 8) == ["supercal", "ifragili", "stic"])
        #expect(HTMLText.wrap("", width: 10) == [])
        #expect(HTMLText.wrap("中", width: 1) == ["中"])
    }

    @Test func wrapKeepsEveryCharacterAndFitsAnyWidth() {
        var generator = FeedsTextRandom(seed: 42)
        let words = [
            "a", "word", "日本語", "😀", "e\u{301}té", "한국어", "Ｆｕｌｌ", "x" + String(repeating: "y", count: 30),
            "中文字符串测试", "🇫🇷🇯🇵", "«guillemets»", "end.",
        ]
        for _ in 0..<400 {
            let text = (0..<Int(generator.next() % 20)).map { _ in words[Int(generator.next() % UInt64(words.count))] }
                .joined(separator: " ")
            let width = 2 + Int(generator.next() % 30)
            let wrapped = HTMLText.wrap(text, width: width)
            #expect(wrapped.allSatisfy { DisplayWidth.of($0) <= width }, "\(text) at \(width): \(wrapped)")
            #expect(wrapped.joined().filter { $0 != " " } == text.filter { $0 != " " })
        }
    }

    @Test func renderedCJKArticleFitsTheWidth() {
        let html = "<p>日本語の文章です。これは長い文になります。Swift言語でテストを書きます。</p><ul><li>項目一つ目の長い説明文</li></ul>"
        let result = HTMLText.render(html, width: 16)
        #expect(result.lines.allSatisfy { DisplayWidth.of($0) <= 16 })
        #expect(result.lines.joined().filter { !" *".contains($0) }.hasPrefix("日本語の文章です。これは長い文になります。Swift言語でテストを書きます。"))
    }
}

/// How many rounds a random test runs: `default`, or `ZEADER_TEXT_FUZZ_ITERATIONS` when
/// set, to fuzz for longer by hand (`ZEADER_TEXT_FUZZ_ITERATIONS=2000000 swift test --filter …`).
func fuzzIterations(_ default: Int) -> Int {
    ProcessInfo.processInfo.environment["ZEADER_TEXT_FUZZ_ITERATIONS"].flatMap(Int.init) ?? `default`
}

/// A small deterministic generator so failures can be replayed.
struct FeedsTextRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("HTML plain text, byte-level against token-level")
struct PlainTextDifferentialTests {
    @Test func fastPlainTextAgreesWithTheTokenizer() {
        var generator = FeedsTextRandom(seed: 7)
        let pieces = [
            "<p>", "</p>", "<b>", "</b>", "<br/>", "<script>", "</script>", "<style x=\"a>b\">", "</STYLE>", "<!--", "-->",
            "<![CDATA[", "]]>", "<!DOCTYPE html>", "<?php ?>", "</>", "< ", "<", ">", "&amp;", "&amp", "&#233;", "&#x1F600;",
            "&nbsp;", "&notit;", "&bogus;", "&", "#", "text", " ", "\n", "\t", "\r\n", "日本", "😀", "\u{AD}", "\u{1B}[31m",
            "\u{7}", "\u{85}", "\u{202E}", "\r", "a\u{301}", "\u{C2}", "<a href='x>y'>", "</a>", "<img alt=\"i\">", "<textarea>",
            "</textarea>", "<li>",
            "<div", " class=", "\"", "'", "=", "/", "<script/>", "<title>t</title>",
            // runs of words that the fast path copies whole
            "two words", "a b c", " x y ", "é ü", "\u{AD} z", "z \u{AD}", "w\u{AD}w", "\u{C2}\u{AD} q",
        ]
        for _ in 0..<fuzzIterations(5000) {
            let html = (0..<Int(generator.next() % 16)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            #expect(HTMLText.plainText(html) == HTMLText.plainTextByTokens(html), "\(html.debugDescription)")
        }
    }

    /// Long runs of text, which the byte-level version reads eight bytes at a time: every
    /// byte that ends or bends a run (a second space, a space before markup, a control, a
    /// soft hyphen's lead byte, a byte just above or below the ones it looks for) at every
    /// offset of those eight.
    @Test func longRunsAgreeWithTheTokenizerAtEveryOffset() {
        var generator = FeedsTextRandom(seed: 11)
        let letters = Array("abcdefghijklmnopqrstuvwxyzéü日")
        let breakers = [
            " ", "  ", " <b>", "<br>", "&amp;", "& ", "\n", "\t", "\u{0B}", "\u{0E}", "\u{1F}", "\u{7F}", "\u{AD}", "\u{A0}",
            "\u{C2}", "!", " !", "=", ";", "%", "'", "\u{1B}[1m", " \u{AD}", "\u{AD} ", "<", " <", "&", " &",
        ]
        for _ in 0..<fuzzIterations(3000) {
            var html = ""
            for _ in 0..<Int(generator.next() % 6) {
                html += String(
                    (0..<Int(generator.next() % 20)).map { _ in letters[Int(generator.next() % UInt64(letters.count))] })
                html += breakers[Int(generator.next() % UInt64(breakers.count))]
                if generator.next() % 2 == 0 { html += " " }
            }
            #expect(HTMLText.plainText(html) == HTMLText.plainTextByTokens(html), "\(html.debugDescription)")
        }
        // Every offset of a lone breaker within a long run.
        for breaker in breakers {
            for offset in 0..<17 {
                let html = String(repeating: "x", count: offset) + breaker + String(repeating: "y", count: 17 - offset)
                #expect(HTMLText.plainText(html) == HTMLText.plainTextByTokens(html), "\(html.debugDescription)")
                let spaced = "a " + html + " b  c d"
                #expect(HTMLText.plainText(spaced) == HTMLText.plainTextByTokens(spaced), "\(spaced.debugDescription)")
            }
        }
    }
}

@Suite("HTML to text, hostile input")
struct HTMLHostileInputTests {
    /// The CPU time this thread has used, in seconds: unlike the wall clock, it does not
    /// grow when other processes take the machine (the suite runs in parallel on 2 cores).
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    @Test func deepNestingStaysFastAndWithinTheWidth() {
        let html =
            String(repeating: "<blockquote><ul><li>", count: 20_000) + "deep"
            + String(repeating: "</li></ul></blockquote>", count: 20_000)
        // What `HTMLText.render` does, with the CPU time of the guarded thread it renders on
        // taken around it: a quadratic walk of the nesting would take minutes.
        let (result, seconds) = GuardedThreads.runAndWait {
            let started = Self.threadCPUSeconds()
            let result = HTMLText.renderOnThisThread(html, width: 30, baseURL: nil)
            return (result, Self.threadCPUSeconds() - started)
        }
        #expect(seconds < 5)
        #expect(result.lines.contains { $0.hasSuffix("deep") })
        #expect(result.lines.allSatisfy { DisplayWidth.of($0) <= 30 })
        #expect(HTMLText.plainText(html) == "deep")
    }

    @Test func manyAttributesAndUnterminatedConstructsAreLinear() {
        let attributes = (0..<50_000).map { "a\($0)=\"\($0)\"" }.joined(separator: " ")
        let started = Date()
        #expect(HTMLText.render("<p \(attributes)>text</p>", width: 40).lines == ["text"])
        #expect(HTMLText.plainText(String(repeating: "<!-- ", count: 50_000)) == "")
        #expect(HTMLText.plainText("<script>" + String(repeating: "</scrip ", count: 50_000)) == "")
        #expect(HTMLText.render(String(repeating: "<a href=\"x", count: 20_000), width: 40).lines == [])
        #expect(HTMLText.plainText(String(repeating: "&", count: 200_000)).count == 200_000)
        #expect(Date().timeIntervalSince(started) < 10)
    }
}
