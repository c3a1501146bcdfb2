import Foundation
import Testing

@testable import ZeaderKit

extension SyncFreshRSSTests {
    /// The same FreshRSS's Fever API (`…/api/fever.php`).
    static func feverURL(_ world: World) -> String {
        String(world.server.apiURL.dropLast("greader.php".count)) + "fever.php"
    }

    @Test("Fever: two devices share items, read, unread and stars, offline changes included; feeds and groups are pulled")
    func feverTwoDevices() async throws {
        let world = try await World()
        let fever = Self.feverURL(world)
        let c = world.directory.appendingPathComponent("c.sqlite")
        world.feeds.setItems(["f1", "f2", "f3"], of: "fever")
        let feed = world.feeds.url("fever")
        // Device A speaks the Google Reader API: Fever cannot subscribe, so A puts the feed
        // on the server, in a folder.
        try await world.addAccount(world.a)
        var r = try await world.zeader(world.a, ["add", feed])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["tag", feed, "news"])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)

        // B by the URL, C by the flag: both speak Fever.
        r = try await world.zeader(world.b, ["sync", "add", fever, "--user", world.server.user])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(c, ["sync", "add", fever, "--user", world.server.user, "--service", "FEVER"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await world.status(world.b)["service"] as? String == "fever")
        try await world.sync(world.b)
        try await world.sync(c)
        #expect(try await world.feedList(world.b)[feed]?["tags"] as? [String] == ["news"])
        #expect(try await world.feedList(c)[feed]?["total"] as? Int == 3)
        var onC = try await world.items(c)
        #expect(Set(onC.keys) == ["Title f1", "Title f2", "Title f3"])

        // Read and star on B: seen on C, and on A through the Google Reader API.
        try world.setRead(world.b, "Title f1", true)
        let f2 = try #require(try await world.items(world.b)["Title f2"]?["id"] as? String)
        r = try await world.zeader(world.b, ["flag", f2])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.b)
        try await world.sync(c)
        try await world.sync(world.a)
        onC = try await world.items(c)
        #expect(Self.read(onC["Title f1"]) == true)
        #expect(Self.flagged(onC["Title f2"]) == true)
        let onA = try await world.items(world.a)
        #expect(Self.read(onA["Title f1"]) == true)
        #expect(Self.flagged(onA["Title f2"]) == true)

        // Made while the server is away: kept, and pushed once it is back.
        await world.stopServer()
        try world.setRead(world.b, "Title f1", false)
        r = try await world.zeader(world.b, ["unflag", f2])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.b, ["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot reach"), "\(r.stderr)")
        #expect(try await world.status(world.b)["pending"] as? Int == 2)
        try await world.serveAgain()
        try await world.sync(world.b)
        #expect(try await world.status(world.b)["pending"] as? Int == 0)
        try await world.sync(c)
        onC = try await world.items(c)
        #expect(Self.read(onC["Title f1"]) == false)
        #expect(Self.flagged(onC["Title f2"]) == false)

        // Nothing new: four requests (feeds and groups, new items, unread ids, starred ids).
        let line = try await world.sync(c)
        #expect(Self.requestCount(line) == 4, "\(line)")

        // New items fetched by the server reach the Fever devices.
        world.feeds.setItems(["f1", "f2", "f3", "f4"], of: "fever")
        try await world.refreshServer()
        try await world.sync(c)
        #expect(try await world.items(c)["Title f4"] != nil)

        // Mark all read on C: one call, seen on B.
        r = try await world.zeader(c, ["mark-read", "--all"])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(c)
        try await world.sync(world.b)
        #expect(try await world.items(world.b).values.allSatisfy { Self.read($0) == true })
    }

    @Test(
        "Fever: what it cannot push (subscribe, unsubscribe, tags) is refused with one line naming it; a wrong password stores nothing"
    )
    func feverLimits() async throws {
        let world = try await World()
        let fever = Self.feverURL(world)
        let config = world.directory.appendingPathComponent("config")
        var r = try await world.zeader(world.b, ["sync", "add", fever, "--user", world.server.user], password: "wrong")
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("login refused"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: world.b.path))
        #expect(!FileManager.default.fileExists(atPath: config.path))
        r = try await world.zeader(world.b, ["sync", "add", fever, "--user", world.server.user, "--service", "rss"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("unknown sync service 'rss'"), "\(r.stderr)")

        world.feeds.setItems(["l1"], of: "kept")
        world.feeds.setItems(["m1"], of: "mine")
        let kept = world.feeds.url("kept")
        let mine = world.feeds.url("mine")
        try await world.addAccount(world.a)
        r = try await world.zeader(world.a, ["add", kept])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        r = try await world.zeader(world.b, ["sync", "add", fever, "--user", world.server.user])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.b)

        // Subscribing through Fever: refused in one line, the feed stays local and is refreshed here.
        r = try await world.zeader(world.b, ["add", mine])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.b, ["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("the Fever API cannot subscribe to feeds: \(mine)"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(try await world.feedList(world.b)[mine]?["synced"] as? Bool == false)
        #expect(try await world.status(world.b)["pending"] as? Int == 0)
        r = try await world.zeader(world.b, ["sync"])
        #expect(r.status == 0, "\(r.stderr)")

        // Tags: refused, kept here.
        r = try await world.zeader(world.b, ["tag", kept, "later"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.b, ["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("the Fever API cannot file feeds in folders (tags): \(kept)"), "\(r.stderr)")
        #expect(try await world.feedList(world.b)[kept]?["tags"] as? [String] == ["later"])
        #expect(try await world.status(world.b)["pending"] as? Int == 0)

        // Unsubscribing: refused, and the server still has it.
        r = try await world.zeader(world.b, ["remove", kept])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.b, ["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("the Fever API cannot unsubscribe from feeds: \(kept)"), "\(r.stderr)")
        try await world.sync(world.a)
        #expect(try await world.feedList(world.a)[kept] != nil)
    }
}
