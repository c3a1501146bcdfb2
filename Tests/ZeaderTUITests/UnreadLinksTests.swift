import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's `open-all-unread-in-browser` (and `-and-mark-read`) with `max-browser-tabs`,
/// and `mark-all-above-as-read`.
@Suite struct UnreadLinksTests {
    private func harness(_ text: String, effects: RecordingEffects) throws -> Harness {
        try Harness(width: 100, config: try ReaderConfig.parse(text, file: "config"), effects: effects)
    }

    private func readStates(_ h: Harness) -> [Bool] {
        h.queue.sync { (h.app.state.items?.ids ?? []).map { h.app.model.isRead($0) } }
    }

    @Test func opensTheUnreadLinksUpToMaxBrowserTabsAndMarksThemRead() throws {
        let effects = RecordingEffects()
        let h = try harness(
            "bind-key X open-all-unread-in-browser-and-mark-read\nmax-browser-tabs 2\nbrowser \"lynx %u\"", effects: effects)
        h.type(.character("j"), .enter)  // Swift on Linux: three unread items
        #expect(readStates(h) == [false, false, false])
        h.type(.character("X"))
        #expect(effects.programs.count == 2)
        #expect(effects.programs.allSatisfy { if case .browser = $0.purpose { true } else { false } })
        #expect(readStates(h) == [true, true, false])
    }

    @Test func openingWithoutMarkingLeavesThemUnreadAndWorksFromTheFeedList() throws {
        let effects = RecordingEffects()
        let h = try harness("bind-key X open-all-unread-in-browser\nbrowser \"lynx %u\"", effects: effects)
        h.type(.character("j"), .character("X"))
        #expect(effects.programs.count == 3)
        h.type(.enter)
        #expect(readStates(h) == [false, false, false])
        // Nothing unread: said so, nothing run.
        let none = RecordingEffects()
        let g = try harness("bind-key X open-all-unread-in-browser\nbind-key Y mark-feed-read", effects: none)
        g.type(.character("j"), .character("Y"), .character("X"))
        #expect(none.programs.isEmpty)
        #expect(g.screen.contains("No unread items to open"))
    }

    @Test func markAllAboveAsReadMarksTheRowsAboveTheCursor() throws {
        let h = try harness("bind-key M mark-all-above-as-read", effects: RecordingEffects())
        h.type(.character("j"), .enter, .down, .down, .character("M"))
        #expect(readStates(h) == [true, true, false])
        // Only in an item list.
        #expect(
            try harness("bind-key M mark-all-above-as-read", effects: RecordingEffects()).type(.character("M")).contains(
                "mark-all-above-as-read"))
    }
}
