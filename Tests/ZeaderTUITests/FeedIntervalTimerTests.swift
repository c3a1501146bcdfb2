import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// The reader's timed refresh ticks often enough for the shortest `reload-interval`.
@Suite struct FeedIntervalTimerTests {
    @Test(arguments: [
        ("refresh-interval 30\n", [1800]), ("refresh-interval 30\nfeed * < reload-interval 5\n", [300]),
        ("feed tag:news < reload-interval 7\n", [420]), ("refresh-interval 10\nfeed * < reload-interval 60\n", [600]),
        ("", []),
    ])
    func theTimerFollowsTheShortestInterval(config text: String, timers: [Int]) throws {
        let config = try ReaderConfig.parse(text, file: "test")
        let effects = RecordingEffects()
        _ = try Harness(config: config, refresher: NewItemsRefresher(), effects: effects)
        #expect(effects.log.withLock { $0.repeating } == timers)
    }
}
