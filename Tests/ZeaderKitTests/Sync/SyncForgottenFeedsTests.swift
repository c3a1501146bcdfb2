import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing

@testable import ZeaderKit

/// A server that no longer lists most of this device's synced feeds (an account reset or
/// recreated empty) deletes nothing: the sync stops and says so, and the user chooses to
/// upload the feeds again, detach them as local feeds, or accept the removals
/// (``FeedSync/MissingFeeds``).
@Suite("Sync: feeds the server forgot are not deleted")
struct SyncForgottenFeedsTests {
    static let feeds = (1...4).map { (id: "feed/\($0)", url: "http://fake.example/\($0).xml") }

    /// A store synced with the fake server listing `count` feeds (items in `feed/1`, one of
    /// them flagged here and not yet pushed), and the directory to remove.
    static func syncedStore(_ server: FakeGReaderServer, feeds count: Int) async throws -> (FeedSync, URL) {
        server.update { $0.subscriptions = Array(feeds.prefix(count)) }
        server.add(ids: (1...3).map { FakeGReaderServer.now - 3_600_000_000 + $0 })
        let directory = try temporaryDirectory()
        let store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
        let sync = FeedSync(store: store)
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        _ = try await sync.sync()
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let item = try #require(try FeedItem.findAll(sortedBy: "guid", in: context).first)
            _ = try ItemMarking.setFlagged([item.objectID], true, in: context)
        }
        server.update { $0.posts = [] }
        return (sync, directory)
    }

    struct Snapshot: Equatable {
        var feeds: [String]
        var syncedFeeds: Int
        var items: Int
        var flagged: Int
        var syncedItems: Int
    }

    static func snapshot(_ sync: FeedSync) throws -> Snapshot {
        let context = sync.store.container.newBackgroundContext()
        return try context.performAndWait {
            let servers = try Server.findAll(sortedBy: "url", in: context)
            let items = try FeedItem.findAll(in: context)
            return Snapshot(
                feeds: servers.map(\.url), syncedFeeds: servers.filter { $0.syncID != nil }.count, items: items.count,
                flagged: items.filter(\.flagged).count, syncedItems: items.filter { $0.syncID != nil }.count)
        }
    }

    static func error(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch {
            return String(describing: error)
        }
    }

    @Test func theRuleIsAtLeastTwoFeedsAndMoreThanHalf() {
        #expect(FeedSync.mostFeedsWouldGo(missing: 1, synced: 1) == false)
        #expect(FeedSync.mostFeedsWouldGo(missing: 1, synced: 3) == false)
        #expect(FeedSync.mostFeedsWouldGo(missing: 2, synced: 4) == false)
        #expect(FeedSync.mostFeedsWouldGo(missing: 0, synced: 0) == false)
        #expect(FeedSync.mostFeedsWouldGo(missing: 2, synced: 2))
        #expect(FeedSync.mostFeedsWouldGo(missing: 2, synced: 3))
        #expect(FeedSync.mostFeedsWouldGo(missing: 3, synced: 3))
        #expect(FeedSync.mostFeedsWouldGo(missing: 600, synced: 1000))
    }

    /// (feeds synced, feeds the server still lists): all gone, most gone.
    @Test(arguments: [(3, 0), (2, 0), (3, 1), (4, 1)])
    func aServerThatForgotMostFeedsStopsTheSyncBeforeAnyChange(synced: Int, listed: Int) async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try await Self.syncedStore(server, feeds: synced)
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.snapshot(sync)
        #expect(before.syncedFeeds == synced && before.items == 3 && before.flagged == 1)
        server.update { $0.subscriptions = Array(Self.feeds.prefix(listed)) }

        let message = await Self.error { _ = try await sync.sync() }
        #expect(message == SyncError.serverForgotFeeds(listed: listed, synced: synced).description)
        #expect(message?.contains("lists \(listed) of the \(synced) feeds this device synced") == true)
        #expect(message?.contains("--upload") == true && message?.contains("--detach") == true)
        #expect(try Self.snapshot(sync) == before)
        #expect(try sync.status()?.pending == 1)
        #expect(server.shared.state.withLock { $0.posts }.isEmpty)
        // And again: the stop holds until the user chooses.
        #expect(await Self.error { _ = try await sync.sync() } == message)
    }

    @Test func theSameFeedsUnderNewIDsAreNotAReset() async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try await Self.syncedStore(server, feeds: 3)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Listed again under other ids, their URLs written another way (case, spaces).
        server.update { state in
            state.subscriptions = Self.feeds.prefix(3).map {
                ("feed/new-\($0.id.dropFirst(5))", " HTTP://" + $0.url.dropFirst(7))
            }
        }
        let report = try await sync.sync()
        #expect(report.feedsRemoved == 0 && report.feedsAdded == 0)
        let after = try Self.snapshot(sync)
        #expect(after.feeds == Self.feeds.prefix(3).map(\.url) && after.syncedFeeds == 3)
    }

    @Test func oneFeedRemovedElsewhereStillGoes() async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try await Self.syncedStore(server, feeds: 3)
        defer { try? FileManager.default.removeItem(at: directory) }
        server.update { $0.subscriptions = [Self.feeds[0], Self.feeds[2]] }
        #expect(try await sync.sync().feedsRemoved == 1)
        #expect(try Self.snapshot(sync).feeds == [Self.feeds[0].url, Self.feeds[2].url])
    }

    @Test func detachKeepsTheFeedsAsLocalOnesAndSendsNothing() async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try await Self.syncedStore(server, feeds: 3)
        defer { try? FileManager.default.removeItem(at: directory) }
        server.update { $0.subscriptions = [] }
        let report = try await sync.sync(missingFeeds: .detach)
        #expect(report.feedsRemoved == 0)
        let after = try Self.snapshot(sync)
        #expect(after.feeds == Self.feeds.prefix(3).map(\.url))
        #expect(after.syncedFeeds == 0 && after.syncedItems == 0)
        #expect(after.items == 3 && after.flagged == 1)
        #expect(!server.shared.state.withLock { $0.posts }.contains { $0.hasPrefix("subscription/") })
        // They are local now: the next plain sync neither stops nor removes them.
        #expect(try await sync.sync().feedsRemoved == 0)
        #expect(try Self.snapshot(sync).feeds.count == 3)
    }

    @Test func uploadSubscribesTheAccountToThemAgain() async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try await Self.syncedStore(server, feeds: 3)
        defer { try? FileManager.default.removeItem(at: directory) }
        server.update { $0.subscriptions = [] }
        let report = try await sync.sync(missingFeeds: .upload)
        #expect(report.feedsRemoved == 0)
        let quickAdds = server.shared.state.withLock { $0.posts }.filter { $0.hasPrefix("subscription/quickadd ") }
        #expect(quickAdds.count == 3)
        #expect(Set(quickAdds) == Set(Self.feeds.prefix(3).map { "subscription/quickadd " + $0.url }), "\(quickAdds)")
        let after = try Self.snapshot(sync)
        #expect(after.feeds == Self.feeds.prefix(3).map(\.url))
        #expect(after.syncedFeeds == 3)
        #expect(after.items == 3 && after.flagged == 1)
        #expect(try sync.status()?.pending == 0)
        #expect(try await sync.sync().feedsRemoved == 0)
    }

    @Test func acceptingTheRemovalsRemovesThem() async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try await Self.syncedStore(server, feeds: 3)
        defer { try? FileManager.default.removeItem(at: directory) }
        server.update { $0.subscriptions = [] }
        #expect(try await sync.sync(missingFeeds: .remove).feedsRemoved == 3)
        #expect(try Self.snapshot(sync).feeds.isEmpty)
    }
}

