import Dispatch
import Feeds
import Foundation
import ObjectGraph
import Synchronization
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// A reader on the demo feeds (in memory), driven through the test backend on the view
/// context's queue.
final class Harness {
    let store: ZeaderStore
    let backend: TestBackend
    let app: ReaderApp
    var queue: DispatchQueue { store.container.viewContext.queue }

    init(
        width: Int = 100, height: Int = 30, config: ReaderConfig = ReaderConfig(), refresher: ReaderRefresher? = nil,
        effects: (any ReaderEffects)? = nil, fetcher: FeedFetcher? = nil, store given: ZeaderStore? = nil
    ) throws {
        if let given {
            store = given
        } else {
            store = try ZeaderStore.inMemory()
            try DemoFeeds.load(into: store)
        }
        backend = TestBackend(width: width, height: height)
        let model = ReaderModel(store: store, smartFeeds: config.smartFeeds)
        app = ReaderApp(
            model: model, backend: backend, config: config, queue: store.container.viewContext.queue, refresher: refresher,
            fetcher: fetcher, effects: effects ?? LiveEffects())
        let app = self.app
        queue.sync { app.start() }
    }

    /// Types `keys`, then lets queued work (merges, redraws) run, and returns the screen.
    @discardableResult
    func type(_ keys: Key...) -> String {
        let app = self.app
        queue.sync { for key in keys { app.handle(key) } }
        return settle()
    }

    @discardableResult
    func type(text: String) -> String {
        let app = self.app
        queue.sync { for c in text { app.handle(.character(c)) } }
        return settle()
    }

    @discardableResult
    func settle() -> String {
        for _ in 0..<3 { queue.sync {} }
        let app = self.app
        queue.sync { app.redraw() }
        return backend.screen?.text ?? ""
    }

    var screen: String { settle() }
    func line(_ y: Int) -> String { backend.screen?.line(y) ?? "" }
}

@Suite struct ReaderAppTests {
    @Test func feedListShowsCountsTitlesAndSmartFeeds() throws {
        let h = try Harness()
        let screen = h.screen
        #expect(h.line(0).hasPrefix("Zeader \(zeaderVersion) - Feeds (9 unread)"))
        #expect(h.line(1).contains("3/4") && h.line(1).contains("Zeader News"))
        #expect(h.line(2).contains("3/3") && h.line(2).contains("Swift on Linux"))
        #expect(h.line(3).contains("世界の文字 · World Scripts"))
        #expect(h.line(4).hasPrefix("*") && h.line(4).contains("Unread about Swift"))
        #expect(screen.split(separator: "\n").last?.contains("?:help") == true)
    }

    @Test func navigationOpensItemsAndArticles() throws {
        let h = try Harness()
        var screen = h.type(.character("j"), .enter)
        #expect(h.line(0).contains("Swift on Linux (3 items)"))
        #expect(h.line(1).hasPrefix("N 2026-11-21  Strict concurrency"))
        screen = h.type(.down, .enter)
        #expect(screen.contains("Title: A Core Data-style stack without Apple platforms"))
        #expect(screen.contains("Author: Grace Hopper"))
        #expect(screen.contains("let items = try FeedItem.findAll"))
        screen = h.type(.character("q"))
        #expect(h.line(2).hasPrefix("  2026-11-17"))  // read now: no N
        h.type(.character("q"))
        #expect(h.line(2).contains("2/3"))
        #expect(h.line(0).contains("(8 unread)"))
    }

    @Test func toggleReadUndoAndRedoChangeTheStoredCount() throws {
        let h = try Harness()
        h.type(.enter)  // Zeader News
        h.type(.character("N"))  // first item read
        h.type(.character("q"))
        #expect(h.line(1).contains("2/4"))
        h.type(.character("z"))
        #expect(h.line(1).contains("3/4"))
        #expect(h.screen.contains("Undid Mark Read"))
        h.type(.character("Z"))
        #expect(h.line(1).contains("2/4"))
    }

    @Test func markFeedReadAndDeleteFeedAreUndoable() throws {
        let h = try Harness()
        h.type(.character("A"))
        #expect(h.line(1).contains("0/4"))
        #expect(h.screen.contains("Marked 3 items read"))
        h.type(.character("z"))
        #expect(h.line(1).contains("3/4"))
        h.type(.character("d"))
        #expect(h.screen.contains("Delete Zeader News and all its items? [y/n]"))
        h.type(.character("y"))
        #expect(h.line(1).contains("Swift on Linux"))
        #expect(h.screen.contains("Deleted Zeader News (z to undo)"))
        h.type(.character("z"))
        #expect(h.screen.contains("Zeader News"))
        let count = try h.queue.sync { try FeedItem.count(in: h.store.container.viewContext) }
        #expect(count == 10)
    }

