import Feeds
import Foundation
import GRDB
import LoopbackHTTPServer
import ObjectGraph
import Synchronization
import Testing

@testable import ZeaderKit

@Suite("Refresh: several feeds per save")
struct SaveGroupingTests {
    /// Limits that keep every feed of a small refresh in one group until the refresh ends.
    static let oneGroup = SaveGrouping.Limits(items: 100_000, window: .seconds(600))

    /// Six feeds (`/f0` … `/f5`) of three items each.
    static func sixFeedsOfThreeItems() -> (routes: Routes, paths: [String]) {
        let routes = Routes()
        let paths = (0..<6).map { "/f\($0)" }
        for path in paths { routes[path] = .ok(rss(guids: (1...3).map { "\(path)-\($0)" })) }
        return (routes, paths)
    }

    /// Counts the saves the store announces until ``stop()``.
    final class SaveCounter: Sendable {
        private final class Count: Sendable { let value = Mutex(0) }
        private let saves: Count
        private let token: ObservationToken

        init(_ store: ZeaderStore) {
            let saves = Count()
            self.saves = saves
            token = store.container.bus.observeDidSave(excluding: nil) { _ in saves.value.withLock { $0 += 1 } }
        }

        var count: Int { saves.value.withLock { $0 } }
        func stop() { token.cancel() }
    }

