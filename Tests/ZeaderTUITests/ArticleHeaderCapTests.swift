import Feeds
import Foundation
import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// Feed text cannot push the article's body off its first screen: each header field takes
/// a few lines at most (ending in `…` when cut), fewer on a short screen, and a flood of
/// enclosures is counted, not listed.
@Suite struct ArticleHeaderCapTests {
    static let flood = String(repeating: "Lorem ipsum dolor sit amet ", count: 400)  // about 10,000 columns

    /// The demo's first article with `change` applied, drawn at `width`×`height`; the screen's
    /// lines and the first line of the body.
    private func screen(width: Int, height: Int, _ change: (inout ArticleState) -> Void) throws -> ([String], String) {
        let (state, lines) = try articleScreen(width: width, height: height, change)
        let body = try #require(state.article?.lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
        return (lines, body)
    }

    /// The lines of the field labelled `label`: its first line and the indented ones after it.
    private func field(_ label: String, in lines: [String]) -> [String] {
        guard let start = lines.firstIndex(where: { $0.hasPrefix(label) }) else { return [] }
        var result = [lines[start]]
        let indent = String(repeating: " ", count: label.count)
        for line in lines[(start + 1)...] {
            guard line.hasPrefix(indent), !line.trimmingCharacters(in: .whitespaces).isEmpty else { break }
            result.append(line)
        }
        return result
    }

    @Test(arguments: [(80, 24), (200, 60), (40, 12), (30, 8)])
    func aTenThousandColumnValueTakesAFewLinesAndTheBodyShows(size: (width: Int, height: Int)) throws {
        for (label, apply) in [
            ("Title: ", { (a: inout ArticleState) in a.title = Self.flood }),
            ("Feed: ", { (a: inout ArticleState) in a.feedTitle = Self.flood }),
            ("Author: ", { (a: inout ArticleState) in a.author = Self.flood }),
            ("Link: ", { (a: inout ArticleState) in a.link = "https://x.example/" + String(repeating: "x", count: 10_000) }),
        ] as [(String, (inout ArticleState) -> Void)] {
            let (lines, body) = try screen(width: size.width, height: size.height, apply)
            let shown = field(label, in: lines)
            #expect(!shown.isEmpty && shown.count <= ArticleHeader.maxFieldLines, "\(label) at \(size)")
            #expect(shown.last?.trimmingCharacters(in: .whitespaces).hasSuffix("…") == true, "\(label) at \(size)")
            for line in lines { #expect(DisplayWidth.of(line) <= size.width) }
            if size.height >= 12 {
                let bodyStart = String(body.trimmingCharacters(in: .whitespaces).prefix(10))
                #expect(lines.contains { $0.contains(bodyStart) }, "\(label) at \(size): the body is not on screen")
            }
        }
    }

    @Test func everyFieldLongAtOnceStillLeavesHalfTheScreenToTheBody() throws {
        let (lines, body) = try screen(width: 80, height: 24) {
            $0.title = Self.flood
            $0.feedTitle = Self.flood
            $0.author = Self.flood
            $0.link = "https://x.example/" + String(repeating: "y", count: 10_000)
        }
        let bodyStart = String(body.trimmingCharacters(in: .whitespaces).prefix(10))
        let row = try #require(lines.firstIndex { $0.contains(bodyStart) })
        #expect(row <= 1 + 22 / 2 + 1)  // the title bar, half the article's rows, the blank line
    }

    @Test func aFloodOfEnclosuresIsCounted() throws {
        let (lines, _) = try screen(width: 100, height: 30) {
            $0.enclosures = (0..<500).map { ArticleEnclosure(url: "https://x.example/\($0).mp3") }
        }
        #expect(lines.filter { $0.hasPrefix("Enclosure: ") }.count == ArticleHeader.maxEnclosures + 1)
        #expect(lines.contains("Enclosure: and 497 more"))
    }

    @Test func scrollingToTheBottomAgreesWithTheCappedHeader() throws {
        let h = try Harness(width: 80, height: 24)
        h.type(.enter, .enter)
        var state = h.queue.sync { h.app.state }
        var article = try #require(state.article)
        article.title = Self.flood
        state.article = article
        state.move(.bottom)
        let header = ArticleHeader.height(try #require(state.article), width: 80, rows: state.listHeight)
        #expect(header <= state.listHeight / 2 + 1)
        let scrolled = try #require(state.article)
        #expect(scrolled.scroll == max(0, scrolled.lines.count + header - state.listHeight))
    }

    @Test func invisibleControlsInFeedTextDoNotReachTheScreen() throws {
        let (lines, _) = try screen(width: 80, height: 24) {
            $0.title = "\u{FEFF}Safe\u{200F} title\u{E0041}\u{E0042}"
            $0.author = "A\u{061C}uthor\u{200E}"
        }
        #expect(lines.first?.hasSuffix("Safe title") == true)  // the title bar
        #expect(lines.contains { $0.hasPrefix("Title: Safe title") })
        #expect(lines.contains { $0.hasPrefix("Author: Author") })
        let screenText = lines.joined()
        let invisible: [Unicode.Scalar] = ["\u{FEFF}", "\u{200F}", "\u{200E}", "\u{061C}", "\u{E0041}"]
        #expect(!screenText.unicodeScalars.contains(where: invisible.contains))
    }
}
