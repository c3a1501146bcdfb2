import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// The one routing of actions: every action, on every screen, does something a user can see
/// or says that it does nothing there; none falls through in silence.
@Suite struct ActionRoutingTests {
    /// A screen to start from, with the cursor (or scroll) off both ends so that every
    /// movement moves.
    enum Start: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case feeds, items, article, help, links, dialogs
        var testDescription: String { rawValue }
    }

    static func harness(on start: Start, effects: RecordingEffects) throws -> Harness {
        let h = try Harness(width: 60, height: 8, effects: effects)
        switch start {
        case .feeds: h.type(.down)
        case .items: h.type(.enter, .down)
        case .article: h.type(.enter, .enter, .down)
        case .help: h.type(.character("?"), .down)
        case .links: h.type(.enter, .enter, .character("U"), .down)
        case .dialogs: h.type(.enter, .enter, .character("v"), .up)
        }
        return h
    }

    /// Async, yielding after each action: its hundreds of readers would otherwise hold one of
    /// the few test threads for long, and other tests' tasks (a reader's sync) would wait.
    @Test(arguments: Start.allCases)
    func everyActionDoesSomethingOrSaysItDoesNothing(on start: Start) async throws {
        for action in Action.allCases {
            await Task.yield()
            // Programs (the browser, the editor) are recorded, not run.
            let effects = RecordingEffects()
            let h = try Self.harness(on: start, effects: effects)
            let programs = effects.programs.count
            let app = h.app
            let before = h.queue.sync {
                app.state.message = nil
                return app.state
            }
            h.queue.sync { app.perform(action) }
            let after = h.queue.sync { app.state }
            let seen =
                after != before || h.queue.sync { app.hasQuit } || h.backend.sizeUpdates > 0
                || effects.programs.count > programs
            #expect(seen, "\(action.rawValue) on the \(start.rawValue) screen did nothing and said nothing")
        }
    }

    @Test func anActionThatDoesNothingHereSaysSo() throws {
        let h = try Harness()
        #expect(h.type(.control("u")).contains("toggle-source-view does nothing in the feed list"))
        h.type(.character("?"))
        #expect(h.type(.character("?")).contains("help does nothing in the help screen"))
        #expect(h.type(.character("n")).contains("next-unread does nothing in the help screen"))
        h.type(.character("q"), .enter, .enter)
        #expect(h.type(.character("g")).contains("sort does nothing in the article view"))
        #expect(h.type(.enter).contains("open does nothing in the article view"))
        // A smart feed (last in the feed list) does not move: said, not ignored.
        h.type(.character("q"), .character("q"), .end)
        #expect(h.type(.character("[")).contains("Smart feeds stay after the feeds"))
    }

    @Test func keysOnAnItemAskForOneOnTheFeedList() throws {
        let h = try Harness()
        for key in ["N", "s", "|", "#", "U"] {
            #expect(h.type(.character(Character(key))).contains("Open or select an item first"), "\(key)")
        }
        #expect(h.type(.control("b")).contains("Open or select an item first"))
    }
}
