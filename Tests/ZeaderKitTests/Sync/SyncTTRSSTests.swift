import Foundation
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

/// `zeader sync` against a real Tiny Tiny RSS (Debian's tt-rss on PostgreSQL, started by
/// `.ci/run` through `scripts/ttrss-server.sh`): two stores act as two devices of one user.
@Suite(
    "Sync through a real Tiny Tiny RSS", .serialized,
    .enabled(
        if: TTRSSServer.running != nil,
        "needs a Tiny Tiny RSS started by scripts/ttrss-server.sh ($ZEADER_TTRSS_DIR and $TTRSS_API, as .ci/run sets them)"
    ))
struct SyncTTRSSTests {
    /// One test's world: its own user on the server, the feeds it fetches, two devices' stores.
    final class World {
        let directory: URL
        let server: TTRSSServer
        let user: String
        let password: String
        let feeds: SyncTestFeeds
        let a: URL
        let b: URL

        init() async throws {
            directory = try temporaryDirectory()
            server = try #require(TTRSSServer.running)
            let server = self.server
            (user, password) = try await waitingOffThePool { try server.addUser("t") }
            feeds = try SyncTestFeeds()
            a = directory.appendingPathComponent("a.sqlite")
            b = directory.appendingPathComponent("b.sqlite")
        }

        deinit {
            feeds.server.stop()
            try? FileManager.default.removeItem(at: directory)
        }

        func refreshServer() async throws {
            let server = self.server
            _ = try await waitingOffThePool { try server.refresh() }
        }

        func zeader(_ store: URL, _ arguments: [String], password: String? = nil) async throws -> CommandResult {
            _ = try #require(zeaderBinary, "build the zeader executable first (swift build --product zeader)")
            let directory = self.directory
            let environment = ["ZEADER_SYNC_PASSWORD": password ?? self.password]
            return try await waitingOffThePool {
                try ZeaderKitTests.zeader(["--db", store.path] + arguments, in: directory, environment: environment)
            }
        }

        @discardableResult
        func sync(_ store: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
            let r = try await zeader(store, ["sync"])
            #expect(r.status == 0, "\(r.stderr)", sourceLocation: sourceLocation)
            return r.stdout
        }

