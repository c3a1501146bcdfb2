import Foundation
import Testing

@testable import Feeds

/// `<strong>`/`<b>` bold, `<u>`/`<ins>` and links' text underlined, `<em>`/`<i>` plain: as newsboat
/// paints an article. The runs follow the words through wrapping, list markers and quotes.
@Suite struct HTMLTextEmphasisTests {
    /// The text of each span, with its emphasis: "b:" bold, "u:" underlined, "bu:" both.
    func runs(_ html: String, width: Int = 40) -> [String] {
        let page = HTMLText.render(html, width: width, baseURL: URL(string: "https://example.org/"))
        return page.spans.map { span in
            let line = Array(page.lines[span.line])
            let text = String(line[span.start..<min(line.count, span.start + span.count)])
            return (span.bold ? "b" : "") + (span.underline ? "u" : "") + ":" + text
        }
    }

    @Test func strongAndBAreBoldUAndLinksUnderlinedEmAndIPlain() {
        #expect(
            runs("<p>A <strong>strong word</strong>, <b>bee</b>, <em>em</em> <i>eye</i> <u>under</u>, <ins>new</ins>.</p>")
                == ["b:strong word", "b:bee", "u:under", "u:new"])
        // A link's text is underlined, its number is not.
        #expect(runs("<p>See <a href=\"/a\">the first page</a> now</p>") == ["u:the first page"])
        #expect(runs("<p><a href=\"/a\"><b>both</b> and</a></p>") == ["bu:both", "u: and"])
        // A link that is not numbered is not underlined either.
        #expect(runs("<p><a href=\"javascript:x()\">script</a> <a name=top>anchor</a></p>").isEmpty)
    }

    @Test func runsFollowWrappingListsAndQuotes() {
        let html = "<ul><li>one <b>two three four five six seven</b> eight</li></ul><blockquote><p><u>quoted</u></p></blockquote>"
        let page = HTMLText.render(html, width: 16)
        let bold = page.spans.filter(\.bold).map { span in
            String(Array(page.lines[span.line])[span.start..<span.start + span.count])
        }
        #expect(bold.joined(separator: " ") == "two three four five six seven", "\(page.lines) \(page.spans)")
        #expect(runs(html, width: 16).last == "u:quoted")
        // Each span stays on its line.
        for span in page.spans { #expect(span.start + span.count <= page.lines[span.line].count) }
    }

    @Test func wideCharactersAndTextOutsideEmphasisKeepTheirPlace() {
        #expect(runs("<p>日本語の<b>太字</b>と<u>下線</u></p>") == ["b:太字", "u:下線"])
        #expect(runs("<p>no emphasis at all</p>").isEmpty)
        // An unclosed <b> goes on, as in a browser; a stray </b> changes nothing.
        #expect(runs("<p>a</b> <b>b</p><p>c</p>") == ["b:b", "b:c"])
    }
}
