import Foundation
import Testing

@testable import Feeds

/// The pictures of a rendered page: each http(s) `<img>` with its alt text, the line it stands
/// at and its tag's size; the lines themselves as without them.
@Suite("HTML to text: pictures")
struct RenderedImagesTests {
    private let base = URL(string: "https://example.org/blog/post.html")

    @Test func eachPictureGoesAfterTheLastLineOfItsParagraph() {
        let page = HTMLText.render(
            "<p>First paragraph.</p><p>Some words <img src=\"a.png\" alt=\"A chart\" width=\"320\" height=\" 200 \"> and more words that wrap here.</p><p>Last.</p>",
            width: 20, baseURL: base)
        #expect(page.images.count == 1)
        let image = page.images[0]
        #expect(image.url == "https://example.org/blog/a.png")
        #expect(image.alt == "A chart")
        #expect(image.width == 320 && image.height == 200)
        #expect(page.lines[image.line].hasSuffix("here."))
        #expect(page.lines[image.line + 1].isEmpty)
        #expect(page.lines.joined(separator: " ").contains("[image: A chart]"))
    }

    @Test func onlyHTTPPicturesOutsideTablesAndPreformattedText() {
        let page = HTMLText.render(
            """
            <p><img src="data:image/png;base64,AAAA" alt="inline"><img src="javascript:x()"><img src="file:///etc/passwd">\
            <img alt="no source"><img src="ftp://a.example/x.png"></p>
            <table><tr><td><img src="https://a.example/cell.png"></td></tr></table>
            <pre>code <img src="https://a.example/pre.png"></pre>
            <video><img src="https://a.example/fallback.png"></video>
            <p><img src="HTTPS://A.example/ok.png" alt="ok"></p>
            """, width: 40, baseURL: base)
        #expect(page.images.map(\.alt) == ["ok"])
    }

    @Test func picturesAtTheEndOrInHeadingsStayWithinTheLines() {
        for html in ["<h1><img src=\"/h.png\" alt=\"h\"></h1>", "<img src=\"/x.png\">", "<p>t</p><img src=\"/y.png\"><br><br>"] {
            let page = HTMLText.render(html, width: 30, baseURL: base)
            #expect(page.images.count == 1, "\(html)")
            #expect(page.images.allSatisfy { page.lines.indices.contains($0.line) }, "\(html)")
        }
    }

    @Test func hostileSizesAreClamped() {
        let page = HTMLText.render(
            "<img src=\"/x.png\" width=\"99999999999999999999\" height=\"-5\"><img src=\"/y.png\" width=\"50%\">",
            width: 30, baseURL: base)
        #expect(page.images[0].width == nil && page.images[0].height == 1)
        #expect(page.images[1].width == nil)
    }

    @Test func textOnlyRenderingsHaveNoPictures() {
        #expect(HTMLText.renderTextOnly("<p><img src=\"https://a.example/x.png\"></p>", width: 30).images.isEmpty)
    }
}