/// `zeader sync`'s ways out are options of a sync, one at a time.
@Suite("Sync: the options for feeds the server forgot")
struct SyncForgottenFeedsCLITests {
    @Test(arguments: [
        (["sync", "--upload", "--detach"], "choose one of --upload, --detach and --accept-removals"),
        (["sync", "--detach", "--accept-removals"], "choose one of --upload, --detach and --accept-removals"),
        (["sync", "status", "--upload"], "--upload goes with a sync"),
        (["sync", "remove", "--detach"], "--detach goes with a sync"),
        (["sync", "login", "--accept-removals"], "--accept-removals goes with a sync"),
    ])
    func misplacedChoicesAreRefused(arguments: [String], message: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let r = try zeader(["--db", directory.appendingPathComponent("z.sqlite").path] + arguments, in: directory)
        #expect(r.status != 0)
        #expect(r.stderr.contains(message), "\(r.stderr)")
    }
}

extension SyncForgottenFeedsCLITests {
    @Test func theManPageStatesTheRuleAndTheWaysOut() throws {
        let section = try SyncManPageTests.syncSection()
        #expect(section.contains(".B Feeds the server forgot:"))
        #expect(section.contains("remove at least two of the feeds this device synced, and more\nthan half of them"))
        for option in [".B sync \\-\\-upload", ".B sync \\-\\-detach", ".B sync \\-\\-accept\\-removals"] {
            #expect(section.contains(option), "no \(option) in the sync section")
        }
    }
}

