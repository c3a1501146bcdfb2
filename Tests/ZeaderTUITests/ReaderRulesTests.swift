import Dispatch
import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// Rules that act, in the reader: what they change during its refresh is one undo step.
@Suite struct ReaderRulesTests {
    /// Each item's (read, flagged) by guid, as the view context has them.
    static func states(_ h: Harness) -> [String: [Bool]] {
        let context = h.store.container.viewContext
        return h.queue.sync {
            let items = (try? FeedItem.findAll(in: context)) ?? []
            return Dictionary(uniqueKeysWithValues: items.map { ($0.guid, [$0.read, $0.flagged]) })
        }
    }

    @Test func theRulesOfARefreshAreOneUndoStep() async throws {
        let (store, _, _, directory) = try ReaderRefresherTests.makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = RefreshOptions()
        options.itemRules = [try ItemRules.parse(#"title == "One" -> mark-read"#), try ItemRules.parse("read == YES -> flag")]
        options.rulesChangeItemsLater = true
        let h = try Harness(refresher: FeedRefresher(store: store, options: options), store: store)
        h.type(.character("R"))
        for _ in 0..<500 where !h.screen.contains("Refreshed") { try await Task.sleep(for: .milliseconds(20)) }
        #expect(Self.states(h) == ["g1": [true, true], "g2": [false, false]])
        h.type(.character("z"))
        #expect(Self.states(h) == ["g1": [false, false], "g2": [false, false]])
        h.type(.character("Z"))
        #expect(Self.states(h) == ["g1": [true, true], "g2": [false, false]])
    }
}
