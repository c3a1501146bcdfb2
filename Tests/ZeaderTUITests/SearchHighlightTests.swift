import Foundation
import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's `search-highlight-colors`: the searched words in an article opened from results.
@Suite struct SearchHighlightTests {
    @Test func theSearchedWordsAreDrawnInTheirColours() throws {
        let config = try ReaderConfig.parse(
            "highlight article \"zeader\" red\nsearch-highlight-colors white color8 bold", file: "config")
        let search = try #require(config.searchHighlight)
        #expect(search.ruleIndex == 1 && config.highlightRules.count == 2)
        #expect(search.rule(for: "swift c++")?.pattern == "swift|c\\+\\+")
        let h = try Harness(width: 100, config: config)
        h.type(.character("/"))
        h.type(text: "concurrency")
        h.type(.enter, .enter)
        #expect(h.queue.sync { h.app.state.screen } == .article)
        let screen = try #require(h.backend.screen)
        let marked = (0..<screen.height).flatMap { y in
            (0..<screen.width).filter { screen[$0, y].style.highlight == search.ruleIndex + 1 }.map { _ in y }
        }
        #expect(!marked.isEmpty)
        // An article opened from a feed's list has nothing of the search drawn.
        let g = try Harness(width: 100, config: config)
        g.type(.character("j"), .enter, .enter)
        let plain = try #require(g.backend.screen)
        #expect(
            (0..<plain.height).allSatisfy { y in
                (0..<plain.width).allSatisfy { plain[$0, y].style.highlight != search.ruleIndex + 1 }
            })
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("search-highlight-colors white", file: "c") }
    }
}
