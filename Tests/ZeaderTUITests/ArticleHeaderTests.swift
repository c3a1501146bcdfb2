import Feeds
import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// The article's header wraps long values (a long `Link:` is cut, not lost at the edge)
/// and lists enclosures with their type and size.
@Suite struct ArticleHeaderTests {
    /// The demo's first article, with `change` applied, drawn at `width` columns.
    private func screen(width: Int, _ change: (inout ArticleState) -> Void) throws -> (AppState, [String]) {
        try articleScreen(width: width, height: 30, change)
    }

    @Test func longLinkWrapsUnderItsLabel() throws {
        let link = "https://example.org/" + String(repeating: "segment/", count: 12) + "end"
        let (_, lines) = try screen(width: 50) { $0.link = link }
        let start = try #require(lines.firstIndex { $0.hasPrefix("Link: https://example.org/") })
        var joined = ""
        var index = start
        while index < lines.count, lines[index].hasPrefix(index == start ? "Link: " : "      "),
            !lines[index].trimmingCharacters(in: .whitespaces).isEmpty
        {
            joined += lines[index].dropFirst(6).trimmingCharacters(in: .whitespaces)
            index += 1
        }
        #expect(joined == link)
        for line in lines { #expect(DisplayWidth.of(line) <= 50) }
    }

    @Test func longTitleWrapsAtWords() throws {
        let (_, lines) = try screen(width: 30) { $0.title = "A rather long title that cannot fit on one line" }
        #expect(lines.contains("Title: A rather long title"))
        #expect(lines.contains("       that cannot fit on one"))
        #expect(lines.contains("       line"))
    }

    @Test func enclosuresShowTypeAndSize() throws {
        let (_, lines) = try screen(width: 100) {
            $0.enclosures = [
                ArticleEnclosure(url: "https://x.example/ep1.mp3", type: "audio/mpeg", length: 12_345_678),
                ArticleEnclosure(url: "https://x.example/cover.jpg"),
            ]
        }
        #expect(lines.contains("Enclosure: https://x.example/ep1.mp3 (audio/mpeg, 12.3 MB)"))
        #expect(lines.contains("Enclosure: https://x.example/cover.jpg"))
    }

    @Test func scrollingReachesTheEndWithAWrappedHeader() throws {
        var (state, _) = try screen(width: 30) {
            $0.link = "https://example.org/" + String(repeating: "x", count: 200)
        }
        let header = ArticleHeader.height(try #require(state.article), width: 30)
        #expect(header > 7)
        state.move(.bottom)
        let article = try #require(state.article)
        #expect(article.scroll == max(0, article.lines.count + header - state.listHeight))
    }

    @Test func sizesForPeople() {
        #expect(ByteCount.text(0) == "0 bytes")
        #expect(ByteCount.text(812) == "812 bytes")
        #expect(ByteCount.text(999) == "999 bytes")
        #expect(ByteCount.text(1000) == "1.0 kB")
        #expect(ByteCount.text(4_200) == "4.2 kB")
        #expect(ByteCount.text(12_345_678) == "12.3 MB")
        #expect(ByteCount.text(999_999) == "1.0 MB")
        #expect(ByteCount.text(1_100_000_000) == "1.1 GB")
        #expect(ByteCount.text(Int64.max) == "9.2 EB")
    }

    /// The reader's article header and `zeader podcasts list` (``EnclosureSummary/headerLine``)
    /// show one enclosure with one size, at every unit and at each unit's edge.
    @Test func theReaderAndPodcastsListShowTheSameSize() {
        let lengths: [Int64] = [
            1, 999, 1000, 1023, 1024, 4_200, 999_949, 999_950, 1_048_576, 12_345_678, 12_400_000, 3 << 30, Int64.max,
        ]
        for length in lengths {
            let url = "https://x.example/a.mp3"
            let reader = ArticleEnclosure(url: url, type: "audio/mpeg", length: length).summary
            let podcasts = EnclosureSummary(url: url, type: "audio/mpeg", length: length).headerLine
            #expect("Enclosure: " + reader == podcasts, "length \(length)")
        }
        #expect(
            ArticleEnclosure(url: "https://x.example/a.mp3", type: "audio/mpeg", length: 12_400_000).summary
                == "https://x.example/a.mp3 (audio/mpeg, 12.4 MB)")
    }
}

/// The demo's first article with `change` applied and its body rendered again at `width`,
/// drawn at `width`×`height`: the state and the screen's lines.
func articleScreen(width: Int, height: Int, _ change: (inout ArticleState) -> Void) throws -> (AppState, [String]) {
    let h = try Harness(width: width, height: height)
    h.type(.enter, .enter)
    let app = h.app
    var state = h.queue.sync { app.state }
    var article = try #require(state.article)
    change(&article)
    let rendered = HTMLText.render(article.bodyHTML, width: width - 1, baseURL: article.baseURL)
    article.lines = rendered.lines
    article.links = rendered.links
    state.article = article
    let text = ReaderView.render(state, keyMap: .default).text
    return (state, text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
}
