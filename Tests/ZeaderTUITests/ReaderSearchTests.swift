import Foundation
import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// `/` searches the feed shown (TAB widens it to every feed), phrases and exact titles
/// work as in ``ItemSearch``, and `A` on search results marks exactly those read, as one
/// undoable step.
@Suite struct ReaderSearchTests {
    @Test func slashInAFeedSearchesThatFeed() throws {
        let h = try Harness()
        h.type(.enter)  // Zeader News
        var screen = h.type(.character("/"))
        #expect(screen.contains("Search Zeader News (TAB: all): _"))
        screen = h.type(text: "swift")
        screen = h.type(.enter)
        // "Swift" appears in items of Swift on Linux, but none of Zeader News's titles or summaries.
        #expect(h.line(0).contains("Search Zeader News: swift"))
        #expect(!screen.contains("Café talk"))
    }

    @Test func tabWidensTheSearchToEveryFeed() throws {
        let h = try Harness()
        h.type(.character("j"), .enter)  // Swift on Linux
        h.type(.character("/"))
        h.type(text: "zeader")
        var screen = h.type(.tab)
        #expect(screen.contains("Search: zeader_"))
        screen = h.type(.enter)
        #expect(screen.contains("Welcome to Zeader"))
        #expect(screen.contains("(Zeader News)"))
    }

    @Test func feedScopeFindsOnlyThatFeedsItems() throws {
        let h = try Harness()
        h.type(.character("j"), .enter)  // Swift on Linux
        h.type(.character("/"))
        h.type(text: "swift")
        let screen = h.type(.enter)
        #expect(screen.contains("Café talk: Swift and ncurses"))
        #expect(!screen.contains("Welcome to Zeader"))
        let app = h.app
        let ids = h.queue.sync { app.state.items?.ids ?? [] }
        #expect(!ids.isEmpty)
        let feeds = h.queue.sync { Set(ids.compactMap { app.model.itemRow($0)?.feedTitle }) }
        #expect(feeds == ["Swift on Linux"])
    }

    @Test func quotedPhraseInTheReader() throws {
        let h = try Harness()
        h.type(.character("/"))
        h.type(text: "\"undo is one\"")
        let screen = h.type(.enter)
        #expect(screen.contains("Undo is one key away"))
        #expect(screen.contains("1 items match"))
        h.type(.escape)
        h.type(.character("q"))
        h.type(.character("/"))
        h.type(text: "\"one undo\"")
        #expect(h.type(.enter).contains("No items match"))
    }

    @Test func markAllSearchResultsReadIsOneUndoStep() throws {
        let h = try Harness()
        #expect(h.line(0).contains("(9 unread)"))
        h.type(.character("/"))
        h.type(text: "a")
        h.type(.enter)
        let app = h.app
        let count = h.queue.sync { app.state.items?.ids.count ?? 0 }
        #expect(count >= 2)
        let unreadListed = h.queue.sync { app.state.items?.ids.filter { !app.model.isRead($0) }.count ?? 0 }
        #expect(unreadListed >= 2)
        var screen = h.type(.character("A"))
        #expect(screen.contains("Marked \(unreadListed) items read (z to undo)"))
        #expect(!screen.contains("Mark read works on a feed"))
        h.type(.character("q"))
        #expect(h.line(0).contains("(\(9 - unreadListed) unread)"))
        screen = h.type(.character("z"))
        #expect(h.line(0).contains("(9 unread)"))
    }
}
