import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderTUI

@Suite struct ReaderFlagTests {
    func flaggedCount(_ h: Harness) throws -> Int {
        try h.queue.sync {
            try FeedItem.count(where: try ObjectGraph.Predicate(format: "flagged == YES"), in: h.store.container.viewContext)
        }
    }

    @Test func starTogglesTheFlagShowsItAndIsUndoable() throws {
        #expect(KeyMap.default.action(for: .character("*")) == .toggleFlag)
        let h = try Harness()
        h.type(.enter)  // Zeader News
        #expect(h.line(1).hasPrefix("N "))
        h.type(.character("*"))
        #expect(h.line(1).hasPrefix("N*"))
        #expect(h.screen.contains("Flagged"))
        #expect(try flaggedCount(h) == 1)
        h.type(.character("u"))
        #expect(h.line(1).hasPrefix("N "))
        #expect(try flaggedCount(h) == 0)
        h.type(.control("r"))
        #expect(h.line(1).hasPrefix("N*"))
        // From the article too, and the flag outlives reading it.
        h.type(.enter, .character("*"), .character("q"))
        #expect(h.line(1).hasPrefix(" "))
        #expect(!h.line(1).hasPrefix(" *"))
        #expect(try flaggedCount(h) == 0)
        // On the feed list the key does nothing.
        h.type(.character("q"), .character("*"))
        #expect(try flaggedCount(h) == 0)
    }
}