/// Commands and file paths are the user's own: a sync never sends them to a server, they
/// stay local feeds.
@Suite("Sync: commands and files are never sent to a server")
struct SyncLocalOnlyFeedsTests {
    static let localOnly = [
        "exec:cat /etc/passwd", "filter:~/bin/clean:http://a.example/feed.xml", "file:///home/alice/feed.xml",
        "FILE:///home/alice/Feed.xml", "Exec:echo secret", "/home/alice/feed.xml", "ftp://a.example/feed.xml",
        "http:///no-host.xml",
    ]

    @Test func noCommandOrFileIsQuickAdded() async throws {
        let server = try FakeGReaderServer()
        server.update { $0.subscriptions = [] }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
        let context = store.container.newBackgroundContext()
        let web = "http://a.example/feed.xml"
        // Half of them there when the account is added, half added after.
        func insert(_ urls: some Sequence<String>) throws {
            try context.performAndWait {
                for url in urls {
                    let feed = context.insert(Server.self)
                    feed.url = url
                    SyncQueue.queue(.subscribe, for: feed, in: context)
                }
                try context.save()
            }
        }
        try insert(Self.localOnly.prefix(4) + [web])
        let sync = FeedSync(store: store)
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        try insert(Self.localOnly.dropFirst(4))
        let report = try await sync.sync()
        let posts = server.shared.state.withLock { $0.posts }
        #expect(posts.filter { $0.hasPrefix("subscription/") } == ["subscription/quickadd " + web], "\(posts)")
        for secret in ["passwd", "/home/alice", "secret", "clean", "ftp:", "no-host"] {
            #expect(!posts.contains { $0.contains(secret) }, "\(secret) was sent: \(posts)")
        }
        #expect(report.refused.isEmpty, "\(report.refused)")
        #expect(try sync.status()?.pending == 0)
        let kept = try context.performAndWait { try Server.findAll(in: context).map(\.url) }
        #expect(Set(kept) == Set(Self.localOnly + [web]))
    }
}

extension SyncLocalOnlyFeedsTests {
    @Test func theManPageSaysCommandsAndFilesAreNeverSent() throws {
        let section = try SyncManPageTests.syncSection()
        #expect(section.contains("is never sent to the server, not even its URL"))
    }
}

/// A feed the server refuses to subscribe to stays a local feed: marked so in `list`, with
/// the server's reason as its last error, and refreshed here by `zeader refresh`.
@Suite("Sync: a feed the server refuses stays local")
struct SyncRefusedFeedTests {
    static let rss = """
        <?xml version="1.0"?><rss version="2.0"><channel><title>Local</title><link>http://127.0.0.1/</link>
        <item><guid>l1</guid><title>L1</title></item><item><guid>l2</guid><title>L2</title></item></channel></rss>
        """

