import Foundation
import Testing

@testable import ZeaderKit

extension SyncFreshRSSTests {
    @Test("rename: on device A, seen on B after its sync; an empty title gives back the feed's own; Fever refuses it and tags")
    func renameReachesTheOtherDevice() async throws {
        let world = try await World()
        world.feeds.setItems(["r1"], of: "named")
        let feed = world.feeds.url("named")
        try await world.addAccount(world.a)
        try await world.addAccount(world.b)
        var r = try await world.zeader(world.a, ["add", feed])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.sync(world.b)
        let own = try #require(try await world.feedList(world.b)[feed]?["title"] as? String)

        // Renamed on A: on the server after A's sync, on B after B's; kept by later syncs.
        r = try await world.zeader(world.a, ["rename", feed, "Read later"])
        #expect(r.status == 0 && r.stdout == "renamed \(feed): Read later\n", "\(r.stderr)")
        #expect(try await world.status(world.a)["pending"] as? Int == 1)
        try await world.sync(world.a)
        #expect(try await world.status(world.a)["pending"] as? Int == 0)
        try await world.sync(world.b)
        #expect(try await world.feedList(world.b)[feed]?["title"] as? String == "Read later")
        try await world.sync(world.a)
        #expect(try await world.feedList(world.a)[feed]?["title"] as? String == "Read later")

        // An empty title on A: the feed's own again, on B too.
        r = try await world.zeader(world.a, ["rename", feed, ""])
        #expect(r.status == 0 && r.stdout == "renamed \(feed): \(own)\n", "\(r.stderr)")
        try await world.sync(world.a)
        try await world.sync(world.b)
        #expect(try await world.feedList(world.b)[feed]?["title"] as? String == own)

        // The same server through Fever: no rename there, one line, the title stays on C only.
        let c = world.directory.appendingPathComponent("c.sqlite")
        r = try await world.zeader(c, ["sync", "add", Self.feverURL(world), "--user", world.server.user])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(c)
        r = try await world.zeader(c, ["rename", feed, "Only here"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(c, ["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("Fever API cannot rename feeds: \(feed)"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        try await world.sync(c)
        #expect(try await world.feedList(c)[feed]?["title"] as? String == "Only here")
        try await world.sync(world.b)
        #expect(try await world.feedList(world.b)[feed]?["title"] as? String == own)

        // A folder (tag) through Fever: refused the same way, the tag kept on C only.
        r = try await world.zeader(c, ["tag", feed, "later"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(c, ["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("Fever API cannot file feeds in folders (tags): \(feed)"), "\(r.stderr)")
        #expect(try await world.feedList(c)[feed]?["tags"] as? [String] == ["later"])
        try await world.sync(world.b)
        #expect(try await world.feedList(world.b)[feed]?["tags"] as? [String] == [])
    }
}