    @Test func searchIsMultiWordCaseAndDiacriticInsensitive() throws {
        let h = try Harness()
        h.type(.character("/"))
        var screen = h.type(text: "CREME brulee")
        #expect(screen.contains("Search: CREME brulee_"))
        screen = h.type(.enter)
        #expect(h.line(0).contains("Search: CREME brulee (1 items)"))
        #expect(h.line(1).contains("Crème brûlée and naïve façades"))
        h.type(.character("q"), .character("/"))
        h.type(text: "swift ncurses")
        screen = h.type(.enter)
        #expect(h.line(0).contains("(1 items)"))
        #expect(h.line(1).contains("Café talk"))
        h.type(.character("q"), .character("/"))
        h.type(text: "nowhere-to-be-found")
        screen = h.type(.enter)
        #expect(screen.contains("No items match"))
    }

    @Test func smartFeedCountsFollowReadChanges() throws {
        let h = try Harness()
        #expect(h.line(4).contains("1/1"))
        h.type(.down, .down, .down, .enter)
        #expect(h.line(1).contains("Café talk: Swift and ncurses"))
        h.type(.character("N"), .character("q"))
        #expect(h.line(4).contains("0/0"))
    }

    @Test func helpIsGeneratedFromTheKeyMap() throws {
        var config = ReaderConfig()
        config.keyMap.bind(.character("x"), to: .deleteFeed)
        let h = try Harness(config: config)
        let screen = h.type(.character("?"))
        #expect(screen.contains("d x             Delete the feed and its items"))
        #expect(screen.contains("Z               Redo"))
        h.type(.character("q"))
        #expect(h.line(0).contains("Feeds"))
    }

    @Test func tinyAndResizedTerminalsStillDraw() throws {
        let h = try Harness(width: 20, height: 5)
        #expect(h.line(0) == "Zeader \(zeaderVersion) - Feeds")
        h.type(.enter, .enter)
        #expect(h.backend.screen?.width == 20)
        h.backend.size = (8, 2)
        h.type(.resize)
        #expect(h.backend.screen?.height == 2)
        h.backend.size = (1, 1)
        h.type(.resize, .character("j"), .character("q"))
        h.backend.size = (0, 0)
        h.type(.resize)
        #expect(h.backend.screen?.height == 0)
    }

    @Test func feedTextIsSanitized() throws {
        let h = try Harness()
        try h.queue.sync {
            let context = h.store.container.viewContext
            let server = try #require(try Server.findFirst(byAttribute: "title", value: "Zeader News", in: context))
            server.title = "Evil\u{1B}]0;pwned\u{07}\u{1B}[2J News\r"
            try context.save()
        }
        let screen = h.screen
        #expect(screen.contains("Evil News"))
        #expect(!screen.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test func liveUpdatesFromBackgroundSaves() throws {
        let h = try Harness()
        h.type(.enter)
        #expect(h.line(0).contains("(4 items)"))
        let done = DispatchSemaphore(value: 0)
        h.store.container.saveInBackground(
            { context in
                let server = try #require(try Server.findFirst(byAttribute: "title", value: "Zeader News", in: context))
                let item = context.insert(FeedItem.self)
                item.guid = "new-one"
                item.title = "Brand new item"
                item.sortDate = Date(timeIntervalSince1970: 1_900_000_000)
                item.server = server
            }, completion: { _ in done.signal() })
        done.wait()
        let screen = h.screen
        #expect(h.line(0).contains("(5 items)"))
        #expect(h.line(1).contains("Brand new item"))
        #expect(screen.contains("Welcome to Zeader"))
    }

    @Test func refreshShowsProgressFromTheRefresher() async throws {
        let refresher = FakeRefresher()
        let h = try Harness(refresher: refresher)
        h.type(.character("R"))
        #expect(h.screen.contains("Refreshing 0/1") || h.screen.contains("Refreshed"))
        for _ in 0..<250 where !h.screen.contains("Refreshed 3 feeds, 1 failed") {
            try await Task.sleep(for: .milliseconds(20))
        }
        // The failed feed is named, and the line is not cut on a narrow screen.
        #expect(h.screen.contains("Refreshed 3 feeds, 1 failed: https://gone.example/feed: HTTP 410 Gone"))
        #expect(refresher.requested.withLock { $0 } == [[]])
    }

