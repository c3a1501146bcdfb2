import Foundation
import Testing

@testable import Feeds

/// The article renderer on HTML-heavy fixtures (`Fixtures/html`), at 80 and 200 columns:
/// long code lines, tables, sup/sub, definition lists, rules.
@Suite struct HTMLRenderingFixtureTests {
    private let base = URL(string: "https://example.org/")

    private func render(_ name: String, width: Int) throws -> [String] {
        let html = String(decoding: try fixture("html/\(name).html"), as: UTF8.self)
        let lines = HTMLText.render(html, width: width, baseURL: base).lines
        for line in lines { #expect(DisplayWidth.of(line) <= width, "\(name) at \(width): \(line)") }
        return lines
    }

    @Test func longCodeLinesWrapWithAContinuationMarkerAt80() throws {
        #expect(
            try render("code", width: 80) == [
                "Build it with:", "",
                "swift build -c release --product zeader -Xswiftc -enable-testing -Xlinker -rpath",
                "↪ =/usr/local/lib/swift/linux/very/long/path",
                "short line",
                "        let url = URL(string: \"https://example.org/a/very/long/path/that/keeps/g",
                "↪ oing/and/going/and/going/until/it/is/really/long\")!",
                "", "Then run zeader.",
            ])
    }

    @Test func codeLinesThatFitAreKeptAt200() throws {
        let lines = try render("code", width: 200)
        #expect(lines.count == 7)
        #expect(!lines.contains { $0.hasPrefix("↪") })
        #expect(lines[2].hasSuffix("-rpath=/usr/local/lib/swift/linux/very/long/path"))
    }

    @Test func tableInAlignedColumnsWrappingTheWidestAt80() throws {
        #expect(
            try render("table", width: 80) == [
                "Benchmarks:", "",
                "Start-up time by store size",
                "Items   | Zeader | newsboat | Notes",
                "--------+--------+----------+---------------------------------------------------",
                "  1,000 | 0.02 s |   0.14 s | cold cache",
                "  9,000 | 0.09 s |   1.09 s | the first screen of a reader with a hundred feeds,",
                "        |        |          | measured with hyperfine over ten runs",
                "100,000 | 0.10 s |   12.3 s | details[1]",
                "", "After the table.", "", "Links:", "[1] https://example.org/bench",
            ])
    }

    @Test func tableAtItsNaturalWidthAt200() throws {
        let lines = try render("table", width: 200)
        #expect(
            lines[6]
                == "  9,000 | 0.09 s |   1.09 s | the first screen of a reader with a hundred feeds, measured with hyperfine over ten runs"
        )
        #expect(lines[7] == "100,000 | 0.10 s |   12.3 s | details[1]")
    }

    @Test func supSubDefinitionListAndRule() throws {
        for width in [80, 200] {
            let lines = try render("supsub", width: width)
            let text = lines.joined(separator: " ")
            #expect(text.contains("2^16 = 65536"))
            #expect(text.contains("H[2]O"))
            #expect(text.contains("101[2]."))
            #expect(text.contains("footnote^1. E = mc^2."))
            let term = try #require(lines.firstIndex(of: "Feed"))
            #expect(lines[term + 1] == "    A document listing a site's recent items.")
            #expect(lines.contains(String(repeating: "-", count: 40)))
        }
    }
}

@Suite struct HTMLTableLayoutTests {
    private func lines(_ html: String, width: Int = 40) -> [String] {
        HTMLText.render(html, width: width).lines
    }

    @Test func headerRuleOnlyUnderHeaderRowsFollowedByData() {
        #expect(lines("<table><tr><th>k<th>v<tr><td>a<td>b</table>") == ["k | v", "--+--", "a | b"])
        #expect(lines("<table><tr><td>a<td>bb<tr><td>ccc<td>d</table>") == ["a   | bb", "ccc | d"])
    }

    @Test func numericColumnsAlignRight() {
        #expect(lines("<table><tr><td>x<td>5<tr><td>yy<td>1,250</table>") == ["x  |     5", "yy | 1,250"])
    }

    @Test func cellsWithBlocksAndRaggedRows() {
        #expect(
            lines("<table><tr><td><p>one</p><p>two</p><td>x<tr><td>solo</table>") == ["one  | x", "two", "solo"])
    }

    @Test func narrowWidthWrapsEveryColumnWithinTheWidth() {
        let html = "<table><tr><td>alpha beta gamma delta<td>epsilon zeta eta theta iota</table>"
        let result = lines(html, width: 20)
        for line in result { #expect(DisplayWidth.of(line) <= 20, "\(line)") }
        #expect(result.joined(separator: " ").contains("alpha"))
        #expect(result.allSatisfy { $0.contains("|") })
    }

    @Test func tooManyColumnsFallBackToSeparatedRows() {
        let html = "<table><tr>" + (1...30).map { "<td>c\($0)" }.joined() + "</table>"
        let result = lines(html, width: 40)
        #expect(result.first?.hasPrefix("c1 | c2 | c3") == true)
        for line in result { #expect(DisplayWidth.of(line) <= 40) }
    }

    @Test func nestedTablesAreFlattenedIntoTheOuterCell() {
        #expect(
            lines("<table><tr><td>a<td><table><tr><td>in1<td>in2</table></table>after")
                == ["a | in1", "  | in2", "", "after"])
    }

    @Test func unclosedTableIsLaidOutAtTheEnd() {
        #expect(lines("<table><tr><td>a<td>b") == ["a | b"])
    }

    @Test func columnWidthsShareTheRoom() {
        #expect(HTMLTable.columnWidths(natural: [5, 10], longestWord: [5, 3], room: 20) == [5, 10])
        #expect(HTMLTable.columnWidths(natural: [5, 30], longestWord: [5, 6], room: 20) == [5, 15])
        #expect(HTMLTable.columnWidths(natural: [30, 30], longestWord: [20, 20], room: 20) == [10, 10])
    }

    @Test func wrapCodeMarksContinuations() {
        #expect(HTMLRenderer.wrapCode("abcdefghij", width: 8) == ["abcdefgh", "↪ ij"])
        #expect(HTMLRenderer.wrapCode("abcdefghijklmnop", width: 8) == ["abcdefgh", "↪ ijklmn", "↪ op"])
        #expect(HTMLRenderer.wrapCode("abcdef", width: 4) == ["abcd", "ef"])
        #expect(HTMLRenderer.wrapCode("日本語日本語日本語", width: 9) == ["日本語日", "↪ 本語日", "↪ 本語"])
        #expect(HTMLRenderer.wrapCode("short", width: 80) == ["short"])
    }
}
