import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Several accounts and local feeds in one store, over two in-memory services whose feed and
/// item ids are the same numbers (as two servers' are): each change reaches its own account
/// only, each account's pull touches its own feeds only, and one that fails stops no other.
@Suite("Several sync accounts beside local feeds")
struct SyncAccountsTests {
    static let homeAPI = "http://127.0.0.1:9001/api/greader.php"
    static let workAPI = "http://127.0.0.1:9002/api/fever.php"
    static let localFeed = "http://127.0.0.1:9/local.xml"
    static let homeFeed = "http://127.0.0.1:9/home.xml"
    static let workFeed = "http://127.0.0.1:9/work.xml"

    /// Two services, their ids alike, and a store with one local feed and both accounts.
    struct World {
        var store: ZeaderStore
        var directory: URL
        var home = FakeSyncService()
        var work = FakeSyncService()

        func sync(_ name: String) -> FeedSync {
            let (home, work) = (home, work)
            return FeedSync(store: store, service: { url, _ in url.contains("9001") ? home : work }, account: name)
        }

        func syncAll(only: String? = nil) async throws -> [SyncAccounts.Outcome] {
            try await SyncAccounts.syncAll(store: store, only: only) { sync($0) }
        }

        func context() -> ManagedObjectContext { store.container.newBackgroundContext() }

        func server(_ url: String) throws -> (account: String?, syncID: String?)? {
            let context = context()
            return try context.performAndWait {
                try Server.findFirst(byAttribute: "url", value: .string(url), in: context).map { ($0.account, $0.syncID) }
            }
        }
    }

