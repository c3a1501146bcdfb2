import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing

@testable import ZeaderKit

/// `zeader sync` against a real FreshRSS: two stores act as two devices of one user.
@Suite(
    "Sync through a real FreshRSS", .serialized,
    .enabled(
        if: FreshRSSServer.isAvailable,
        "needs PHP 8.1+ (php-cli php-sqlite3 php-xml php-mbstring php-curl php-intl php-zip php-gmp) and ../shared/servers/freshrss"
    ))
struct SyncFreshRSSTests {
    /// One test's world: a FreshRSS, the feeds it fetches, and two devices' stores.
    final class World {
        let directory: URL
        let server: FreshRSSServer
        let feeds: SyncTestFeeds
        let a: URL
        let b: URL

        init() async throws {
            directory = try temporaryDirectory()
            let serverDirectory = directory.appendingPathComponent("freshrss")
            server = try await waitingOffThePool { try FreshRSSServer(directory: serverDirectory) }
            feeds = try SyncTestFeeds()
            a = directory.appendingPathComponent("a.sqlite")
            b = directory.appendingPathComponent("b.sqlite")
        }

        deinit {
            server.stop()
            feeds.server.stop()
            try? FileManager.default.removeItem(at: directory)
        }

        // The server's scripts and zeader itself run as child processes, each waited for off
        // Swift's cooperative pool (`waitingOffThePool`): this suite runs for minutes, and
        // its waits would otherwise hold one of the pool's two threads on CI all that time.

        /// Makes the server fetch its feeds now (``FreshRSSServer/refresh()``).
        func refreshServer() async throws {
            let server = self.server
            try await waitingOffThePool { try server.refresh() }
        }

        /// Stops the server (``FreshRSSServer/stop()``).
        func stopServer() async {
            let server = self.server
            _ = try? await waitingOffThePool { server.stop() }
        }

        /// Serves the installation again (``FreshRSSServer/serve()``).
        func serveAgain() async throws {
            let server = self.server
            try await waitingOffThePool { try server.serve() }
        }

        /// Deletes the account and makes it again, empty (``FreshRSSServer/resetUser()``).
        func resetUser() async throws {
            let server = self.server
            try await waitingOffThePool { try server.resetUser() }
        }

        /// Changes the user's API password (``FreshRSSServer/changeAPIPassword(to:)``).
        func changeAPIPassword(to password: String) async throws {
            let server = self.server
            try await waitingOffThePool { try server.changeAPIPassword(to: password) }
        }

        /// Runs zeader on `store` with the server's password in the environment.
        func zeader(_ store: URL, _ arguments: [String], password: String? = nil) async throws -> CommandResult {
            _ = try #require(zeaderBinary, "build the zeader executable first (swift build --product zeader)")
            let directory = self.directory
            let environment = ["ZEADER_SYNC_PASSWORD": password ?? server.password]
            return try await waitingOffThePool {
                try ZeaderKitTests.zeader(["--db", store.path] + arguments, in: directory, environment: environment)
            }
        }

        /// `sync add` on `store`, expected to work.
        func addAccount(_ store: URL) async throws {
            let r = try await zeader(store, ["sync", "add", server.apiURL, "--user", server.user])
            #expect(r.status == 0, "\(r.stderr)")
        }

        /// `sync move --all-local` on `store`: its local feeds join its one account, as on a
        /// device moving onto the server after `sync add`, which leaves them local.
        func moveLocalFeeds(_ store: URL) async throws {
            let name = try #require(try await status(store)["name"] as? String)
            let r = try await zeader(store, ["sync", "move", "--all-local", name])
            #expect(r.status == 0, "\(r.stderr)")
        }

        /// `zeader sync` on `store`, expected to work; returns its summary line.
        @discardableResult
        func sync(_ store: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
            let r = try await zeader(store, ["sync"])
            #expect(r.status == 0, "\(r.stderr)", sourceLocation: sourceLocation)
            return r.stdout
        }

