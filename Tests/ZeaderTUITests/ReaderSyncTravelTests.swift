import Dispatch
import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Synchronization
import Testing

@testable import ZeaderConfig
@testable import ZeaderKit
@testable import ZeaderTUI

/// A Google Reader API on 127.0.0.1 with one feed (`feed/1`) whose items' read and starred
/// state it keeps, as a server does: `edit-tag` changes them, `stream/items/ids` lists them.
final class TravelGReaderServer: Sendable {
    struct State: Sendable {
        /// Item ids, their read and starred state.
        var items: [UInt64: (read: Bool, starred: Bool)] = [:]
        /// Every POST, as its path after `reader/api/0/` and its decoded form fields.
        var posts: [(path: String, fields: [(String, String)])] = []
        /// When set, every request is held this long with no answer (a server that hangs).
        var stallSeconds: TimeInterval?
        /// Subscriptions besides `feed/1`, as (stream id, URL); `quickadd` adds to them.
        var otherFeeds: [(id: String, url: String)] = []
        /// The title of `feed/1`; `subscription/edit` with `t` renames it.
        var title = "One"
    }

    /// The state the handler and the test share.
    final class Shared: Sendable {
        let state = Mutex(State())
    }

    let shared = Shared()
    let http: LoopbackHTTPServer
    static let feedURL = "http://127.0.0.1:9/one.xml"

    var apiURL: String { http.url("/api/greader.php").absoluteString }

    init(items: ClosedRange<UInt64> = 1...3) throws {
        let shared = self.shared
        shared.state.withLock { for id in items { $0.items[id] = (false, false) } }
        http = try LoopbackHTTPServer { request in Self.answer(request, shared) }
    }

    deinit { http.stop() }

    /// The POSTs to `path` received so far.
    func posts(to path: String) -> [[(String, String)]] {
        shared.state.withLock { $0.posts.filter { $0.path == path }.map(\.fields) }
    }

    func isRead(_ id: UInt64) -> Bool { shared.state.withLock { $0.items[id]?.read ?? false } }

    /// How many items are read on the server.
    var readCount: Int { shared.state.withLock { $0.items.values.filter(\.read).count } }

