import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's directives of how lists move and sort, and `download-full-page`, as real
/// configs write them.
@Suite struct NewsboatListDirectivesTests {
    @Test func feedSortOrderReadsDateAndAnyDirectionAsNewsboatDoes() throws {
        #expect(try FeedSortOrder(newsboat: "date-desc") == FeedSortOrder(field: .lastupdated, ascending: false))
        #expect(try FeedSortOrder(newsboat: "Date-asc") == FeedSortOrder(field: .lastupdated, ascending: true))
        // Any direction but asc is descending.
        #expect(try FeedSortOrder(newsboat: "title-dec") == FeedSortOrder(field: .title, ascending: false))
        #expect(try FeedSortOrder(newsboat: "title") == FeedSortOrder(field: .title, ascending: true))
        #expect(throws: ReaderConfigError.Message.self) { try FeedSortOrder(newsboat: "size-desc") }
        let config = try ReaderConfig.parse("feed-sort-order date-desc", file: "config")
        #expect(config.warnings.isEmpty)
        #expect(config.views.feedOrder == FeedSortOrder(field: .lastupdated, ascending: false))
    }

    @Test func downloadFullPageIsTheFullArticleOfEveryFeed() throws {
        #expect(try ReaderConfig.parse("download-full-page yes", file: "c").fullArticleScopes == [.all])
        #expect(try ReaderConfig.parse("download-full-page no", file: "c").fullArticleScopes == [])
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("download-full-page maybe", file: "c") }
    }

    @Test func scrolloffKeepsRowsBeyondTheCursor() {
        var position = ListPosition()
        let scrolling = ListScrolling(scrolloff: 3)
        for _ in 0..<7 { position.move(by: 1, count: 100, height: 10, scrolling: scrolling) }
        // Cursor on row 7 of a 10-row window: rows 8, 9, 10 stay in view below it.
        #expect(position.cursor == 7 && position.top == 1)
        for _ in 0..<3 { position.move(by: -1, count: 100, height: 10, scrolling: scrolling) }
        #expect(position.cursor == 4 && position.top == 1)
        position.move(by: -1, count: 100, height: 10, scrolling: scrolling)
        #expect(position.cursor == 3 && position.top == 0)
        // A huge scrolloff keeps the cursor in the middle; the list's ends still show no blank rows.
        var middle = ListPosition()
        for _ in 0..<20 { middle.move(by: 1, count: 100, height: 9, scrolling: ListScrolling(scrolloff: 10_000)) }
        #expect(middle.cursor - middle.top == 4)
        middle.move(by: Int.max / 2, count: 100, height: 9, scrolling: ListScrolling(scrolloff: 10_000))
        #expect(middle.cursor == 99 && middle.top == 91)
        // Without it the window scrolls at its edge.
        var plain = ListPosition()
        for _ in 0..<7 { plain.move(by: 1, count: 100, height: 10, scrolling: ListScrolling()) }
        #expect(plain.top == 0)
    }

    @Test func wrapScrollGoesRoundOneStepPastEitherEnd() {
        var position = ListPosition()
        let wraps = ListScrolling(wraps: true)
        position.move(by: -1, count: 5, height: 3, scrolling: wraps)
        #expect(position.cursor == 4 && position.top == 2)
        position.move(by: 1, count: 5, height: 3, scrolling: wraps)
        #expect(position.cursor == 0 && position.top == 0)
        // A page stops at the end; without wrap-scroll a step does too.
        position.move(by: 10, count: 5, height: 3, scrolling: wraps)
        #expect(position.cursor == 4)
        position.move(by: 1, count: 5, height: 3, scrolling: ListScrolling())
        #expect(position.cursor == 4)
    }

    @Test func theReaderMovesWithTheConfigsScrolling() throws {
        let h = try Harness(width: 100, config: try ReaderConfig.parse("wrap-scroll yes", file: "config"))
        h.type(.character("k"))
        let feeds = h.queue.sync { h.app.state.feeds.count }
        #expect(h.queue.sync { h.app.state.feedPosition.cursor } == feeds - 1)
        h.type(.character("j"))
        #expect(h.queue.sync { h.app.state.feedPosition.cursor } == 0)
        let plain = try Harness(width: 100)
        plain.type(.character("k"))
        #expect(plain.queue.sync { plain.app.state.feedPosition.cursor } == 0)
    }
}
