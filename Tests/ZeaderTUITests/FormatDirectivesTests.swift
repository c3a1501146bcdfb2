import Foundation
import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// A newsboat config's format directives in the reader: the lists' rows, the title bars,
/// the dates and the article's width, as the config writes them.
@Suite struct FormatDirectivesTests {
    private func harness(_ text: String, width: Int = 100) throws -> Harness {
        try Harness(width: width, config: try ReaderConfig.parse(text, file: "config"))
    }

    @Test func feedListFormatGivesIndexNumbersAndNewsboatsColumns() throws {
        let h = try harness("feedlist-format \"%4i %n %11u %t\"\nfeedlist-title-format \"%N - %U unread in %t feeds\"")
        _ = h.screen
        #expect(h.line(0).hasPrefix("Zeader - 9 unread in 3 feeds"))
        #expect(h.line(1).hasPrefix("   1 N       (3/4) Zeader News"))
        #expect(h.line(2).hasPrefix("   2 N       (3/3) Swift on Linux"))
        #expect(h.line(3).contains("   3 ") && h.line(3).contains("世界の文字 · World Scripts"))
    }

    @Test func articleListFormatAndDatetimeFormat() throws {
        let h = try harness(
            """
            articlelist-format "%4i %f %D %-10a|%t"
            datetime-format "%Y/%m/%d"
            articlelist-title-format "Items of '%T' (%u unread, %t total)"
            """)
        h.type(.character("j"), .enter)
        #expect(h.line(0).hasPrefix("Items of 'Swift on Linux' (3 unread, 3 total)"))
        #expect(h.line(1).hasPrefix("   1 N  2026/11/21 "))
        #expect(h.line(1).contains("|Strict concurrency"))
    }

    @Test func datetimeFormatAloneChangesZeadersOwnDateColumn() throws {
        let h = try harness("datetime-format \"%d.%m.%Y\"")
        h.type(.character("j"), .enter)
        #expect(h.line(1).hasPrefix("N 21.11.2026  Strict concurrency"))
    }

    @Test func itemviewTitleFormat() throws {
        let h = try harness("itemview-title-format \"%F: %T\"")
        h.type(.character("j"), .enter, .down, .enter)
        #expect(h.line(0).hasPrefix("Swift on Linux: A Core Data-style stack without Apple platforms"))
    }

    @Test func textWidthWrapsTheArticle() throws {
        let wide = try harness("", width: 100)
        let narrow = try harness("text-width 40", width: 100)
        for h in [wide, narrow] { h.type(.character("j"), .enter, .down, .enter) }
        let wideLines = wide.screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces).count }
        let narrowLines = narrow.screen.split(separator: "\n").dropFirst(6).dropLast().map {
            $0.trimmingCharacters(in: .whitespaces).count
        }
        #expect(wideLines.contains { $0 > 40 })
        #expect(narrowLines.allSatisfy { $0 <= 40 })
        // 0 is the terminal's width; a width past any terminal is the terminal's too.
        #expect(try ReaderConfig.parse("text-width 0", file: "c").formats.articleWidth(terminalColumns: 90) == 90)
        #expect(
            try ReaderConfig.parse("text-width 99999999999999999999999", file: "c").formats.articleWidth(terminalColumns: 90)
                == 90)
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("text-width -3", file: "c") }
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("text-width wide", file: "c") }
    }

    @Test func theDirectivesAreHonouredWithoutWarnings() {
        let text = """
            feedlist-format "%4i %n %11u %t"
            articlelist-format "%4i %f %D %6L  %?T?|%-17T|  ?%t"
            feedlist-title-format "%N %V - %?F?Feeds&Your feeds? (%u unread, %t total)%?F? matching filter '%F'&?%?T? - tag '%T'&?"
            articlelist-title-format "%N %V - Articles in feed '%T' (%u unread, %t total)%?F? matching filter '%F'&? - %U"
            itemview-title-format "%N %V - Article '%T' (%u unread, %t total)"
            datetime-format "%D, %R"
            text-width 72
            """
        #expect(ReaderConfig.check(text, file: "c").isEmpty)
    }

    @Test func aFieldTheDirectiveLacksIsAWarningNamingIt() throws {
        let config = try ReaderConfig.parse("feedlist-format \"%4i %Q %t\"\narticlelist-format \"%?a?%a\"", file: "c")
        #expect(config.warnings.map(\.message).contains("feedlist-format: %Q is not one of its fields (shown empty)"))
        #expect(config.warnings.map(\.message).contains { $0.hasPrefix("articlelist-format: the conditional '%?'") })
        #expect(config.formats.feedList != nil)
    }
}
