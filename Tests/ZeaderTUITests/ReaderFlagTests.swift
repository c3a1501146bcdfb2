import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

@Suite struct ReaderFlagTests {
    func flaggedCount(_ h: Harness) throws -> Int {
        try h.queue.sync {
            try FeedItem.count(where: try ObjectPredicate(format: "flagged == YES"), in: h.store.container.viewContext)
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
        h.type(.character("z"))
        #expect(h.line(1).hasPrefix("N "))
        #expect(try flaggedCount(h) == 0)
        h.type(.character("Z"))
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

@Suite struct FeedTagsInTheReaderTests {
    @Test func feedListShowsTagsAndSmartFeedsFilterByThem() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let a = context.insert(Server.self)
            a.url = "https://a.example/feed"
            a.title = "Alpha"
            a.tags = FeedTags.normalized(["news", "linux"])
            let item = context.insert(FeedItem.self)
            item.guid = "1"
            item.server = a
            let b = context.insert(Server.self)
            b.url = "https://b.example/feed"
            b.title = "Beta"
            b.displayOrder = 1
            try context.save()
        }
        let model = ReaderModel(
            store: store, smartFeeds: [.init(title: "Linux", predicateFormat: "server.tags CONTAINS[c] \"linux\"")])
        let rows = try context.performAndWait { () throws in try model.feedRows() }
        #expect(rows.map(\.title) == ["Alpha [linux, news]", "Beta", "Linux"])
        #expect(rows[2].total == 1)
    }
}
