import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderTUI

/// Rules that act, in the reader: what they change in the items its sync pulls is one undo
/// step, as for a refresh (ReaderRulesTests).
@Suite("Rules that act on the reader's sync", .serialized)
struct ReaderSyncRulesTests {
    /// Each item's "read flagged" by title, as the view context has them.
    static func states(_ h: SyncingReaderHarness) -> [String: String] {
        let context = h.store.container.viewContext
        return h.queue.sync {
            let items = (try? FeedItem.findAll(in: context)) ?? []
            return Dictionary(uniqueKeysWithValues: items.map { ($0.title ?? "", "\($0.read) \($0.flagged)") })
        }
    }

    @Test func theRulesOfASyncAreOneUndoStep() async throws {
        var options = RefreshOptions()
        options.itemRules = [try ItemRules.parse(#"title == "Item 1" -> mark-read"#), try ItemRules.parse("read == YES -> flag")]
        options.rulesChangeItemsLater = true
        let h = try SyncingReaderHarness(options: options)
        try await h.waitForStartSync()
        let fired = try await h.wait { Self.states(h)["Item 1"] == "true true" }
        #expect(fired, "\(Self.states(h))")
        #expect(Self.states(h)["Item 2"] == "false false")
        h.type(.character("z"))
        #expect(Self.states(h)["Item 1"] == "false false", "\(h.screen)")
        h.type(.character("Z"))
        #expect(Self.states(h)["Item 1"] == "true true")
    }
}
