import Feeds
import Foundation
import Testing

@testable import ZeaderConfig

/// newsboat's format strings, parsed and rendered without a screen: every kind of field,
/// width, fill and conditional, in columns (wide characters count two).
@Suite struct FormatStringTests {
    private let values: [Character: String] = [
        "i": "7", "n": "N", "t": "Swift on Linux", "u": "(3/9)", "T": "", "a": "Grace", "w": "日本語のニュース",
    ]
    private func render(_ format: String, width: Int = 0) -> String {
        FormatString(format).render(width: width) { values[$0] }
    }

    @Test func fieldsAreReplacedAndTextKept() {
        #expect(render("%i %n %t %u") == "7 N Swift on Linux (3/9)")
        #expect(render("[%a] 100%% done") == "[Grace] 100% done")
        #expect(render("%Z|%T|") == "||")  // a field without a value, or an unknown one: empty
        #expect(render("no fields") == "no fields")
        #expect(render("") == "")
    }

    @Test(arguments: [
        ("%4i", "   7"), ("%-4i", "7   "), ("%1i", "7"), ("%-6t", "Swift "), ("%6t", "Swift "), ("%=9a", "  Grace  "),
        ("%=3a", "Gra"), ("%-10w", "日本語のニ"), ("%9w", " 日本語の"), ("%-9w", "日本語の "), ("%=12w", "日本語のニュ"),
        ("%0t", "Swift on Linux"),
    ])
    func widthsPadAndCutInColumns(format: String, expected: String) {
        #expect(render(format) == expected)
        #expect(DisplayWidth.of(expected) == DisplayWidth.of(render(format)))
    }

    @Test func aCentredFieldOfWidthZeroTakesTheLine() {
        #expect(render("%=0a", width: 9) == "  Grace  ")
    }

    @Test func fillPushesTheRestToTheRightEdge() {
        #expect(render("%t%> %u", width: 24) == "Swift on Linux     (3/9)")
        #expect(render("%i%>-%n", width: 6) == "7----N")
        // The head already fills the line: no filler, nothing cut (the screen cuts).
        #expect(render("%t%>.%u", width: 10) == "Swift on Linux(3/9)")
        // A second fill is plain text; without a width there is no gap.
        #expect(render("a%>.b%>:c", width: 8) == "a....b:c")
        #expect(render("a%>.b", width: 0) == "ab")
        // A wide fill character fills in its own columns; an odd column left is a space.
        #expect(render("a%>語b", width: 7) == "a語語 b")
    }

    @Test func conditionalsChooseByTheFieldsText() {
        #expect(render("%?a?by %a&anonymous?") == "by Grace")
        #expect(render("%?T?[%T]&no feed?") == "no feed")
        #expect(render("%?T?[%T]?%t") == "Swift on Linux")
        #expect(render("%?a?[%-7a]?|") == "[Grace  ]|")
        #expect(render("%?q?x&?y") == "y")
        // Blanks count as empty, as in newsboat.
        #expect(FormatString("%?b?yes&no?").render(width: 0) { $0 == "b" ? "  " : nil } == "no")
        // A fill inside a conditional works as outside.
        #expect(render("%i%?a?%>.%a?", width: 10) == "7....Grace")
        // Nested conditionals.
        #expect(render("%?a?%?T?both&only a?&none?") == "only a")
    }

    @Test func newsboatsDefaultFormats() {
        let feed = FormatString("%4i %n %11u %t").render(width: 80) { values[$0] }
        #expect(feed == "   7 N       (3/9) Swift on Linux")
        let item = FormatString("%4i %f %D %6L  %?T?|%-17T|  ?%t").render(width: 80) {
            ["i": "12", "f": "N!", "D": "Dec 06", "t": "Title"][$0]
        }
        #expect(item == "  12 N! Dec 06         Title")
    }

    @Test func whatCannotBeReadIsTextAndAProblem() {
        let unclosed = FormatString("%?a?then")
        #expect(unclosed.render(width: 0) { values[$0] } == "%?a?then")
        #expect(unclosed.problems.count == 1)
        let trailing = FormatString("50%")
        #expect(trailing.render(width: 0) { _ in nil } == "50%")
        #expect(!trailing.problems.isEmpty)
        #expect(FormatString("%4").render(width: 0) { _ in nil } == "%4")
        #expect(FormatString("%4i %t").problems.isEmpty)
    }

    /// Formats of real newsboat configs that newsboat reads.
    @Test func fillWithoutACharacterAndAPercentEndingAConditional() {
        // `%>` last: the fill is blank.
        let fill = FormatString("%t %>")
        #expect(fill.problems.isEmpty)
        #expect(fill.render(width: 8) { values[$0] == nil ? nil : "ab" } == "ab      ")
        let right = FormatString("%3i. %t %> %T")
        #expect(right.render(width: 20) { ["i": "1", "t": "A", "T": "Feed"][$0] } == "  1. A          Feed")
        // newsboat ends a conditional's part at its first `?`: `%?u?*%?` is "*" when u is set.
        let unread = FormatString("%?u?*%?*| %-3i")
        #expect(unread.problems.isEmpty)
        #expect(unread.render(width: 0) { ["u": "N", "i": "7"][$0] } == "**| 7  ")
        #expect(unread.render(width: 0) { ["i": "7"][$0] } == "*| 7  ")
        #expect(FormatString("%?T?%-4T&none%?!").render(width: 0) { _ in nil } == "none!")
    }

    @Test func hugeWidthsAreBounded() {
        let text = FormatString("%99999999999999999999999t").render(width: 0) { _ in "x" }
        #expect(text.count == FormatString.widestField)
        #expect(FormatString("%-99999999999999999999999t").render(width: 0) { _ in "x" }.count == FormatString.widestField)
    }

    @Test func fieldsListsEveryLetterUsed() {
        #expect(FormatString("%?T?[%T] ?%4i %-9t%>.%u%%").fields == ["T", "i", "t", "u"])
    }

    @Test func datesFollowStrftimeWithNewsboatsDaysAgo() {
        let utc = TimeZone(identifier: "UTC")!
        let date = Date(timeIntervalSince1970: 1_733_443_200)  // 2024-12-06 00:00 UTC
        #expect(DateTimeFormat("%b %d").string(from: date, timeZone: utc) == "Dec 06")
        #expect(DateTimeFormat("%Y-%m-%d %H:%M").string(from: date, timeZone: utc) == "2024-12-06 00:00")
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        #expect(DateTimeFormat("%d %H").string(from: date, timeZone: tokyo) == "06 09")
        let now = date.addingTimeInterval(3 * 86_400 + 100)
        #expect(DateTimeFormat("%L").string(from: date, timeZone: utc, now: now) == "3 days ago")
        #expect(
            DateTimeFormat("%L (%a)").string(from: date, timeZone: utc, now: date.addingTimeInterval(86_400)) == "1 day ago (Fri)"
        )
        #expect(DateTimeFormat("100%% %").string(from: date, timeZone: utc) == "100% %")
        // Far dates keep a four-digit year; an endless pattern is cut, not grown.
        #expect(DateTimeFormat("%Y").string(from: .distantFuture, timeZone: tokyo) == "4001")
        #expect(DateTimeFormat("%Y").string(from: Date(timeIntervalSince1970: 1e12), timeZone: tokyo) == "9999")
        #expect(DateTimeFormat(String(repeating: "%Y", count: 1000)).string(from: date, timeZone: utc).count <= 256)
    }
}
