import Dispatch
import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's navigation on the demo feeds (Zeader News 3 of 4 unread, Swift on Linux 3/3,
/// World Scripts 3/3, then the smart feed "Unread about Swift").
@Suite struct NavigationTests {
    /// The title of the article on screen ("" when none).
    func articleTitle(_ h: Harness) -> String {
        h.queue.sync { h.app.state.article?.title ?? "" }
    }

    func listTitle(_ h: Harness) -> String { h.queue.sync { h.app.state.items?.title ?? "" } }

    @Test func nextUnreadCrossesFeedsAndWraps() throws {
        let h = try Harness()
        h.type(.character("n"))
        #expect(listTitle(h) == "Zeader News")
        #expect(articleTitle(h) == "Welcome to Zeader")
        h.type(.character("n"), .character("n"))
        #expect(articleTitle(h) == "Safe by default: no escape sequences from feeds")
        // Zeader News has no unread left: n goes on to the next feed's first unread item.
        h.type(.character("n"))
        #expect(listTitle(h) == "Swift on Linux")
        #expect(articleTitle(h) == "Strict concurrency in a terminal app")
        #expect(h.screen.contains("Title: Strict concurrency in a terminal app"))
        h.type(.character("n"), .character("n"), .character("n"), .character("n"), .character("n"))
        #expect(listTitle(h) == "世界の文字 · World Scripts")
        #expect(h.type(.character("n")).contains("No more unread items"))
        // One item of the first feed unread again: n from the last feed wraps round to it.
        let newsID = try #require(h.queue.sync { h.app.state.feeds[0].serverID })
        try h.queue.sync {
            let first = try h.app.model.itemIDs(.server(newsID))[0]
            try h.app.model.setRead(first, false)
        }
        h.type(.character("n"))
        #expect(listTitle(h) == "Zeader News")
        #expect(articleTitle(h) == "Welcome to Zeader")
    }

    @Test func previousUnreadGoesBackAcrossFeeds() throws {
        let h = try Harness()
        h.type(.character("j"), .enter)  // Swift on Linux
        #expect(listTitle(h) == "Swift on Linux")
        h.type(.character("p"))
        #expect(articleTitle(h) == "Strict concurrency in a terminal app")
        // Nothing before it in this feed: p goes to the previous feed's last unread item.
        h.type(.character("p"))
        #expect(listTitle(h) == "Zeader News")
        #expect(articleTitle(h) == "Safe by default: no escape sequences from feeds")
    }

    @Test func readItemsStayInAnUnreadOnlyListUntilItIsLeft() throws {
        var config = ReaderConfig()
        config.smartFeeds = [.init(title: "Unread", predicateFormat: "read == NO")]
        let h = try Harness(config: config)
        h.type(.end, .enter)  // the smart feed of every unread item
        let before = h.queue.sync { h.app.state.items?.ids ?? [] }
        #expect(before.count >= 2)
        // Opening marks read; back in the list the item is still there, under the cursor.
        h.type(.enter, .character("q"))
        #expect(h.queue.sync { h.app.state.items?.ids } == before)
        #expect(h.queue.sync { h.app.state.items?.position.cursor } == 0)
        #expect(h.line(1).hasPrefix("  "))  // shown read
        // n from the list goes to the next unread item, never skipping one.
        h.type(.character("n"))
        #expect(h.queue.sync { h.app.state.article?.itemID } == before[1])
        h.type(.character("q"))
        // N twice toggles the same item.
        h.type(.character("N"))
        #expect(h.queue.sync { h.app.model.isRead(before[1]) } == false)
        h.type(.character("N"))
        #expect(h.queue.sync { h.app.model.isRead(before[1]) } == true)
        #expect(h.queue.sync { h.app.state.items?.position.cursor } == 1)
        // Leaving and coming back runs the query again: the read items are gone.
        h.type(.character("q"), .enter)
        #expect(h.queue.sync { h.app.state.items?.ids.count } == before.count - 2)
    }

    @Test func capitalJAndKGoToTheNextItemOrFeed() throws {
        let h = try Harness()
        h.type(.enter, .enter)
        #expect(articleTitle(h) == "Welcome to Zeader")
        h.type(.character("J"))
        #expect(articleTitle(h) == "Search like iTunes")
        h.type(.character("K"))
        #expect(articleTitle(h) == "Welcome to Zeader")
        #expect(h.type(.character("K")).contains("No previous item"))
        // From the item list, J and K go to the next and previous feed.
        h.type(.character("q"), .character("J"))
        #expect(listTitle(h) == "Swift on Linux")
        h.type(.character("K"))
        #expect(listTitle(h) == "Zeader News")
        #expect(h.type(.character("K")).contains("No previous feed"))
        // ^N goes to the next feed with unread items.
        h.type(.control("n"))
        #expect(listTitle(h) == "Swift on Linux")
    }

    @Test func randomUnreadOpensAnUnreadItemInItsFeed() throws {
        let h = try Harness()
        h.type(.control("k"))
        let id = try #require(h.queue.sync { h.app.state.article?.itemID })
        #expect(h.queue.sync { h.app.state.items?.selectedID } == id)
        #expect(h.queue.sync { h.app.model.isRead(id) })
        // With everything read, it says so.
        h.type(.character("q"), .character("q"), .character("C"), .control("k"))
        #expect(h.screen.contains("No unread items"))
    }

    @Test func capitalOOpensTheLinkAndMarksTheItemRead() throws {
        var config = ReaderConfig()
        config.browser = "true"
        let h = try Harness(config: config)
        h.type(.enter)
        let id = try #require(h.queue.sync { h.app.state.items?.selectedID })
        #expect(h.queue.sync { h.app.model.isRead(id) } == false)
        #expect(h.type(.character("O")).contains("Opened https://zeader.example/welcome"))
        #expect(h.queue.sync { h.app.model.isRead(id) })
        #expect(h.line(1).hasPrefix("  "))
    }

    @Test func unknownKeysSaySo() throws {
        let h = try Harness()
        #expect(h.type(.character("X")).contains("Key X is not bound (? lists the keys)"))
    }

    @Test func helpListsNewsboatActionsWithTheirKeys() throws {
        let lines = HelpView.lines(keyMap: .default)
        #expect(lines.contains { $0.hasPrefix("p ") && $0.contains("previous unread") })
        #expect(lines.contains { $0.hasPrefix("^K") && $0.hasSuffix("random unread item [random-unread]") })
        #expect(lines.contains { $0.hasPrefix("l ") && $0.contains("feeds without unread") })
        #expect(lines.contains { $0.hasPrefix("g ") && $0.contains("Sort") })
        #expect(lines.contains { $0.hasPrefix("O ") && $0.contains("mark the item read") })
    }
}
