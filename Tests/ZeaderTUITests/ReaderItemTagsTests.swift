import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// `T` (edit-tags) edits the item's own tags from the item list or the article view, as one
/// undo step; the article's header shows them.
@Suite struct ReaderItemTagsTests {
    func tags(_ h: Harness, _ id: ObjectID) -> String? {
        h.queue.sync { (try? h.app.model.context.existingObject(with: id) as? FeedItem)?.tags }
    }

    @Test func capitalTEditsTheItemsTagsUndoably() throws {
        let h = try Harness()
        #expect(KeyMap.default.action(for: .character("T")) == .editTags)
        h.type(.enter)
        let id = try #require(h.queue.sync { h.app.state.items?.selectedID })
        #expect(h.type(.character("T")).contains("Tags (separated by commas): "))
        h.type(text: " later, Work ,LATER")
        #expect(h.type(.enter).contains("Tags: later, Work"))
        #expect(tags(h, id) == "later,Work")
        // The prompt starts from the item's tags; the article's header shows them.
        #expect(h.type(.character("T")).contains("Tags (separated by commas): later, Work"))
        h.type(.control("u"), .enter)
        #expect(tags(h, id) == nil)
        h.type(.character("z"))
        #expect(tags(h, id) == "later,Work")
        #expect(h.type(.enter).contains("Tags: later, Work"))
        h.type(.character("T"), .control("u"))
        h.type(text: "read")
        h.type(.enter)
        #expect(h.screen.contains("Tags: read"))
        #expect(tags(h, id) == "read")
    }
}
