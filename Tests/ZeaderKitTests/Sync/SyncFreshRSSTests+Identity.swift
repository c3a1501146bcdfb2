import Foundation
import Testing

@testable import ZeaderKit

extension SyncFreshRSSTests {
    /// `items --json` of `store`: each item's id by title.
    static func ids(_ world: World, _ store: URL) async throws -> [String: String] {
        try await world.items(store).compactMapValues { $0["id"] as? String }
    }

    @Test("item ids are the same on two devices, one of which refreshed the feed before joining; flag takes either")
    func stableItemIDs() async throws {
        let world = try await World()
        world.feeds.setItems(["s1", "s2", "s3"], of: "ids")
        let feed = world.feeds.url("ids")
        // A refreshes the feed itself first: its items keep the feed's guids.
        var r = try await world.zeader(world.a, ["add", feed])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["refresh"])
        #expect(r.status == 0, "\(r.stderr)")
        let guids = try await Self.ids(world, world.a)
        #expect(guids.count == 3 && guids.values.allSatisfy { !$0.hasPrefix("greader:") }, "\(guids)")
        try await world.addAccount(world.a)
        try await world.moveLocalFeeds(world.a)
        try await world.sync(world.a)
        try await world.sync(world.a)
        try await world.addAccount(world.b)
        try await world.sync(world.b)

        let onA = try await Self.ids(world, world.a)
        let onB = try await Self.ids(world, world.b)
        #expect(onA.count == 3)
        #expect(onA == onB)
        #expect(onA.values.allSatisfy { $0.hasPrefix("greader:") }, "\(onA)")

        // B's id works on A, and A's own guid still does; the flags travel to B.
        r = try await world.zeader(world.a, ["flag", try #require(onB["Title s1"])])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["flag", try #require(guids["Title s2"])])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.sync(world.b)
        let items = try await world.items(world.b)
        #expect(Self.flagged(items["Title s1"]) == true)
        #expect(Self.flagged(items["Title s2"]) == true)
        #expect(Self.flagged(items["Title s3"]) == false)
    }

    @Test("after a reset another device's upload gives the ids to other feeds: the sync stops, joins nothing; --upload")
    func resetAccountRefilledElsewhere() async throws {
        let world = try await World()
        for name in ["s1", "s2", "s3"] { world.feeds.setItems([name + "a"], of: name) }
        try await world.aSyncedWithAFlag(["r1", "r2", "r3"])
        var r: CommandResult
        let feedsBefore = try await world.feedList(world.a)

        // The account made again, and B (other feeds) fills it first: ids start again.
        try await world.resetUser()
        try await world.addAccount(world.b)
        for name in ["s1", "s2", "s3"] {
            r = try await world.zeader(world.b, ["add", world.feeds.url(name)])
            #expect(r.status == 0, "\(r.stderr)")
        }
        try await world.sync(world.b)

        r = try await world.zeader(world.a, ["sync", "login"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("3 of the 3 feeds this device synced to other feeds"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        let feedsAfter = try await world.feedList(world.a)
        #expect(Set(feedsAfter.keys) == Set(feedsBefore.keys))
        for (url, feed) in feedsAfter {
            #expect(feed["title"] as? String == feedsBefore[url]?["title"] as? String, "\(url)")
            #expect(feed["total"] as? Int == 2, "\(url)")
        }
        #expect(Self.flagged(try await world.items(world.a)["Title r1a"]) == true)
        // `zeader refresh` is a sync with an account: it stops the same way.
        r = try await world.zeader(world.a, ["refresh"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("to other feeds"), "\(r.stderr)")
        #expect(Set(try await world.feedList(world.a).keys) == Set(feedsBefore.keys))

        // --upload: both devices' feeds on the account, each with its own title and items.
        r = try await world.zeader(world.a, ["sync", "--upload"])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.sync(world.b)
        for store in [world.a, world.b] {
            let feeds = try await world.feedList(store)
            #expect(feeds.count == 6, "\(feeds.keys)")
            for name in ["r1", "r2", "r3", "s1", "s2", "s3"] {
                let feed = feeds[world.feeds.url(name)]
                #expect(feed?["title"] as? String == "Feed \(name)", "\(name)")
                #expect(feed?["total"] as? Int == (name.hasPrefix("r") ? 2 : 1), "\(name)")
            }
        }
    }
}

extension SyncFreshRSSTests {
    @Test("tags with FreshRSS (one category per feed): no tag is lost on any device, the first reaches the other")
    func everyTag() async throws {
        let world = try await World()
        world.feeds.setItems(["t1"], of: "tags")
        let feed = world.feeds.url("tags")
        try await world.addAccount(world.a)
        try await world.addAccount(world.b)
        var r = try await world.zeader(world.a, ["add", feed])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["tag", feed, "tech", "apple"])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.sync(world.a)
        try await world.sync(world.b)
        #expect(try await world.feedList(world.a)[feed]?["tags"] as? [String] == ["apple", "tech"])
        #expect(try await world.feedList(world.b)[feed]?["tags"] as? [String] == ["apple"])

        // B's own tag, which the server cannot hold: kept on B, and A keeps its own.
        r = try await world.zeader(world.b, ["tag", feed, "zed"])
        #expect(r.status == 0, "\(r.stderr)")
        for _ in 0..<2 {
            try await world.sync(world.b)
            try await world.sync(world.a)
        }
        #expect(try await world.feedList(world.a)[feed]?["tags"] as? [String] == ["apple", "tech"])
        #expect(try await world.feedList(world.b)[feed]?["tags"] as? [String] == ["apple", "zed"])

        // A tag added on B that sorts first leaves the feed in its category: A keeps "apple".
        r = try await world.zeader(world.b, ["tag", feed, "aaa"])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.b)
        try await world.sync(world.a)
        #expect(try await world.feedList(world.a)[feed]?["tags"] as? [String] == ["apple", "tech"])
        #expect(try await world.feedList(world.b)[feed]?["tags"] as? [String] == ["aaa", "apple", "zed"])
        r = try await world.zeader(world.b, ["tag", feed, "aaa", "--remove"])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.b)

        // The category's tag removed on A: the feed moves to A's next tag, on B too.
        r = try await world.zeader(world.a, ["tag", feed, "apple", "--remove"])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.sync(world.b)
        try await world.sync(world.a)
        #expect(try await world.feedList(world.a)[feed]?["tags"] as? [String] == ["tech"])
        #expect(try await world.feedList(world.b)[feed]?["tags"] as? [String] == ["tech", "zed"])
    }
}