        func items(_ store: URL) async throws -> [String: [String: Any]] {
            let r = try await zeader(store, ["items", "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
            return Dictionary(list.map { ($0["title"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        }

        func feedList(_ store: URL) async throws -> [String: [String: Any]] {
            let r = try await zeader(store, ["list", "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
            return Dictionary(list.map { ($0["url"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        }

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

        /// The id `zeader items --json` gives the item titled `title` on `store`.
        func id(_ title: String, on store: URL) async throws -> String {
            try #require(try await items(store)[title]?["id"] as? String, "no \(title)")
        }
    }

    static func read(_ item: [String: Any]?) -> Bool? { item?["read"] as? Bool }
    static func flagged(_ item: [String: Any]?) -> Bool? { item?["flagged"] as? Bool }

    /// The request count of a sync's summary line (`… (4 requests)`).
    static func requestCount(_ line: String) -> Int? {
        guard let open = line.range(of: "(", options: .backwards) else { return nil }
        return Int(line[open.upperBound...].prefix { $0.isNumber })
    }

    @Test("Two devices: subscribe, read, unread, star, offline changes, a server away, remove; a no-op sync in 4 requests")
    func twoDevices() async throws {
        let world = try await World()
        let api = world.server.apiURL
        world.feeds.setItems(["t1", "t2", "t3"], of: "tt")
        let feed = world.feeds.url("tt")

        // A by the URL (…/api/), B by the flag with the script's own URL.
        var r = try await world.zeader(world.a, ["sync", "add", api, "--user", world.user])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await world.status(world.a)["service"] as? String == "ttrss")
        r = try await world.zeader(world.b, ["sync", "add", api + "index.php", "--user", world.user, "--service", "TTRSS"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await world.status(world.b)["service"] as? String == "ttrss")

        // Subscribed on A: the server has the feed, fetches it, and both devices get its items.
        r = try await world.zeader(world.a, ["add", feed])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.refreshServer()
        try await world.sync(world.a)
        try await world.sync(world.b)
        #expect(try await world.feedList(world.b)[feed]?["synced"] as? Bool == true)
        var onB = try await world.items(world.b)
        #expect(Set(onB.keys) == ["Title t1", "Title t2", "Title t3"], "\(onB.keys)")
        #expect(Set(try await world.items(world.a).keys) == ["Title t1", "Title t2", "Title t3"])

        // Read and star on B: seen on A.
        try world.setRead(world.b, "Title t1", true)
        r = try await world.zeader(world.b, ["flag", try await world.id("Title t2", on: world.b)])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.b)
        try await world.sync(world.a)
        var onA = try await world.items(world.a)
        #expect(Self.read(onA["Title t1"]) == true)
        #expect(Self.flagged(onA["Title t2"]) == true)
        #expect(Self.read(onA["Title t3"]) == false)

        // Made while the server is away: kept, and pushed once it is back.
        try await waitingOffThePool { [server = world.server] in try server.stop() }
        try world.setRead(world.a, "Title t1", false)
        r = try await world.zeader(world.a, ["unflag", try await world.id("Title t2", on: world.a)])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot reach"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(try await world.status(world.a)["pending"] as? Int == 2)
        try await waitingOffThePool { [server = world.server] in try server.serve() }
        try await world.sync(world.a)
        #expect(try await world.status(world.a)["pending"] as? Int == 0)
        try await world.sync(world.b)
        onB = try await world.items(world.b)
        #expect(Self.read(onB["Title t1"]) == false)
        #expect(Self.flagged(onB["Title t2"]) == false)

        // Nothing new: four requests (feeds, new items, unread ids, starred ids).
        let line = try await world.sync(world.b)
        #expect(Self.requestCount(line) == 4, "\(line)")

        // A new item fetched by the server reaches both.
        world.feeds.setItems(["t1", "t2", "t3", "t4"], of: "tt")
        try await world.refreshServer()
        try await world.sync(world.b)
        #expect(try await world.items(world.b)["Title t4"] != nil)

        // Removed on B: unsubscribed on the server, and gone from A.
        r = try await world.zeader(world.b, ["remove", feed])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.b)
        try await world.sync(world.a)
        #expect(try await world.feedList(world.a)[feed] == nil)
        onA = try await world.items(world.a)
        #expect(onA.isEmpty, "\(onA.keys)")
    }

    @Test("A wrong password, API access off, a stale session; what TT-RSS cannot push (tags, a rename) is refused in one line")
    func loginsSessionsAndLimits() async throws {
        let world = try await World()
        let api = world.server.apiURL
        var r = try await world.zeader(world.a, ["sync", "add", api, "--user", world.user], password: "wrong")
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("login refused"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: world.a.path))

        world.feeds.setItems(["s1", "s2"], of: "st")
        let feed = world.feeds.url("st")
        r = try await world.zeader(world.a, ["sync", "add", api, "--user", world.user])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["add", feed])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.refreshServer()
        try await world.sync(world.a)
        #expect(try await world.items(world.a).count == 2)

        // The server forgets every session: the sync logs in again once, and keeps the new one.
        try await waitingOffThePool { [server = world.server] in _ = try server.run("expire-sessions") }
        var line = try await world.sync(world.a)
        #expect(Self.requestCount(line) == 6, "\(line)")
        line = try await world.sync(world.a)
        #expect(Self.requestCount(line) == 4, "\(line)")

        // A tag made here: TT-RSS's API cannot file feeds: one line naming it, kept here.
        r = try await world.zeader(world.a, ["tag", feed, "later"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("Tiny Tiny RSS's API cannot file feeds in folders (tags): \(feed)"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(try await world.feedList(world.a)[feed]?["tags"] as? [String] == ["later"])
        #expect(try await world.status(world.a)["pending"] as? Int == 0)

        // A rename here: TT-RSS's API has no call for it (api.php: no rename, no category
        // change): one line naming it; the title stays here, the next syncs leave it.
        r = try await world.zeader(world.a, ["rename", feed, "Mine"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("Tiny Tiny RSS's API cannot rename feeds: \(feed)"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        try await world.sync(world.a)
        #expect(try await world.feedList(world.a)[feed]?["title"] as? String == "Mine")
        #expect(try await world.status(world.a)["pending"] as? Int == 0)

        // API access taken away: the next login says what to allow.
        try await waitingOffThePool { [server = world.server, user = world.user] in _ = try server.run("disable-api", [user]) }
        r = try await world.zeader(world.b, ["sync", "add", api, "--user", world.user])
        #expect(r.status == 1)
        #expect(r.stderr.contains("Enable API"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: world.b.path))
    }
}