    @Test func aLongMessageTakesSeveralLinesInsteadOfBeingCut() throws {
        let h = try Harness(width: 30, height: 12)
        h.queue.sync { h.app.state.say(.failed("one two three four five six seven eight nine ten eleven twelve END")) }
        h.settle()
        let bottom = (8...11).map { h.line($0) }.joined(separator: "\n")
        #expect(bottom.contains("END"), "\(h.screen)")
        #expect(h.line(11).contains("END"))
        // At most a third of the screen: the rest is cut with "…".
        h.queue.sync { h.app.state.say(.failed(String(repeating: "word ", count: 60) + "END")) }
        h.settle()
        #expect(!h.screen.contains("END"))
        #expect(h.line(11).hasSuffix("…"))
        #expect(h.line(7).contains("Zeader") || !h.line(7).contains("word"))
    }
}

/// Reports three feeds, one failing, without touching the network.
final class FakeRefresher: ReaderRefresher {
    let requested = Mutex<[[ObjectID]]>([])

    func refresh(servers: [ObjectID], progress: (@Sendable (RefreshEvent) -> Void)?) async throws(ZeaderError)
        -> RefreshSummary
    {
        requested.withLock { $0.append(servers) }
        var totals = RefreshProgress(total: 3)
        progress?(.started(url: "https://one.example/", totals))
        totals.completed = 3
        totals.failed = 1
        let server = try? ZeaderModel.current.entity(named: "Server")
        let gone = server.map {
            FeedRefreshResult(
                serverID: ObjectID(entity: $0, primaryKey: 1), url: "https://gone.example/feed", status: .gone)
        }
        return RefreshSummary(progress: totals, results: gone.map { [$0] } ?? [], duration: 0)
    }
}

@Suite struct AddFeedTests {
    @Test func previewThenKeepOrDiscard() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("za-\(UUID().uuidString.prefix(8)).xml")
        try Data(
            """
            <rss version="2.0"><channel><title>Added Feed</title>
            <item><guid>a1</guid><title>First added item</title></item>
            <item><guid>a2</guid><title>Second added item</title></item></channel></rss>
            """.utf8
        ).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let store = try ZeaderStore.inMemory()
        try DemoFeeds.load(into: store)
        let backend = TestBackend(width: 100, height: 30)
        let queue = store.container.viewContext.queue
        let app = ReaderApp(
            model: ReaderModel(store: store), backend: backend, config: ReaderConfig(), queue: queue,
            fetcher: FeedFetcher(configuration: FetcherConfiguration(version: "test")))
        queue.sync { app.start() }
        func type(_ keys: [Key]) { queue.sync { for key in keys { app.handle(key) } } }
        func screen() -> String {
            queue.sync { app.redraw() }
            return backend.screen?.text ?? ""
        }
        // Sleeps without holding a thread of the pool the fetch runs on.
        func waitFor(_ text: String) async -> Bool {
            for _ in 0..<250 {
                if screen().contains(text) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }

        type([.character("a")] + file.absoluteString.map { Key.character($0) } + [.enter])
        #expect(await waitFor("Added Feed (2 items, \(file.absoluteString)) - keep it? [y/n]"))
        // Nothing is saved while the preview waits.
        #expect(!screen().contains("2/2"))
        type([.character("n")])
        #expect(screen().contains("Discarded Added Feed"))
        #expect(try queue.sync { try Server.count(in: store.container.viewContext) } == 3)

        type([.character("a")] + file.absoluteString.map { Key.character($0) } + [.enter])
        #expect(await waitFor("keep it? [y/n]"))
        type([.character("y")])
        #expect(await waitFor("Added Added Feed"))
        let lines = screen().split(separator: "\n")
        #expect(lines[4].contains("2/2") && lines[4].contains("Added Feed"))
        #expect(try queue.sync { try FeedItem.count(in: store.container.viewContext) } == 12)

        type([.character("a")] + "ftp://x".map { Key.character($0) } + [.enter])
        #expect(screen().contains("invalid feed URL 'ftp://x': unsupported scheme 'ftp' (expected http, https or file)"))
    }
}

@Suite struct NoColorTests {
    @Test func withoutColourTheBarsAreReverseVideo() {
        var state = AppState(width: 30, height: 5)
        state.colors = false
        let buffer = ReaderView.render(state, keyMap: .default)
        #expect(buffer[0, 0].style.reverse)
        #expect(buffer[0, 4].style.reverse)
        state.colors = true
        #expect(!ReaderView.render(state, keyMap: .default)[0, 0].style.reverse)
    }
}
