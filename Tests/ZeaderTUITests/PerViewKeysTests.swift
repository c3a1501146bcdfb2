import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's `bind-key KEY ACTION VIEW`: a binding holds in its view only.
@Suite struct PerViewKeysTests {
    static let config = """
        bind-key j next article
        bind-key k prev article
        bind-key J next-feed articlelist
        unbind-key d feedlist
        bind-key x quit all
        """

    @Test func aBindingHoldsInItsViewOnly() throws {
        let config = try ReaderConfig.parse(Self.config, file: "config")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        let map = config.keyMap
        #expect(map.action(for: .character("j"), in: .article) == .next)
        #expect(map.action(for: .character("j"), in: .feedlist) == .down)
        #expect(map.action(for: .character("j"), in: .articlelist) == .nextFeed)  // newsboat's default there
        #expect(map.action(for: .character("J"), in: .articlelist) == .nextFeed)
        #expect(map.action(for: .character("J"), in: .searchresultslist) == .nextFeed)  // an item list too
        #expect(map.action(for: .character("d"), in: .feedlist) == nil)
        #expect(map.action(for: .character("x"), in: .urlview) == .quit)
        #expect(map.keys(for: .next, in: .article).contains(.character("j")))
        #expect(!map.keys(for: .next, in: .feedlist).contains(.character("j")))
    }

    @Test func theReaderLooksKeysUpInTheScreenOnTop() throws {
        let h = try Harness(config: try ReaderConfig.parse(Self.config, file: "config"))
        // In the feed list j moves down; in the article it goes to the next item.
        h.type(.character("j"))
        #expect(h.queue.sync { h.app.state.feedPosition.cursor } == 1)
        h.type(.character("k"), .enter, .enter)
        let first = try #require(h.queue.sync { h.app.state.article?.title })
        h.type(.character("j"))
        let second = try #require(h.queue.sync { h.app.state.article?.title })
        #expect(first != second)
        #expect(h.queue.sync { h.app.state.screen } == .article)
        h.type(.character("k"))
        #expect(h.queue.sync { h.app.state.article?.title } == first)
        // d is unbound in the feed list only.
        h.type(.character("q"), .character("q"))
        #expect(h.type(.character("d")).contains("d is not bound") || h.screen.contains("not bound"))
        // Help lists the keys of the screen it was opened from.
        let map = try ReaderConfig.parse(Self.config, file: "config").keyMap
        let next = { (view: KeyView?) in HelpView.lines(keyMap: map, view: view).first { $0.contains("[next]") } ?? "" }
        let keys = { (view: KeyView?) in next(view).split(separator: " ").prefix(2).map(String.init) }
        #expect(keys(.article).contains("j"), "\(next(.article))")
        #expect(!keys(.feedlist).contains("j"), "\(next(.feedlist))")
    }

    /// newsboat binds nothing for a view it does not know, and loads the rest of the config.
    @Test func aViewZeaderLacksOrAnUnknownOneIsAWarningAndTheLineIsIgnored() throws {
        let config = try ReaderConfig.parse("bind-key d open filebrowser\nbind-key x open feedlist\n", file: "c")
        #expect(config.warnings.count == 1)
        #expect(config.keyMap.action(for: .character("x"), in: .feedlist) == .open)
        let unknown = try ReaderConfig.parse("bind-key j down nowhere", file: "c")
        #expect(unknown.warnings.count == 1)
        #expect(unknown.keyMap == KeyMap.default)
    }
}
