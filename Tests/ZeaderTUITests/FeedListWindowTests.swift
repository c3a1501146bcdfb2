import Dispatch
import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// The feed list's first screen (FeedListWindow.swift) on a store of more feeds than the
/// screen: the first frame, the list once complete, scrolling, sorting and hiding read feeds
/// match the list read whole, as it was before the windowing.
@Suite struct FeedListWindowTests {
    static let feeds = 300

    /// 300 feeds whose counts, refresh dates, titles and tags are not in the user's order.
    static func store() throws -> ZeaderStore {
        let store = try ZeaderStore.inMemory()
        let ctx = store.container.viewContext
        try ctx.queue.sync { () throws in
            for s in 0..<feeds {
                let server = ctx.insert(Server.self)
                server.url = "https://feed\(s).example/rss"
                server.title = "Feed \((s * 89) % feeds)"
                server.displayOrder = Int64(s)
                server.lastRefresh = s % 7 == 0 ? nil : Date(timeIntervalSince1970: 1_700_000_000 + Double((s * 37) % 50) * 60)
                if s % 4 == 0 { server.tags = "linux" }
                for j in 0..<(s % 6) {
                    let item = ctx.insert(FeedItem.self)
                    item.guid = "f\(s)-\(j)"
                    item.title = "Item \(j) of \(s)"
                    item.read = j < s % 4
                    item.server = server
                }
            }
            try ctx.save()
        }
        return store
    }

    /// A reader started on `store` with `config`, and the list it showed in its first frame.
    static func start(_ store: ZeaderStore, config: String) throws -> (app: ReaderApp, backend: TestBackend, windowed: Bool) {
        let config = try ReaderConfig.parse(config + "\nsmart-feed Unread read == NO", file: "test")
        let backend = TestBackend(width: 100, height: 30)
        let queue = store.container.viewContext.queue
        let app = ReaderApp(
            model: ReaderModel(store: store, smartFeeds: config.smartFeeds), backend: backend, config: config, queue: queue)
        let windowed = queue.sync { () -> Bool in
            app.start()
            return app.state.feedSummary != nil && app.state.feeds.count == app.state.listHeight
        }
        return (app, backend, windowed)
    }

    /// The screen the reader drew before the windowing: the whole list, arranged, rendered.
    static func reference(_ app: ReaderApp, position: ListPosition = ListPosition()) throws -> (rows: [FeedRow], screen: String) {
        try app.queue.sync {
            var state = AppState(width: 100, height: 30)
            state.views = app.state.views
            state.feeds = state.views.arranged(try app.model.feedRows())
            state.feedPosition = position
            state.message = app.state.message
            return (state.feeds, ReaderView.render(state, keyMap: app.config.keyMap).text)
        }
    }

    @Test(arguments: [
        "", "feed-sort-order unreadarticlecount-desc", "feed-sort-order articlecount-asc", "feed-sort-order lastupdated",
        "feed-sort-order none-desc", "show-read-feeds no", "show-read-feeds no\nfeed-sort-order unreadarticlecount",
        "feed-sort-order title",
    ])
    func firstScreenAndWholeListMatchTheListReadWhole(config: String) throws {
        let store = try Self.store()
        let (app, backend, windowed) = try Self.start(store, config: config)
        // Titles and tags sort as the locale does: those orders read the whole list at once.
        #expect(windowed == !config.contains("title"))
        let reference = try Self.reference(app)
        #expect(backend.frames.first?.text == reference.screen)
        // Right after the first frame, the rest: every row, smart feed included, in order.
        app.queue.sync {}
        #expect(app.queue.sync { app.state.feedSummary } == nil)
        #expect(app.queue.sync { app.state.feeds } == reference.rows)
        #expect(reference.rows.last?.title == "Unread")
        #expect(backend.screen?.text == reference.screen)
    }

    @Test func keysBeforeTheRestLoadedSeeTheWholeList() throws {
        let store = try Self.store()
        let (app, backend, windowed) = try Self.start(store, config: "feed-sort-order unreadarticlecount-desc")
        #expect(windowed)
        // Keys handled before the queued completion (the same queue turn) still page through every feed.
        app.queue.sync { for _ in 0..<20 { app.handle(.pageDown) } }
        let last = app.queue.sync { app.state.feedPosition }
        let whole = try Self.reference(app, position: last)
        #expect(last.cursor == whole.rows.count - 1)
        #expect(backend.screen?.text == whole.screen)
        // Hiding read feeds and sorting by title re-arrange the whole list.
        app.queue.sync {
            app.handle(.home)
            app.handle(.character("l"))
            app.handle(.character("g"))
            app.handle(.character("t"))
        }
        let sorted = try Self.reference(app)
        #expect(app.queue.sync { app.state.feeds } == sorted.rows)
        #expect(sorted.rows.allSatisfy { $0.unread > 0 })
        #expect(sorted.rows.count > 30)
    }

    @Test func aShortListIsReadWhole() throws {
        let store = try ZeaderStore.inMemory()
        try DemoFeeds.load(into: store)
        let (app, _, windowed) = try Self.start(store, config: "")
        #expect(!windowed)
        #expect(app.queue.sync { app.state.feedSummary } == nil)
    }
}