    static func world() throws -> World {
        let directory = try temporaryDirectory()
        let store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let server = context.insert(Server.self)
            server.url = localFeed
            try context.save()
        }
        var world = World(store: store, directory: directory)
        world.home.addItem(to: world.home.addFeed(url: homeFeed, title: "Home"), title: "home one")
        world.work.addItem(to: world.work.addFeed(url: workFeed, title: "Work"), title: "work one")
        let sync = FeedSync(store: store)
        try sync.addAccount(apiURL: homeAPI, user: "alice", token: "home-token", name: "home", localFeeds: .keep)
        try sync.addAccount(apiURL: workAPI, user: "bob", token: "work-token", localFeeds: .keep)
        world = World(store: store, directory: directory, home: world.home, work: world.work)
        return world
    }

    @Test("adding accounts leaves the local feeds local, names by host, keeps each token in its own 0600 file")
    func addingAccountsLeavesLocalFeeds() throws {
        let world = try Self.world()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        #expect(try world.server(Self.localFeed)?.account == nil)
        let context = world.context()
        try context.performAndWait { () throws -> Void in
            #expect(try SyncAccounts.names(in: context) == ["127.0.0.1", "home"])
            #expect(try SyncChange.count(in: context) == 0)
        }
        let statuses = try FeedSync(store: world.store).statuses()
        #expect(statuses.map(\.name) == ["127.0.0.1", "home"])
        #expect(statuses.map(\.service) == [.fever, .googleReader])
        for (name, token) in [("home", "home-token"), ("127.0.0.1", "work-token")] {
            let path = world.directory.appendingPathComponent("z.sqlite.sync." + name).path
            #expect(try String(contentsOfFile: path, encoding: .utf8).contains(token))
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
        // One engine without a name cannot guess which account is meant.
        #expect(throws: ZeaderError.sync(.accountNeeded(names: ["127.0.0.1", "home"]))) {
            try FeedSync(store: world.store).scope()
        }
    }

    @Test("account names that could reach a path or a command line, or name the local feeds, are refused")
    func badNamesAreRefused() throws {
        let world = try Self.world()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let sync = FeedSync(store: world.store)
        for name in [
            "", "../x", "a/b", ".hidden", "-rf", "local", "LOCAL", "a b", "tab\t", "é", String(repeating: "a", count: 65),
        ] {
            #expect(throws: ZeaderError.sync(.invalidAccountName(name))) {
                try sync.addAccount(apiURL: "http://127.0.0.1:9003/api", user: "carol", token: "t", name: name)
            }
        }
        #expect(throws: ZeaderError.sync(.accountNameTaken("home"))) {
            try sync.addAccount(apiURL: "http://127.0.0.1:9003/api", user: "carol", token: "t", name: "home")
        }
        // The same server and user again is a new login of that account, whatever the case of its URL.
        #expect(try sync.addAccount(apiURL: Self.homeAPI + "/", user: "alice", token: "again") == .loggedInAgain(name: "home"))
        #expect(SyncAccounts.defaultName(apiURL: Self.homeAPI, taken: ["127.0.0.1", "127.0.0.1-2"]) == "127.0.0.1-3")
    }

    @Test("each account syncs its own feeds; items with the same server ids stay apart; local feeds stay local")
    func eachAccountSyncsItsOwnFeeds() async throws {
        let world = try Self.world()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let outcomes = try await world.syncAll()
        #expect(outcomes.map(\.name) == ["127.0.0.1", "home"])
        for outcome in outcomes { #expect(try outcome.result.get().newItems == 1) }
        #expect(try world.server(Self.homeFeed)?.account == "home")
        #expect(try world.server(Self.workFeed)?.account == "127.0.0.1")
        #expect(try world.server(Self.localFeed)?.account == nil)
        #expect(try world.server(Self.localFeed)?.syncID == nil)
        // Both services call their feed feed/1: each is its own account's.
        #expect(try world.server(Self.homeFeed)?.syncID == "feed/1")
        #expect(try world.server(Self.workFeed)?.syncID == "feed/1")

        // A read mark reaches the account of the item's feed only.
        let context = world.context()
        let homeItem = try context.performAndWait {
            try #require(try FeedItem.findFirst(byAttribute: "title", value: .string("home one"), in: context)).objectID
        }
        try context.performAndWait { _ = try ItemMarking.setRead([homeItem], true, in: context) }
        #expect(try FeedSync(store: world.store, account: "home").status()?.pending == 1)
        #expect(try FeedSync(store: world.store, account: "127.0.0.1").status()?.pending == 0)
        _ = try await world.syncAll()
        #expect(world.home.items.allSatisfy { $0.isRead })
        #expect(world.work.items.allSatisfy { !$0.isRead })
        #expect(!world.work.calls.contains(.mark))

        // A second sync pulls nothing anew: no account took the other's items for its own.
        for outcome in try await world.syncAll() {
            #expect(try outcome.result.get().newItems == 0)
            #expect(try outcome.result.get().stateChanges == 0)
        }
        try context.performAndWait {
            #expect(try FeedItem.count(in: context) == 2)
            let work = try #require(try FeedItem.findFirst(byAttribute: "title", value: .string("work one"), in: context))
            #expect(!work.read)
        }
    }

    @Test("removing a feed, marking all read: each account gets its own changes only")
    func changesReachTheirAccountOnly() async throws {
        let world = try Self.world()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        _ = try await world.syncAll()
        let context = world.context()
        try context.performAndWait {
            let work = try #require(try Server.findFirst(byAttribute: "url", value: .string(Self.workFeed), in: context))
            _ = try FeedEditing.delete(work.objectID, in: context)
        }
        _ = try await world.syncAll()
        #expect(world.work.feeds.isEmpty)
        #expect(world.home.feeds.map(\.url) == [Self.homeFeed])
        #expect(!world.home.calls.contains(.unsubscribe))

        world.work.addItem(to: world.work.addFeed(url: Self.workFeed, title: "Work"), title: "work two")
        _ = try await world.syncAll()
        try context.performAndWait { _ = try ItemMarking.markRead(.all, in: context) }
        _ = try await world.syncAll()
        #expect(world.home.calls.filter { $0 == .markAllRead }.count == 1)
        #expect(world.work.calls.filter { $0 == .markAllRead }.count == 1)
    }

    @Test("one account's server away: the other syncs, and the failure names the account")
    func oneAccountAwayStopsNoOther() async throws {
        let world = try Self.world()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        world.home.failing(at: 1)
        let outcomes = try await world.syncAll()
        let home = try #require(outcomes.first { $0.name == "home" })
        let work = try #require(outcomes.first { $0.name == "127.0.0.1" })
        #expect(throws: ZeaderError.self) { try home.result.get() }
        #expect(try work.result.get().newItems == 1)
        #expect(try world.server(Self.homeFeed) == nil)
        // Only the account named syncs.
        let only = try await world.syncAll(only: "home")
        #expect(only.map(\.name) == ["home"])
        #expect(try only[0].result.get().newItems == 1)
        await #expect(throws: ZeaderError.sync(.unknownAccount("nope"))) { try await world.syncAll(only: "nope") }
    }

    @Test("a feed the server lists that is local here stays local, and is said in one line")
    func aListedLocalFeedStaysLocal() async throws {
        let world = try Self.world()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        world.home.addFeed(url: Self.localFeed, title: "Also on the server")
        let outcomes = try await world.syncAll(only: "home")
        let report = try outcomes[0].result.get()
        #expect(report.notStored.contains { $0.contains("local feed") && $0.contains("sync move") }, "\(report.notStored)")
        #expect(try world.server(Self.localFeed)?.account == nil)
        #expect(try world.server(Self.localFeed)?.syncID == nil)
    }

    @Test("moving a feed: local to an account subscribes it there; back to local unsubscribes it and keeps its items")
    func movingAFeed() async throws {
        let world = try Self.world()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        _ = try await world.syncAll()
        let context = world.context()
        try context.performAndWait { () throws -> Void in
            #expect(try SyncAccounts.move(feedURL: Self.localFeed, to: "home", in: context))
            #expect(try !SyncAccounts.move(feedURL: Self.localFeed, to: "home", in: context))
            #expect(throws: ZeaderError.sync(.unknownAccount("nope"))) {
                try SyncAccounts.move(feedURL: Self.localFeed, to: "nope", in: context)
            }
            #expect(throws: ZeaderError.notSubscribed("http://127.0.0.1:9/none.xml")) {
                try SyncAccounts.move(feedURL: "http://127.0.0.1:9/none.xml", to: "home", in: context)
            }
        }
        _ = try await world.syncAll()
        #expect(Set(world.home.feeds.map(\.url)) == [Self.homeFeed, Self.localFeed])
        #expect(world.work.feeds.map(\.url) == [Self.workFeed])
        #expect(try world.server(Self.localFeed)?.syncID != nil)

        // The home feed to the other account: unsubscribed at home, subscribed there.
        _ = try context.performAndWait { try SyncAccounts.move(feedURL: Self.homeFeed, to: "127.0.0.1", in: context) }
        _ = try await world.syncAll()
        #expect(world.home.feeds.map(\.url) == [Self.localFeed])
        #expect(Set(world.work.feeds.map(\.url)) == [Self.workFeed, Self.homeFeed])
        #expect(try world.server(Self.homeFeed)?.account == "127.0.0.1")

        // Back to local: out of the account, its items kept here.
        _ = try context.performAndWait { try SyncAccounts.move(feedURL: Self.homeFeed, to: nil, in: context) }
        _ = try await world.syncAll()
        #expect(world.work.feeds.map(\.url) == [Self.workFeed])
        #expect(try world.server(Self.homeFeed)?.account == nil)
        #expect(try world.server(Self.homeFeed)?.syncID == nil)
        try context.performAndWait {
            let items = try FeedItem.findAll(
                where: try ObjectPredicate(format: "server.url == %@", Self.homeFeed), in: context)
            #expect(items.map(\.title) == ["home one"])
            #expect(items.allSatisfy { $0.syncID == nil })
        }
    }

    @Test("removing one account keeps its feeds as local ones and leaves the other account alone")
    func removingOneAccount() async throws {
        let world = try Self.world()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        _ = try await world.syncAll()
        try world.sync("home").removeAccount()
        #expect(try world.server(Self.homeFeed)?.account == nil)
        #expect(try world.server(Self.homeFeed)?.syncID == nil)
        #expect(try world.server(Self.workFeed)?.account == "127.0.0.1")
        #expect(!FileManager.default.fileExists(atPath: world.directory.appendingPathComponent("z.sqlite.sync.home").path))
        #expect(FileManager.default.fileExists(atPath: world.directory.appendingPathComponent("z.sqlite.sync.127.0.0.1").path))
        #expect(try FeedSync(store: world.store).status()?.name == "127.0.0.1")
        let outcomes = try await world.syncAll()
        #expect(outcomes.map(\.name) == ["127.0.0.1"])
        #expect(try outcomes[0].result.get().newItems == 0)
    }
}

