import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

extension SyncFreshRSSTests {
    /// Flags or unflags the item titled `title` in `store`, as the reader's keys do.
    static func setFlagged(_ store: URL, _ title: String, _ flagged: Bool) throws {
        let opened = try ZeaderStore.open(at: store)
        let context = opened.container.newBackgroundContext()
        try context.performAndWait {
            let item = try #require(try FeedItem.findFirst(byAttribute: "title", value: .string(title), in: context))
            #expect(try ItemMarking.setFlagged([item.objectID], true == flagged, in: context) == 1)
        }
    }

    /// A feed whose relative item links FreshRSS resolves against its site link (Zeader:
    /// against the feed's URL), two items sharing one link, and one whose link gains a
    /// trailing slash when `slash` (the feed changed between two fetches).
    static func joinFeed(base: String, slash: Bool) -> String {
        let items: [(guid: String, link: String)] = [
            ("rel1", "post-1"),
            ("rel2", "post-2.html"),
            ("slash", base + "/slash/page" + (slash ? "/" : "")),
            ("shareA", base + "/shared"),
            ("shareB", base + "/shared"),
            ("other", base + "/other"),
            ("starB", base + "/starred"),
        ]
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>Join</title><link>\(base)/blog/</link>

            """
        for (n, item) in items.enumerated() {
            xml += """
                <item><guid isPermaLink="false">\(item.guid)</guid><title>Title \(item.guid)</title><link>\(item.link)</link>
                <pubDate>Mon, 23 Nov 2026 10:0\(n):00 GMT</pubDate><description>About \(item.guid)</description></item>

                """
        }
        return xml + "</channel></rss>\n"
    }

    @Test(
        "a device with history joins an account that has its feed: no twin, its reads and stars on the server, the other's kept")
    func joiningWithHistoryMerges() async throws {
        let world = try await World()
        let base = world.feeds.server.url("/").absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let feed = world.feeds.url("join")
        // Device A, with no account yet, refreshes the feed and reads and stars some items.
        world.feeds.setDocument(Self.joinFeed(base: base, slash: false), of: "join")
        var r = try await world.zeader(world.a, ["add", feed])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["refresh"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await world.items(world.a).count == 7)
        try world.setRead(world.a, "Title rel1", true)
        try Self.setFlagged(world.a, "Title slash", true)
        try world.setRead(world.a, "Title shareB", true)
        try Self.setFlagged(world.a, "Title shareA", true)

        // Device B subscribes first (the server fetches the feed, changed since), reads and stars.
        world.feeds.setDocument(Self.joinFeed(base: base, slash: true), of: "join")
        try await world.addAccount(world.b)
        r = try await world.zeader(world.b, ["add", feed])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.b)
        #expect(try await world.items(world.b).count == 7)
        try world.setRead(world.b, "Title other", true)
        try world.setRead(world.b, "Title rel2", true)
        try Self.setFlagged(world.b, "Title starB", true)
        try await world.sync(world.b)

        // A joins (its feed moved into the account): one sync merges, and the server has A's
        // state when it returns.
        try await world.addAccount(world.a)
        try await world.moveLocalFeeds(world.a)
        try await world.sync(world.a)
        let onA = try await world.items(world.a)
        let listA = try await world.zeader(world.a, ["items", "--json"])
        let countA = (try JSONSerialization.jsonObject(with: Data(listA.stdout.utf8)) as? [Any])?.count
        #expect(countA == 7, "twins on A: \(listA.stdout)")
        #expect(try await world.feedList(world.a)[feed]?["unread"] as? Int == 3)
        try await world.sync(world.b)
        let listB = try await world.zeader(world.b, ["items", "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(listB.stdout.utf8)) as? [Any])?.count == 7)
        let onB = try await world.items(world.b)
        for device in [onA, onB] {
            #expect(Self.read(device["Title rel1"]) == true)
            #expect(Self.flagged(device["Title slash"]) == true)
            #expect(Self.read(device["Title shareB"]) == true)
            #expect(Self.read(device["Title shareA"]) == false)
            #expect(Self.flagged(device["Title shareA"]) == true)
            #expect(Self.flagged(device["Title shareB"]) == false)
            // B's reads and star kept, on A too.
            #expect(Self.read(device["Title other"]) == true)
            #expect(Self.read(device["Title rel2"]) == true)
            #expect(Self.flagged(device["Title starB"]) == true)
            #expect(Self.read(device["Title starB"]) == false)
        }
        // Nothing left to push, and the next sync changes nothing.
        #expect(try await world.status(world.a)["pending"] as? Int == 0)
        let again = try await world.sync(world.a)
        #expect(again.contains("0 changes pushed, 0 new items"), "\(again)")
        #expect(again.contains("0 read/flag states changed"), "\(again)")
    }
}