        /// Device A with an account subscribed to `names` (items `<name>a` and `<name>b`), synced,
        /// with "Title r1a" flagged and pushed: where the tests of a reset account start.
        func aSyncedWithAFlag(_ names: [String]) async throws {
            for name in names { feeds.setItems([name + "a", name + "b"], of: name) }
            try await addAccount(a)
            for name in names {
                let r = try await zeader(a, ["add", feeds.url(name)])
                #expect(r.status == 0, "\(r.stderr)")
            }
            try await sync(a)
            try await sync(a)
            let id = try #require(try await items(a)["Title r1a"]?["id"] as? String)
            let r = try await zeader(a, ["flag", id])
            #expect(r.status == 0, "\(r.stderr)")
            try await sync(a)
        }

        /// `items --json` of `store`, by title.
        func items(_ store: URL) async throws -> [String: [String: Any]] {
            let r = try await zeader(store, ["items", "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
            return Dictionary(list.map { ($0["title"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        }

        /// `list --json` of `store`, by URL.
        func feedList(_ store: URL) async throws -> [String: [String: Any]] {
            let r = try await zeader(store, ["list", "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
            return Dictionary(list.map { ($0["url"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        }

        /// `sync status --json` of `store`.
        func status(_ store: URL) async throws -> [String: Any] {
            let r = try await zeader(store, ["sync", "status", "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            // One object per account; these stores have one.
            return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])?.first ?? [:]
        }

        /// Marks the item titled `title` read or unread, as the reader's keys do.
        func setRead(_ store: URL, _ title: String, _ read: Bool) throws {
            let opened = try ZeaderStore.open(at: store)
            let context = opened.container.newBackgroundContext()
            try context.performAndWait {
                let item = try #require(try FeedItem.findFirst(byAttribute: "title", value: .string(title), in: context))
                #expect(try ItemMarking.setRead([item.objectID], read, in: context) == 1)
            }
        }
    }

    static func read(_ item: [String: Any]?) -> Bool? { item?["read"] as? Bool }
    static func flagged(_ item: [String: Any]?) -> Bool? { item?["flagged"] as? Bool }

    @Test("two devices: subscribe, read, unread, flag, unflag, tag and remove on one are seen on the other")
    func twoDevices() async throws {
        let world = try await World()
        world.feeds.setItems(["a1", "a2", "a3"], of: "one")
        let one = world.feeds.url("one")
        try await world.addAccount(world.a)
        try await world.addAccount(world.b)

        // Subscribe on A: the server fetches the feed; B gets the feed and its items.
        var r = try await world.zeader(world.a, ["add", one])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.sync(world.b)
        #expect(try await world.feedList(world.b)[one]?["total"] as? Int == 3)
        var onB = try await world.items(world.b)
        #expect(Set(onB.keys) == ["Title a1", "Title a2", "Title a3"])
        #expect(Self.read(onB["Title a1"]) == false)

        // Read and flag on B: seen on A.
        try world.setRead(world.b, "Title a1", true)
        let a2 = try #require(onB["Title a2"]?["id"] as? String)
        r = try await world.zeader(world.b, ["flag", a2])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await world.status(world.b)["pending"] as? Int == 2)
        try await world.sync(world.b)
        #expect(try await world.status(world.b)["pending"] as? Int == 0)
        try await world.sync(world.a)
        var onA = try await world.items(world.a)
        #expect(Self.read(onA["Title a1"]) == true)
        #expect(Self.flagged(onA["Title a2"]) == true)
        #expect(Self.read(onA["Title a3"]) == false)

        // Unread and unflag on A: seen on B.
        try world.setRead(world.a, "Title a1", false)
        r = try await world.zeader(world.a, ["unflag", a2])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.sync(world.b)
        onB = try await world.items(world.b)
        #expect(Self.read(onB["Title a1"]) == false)
        #expect(Self.flagged(onB["Title a2"]) == false)

        // A tag on A becomes the server's label, and B's tag.
        r = try await world.zeader(world.a, ["tag", one, "news"])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.sync(world.b)
        #expect(try await world.feedList(world.b)[one]?["tags"] as? [String] == ["news"])

        // Nothing new: a sync of at most 4 requests.
        let line = try await world.sync(world.a)
        #expect(line.contains("(4 requests)"), "\(line)")

        // New items fetched by the server reach both devices.
        world.feeds.setItems(["a1", "a2", "a3", "a4"], of: "one")
        try await world.refreshServer()
        try await world.sync(world.b)
        #expect(try await world.items(world.b)["Title a4"] != nil)

        // Removed on B: gone on A.
        r = try await world.zeader(world.b, ["remove", one])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.b)
        try await world.sync(world.a)
        #expect(try await world.feedList(world.a).isEmpty)
        onA = try await world.items(world.a)
        #expect(onA.isEmpty)

        // A local file is never sent to the server: it stays here, nothing queued.
        let file = world.directory.appendingPathComponent("local.xml")
        try "<rss version=\"2.0\"><channel><title>Local</title></channel></rss>".write(
            to: file, atomically: true, encoding: .utf8)
        r = try await world.zeader(world.a, ["add", file.absoluteString])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await world.status(world.a)["pending"] as? Int == 0)
        r = try await world.zeader(world.a, ["sync"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains(file.path), "\(r.stderr)")
        try await world.sync(world.b)
        #expect(try await world.feedList(world.a)[file.absoluteString] != nil)
        #expect(try await world.feedList(world.b).isEmpty)

        // A feed the server refuses (a 404 there) stays local, says why, and `refresh` fetches it here.
        let missing = world.feeds.url("missing")
        r = try await world.zeader(world.a, ["add", "--no-fetch", missing])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("refused to subscribe to \(missing)"), "\(r.stderr)")
        #expect(try await world.feedList(world.a)[missing]?["synced"] as? Bool == false)
        #expect(try await world.feedList(world.a)[missing]?["lastError"] as? String != nil)
        world.feeds.setItems(["m1", "m2"], of: "missing")
        r = try await world.zeader(world.a, ["refresh"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await world.feedList(world.a)[missing]?["total"] as? Int == 2)
        #expect(try await world.feedList(world.a)[missing]?["synced"] as? Bool == false)
    }

    @Test("a reset account deletes nothing: the sync stops and says so; --upload subscribes it again, --detach keeps local feeds")
    func resetAccount() async throws {
        let world = try await World()
        let names = ["r1", "r2", "r3"]
        try await world.aSyncedWithAFlag(names)
        var r: CommandResult
        let feedsBefore = try await world.feedList(world.a)
        let itemsBefore = try await world.items(world.a)
        #expect(feedsBefore.count == 3 && itemsBefore.count == 6)

        // The account deleted and made again, empty: nothing is removed here.
        try await world.resetUser()
        r = try await world.zeader(world.a, ["sync", "login"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("lists 0 of the 3 feeds this device synced"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(!r.stdout.contains("removed"), "\(r.stdout)")
        #expect(Set(try await world.feedList(world.a).keys) == Set(feedsBefore.keys))
        let onA = try await world.items(world.a)
        #expect(onA.count == 6)
        #expect(Self.flagged(onA["Title r1a"]) == true)
        // `zeader refresh` is a sync with an account: it stops the same way.
        r = try await world.zeader(world.a, ["refresh"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("lists 0 of the 3 feeds"), "\(r.stderr)")
        #expect(try await world.feedList(world.a).count == 3)

        // --upload: the account has the feeds again, as another device sees.
        r = try await world.zeader(world.a, ["sync", "--upload"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("0 removed"), "\(r.stdout)")
        try await world.sync(world.a)
        // No twins: each feed still has its two items.
        for (url, feed) in try await world.feedList(world.a) { #expect(feed["total"] as? Int == 2, "\(url)") }
        try await world.addAccount(world.b)
        try await world.sync(world.b)
        #expect(Set(try await world.feedList(world.b).keys) == Set(feedsBefore.keys))

        // Reset again, --detach: the feeds stay here as local ones, the next sync is quiet.
        try await world.resetUser()
        r = try await world.zeader(world.a, ["sync", "login"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["sync", "--detach"])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        #expect(Set(try await world.feedList(world.a).keys) == Set(feedsBefore.keys))
        #expect(try await world.items(world.a).count == 6)
        // Local now: `refresh` fetches them here, without twins.
        r = try await world.zeader(world.a, ["refresh"])
        #expect(r.status == 0, "\(r.stderr)")
        for (url, feed) in try await world.feedList(world.a) {
            #expect(feed["total"] as? Int == 2, "\(url)")
            #expect(feed["synced"] as? Bool == false, "\(url)")
        }
        #expect(try await world.items(world.a).count == 6)
    }

    @Test("the server away: mark all read fails to sync with exit 1 and stays queued; once it is back, the other device sees it")
    func serverAway() async throws {
        let world = try await World()
        world.feeds.setItems(["b1", "b2", "b3", "b4", "b5"], of: "two")
        try await world.addAccount(world.a)
        try await world.addAccount(world.b)
        var r = try await world.zeader(world.a, ["add", world.feeds.url("two")])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.sync(world.b)

        await world.stopServer()
        r = try await world.zeader(world.a, ["mark-read", "--all"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["sync"])
        #expect(r.status == 1, "\(r.stdout)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("cannot reach the sync server"), "\(r.stderr)")
        #expect(try await world.status(world.a)["pending"] as? Int == 6)  // the mark and its five items
        // `refresh` with an account is a sync: it fails the same way.
        r = try await world.zeader(world.a, ["refresh"])
        #expect(r.status == 1)

        try await world.serveAgain()
        try await world.sync(world.a)
        #expect(try await world.status(world.a)["pending"] as? Int == 0)
        r = try await world.zeader(world.b, ["refresh"])
        #expect(r.status == 0, "\(r.stderr)")
        let onB = try await world.items(world.b)
        #expect(onB.count == 5)
        #expect(onB.values.allSatisfy { Self.read($0) == true })
    }

    @Test(
        "logins: a wrong password or an unreachable server stores nothing; a token the server no longer accepts, then `sync login`"
    )
    func logins() async throws {
        let world = try await World()
        let config = world.directory.appendingPathComponent("config")
        var r = try await world.zeader(
            world.a, ["sync", "add", world.server.apiURL, "--user", world.server.user], password: "wrong")
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("login refused"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: world.a.path))
        #expect(!FileManager.default.fileExists(atPath: world.a.path + ".sync"))
        #expect(!FileManager.default.fileExists(atPath: config.path))

        let closed = "http://127.0.0.1:\(try FreshRSSServer.freePort())/api/greader.php"
        r = try await world.zeader(world.a, ["sync", "add", closed, "--user", "alice"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot reach"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: world.a.path))

        // The password from a command; the token kept for the user alone, never the password.
        r = try await world.zeader(
            world.a,
            [
                "sync", "add", world.server.apiURL, "--user", world.server.user, "--password-command",
                "echo \(world.server.password)",
            ],
            password: "")
        #expect(r.status == 0, "\(r.stderr)")
        let token = world.a.path + ".sync.127.0.0.1"
        let mode = try FileManager.default.attributesOfItem(atPath: token)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(!(try String(contentsOfFile: token, encoding: .utf8)).contains(world.server.password))
        try await world.sync(world.a)

        // The password changed on the server: the old token is refused, and logging in again mends it.
        try await world.changeAPIPassword(to: "new-password-2")
        // PHP's opcode cache may serve the user's old configuration file for a moment (its
        // revalidation interval, 2 s by default): sync until the server has the new one.
        r = try await world.zeader(world.a, ["sync"])
        for _ in 0..<40 where r.status == 0 {
            try await Task.sleep(for: .milliseconds(250))
            r = try await world.zeader(world.a, ["sync"])
        }
        #expect(r.status == 1)
        #expect(r.stderr.contains("no longer accepts the login token"), "\(r.stderr)")
        r = try await world.zeader(world.a, ["sync", "login"], password: "new-password-2")
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)

        // Forgetting the account keeps the local data.
        r = try await world.zeader(world.a, ["sync", "remove"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: token))
        r = try await world.zeader(world.a, ["sync", "status"])
        #expect(r.status == 1)
    }

    @Test("a sync's pulled changes reach an open view context by the change bus; nothing new costs at most 4 requests")
    func liveMerge() async throws {
        let world = try await World()
        world.feeds.setItems(["m1", "m2"], of: "live")
        try await world.addAccount(world.a)
        try await world.addAccount(world.b)
        let r = try await world.zeader(world.b, ["add", world.feeds.url("live")])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.b)

        // Device A is open (as the reader is): its view context holds the items.
        let store = try ZeaderStore.open(at: world.a)
        let sync = FeedSync(store: store)
        _ = try await sync.sync()
        let view = store.container.viewContext
        let item = try view.performAndWait {
            try #require(try FeedItem.findFirst(byAttribute: "title", value: .string("Title m1"), in: view))
        }
        #expect(view.performAndWait { item.read } == false)

        try world.setRead(world.b, "Title m1", true)
        try await world.sync(world.b)
        let report = try await sync.sync()
        #expect(report.stateChanges == 1)
        // The merge is queued on the view context's queue: once it ran, the object shows it.
        view.performAndWait {}
        #expect(view.performAndWait { item.read } == true)

        let idle = try await sync.sync()
        #expect(idle.requests <= 4)
        #expect(idle.newItems == 0 && idle.pushed == 0 && idle.stateChanges == 0)
    }

    @Test("undo of read, flag and mark-all-read after they were pushed is pushed too: the other device sees the undone state")
    func undoAfterPush() async throws {
        let world = try await World()
        world.feeds.setItems(["u1", "u2", "u3"], of: "undo")
        try await world.addAccount(world.a)
        try await world.addAccount(world.b)
        let r = try await world.zeader(world.a, ["add", world.feeds.url("undo")])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.sync(world.b)

        // Device A is open as the reader is: a view context with an undo manager, synced
        // in the background through the same store.
        let store = try ZeaderStore.open(at: world.a)
        let sync = FeedSync(store: store)
        let view = store.container.viewContext
        let bus = store.container.bus
        let (u1, u2) = try view.performAndWait {
            view.undoManager = ContextUndoManager()
            let u1 = try #require(try FeedItem.findFirst(byAttribute: "title", value: .string("Title u1"), in: view))
            let u2 = try #require(try FeedItem.findFirst(byAttribute: "title", value: .string("Title u2"), in: view))
            #expect(try ItemMarking.setRead([u1.objectID], true, in: view) == 1)
            #expect(try ItemMarking.setFlagged([u2.objectID], true, in: view) == 1)
            return (u1.objectID, u2.objectID)
        }
        _ = try await sync.sync()
        #expect(try sync.status()?.pending == 0)
        try await world.sync(world.b)
        var onB = try await world.items(world.b)
        #expect(Self.read(onB["Title u1"]) == true)
        #expect(Self.flagged(onB["Title u2"]) == true)

        // Both undone on A after the server had them: pushed, and B sees them undone.
        try view.performAndWait { () throws in
            #expect(try ItemMarking.undo(in: view, bus: bus) == "Flag")
            #expect(try ItemMarking.undo(in: view, bus: bus) == "Mark Read")
        }
        #expect(try sync.status()?.pending == 2)
        _ = try await sync.sync()
        try await world.sync(world.b)
        onB = try await world.items(world.b)
        #expect(Self.read(onB["Title u1"]) == false)
        #expect(Self.flagged(onB["Title u2"]) == false)
        // A kept its undone state through the sync (the server's state came back the same).
        view.performAndWait {}
        view.performAndWait {
            #expect((try? view.existingObject(with: u1) as? FeedItem)?.read == false)
            #expect((try? view.existingObject(with: u2) as? FeedItem)?.flagged == false)
        }

        // Mark all read (one batch statement), pushed, then undone: B has all unread again;
        // redone: all read again.
        try view.performAndWait { () throws in #expect(try ItemMarking.markRead(.all, in: view) == 3) }
        _ = try await sync.sync()
        try await world.sync(world.b)
        #expect(try await world.items(world.b).values.allSatisfy { Self.read($0) == true })
        try view.performAndWait { () throws in #expect(try ItemMarking.undo(in: view, bus: bus) == "Mark All Read") }
        _ = try await sync.sync()
        try await world.sync(world.b)
        onB = try await world.items(world.b)
        #expect(onB.count == 3)
        #expect(onB.values.allSatisfy { Self.read($0) == false })
        try view.performAndWait { () throws in #expect(try ItemMarking.redo(in: view, bus: bus) == "Mark All Read") }
        _ = try await sync.sync()
        try await world.sync(world.b)
        #expect(try await world.items(world.b).values.allSatisfy { Self.read($0) == true })
    }

    @Test("undo of a pushed feed removal subscribes again (with its tags and stars), the next sync keeps it; redo removes it")
    func undoOfAPushedRemoval() async throws {
        let world = try await World()
        world.feeds.setItems(["r1", "r2"], of: "kept")
        try await world.addAccount(world.a)
        try await world.addAccount(world.b)
        let feed = world.feeds.url("kept")
        let r = try await world.zeader(world.a, ["add", feed])
        #expect(r.status == 0, "\(r.stderr)")
        let tagged = try await world.zeader(world.a, ["tag", feed, "news"])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        try await world.sync(world.a)

        // Device A is open as the reader is: the feed removed, pushed, then undone.
        let store = try ZeaderStore.open(at: world.a)
        let sync = FeedSync(store: store)
        let view = store.container.viewContext
        let bus = store.container.bus
        try view.performAndWait { () throws in
            view.undoManager = ContextUndoManager()
            let r1 = try #require(try FeedItem.findFirst(byAttribute: "title", value: .string("Title r1"), in: view))
            #expect(try ItemMarking.setFlagged([r1.objectID], true, in: view) == 1)
        }
        _ = try await sync.sync()
        _ = try view.performAndWait { () throws in
            try FeedEditing.delete(try FeedEditing.server(url: feed, in: view).objectID, in: view)
        }
        _ = try await sync.sync()
        try await world.sync(world.b)
        #expect(try await world.feedList(world.b)[feed] == nil)
        try view.performAndWait { () throws in #expect(try ItemMarking.undo(in: view, bus: bus) == "Delete Feed") }
        #expect(try sync.status()?.pending ?? 0 > 0)
        _ = try await sync.sync()
        _ = try await sync.sync()  // the next sync keeps it
        #expect(try await world.feedList(world.a)[feed] != nil)
        // Its items matched to the server's new copies: no twins, and the star kept and pushed.
        #expect(try await world.feedList(world.a)[feed]?["total"] as? Int == 2)
        #expect(Self.flagged(try await world.items(world.a)["Title r1"]) == true)
        #expect(try sync.status()?.pending == 0)
        try await world.sync(world.b)
        let onB = try await world.feedList(world.b)
        #expect(onB[feed] != nil)
        #expect(Self.flagged(try await world.items(world.b)["Title r1"]) == true)
        let tags = String(describing: onB[feed]?["tags"] ?? "")
        #expect(tags.contains("news"), "\(tags)")

        // Redone: removed on the server again.
        try view.performAndWait { () throws in #expect(try ItemMarking.redo(in: view, bus: bus) == "Delete Feed") }
        _ = try await sync.sync()
        try await world.sync(world.b)
        #expect(try await world.feedList(world.b)[feed] == nil)
    }

    @Test("ignore rules apply to pulled items as a refresh applies them: not stored, tombstoned, flagged ones kept")
    func killfile() async throws {
        let world = try await World()
        world.feeds.setItems(["k1", "k2", "k3", "k4"], of: "kill")
        try await world.addAccount(world.a)
        try await world.addAccount(world.b)
        var r = try await world.zeader(world.a, ["add", world.feeds.url("kill")])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        let k3 = try #require(try await world.items(world.a)["Title k3"]?["id"] as? String)
        r = try await world.zeader(world.a, ["flag", k3])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)

        // B: a rule in the config and one in the store (which also matches the flagged k3).
        let config = world.directory.appendingPathComponent("config/zeader")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "ignore * title CONTAINS \"k1\"\n".write(
            to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        r = try await world.zeader(
            world.b, ["ignore", "add", "title CONTAINS \"k2\" OR title CONTAINS \"k3\" OR title CONTAINS \"k5\""])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.b)
        #expect(Set(try await world.items(world.b).keys) == ["Title k3", "Title k4"])
        let opened = try ZeaderStore.open(at: world.b)
        let context = opened.container.newBackgroundContext()
        func tombstones() throws -> Set<String> {
            try context.performAndWait {
                context.reset()
                return Set(
                    try RemovedItem.findAll(in: context).filter { $0.reason == RemovedItem.Reason.ignored.rawValue }.map(\.guid))
            }
        }
        let link = { (guid: String) in "http://127.0.0.1/kill/\(guid)" }
        #expect(try tombstones() == [link("k1"), link("k2")])

        // New items the server fetches: the one a rule matches is not stored; `refresh` (a
        // sync with an account) applies the config's rules too.
        world.feeds.setItems(["k1", "k2", "k3", "k4", "k5", "k6"], of: "kill")
        try await world.refreshServer()
        r = try await world.zeader(world.b, ["refresh"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Set(try await world.items(world.b).keys) == ["Title k3", "Title k4", "Title k6"])
        #expect(try tombstones() == [link("k1"), link("k2"), link("k5")])
        let line = try await world.sync(world.b)
        #expect(line.contains("(4 requests)"), "\(line)")  // the dropped items are not fetched again

        // A rule added later removes the stored items it matches; a rule removed brings back
        // the items it had dropped at the next sync (the server still has them).
        r = try await world.zeader(world.b, ["ignore", "add", "title CONTAINS \"k6\""])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await world.items(world.b)["Title k6"] == nil)
        r = try await world.zeader(world.b, ["ignore", "remove", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.b)
        #expect(Set(try await world.items(world.b).keys) == ["Title k2", "Title k3", "Title k4", "Title k5"])
        #expect(try tombstones() == [link("k1"), link("k6")])
    }

    @Test("SIGKILL in the middle of a sync loses no queued change")
    func killedMidSync() async throws {
        let world = try await World()
        let guids = (0..<300).map { "k\($0)" }
        world.feeds.setItems(guids, of: "big")
        try await world.addAccount(world.a)
        try await world.addAccount(world.b)
        var r = try await world.zeader(world.a, ["add", world.feeds.url("big")])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.sync(world.b)
        r = try await world.zeader(world.a, ["mark-read", "--all"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["flag", "--feed", world.feeds.url("big")])
        #expect(r.status == 0, "\(r.stderr)")

        // Kill syncs at later and later moments until one finishes on its own.
        let binary = try #require(zeaderBinary)
        var delay = 0.02
        var finished = false
        var killed = 0
        for _ in 0..<25 where !finished {
            let process = Process()
            process.executableURL = binary
            process.arguments = ["--db", world.a.path, "sync"]
            process.environment = ["HOME": world.directory.path, "PATH": "/usr/bin:/bin"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: .seconds(delay))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) } else { finished = true }
            process.waitUntilExit()
            if process.terminationReason == .exit { finished = true } else { killed += 1 }
            delay += 0.03
        }
        #expect(killed >= 1, "no sync was killed while it ran")
        r = try await world.zeader(world.a, ["check"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        try await world.sync(world.a)
        #expect(try await world.status(world.a)["pending"] as? Int == 0)
        try await world.sync(world.b)
        let onB = try await world.items(world.b)
        #expect(onB.count == 300)
        #expect(onB.values.allSatisfy { Self.read($0) == true && Self.flagged($0) == true })
    }
}