/// `zeader sync` with several accounts, through the binary, against two Google Reader API
/// servers on 127.0.0.1 and an account whose server is gone.
@Suite("zeader sync with several accounts")
struct SyncAccountsCLITests {
    @Test("add --name, status --json lists them without tokens, move, sync names the failing account, remove NAME")
    func theCommandLine() async throws {
        let home = try FakeGReaderServer()
        let work = try FakeGReaderServer()
        work.update { $0.subscriptions = [] }  // subscribes what it is asked to
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("z.sqlite").path
        let store = try ZeaderStore.open(at: URL(fileURLWithPath: db))
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let server = context.insert(Server.self)
            server.url = SyncAccountsTests.localFeed
            try context.save()
        }
        try store.container.store.close()
        func run(_ arguments: [String]) async throws -> CommandResult {
            try await waitingOffThePool {
                try zeader(["--db", db] + arguments, in: directory, environment: ["ZEADER_SYNC_PASSWORD": "secret"])
            }
        }
        var r = try await run(["sync", "add", home.apiURL, "--user", "alice", "--name", "home"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("sync account home added"), "\(r.stdout)")
        r = try await run(["sync", "add", work.apiURL, "--user", "bob", "--name", "../work"])
        #expect(r.status == 2)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("'../work' cannot name an account"), "\(r.stderr)")
        r = try await run(["sync", "add", work.apiURL, "--user", "bob", "--name", "home"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("named 'home' already"), "\(r.stderr)")
        r = try await run(["sync", "add", work.apiURL, "--user", "bob", "--name", "work"])
        #expect(r.status == 0, "\(r.stderr)")

        r = try await run(["sync", "status", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(list.map { $0["name"] as? String } == ["home", "work"])
        #expect(list.map { $0["user"] as? String } == ["alice", "bob"])
        #expect(list.map { $0["pending"] as? Int } == [0, 0])
        #expect(!r.stdout.contains("token") && !r.stdout.contains("secret"))
        r = try await run(["sync", "status", "--json", "--account", "work"])
        #expect((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["name"] as? String == "work")

        r = try await run(["sync", "move", SyncAccountsTests.localFeed, "work"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("moved to work"), "\(r.stdout)")
        r = try await run(["sync", "move", SyncAccountsTests.localFeed, "nope"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("no sync account named 'nope'"), "\(r.stderr)")

        // A third account whose server is gone: the others sync, the exit status and a line say which failed.
        let reopened = try ZeaderStore.open(at: URL(fileURLWithPath: db))
        let closed = "http://127.0.0.1:\(try FreshRSSServer.freePort())/api/greader.php"
        try FeedSync(store: reopened).addAccount(apiURL: closed, user: "carol", token: "t", name: "gone", localFeeds: .keep)
        try reopened.container.store.close()
        r = try await run(["sync"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("home: synced:") && r.stdout.contains("work: synced:"), "\(r.stdout)")
        #expect(r.stderr.contains("gone: the sync failed"), "\(r.stderr)")
        #expect(!r.stderr.contains("home:") && !r.stderr.contains("work:"), "\(r.stderr)")
        r = try await run(["sync", "--account", "home"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await run(["sync", "status", "--json", "--account", "work"])
        #expect((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["pending"] as? Int == 0)

        // A feed added to a named account reaches that account's server only.
        let extra = "http://127.0.0.1:9/extra.xml"
        r = try await run(["add", extra, "--no-fetch", "--account", "nope"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("no sync account named 'nope'"), "\(r.stderr)")
        r = try await run(["add", extra, "--no-fetch", "--account", "work"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await run(["sync", "--account", "work"])
        #expect(r.status == 0, "\(r.stderr)")
        var posts: [String] = []
        work.update { posts = $0.posts }
        #expect(posts.contains("subscription/quickadd " + extra), "\(posts)")
        home.update { posts = $0.posts }
        #expect(!posts.contains { $0.contains("extra.xml") }, "\(posts)")

        r = try await run(["sync", "remove"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("several sync accounts (gone, home, work)"), "\(r.stderr)")
        r = try await run(["sync", "remove", "gone"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await run(["sync", "status"])
        #expect(r.stdout.contains("home:") && r.stdout.contains("work:") && !r.stdout.contains("gone"), "\(r.stdout)")
    }
}