    static func feedList(_ store: URL, in directory: URL) throws -> [String: [String: Any]] {
        let r = try zeader(["--db", store.path, "list", "--json"], in: directory)
        #expect(r.status == 0, "\(r.stderr)")
        let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        return Dictionary(list.map { ($0["url"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func theRefusedFeedIsMarkedLocalAndRefreshedHere() async throws {
        let server = try FakeGReaderServer()  // refuses every quickadd ("cannot subscribe")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("z.sqlite")
        try await withLoopbackServer({ _ in .ok(Self.rss, contentType: "application/rss+xml") }) { feeds in
            let url = feeds.url("/feed.xml").absoluteString
            let store = try ZeaderStore.open(at: path)
            let context = store.container.newBackgroundContext()
            try context.performAndWait {
                let feed = context.insert(Server.self)
                feed.url = url
                feed.origin = .typed
                try context.save()
            }
            try FeedSync(store: store).addAccount(apiURL: server.apiURL, user: "alice", token: "t")

            var r = try zeader(["--db", path.path, "sync"], in: directory)
            #expect(r.status == 1)
            #expect(r.stderr.contains("refused to subscribe to \(url): cannot subscribe"), "\(r.stderr)")
            var list = try Self.feedList(path, in: directory)
            #expect(list[url]?["synced"] as? Bool == false)
            #expect((list[url]?["lastError"] as? String)?.contains("refused this feed (cannot subscribe)") == true)
            #expect(list["http://fake.example/one.xml"]?["synced"] as? Bool == true)
            r = try zeader(["--db", path.path, "list"], in: directory)
            #expect(r.stdout.split(separator: "\n").contains { $0.contains("[local]") && $0.contains(url) }, "\(r.stdout)")
            #expect(!r.stdout.split(separator: "\n").contains { $0.contains("[local]") && $0.contains("fake.example") })

            // `refresh` (a sync, with an account) refreshes it here; the server is not asked again.
            #expect(feeds.requests.isEmpty)
            r = try zeader(["--db", path.path, "refresh"], in: directory)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("local feeds: "), "\(r.stdout)")
            #expect(!feeds.requests.isEmpty)
            list = try Self.feedList(path, in: directory)
            #expect(list[url]?["total"] as? Int == 2)
            #expect(list[url]?["lastError"] is NSNull)
            #expect(list[url]?["synced"] as? Bool == false)
            let quickAdds = server.shared.state.withLock { $0.posts }.filter { $0.hasPrefix("subscription/quickadd") }
            #expect(quickAdds == ["subscription/quickadd " + url])
        }
    }

    @Test func withoutAnAccountSyncedIsNull() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("z.sqlite")
        let r = try zeader(["--db", path.path, "add", "--no-fetch", "http://127.0.0.1:9/feed.xml"], in: directory)
        #expect(r.status == 0, "\(r.stderr)")
        let list = try Self.feedList(path, in: directory)
        #expect(list["http://127.0.0.1:9/feed.xml"]?["synced"] is NSNull)
    }
}

extension SyncRefusedFeedTests {
    @Test func theManPageSaysRefusedFeedsStayLocalAndAreRefreshedHere() throws {
        let section = try SyncManPageTests.syncSection()
        #expect(section.contains("server's reason is the feed's error until the next refresh"))
        #expect(section.contains("refreshes them here after the sync"))
    }
}

/// A feed no longer synced (detached, or its account removed) keeps its items when it is
/// refreshed here: a sync stored them under their links, the feed gives its own ids.
@Suite("Sync: a detached feed refreshed here stores no twins")
struct SyncDetachedRefreshTests {
    @Test func itemsStoredByASyncTakeTheFeedsIDs() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let server = context.insert(Server.self)
            server.url = "http://127.0.0.1:9/feed.xml"
            for n in 1...2 {
                let item = context.insert(FeedItem.self)
                item.guid = "http://127.0.0.1:9/\(n)"  // as a sync stores it
                item.link = item.guid
                item.server = server
                item.read = n == 1
                item.flagged = n == 2
            }
            try context.save()
            let parsed = (1...3).map { ParsedItem(id: "id-\($0)", title: "T\($0)", link: "http://127.0.0.1:9/\($0)") }
            let counts = try ItemImport.upsert(parsed, into: server, in: context, now: Date(), matchingLinks: true)
            try context.save()
            #expect(counts.new == 1)
            let items = try FeedItem.findAll(sortedBy: "guid", in: context)
            #expect(items.map(\.guid) == ["id-1", "id-2", "id-3"])
            #expect(items.map(\.read) == [true, false, false])
            #expect(items.map(\.flagged) == [false, true, false])
            // A stored item whose guid is another item's link but not its own link is not taken.
            let other = context.insert(FeedItem.self)
            other.guid = "http://127.0.0.1:9/4"
            other.link = "http://127.0.0.1:9/elsewhere"
            other.server = server
            try context.save()
            let fourth = [ParsedItem(id: "id-4", title: "T4", link: "http://127.0.0.1:9/4")]
            #expect(try ItemImport.upsert(fourth, into: server, in: context, now: Date(), matchingLinks: true).new == 1)
        }
    }
}