    static func fields(_ text: String) -> [(String, String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    }

    /// An item id as `edit-tag` sends it: decimal, or the long form's hexadecimal tail.
    static func itemID(_ text: String) -> UInt64? {
        if let tail = text.split(separator: "/").last, text.hasPrefix("tag:") { return UInt64(tail, radix: 16) }
        return UInt64(text)
    }

    static func json(_ text: String) -> LoopbackHTTPServer.Reply { .ok(text, contentType: "application/json") }

    static func answer(_ request: LoopbackHTTPServer.Request, _ shared: Shared) -> LoopbackHTTPServer.Reply {
        if let seconds = shared.state.withLock({ $0.stallSeconds }) { return .stall(seconds: seconds) }
        let prefix = "/api/greader.php/reader/api/0/"
        guard request.path.hasPrefix(prefix) else { return .status(404) }
        let rest = request.path.dropFirst(prefix.count)
        let path = String(rest.prefix { $0 != "?" })
        let query = rest.firstIndex(of: "?").map { fields(String(rest[rest.index(after: $0)...])) } ?? []
        let body = fields(String(decoding: request.body, as: UTF8.self))
        if request.method == "POST" { shared.state.withLock { $0.posts.append((path, body)) } }
        switch path {
        case "token": return .ok("action-token\n", contentType: "text/plain")
        case "subscription/list":
            let others = shared.state.withLock { $0.otherFeeds }.map {
                #",{"id":"\#($0.id)","title":"\#($0.id)","url":"\#($0.url)"}"#
            }
            let title = shared.state.withLock { $0.title }
            return json(#"{"subscriptions":[{"id":"feed/1","title":"\#(title)","url":"\#(feedURL)"}\#(others.joined())]}"#)
        case "subscription/quickadd":
            let url = body.first { $0.0 == "quickadd" }?.1 ?? ""
            let id = shared.state.withLock { state in
                state.otherFeeds.append(("feed/\(state.otherFeeds.count + 2)", url))
                return state.otherFeeds.last!.id
            }
            return json(#"{"streamId":"\#(id)"}"#)
        case "stream/items/ids":
            let stream = query.first { $0.0 == "s" }?.1 ?? ""
            let unreadOnly = query.contains { $0.0 == "xt" }
            let ids = shared.state.withLock { state in
                state.items.filter { _, value in
                    stream.hasSuffix("/starred") ? value.starred : (!unreadOnly || !value.read)
                }.keys.sorted()
            }
            return json(#"{"itemRefs":[\#(ids.map { #"{"id":"\#($0)"}"# }.joined(separator: ","))]}"#)
        case "stream/items/contents":
            let known = shared.state.withLock { Set($0.items.keys) }
            let entries = body.filter { $0.0 == "i" }.compactMap { itemID($0.1) }.filter(known.contains).map { id in
                let hex = String(id, radix: 16)
                let long = String(repeating: "0", count: 16 - hex.count) + hex
                return #"{"id":"tag:google.com,2005:reader/item/\#(long)","title":"Item \#(id)","published":1700000000,"#
                    + #""origin":{"streamId":"feed/1"},"alternate":[{"href":"http://127.0.0.1:9/\#(id)"}]}"#
            }
            return json(#"{"items":[\#(entries.joined(separator: ","))]}"#)
        case "edit-tag":
            let ids = body.filter { $0.0 == "i" }.compactMap { itemID($0.1) }
            shared.state.withLock { state in
                for (name, tag) in body where name == "a" || name == "r" {
                    for id in ids where state.items[id] != nil {
                        if tag.hasSuffix("/read") { state.items[id]!.read = name == "a" }
                        if tag.hasSuffix("/starred") { state.items[id]!.starred = name == "a" }
                    }
                }
            }
            return .ok("OK", contentType: "text/plain")
        case "mark-all-as-read":
            // One feed: its stream and the reading list are the same items.
            let before = body.first { $0.0 == "ts" }.flatMap { UInt64($0.1) } ?? .max
            shared.state.withLock { state in
                for id in state.items.keys where id <= before { state.items[id]!.read = true }
            }
            return .ok("OK", contentType: "text/plain")
        case "subscription/edit":
            if body.contains(where: { $0 == ("s", "feed/1") }), let title = body.first(where: { $0.0 == "t" })?.1 {
                shared.state.withLock { $0.title = title }
            }
            return .ok("OK", contentType: "text/plain")
        default: return .ok("OK", contentType: "text/plain")
        }
    }
}

/// A reader on a store with an account on a ``TravelGReaderServer``: the app is started
/// after `prepare` set its delays, and syncs once as it starts.
final class SyncingReaderHarness {
    let directory: URL
    let store: ZeaderStore
    let server: TravelGReaderServer
    let backend = TestBackend(width: 100, height: 30)
    let app: ReaderApp
    /// Counts the app's calls of `onQuit`.
    final class QuitCount: Sendable {
        let value = Mutex(0)
    }
    let quitCount = QuitCount()
    var queue: DispatchQueue { store.container.viewContext.queue }

    init(
        server: TravelGReaderServer? = nil, config: ReaderConfig = ReaderConfig(), localFeed: String? = nil,
        fetcher: FeedFetcher? = nil, options: RefreshOptions = RefreshOptions(), prepare: (ReaderApp) -> Void = { _ in }
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("zt-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let server = try server ?? TravelGReaderServer()
        self.server = server
        store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
        if let localFeed {
            let context = store.container.newBackgroundContext()
            try context.performAndWait {
                let feed = context.insert(Server.self)
                feed.url = localFeed
                feed.title = "Here only"
                try context.save()
            }
        }
        try FeedSync(store: store).addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        if localFeed != nil {
            // Not queued for the server: as a feed the server refused.
            let context = store.container.newBackgroundContext()
            try context.performAndWait {
                for change in try SyncChange.findAll(in: context) { context.delete(change) }
                try context.save()
            }
        }
        let model = ReaderModel(store: store, smartFeeds: [])
        app = ReaderApp(
            model: model, backend: backend, config: config, queue: store.container.viewContext.queue,
            refresher: SyncingRefresher(store: store, options: options), fetcher: fetcher)
        let app = self.app
        let quitCount = self.quitCount
        queue.sync {
            app.onQuit = { quitCount.value.withLock { $0 += 1 } }
            prepare(app)
            app.start()
        }
    }

    deinit {
        let app = self.app
        queue.sync { app.stop() }
        try? FileManager.default.removeItem(at: directory)
    }

    func type(_ keys: Key...) {
        let app = self.app
        queue.sync { for key in keys { app.handle(key) } }
    }

    var screen: String {
        for _ in 0..<3 { queue.sync {} }
        let app = self.app
        queue.sync { if !app.hasQuit { app.redraw() } }
        return backend.screen?.text ?? ""
    }

    func line(_ y: Int) -> String {
        _ = screen
        return backend.screen?.line(y) ?? ""
    }

    /// Waits (at most `seconds`) until `condition` holds; returns whether it did. The reader's
    /// sync is a task on the cooperative pool, queued behind every test the parallel suite has
    /// started, so the wait outlasts the rest of the suite rather than a guess at its speed.
    @discardableResult
    func wait(seconds: Double = 600, until condition: () -> Bool) async throws -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    /// Waits for the sync the reader runs as it starts.
    func waitForStartSync() async throws {
        let app = self.app
        let started = try await wait { queue.sync { app.state.refreshProgress == nil } && screen.contains("One") }
        #expect(started, "\(screen)")
    }

    var pending: Int { (try? FeedSync(store: store).status()?.pending) ?? -1 }
    var hasQuit: Bool { quitCount.value.withLock { $0 } > 0 }
    var quitNotice: String? {
        let app = self.app
        return queue.sync { app.quitNotice }
    }
}

/// Changes travel: the reader pushes an edit once the edits pause, pushes what is left when
/// it quits (and says so after the screen is restored when it cannot), syncs on an interval
/// by default, and shows another device's change without a key press.
@Suite("The reader's changes travel", .serialized)
struct ReaderSyncTravelTests {
    @Test func editsArePushedOnceTheyPauseInOnePush() async throws {
        let h = try SyncingReaderHarness(config: Self.noInterval) { $0.pushDelay = 1 }
        try await h.waitForStartSync()
        // Two items read, one after the other: one push once the edits pause.
        h.type(.enter, .enter, .character("q"), .down, .enter)
        // Done once the marks are cleared here too, after the server's answer.
        let pushed = try await h.wait { h.server.readCount == 2 && h.pending == 0 }
        #expect(pushed, "\(h.screen)")
        #expect(h.server.posts(to: "edit-tag").count == 1)
    }

    @Test func undoAndRedoArePushed() async throws {
        let h = try SyncingReaderHarness(config: Self.noInterval) { $0.pushDelay = 0.2 }
        try await h.waitForStartSync()
        h.type(.enter, .character("N"))  // toggle read on the first item
        #expect(try await h.wait { h.server.readCount == 1 })
        h.type(.character("z"))
        #expect(try await h.wait { h.server.readCount == 0 }, "\(h.screen)")
        h.type(.character("Z"))
        #expect(try await h.wait { h.server.readCount == 1 }, "\(h.screen)")
    }

    @Test(arguments: ["A", "C"])
    func markFeedOrAllReadAndItsUndoArePushed(key: Character) async throws {
        let h = try SyncingReaderHarness(config: Self.noInterval) { $0.pushDelay = 0.2 }
        try await h.waitForStartSync()
        h.type(.character(key))
        #expect(try await h.wait { h.server.readCount == 3 }, "\(h.screen)")
        #expect(try await h.wait { h.pending == 0 })
        h.type(.character("z"))
        #expect(try await h.wait { h.server.readCount == 0 }, "\(h.screen)")
    }

    @Test func addingAFeedIsPushed() async throws {
        let rss = """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Added here</title><link>http://127.0.0.1/</link>
            <item><guid>n1</guid><title>N1</title></item></channel></rss>
            """
        try await withLoopbackServer({ _ in .ok(rss) }) { feeds in
            let h = try SyncingReaderHarness(
                config: Self.noInterval, fetcher: FeedFetcher(configuration: FetcherConfiguration(version: "test"))
            ) {
                $0.pushDelay = 0.2
            }
            try await h.waitForStartSync()
            let url = feeds.url("/new.xml").absoluteString
            h.type(.character("a"))
            let app = h.app
            h.queue.sync { for c in url { app.handle(.character(c)) } }
            h.type(.enter)
            #expect(try await h.wait { h.screen.contains("Added here") }, "\(h.screen)")
            h.type(.character("y"))
            let pushed = try await h.wait {
                h.server.posts(to: "subscription/quickadd").contains { $0.contains { $0 == ("quickadd", url) } }
            }
            #expect(pushed, "\(h.screen)")
        }
    }

    @Test func removingAFeedIsPushed() async throws {
        let h = try SyncingReaderHarness(config: Self.noInterval) { $0.pushDelay = 0.2 }
        try await h.waitForStartSync()
        let app = h.app
        try h.queue.sync {
            guard case .server(let id)? = app.state.feeds.first?.kind else { throw Missing() }
            try app.model.deleteServer(id)
        }
        let pushed = try await h.wait {
            h.server.posts(to: "subscription/edit").contains { $0.contains { $0 == ("ac", "unsubscribe") } }
        }
        #expect(pushed)
    }

    @Test func quittingPushesTheChangesLeft() async throws {
        let h = try SyncingReaderHarness(config: Self.noInterval) {
            $0.pushDelay = 600
            $0.quitPushTimeout = 120
        }
        try await h.waitForStartSync()
        h.type(.enter, .enter)
        #expect(h.pending == 1)
        let app = h.app
        h.queue.sync { app.quit() }
        #expect(try await h.wait { h.hasQuit })
        #expect(h.server.readCount == 1)
        #expect(h.pending == 0)
        #expect(h.quitNotice == nil)
    }

    @Test func quittingWithTheServerAwaySaysTheChangesAreKept() async throws {
        let h = try SyncingReaderHarness(config: Self.noInterval) {
            $0.pushDelay = 600
            $0.quitPushTimeout = 120
        }
        try await h.waitForStartSync()
        h.type(.enter, .enter, .character("q"), .down, .enter)
        h.server.http.stop()
        let app = h.app
        h.queue.sync { app.quit() }
        #expect(try await h.wait { h.hasQuit })
        let notice = try #require(h.quitNotice)
        #expect(notice.hasPrefix("the sync failed: "), "\(notice)")
        #expect(notice.hasSuffix("the 2 changes made here are kept for the next sync"), "\(notice)")
        #expect(h.pending == 2)
    }

    @Test func quittingDoesNotWaitLongOnAServerThatHangs() async throws {
        let h = try SyncingReaderHarness(config: Self.noInterval) {
            $0.pushDelay = 600
            $0.quitPushTimeout = 0.5
        }
        try await h.waitForStartSync()
        h.type(.enter, .enter)
        h.server.shared.state.withLock { $0.stallSeconds = 60 }
        let app = h.app
        h.queue.sync { app.quit() }
        #expect(h.screen.contains("Pushing 1 change to the sync server…"))
        // Quitting ends while the server still holds the push (it would for a minute).
        #expect(try await h.wait { h.hasQuit })
        let notice = try #require(h.quitNotice)
        #expect(
            notice
                == "the sync failed: the push did not end within 0.5 s; the 1 change made here is kept for the next sync"
        )
        h.server.http.stop()
    }

    @Test func aKeyWhileQuittingQuitsAtOnceKeepingTheChanges() async throws {
        let h = try SyncingReaderHarness(config: Self.noInterval) { $0.pushDelay = 600 }
        try await h.waitForStartSync()
        h.type(.enter, .enter)
        h.server.shared.state.withLock { $0.stallSeconds = 60 }
        let app = h.app
        h.queue.sync {
            app.quit()
            app.handle(.character("q"))
        }
        #expect(h.hasQuit)
        #expect(h.quitNotice?.hasSuffix("the 1 change made here is kept for the next sync") == true)
        h.server.http.stop()
    }

    @Test func aSignalSaysTheChangesAreKept() async throws {
        let h = try SyncingReaderHarness(config: Self.noInterval) { $0.pushDelay = 600 }
        try await h.waitForStartSync()
        let app = h.app
        #expect(h.queue.sync { app.keptChangesNotice(signal: SIGTERM) } == nil)
        h.type(.enter, .enter)
        let notice = try #require(h.queue.sync { app.keptChangesNotice(signal: SIGTERM) })
        #expect(
            notice
                == "the sync failed: the reader was stopped by signal 15 before pushing; the 1 change made here is kept for the next sync"
        )
    }

    @Test func theReaderSyncsOnAnIntervalByDefault() throws {
        #expect(ReaderConfig().syncIntervalSeconds == 300)
        let h = try SyncingReaderHarness()
        let app = h.app
        #expect(h.queue.sync { app.syncTimer != nil })
        var off = ReaderConfig()
        off.syncIntervalSeconds = 0
        let without = try SyncingReaderHarness(config: off)
        let other = without.app
        #expect(without.queue.sync { other.syncTimer == nil })
    }

    @Test func anOpenReaderShowsAnotherDevicesChangesWithinTheInterval() async throws {
        var config = ReaderConfig()
        config.syncIntervalSeconds = 1
        let h = try SyncingReaderHarness(config: config)
        try await h.waitForStartSync()
        h.type(.enter)
        #expect(h.line(1).hasPrefix("N"), "\(h.screen)")
        // Another device reads item 1, stars item 2; the server has a new item.
        h.server.shared.state.withLock { state in
            state.items[1]!.read = true
            state.items[2]!.starred = true
            state.items[4] = (false, false)
        }
        // New items are saved before the states are pulled: waited for both.
        func row(_ title: String) -> String? { h.screen.split(separator: "\n").map(String.init).first { $0.contains(title) } }
        let shown = try await h.wait {
            row("Item 4") != nil && row("Item 1")?.hasPrefix("N") == false && row("Item 2")?.contains("*") == true
        }
        #expect(shown, "\(h.screen)")
        let rows = h.screen.split(separator: "\n").map(String.init)
        let first = try #require(rows.first { $0.contains("Item 1") })
        let second = try #require(rows.first { $0.contains("Item 2") })
        #expect(!first.hasPrefix("N"), "\(first)")
        #expect(second.hasPrefix("N*") || second.contains("*"), "\(second)")
        h.type(.character("q"))
        #expect(h.line(1).contains("3/4"), "\(h.screen)")
        // Another device subscribes to a feed: it is listed without a key press.
        h.server.shared.state.withLock { $0.otherFeeds.append(("feed/9", "http://127.0.0.1:9/nine.xml")) }
        #expect(try await h.wait { h.screen.contains("feed/9") }, "\(h.screen)")
    }

    @Test func aRefreshAskedForDuringAPushRunsAfterIt() async throws {
        let h = try SyncingReaderHarness(config: Self.noInterval)
        try await h.waitForStartSync()
        let app = h.app
        let (message, queued) = h.queue.sync { () -> (String?, [ObjectID]?) in
            app.state.refreshProgress = nil
            app.state.message = nil
            app.pushRunning = true
            app.refresh([])
            return (app.state.message, app.queuedRefresh)
        }
        #expect(message == nil)
        #expect(queued == [])
        let started = h.queue.sync { () -> Bool in
            app.pushRunning = false
            app.backgroundWorkEnded()
            return app.state.refreshProgress != nil
        }
        #expect(started)
    }

    static var noInterval: ReaderConfig {
        var config = ReaderConfig()
        config.syncIntervalSeconds = 0
        return config
    }

    struct Missing: Error {}
}

/// Feeds the account syncs show its name in the reader's feed list (`[127.0.0.1] One`), feeds
/// it does not sync show nothing, and are refreshed when the sync fails.
@Suite("The reader's local feeds", .serialized)
struct ReaderLocalFeedTests {
    @Test func aFeedShowsItsAccountAndALocalOneNothing() async throws {
        let h = try SyncingReaderHarness(config: ReaderSyncTravelTests.noInterval, localFeed: "exec:echo")
        try await h.waitForStartSync()
        let rows = h.screen.split(separator: "\n").map(String.init)
        let local = try #require(rows.first { $0.contains("Here only") })
        let synced = try #require(rows.first { $0.contains("One") })
        #expect(!local.contains("["), "\(local)")
        #expect(synced.contains("[127.0.0.1] One"), "\(synced)")
    }

    @Test func theReadersFailedSyncStillRefreshesTheLocalFeeds() async throws {
        let rss = """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Local</title><link>http://127.0.0.1/</link>
            <item><guid>l1</guid><title>L1</title></item><item><guid>l2</guid><title>L2</title></item></channel></rss>
            """
        try await withLoopbackServer({ _ in .ok(rss) }) { feeds in
            let server = try TravelGReaderServer()
            server.http.stop()  // the sync server is away
            let h = try SyncingReaderHarness(
                server: server, config: ReaderSyncTravelTests.noInterval, localFeed: feeds.url("/local.xml").absoluteString)
            let app = h.app
            let ended = try await h.wait { h.queue.sync { app.state.refreshProgress == nil } && h.screen.contains("2/2") }
            #expect(ended, "\(h.screen)")
            let rows = h.screen.split(separator: "\n").map(String.init)
            #expect(rows.contains { $0.contains("2/2") && $0.contains("Here only") && !$0.contains("[") }, "\(rows)")
            #expect(rows.suffix(3).joined(separator: " ").contains("the sync failed"), "\(rows)")
        }
    }

    @Test func withoutAnAccountNothingIsMarkedLocal() throws {
        let h = try Harness()
        #expect(!h.screen.contains("[local]"))
    }

    @Test func whenTheSyncFailsTheLocalFeedsAreStillRefreshed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zl-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rss = """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Local</title><link>http://127.0.0.1/</link>
            <item><guid>l1</guid><title>L1</title></item><item><guid>l2</guid><title>L2</title></item></channel></rss>
            """
        try await withLoopbackServer({ _ in .ok(rss) }) { feeds in
            let store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
            let context = store.container.newBackgroundContext()
            try context.performAndWait {
                let feed = context.insert(Server.self)
                feed.url = feeds.url("/feed.xml").absoluteString
                try context.save()
            }
            // A server that is away: nothing listens on port 1.
            try FeedSync(store: store).addAccount(apiURL: "http://127.0.0.1:1/api/greader.php", user: "alice", token: "t")
            // The feed is not queued for the server: it is one the server refused.
            try context.performAndWait {
                for change in try SyncChange.findAll(in: context) { context.delete(change) }
                try context.save()
            }
            do throws(ZeaderError) {
                _ = try await SyncingRefresher(store: store).refresh(servers: [], progress: nil)
                Issue.record("synced with no server")
            } catch {
                #expect(error.description.hasPrefix("the sync failed: "), "\(error)")
                #expect(error.description.contains("refreshing the 1 feed not synced here"), "\(error)")
            }
            #expect(!feeds.requests.isEmpty)
            #expect(try context.performAndWait { try FeedItem.count(in: context) } == 2)
        }
    }
}

/// `sync-interval`: minutes, or seconds ending in `s`; 0 turns it off; anything else is one
/// clear error naming the line.
@Suite("sync-interval")
struct SyncIntervalConfigTests {
    @Test(arguments: [
        ("5", 300), ("30s", 30), ("30S", 30), ("2m", 120), ("2M", 120), ("0", 0), ("0s", 0), ("007", 420),
        ("99999999999999999999999", 365 * 24 * 3600), ("9223372036854775807", 365 * 24 * 3600),
    ])
    func valuesParse(text: String, seconds: Int) throws {
        #expect(try ReaderConfig.parse("sync-interval \(text)", file: "c").syncIntervalSeconds == seconds)
    }

    @Test(arguments: ["-1", "1.5", "5h", "s", "m", "", "five", "٣", "5 s", "+5", "0x10", "5ms"])
    func badValuesAreOneClearError(text: String) {
        do {
            _ = try ReaderConfig.parse("sync-interval \"\(text)\"", file: "c")
            Issue.record("accepted sync-interval '\(text)'")
        } catch {
            #expect("\(error)".contains("c:1"), "\(error)")
            #expect("\(error)".contains("sync-interval needs a number of minutes"), "\(error)")
        }
    }

    @Test func aHugeRefreshIntervalStartsTheReader() throws {
        var config = ReaderConfig()
        config.refreshIntervalMinutes = Int.max
        config.syncIntervalSeconds = Int.max
        let h = try Harness(config: config, refresher: FakeRefresher())
        #expect(h.screen.contains("Zeader News"))
    }
}
