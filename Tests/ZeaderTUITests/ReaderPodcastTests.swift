import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

@Suite struct ReaderPodcastTests {
    func queuedTitles(_ h: Harness) throws -> [String] {
        try h.queue.sync {
            try PodcastQueue.episodes(in: h.store.container.viewContext).map { $0.title ?? "" }
        }
    }

    @Test func eQueuesTheEnclosureTheListMarksItAndUndoTakesItBack() throws {
        #expect(KeyMap.default.action(for: .character("e")) == .enqueue)
        let h = try Harness()
        h.type(.down, .enter)  // Swift on Linux
        let line = try #require((1...3).map { h.line($0) }.first { $0.contains("Café talk") })
        #expect(line.contains("♪ Café talk"))
        #expect(!h.line(1).contains("♪") || h.line(1).contains("Café"))
        // An item without an enclosure: said so, nothing queued.
        h.type(.home, .character("e"))
        #expect(h.screen.contains("This item has no enclosure"))
        #expect(try queuedTitles(h).isEmpty)
        // The podcast: queued from the list, once.
        h.type(.end, .character("e"))
        #expect(h.screen.contains("Queued for download"))
        #expect(try queuedTitles(h) == ["Café talk: Swift and ncurses"])
        h.type(.character("e"))
        #expect(h.screen.contains("Already in the podcast queue"))
        h.type(.character("z"))
        #expect(try queuedTitles(h).isEmpty)
        // From the article too.
        h.type(.enter, .character("e"))
        #expect(try queuedTitles(h) == ["Café talk: Swift and ncurses"])
    }

    @Test func theArticleHeaderShowsTheStoredEnclosure() throws {
        let h = try Harness()
        h.type(.down, .enter, .end, .enter)  // Swift on Linux, its last item: the Café talk
        #expect(h.screen.contains("Café talk"))
        #expect(
            h.screen.contains("Enclosure: https://swift-linux.example/media/cafe-talk.mp3 (audio/mpeg, 24.1 MB)"), "\(h.screen)")
    }

    @Test func theLinkListHasTheEnclosure() throws {
        var config = ReaderConfig()
        config.browser = "true"
        let h = try Harness(config: config)
        h.type(.down, .enter, .end)  // Swift on Linux, its last item: the Café talk
        // From the item list and from the article, the enclosure comes after the body's links,
        // before the item's own link (which its body does not have).
        for fromArticle in [false, true] {
            if fromArticle { h.type(.enter) }
            let screen = h.type(.character("U"))
            #expect(
                screen.contains("https://swift-linux.example/media/cafe-talk.mp3 (audio/mpeg, 24.1 MB)  [enclosure]"), "\(screen)"
            )
            let links = try #require(h.queue.sync { h.app.state.picker?.values })
            #expect(links.suffix(2) == ["https://swift-linux.example/media/cafe-talk.mp3", "https://swift-linux.example/cafe"])
            h.type(.end, .up)
            #expect(h.type(.enter).contains("Opened https://swift-linux.example/media/cafe-talk.mp3"))
            h.type(.character("q"))
        }
        // An item without an enclosure lists none.
        h.type(.character("q"), .home, .character("U"))
        #expect(h.queue.sync { h.app.state.picker?.entries.contains { $0.contains("[enclosure]") } } == false)
    }
}