    @Test("feeds ready together are saved in one transaction, and each is reported only once it is stored")
    func readyFeedsShareOneSave() async throws {
        let (routes, paths) = Self.sixFeedsOfThreeItems()
        try await withLoopbackServer(routes.handler) { http in
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            for path in paths { try library.add(url: http.url(path).absoluteString) }
            let saves = SaveCounter(store)
            defer { saves.stop() }
            // At each feed's end, what another connection reads of it: it must be stored already.
            let storedAtReport = Mutex<[String: Int]>([:])
            var options = testOptions()
            options.saveGrouping = Self.oneGroup
            let summary = try await FeedRefresher(store: store, options: options).refresh { event in
                guard case .finished(let result, _) = event else { return }
                let total = (try? serverRows(store)[result.url]?.total).map(Int.init) ?? -1
                storedAtReport.withLock { $0[result.url] = total }
            }
            #expect(summary.failures.isEmpty)
            #expect(summary.progress.newItems == 18)
            #expect(saves.count == 1)
            #expect(
                storedAtReport.withLock { $0 } == Dictionary(uniqueKeysWithValues: paths.map { (http.url($0).absoluteString, 3) })
            )
            #expect(try serverRows(store).values.allSatisfy { $0.total == 3 && $0.unread == 3 && $0.lastError == nil })
        }
    }

    @Test("a feed whose items the store refuses inside a group: the others are stored, that feed gets its own error")
    func oneRefusedFeedInAGroup() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("z.sqlite")
        let routes = Routes()
        let paths = (0..<5).map { "/f\($0)" }
        for path in paths { routes[path] = .ok(rss(guids: ["\(path)-1", "\(path)-2"])) }
        routes["/f2"] = .ok(rss(guids: ["fine", "poison"]))
        try await withLoopbackServer(routes.handler) { http in
            let store = try ZeaderStore.open(at: file)
            let library = FeedLibrary(store: store)
            for path in paths { try library.add(url: http.url(path).absoluteString) }
            // A store that refuses one item, as a hostile feed's item could be refused.
            let queue = try DatabaseQueue(path: file.path)
            try await queue.write { db in
                try db.execute(
                    sql: """
                        CREATE TRIGGER refusePoison BEFORE INSERT ON FeedItem WHEN NEW.guid = 'poison'
                        BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                        """)
            }
            try queue.close()
            let saves = SaveCounter(store)
            defer { saves.stop() }
            let events = Mutex<[RefreshEvent]>([])
            var options = testOptions()
            options.saveGrouping = Self.oneGroup
            let summary = try await FeedRefresher(store: store, options: options).refresh { event in
                events.withLock { $0.append(event) }
            }
            let refused = http.url("/f2").absoluteString
            let rows = try serverRows(store)
            for path in paths where path != "/f2" {
                #expect(rows[http.url(path).absoluteString]?.total == 2)
                #expect(rows[http.url(path).absoluteString]?.lastError == nil)
            }
            #expect(rows[refused]?.total == 0)  // the feed's save is refused whole, as when saved alone
            #expect(rows[refused]?.lastError?.contains(refused) == true)
            #expect(rows[refused]?.lastError?.contains("refused by the test") == true)
            #expect(summary.failures.map(\.url) == [refused])
            guard case .failed(.store(let url, _)) = summary.failures.first?.status else {
                Issue.record("expected a store failure, got \(String(describing: summary.failures.first?.status))")
                return
            }
            #expect(url == refused)
            #expect(summary.progress.newItems == 8)
            // The group's save failed; then each of the five feeds was saved alone (the refused
            // one: its error).
            #expect(saves.count == 5)
            let ends = events.withLock { $0 }.filter { if case .started = $0 { return false } else { return true } }
            #expect(ends.count == 5)
            #expect(ends.last?.progress.completed == 5 && ends.last?.progress.failed == 1)
        }
    }

    @Test("a group is saved once it holds its limit of items, so a long refresh stores as it goes")
    func itemLimitSplitsGroups() async throws {
        let (routes, paths) = Self.sixFeedsOfThreeItems()
        try await withLoopbackServer(routes.handler) { http in
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            for path in paths { try library.add(url: http.url(path).absoluteString) }
            let saves = SaveCounter(store)
            defer { saves.stop() }
            var options = testOptions()
            // A feed of 3 items weighs 4: at most two feeds per group.
            options.saveGrouping = SaveGrouping.Limits(items: 8, window: .seconds(600))
            let summary = try await FeedRefresher(store: store, options: options).refresh()
            #expect(summary.failures.isEmpty)
            #expect(summary.progress.newItems == 18)
            #expect(saves.count >= 3)
            #expect(try serverRows(store).values.allSatisfy { $0.total == 3 })
        }
    }

    @Test("a feed waits in its group at most the window, however slow the other feeds are")
    func windowBoundsTheWait() async throws {
        // The slow feed answers only once the quick one is reported (or after 90 s, when the
        // quick one waited for it: the failure this test looks for).
        let quickReported = DispatchSemaphore(value: 0)
        let handler: @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply = { request in
            if request.path == "/slow" {
                _ = quickReported.wait(timeout: .now() + 90)
                return .ok(rss(guids: ["s1"]))
            }
            return .ok(rss(guids: ["q1", "q2"]))
        }
        try await withLoopbackServer(handler) { http in
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            try library.add(url: http.url("/quick").absoluteString)
            try library.add(url: http.url("/slow").absoluteString)
            // At each feed's end, how many items another connection reads of the slow feed.
            let slowStoredAtReport = Mutex<[String: Int64]>([:])
            var options = testOptions()
            options.saveGrouping = SaveGrouping.Limits(items: 100_000, window: .milliseconds(50))
            options.fetcherConfiguration.idleTimeout = 150
            options.fetcherConfiguration.totalTimeout = 180
            let summary = try await FeedRefresher(store: store, options: options).refresh { event in
                guard case .finished(let result, _) = event else { return }
                let slow = (try? serverRows(store)[http.url("/slow").absoluteString]?.total) ?? -1
                slowStoredAtReport.withLock { $0[result.url] = slow }
                if result.url == http.url("/quick").absoluteString { quickReported.signal() }
            }
            #expect(summary.progress.newItems == 3)
            // The quick feed was saved and reported while the slow one was still on its way.
            #expect(slowStoredAtReport.withLock { $0 }[http.url("/quick").absoluteString] == 0)
            #expect(slowStoredAtReport.withLock { $0 }[http.url("/slow").absoluteString] == 1)
        }
    }

    @Test("applyTogether: two redirects onto one URL in a group — the first moves, the second is told why")
    func groupFallsBackFeedByFeed() throws {
        let store = try makeStore()
        let library = FeedLibrary(store: store)
        try library.add(url: "http://a.example/feed")
        try library.add(url: "http://b.example/feed")
        let context = store.container.newBackgroundContext(name: "import")
        let importer = FeedImporter(context: context)
        let ids = try context.performAndWait {
            try ["http://a.example/feed", "http://b.example/feed"].map {
                try #require(try Server.findFirst(byAttribute: "url", value: .string($0), in: context)).objectID
            }
        }
        let target = try #require(URL(string: "http://c.example/feed"))
        let moved = FetchMetadata(finalURL: target, permanentRedirect: target, status: 200)
        let feed = ParsedFeed(format: .rss2, items: [ParsedItem(id: "1", title: "One")])
        let results = context.performAndWait {
            importer.applyTogether(ids.map { (.parsed(feed, moved), $0) })
        }
        #expect(results.count == 2)
        #expect(results[0].movedTo == "http://c.example/feed")
        #expect(results[0].status == .updated(newItems: 1, updatedItems: 0))
        #expect(
            results[1].status
                == .failed(.movedToSubscribedFeed(url: "http://b.example/feed", target: "http://c.example/feed")))
        let rows = try serverRows(store)
        #expect(rows["http://c.example/feed"]?.total == 1)
        #expect(rows["http://b.example/feed"]?.total == 0)
        #expect(rows["http://b.example/feed"]?.lastError?.contains("already subscribed") == true)
    }

    @Test("applyTogether: feeds with nothing stored are filled; a tombstone or a stored item is still found")
    func groupLooksUpOnlyWhatCanMatch() throws {
        let store = try makeStore()
        let library = FeedLibrary(store: store)
        let urls = ["http://a.example/feed", "http://b.example/feed", "http://c.example/feed"]
        for url in urls { try library.add(url: url) }
        let context = store.container.newBackgroundContext(name: "import")
        let importer = FeedImporter(context: context)
        let ids = try context.performAndWait {
            let servers = try urls.map { try #require(try Server.findFirst(byAttribute: "url", value: .string($0), in: context)) }
            // a: nothing stored; b: all its items removed (a tombstone, no item); c: one item stored.
            Killfile.tombstone("1", of: servers[1], in: context, now: Date())
            #expect(
                try ItemImport.upsert([ParsedItem(id: "1", title: "Old")], into: servers[2], in: context, now: Date()) == (1, 0))
            try context.save()
            context.reset()
            return servers.map(\.objectID)
        }
        let feed = ParsedFeed(format: .rss2, items: [ParsedItem(id: "1", title: "One"), ParsedItem(id: "2", title: "Two")])
        let results = context.performAndWait {
            importer.applyTogether(
                zip(ids, urls).map { id, url in (.parsed(feed, FetchMetadata(finalURL: URL(string: url)!, status: 200)), id) })
        }
        #expect(
            results.map(\.status) == [
                .updated(newItems: 2, updatedItems: 0), .updated(newItems: 1, updatedItems: 0),
                .updated(newItems: 1, updatedItems: 1),
            ])
        let rows = try serverRows(store)
        #expect(urls.map { rows[$0]?.total } == [2, 1, 2])
    }
}
