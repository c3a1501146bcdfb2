import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// The stack of screens is the one record of what is open: a screen's state lives in its
/// entry, so the stack and the state shown cannot disagree, and a screen closed leaves
/// nothing behind.
@Suite struct ScreenStackTests {
    /// Whether each screen's state is there exactly when the screen is open.
    func agrees(_ h: Harness) -> Bool {
        h.queue.sync {
            let state = h.app.state
            return (state.items != nil) == state.screens.contains(.items)
                && (state.article != nil) == state.screens.contains(.article)
                && (state.picker != nil) == state.screens.contains(.picker)
        }
    }

    func tagTwoFeeds(_ h: Harness) throws {
        try h.queue.sync {
            let servers = try FeedEditing.servers(in: h.app.model.context)
            try FeedEditing.tag(servers[1].objectID, add: ["linux"], in: h.app.model.context)
            try FeedEditing.tag(servers[0].objectID, add: ["news"], in: h.app.model.context)
        }
    }

    @Test func theStackAndTheStatesAgreeAfterEveryKey() throws {
        let sequences: [[Key]] = [
            [.enter, .character("t"), .enter],
            [.enter, .enter, .character("U"), .character("q"), .character("q")],
            [.enter, .enter, .control("g"), .control("g"), .control("v"), .control("v")],
            [.enter, .enter, .character("v"), .up, .up, .enter],
            [.enter, .enter, .character("?"), .control("x"), .control("x")],
            [.enter, .character("f"), .escape, .character("q")],
            [.enter, .enter, .character("J"), .character("n"), .control("n"), .character("q"), .character("q")],
        ]
        for keys in sequences {
            let h = try Harness()
            try tagTwoFeeds(h)
            for (index, key) in keys.enumerated() {
                h.type(key)
                #expect(agrees(h), "after \(keys[...index].map(\.name))")
            }
        }
    }

    @Test func pickingATagFromAnItemListLeavesNoItemListBehind() throws {
        let h = try Harness()
        try tagTwoFeeds(h)
        h.type(.enter)  // Zeader News's items (tagged news)
        h.type(.character("t"))
        #expect(h.type(.enter).contains("Showing the feeds tagged linux"))
        #expect(h.queue.sync { h.app.state.items } == nil)
        // Only the tag's feed: the item list left does not keep its feed listed.
        #expect(h.queue.sync { h.app.state.feeds.map(\.title) } == ["Swift on Linux [linux]"])
    }

    @Test func eachScreenKeepsItsOwnStateInTheStack() throws {
        let h = try Harness()
        h.type(.enter, .down, .enter, .character("?"), .down)
        let stack = h.queue.sync { h.app.state.stack }
        #expect(stack.map(\.kind) == [.feeds, .items, .article, .help])
        guard case .items(let list) = stack[1], case .article(let article) = stack[2], case .help(let scroll) = stack[3]
        else {
            Issue.record("\(stack.map(\.kind))")
            return
        }
        #expect(list.selectedID == article.itemID)
        #expect(scroll == 1)
        // back() pops the entry and its state together.
        h.type(.character("q"), .character("q"))
        #expect(h.queue.sync { h.app.state.stack } == [.feeds, .items(h.queue.sync { h.app.state.items! })])
        #expect(h.queue.sync { h.app.state.article } == nil)
        #expect(h.queue.sync { h.app.state.helpScroll } == 0)
    }
}
