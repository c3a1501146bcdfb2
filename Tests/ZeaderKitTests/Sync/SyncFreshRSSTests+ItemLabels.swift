import Foundation
import Testing

@testable import ZeaderKit

extension SyncFreshRSSTests {
    /// The item's own tags of `items --json`.
    static func itemTags(_ item: [String: Any]?) -> [String]? { item?["tags"] as? [String] }

    @Test(
        "an item's tags: a rule's tag on A is a label on the server and B's tag, not the feed's folder; B's change reaches a third device"
    )
    func itemTagsAsLabels() async throws {
        let world = try await World()
        world.feeds.setItems(["t1", "t2"], of: "tagged")
        let url = world.feeds.url("tagged")
        try await world.addAccount(world.a)
        try await world.addAccount(world.b)
        var r = try await world.zeader(world.a, ["rule", "add", #"title == "Title t1" -> tag Later"#])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["add", url])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await world.zeader(world.a, ["tag", url, "news"])
        #expect(r.status == 0, "\(r.stderr)")
        // Subscribed, pulled, tagged by the rule and pushed, in one sync.
        try await world.sync(world.a)
        #expect(Self.itemTags(try await world.items(world.a)["Title t1"]) == ["Later"])
        #expect(try await world.status(world.a)["pending"] as? Int == 0)

        // FreshRSS lists the feed's folder among each item's labels: still B's feed tag only.
        try await world.sync(world.b)
        let onB = try await world.items(world.b)
        #expect(Self.itemTags(onB["Title t1"]) == ["Later"])
        #expect(Self.itemTags(onB["Title t2"]) == [])
        #expect(try await world.feedList(world.b)[url]?["tags"] as? [String] == ["news"])

        // Changed on B as the reader's prompt changes it: one pending change, pushed.
        let opened = try ZeaderStore.open(at: world.b)
        let context = opened.container.newBackgroundContext()
        try context.performAndWait {
            let item = try #require(try FeedItem.findFirst(byAttribute: "title", value: .string("Title t1"), in: context))
            try ItemTagging.set("Elsewhere", on: item.objectID, in: context)
        }
        #expect(try await world.status(world.b)["pending"] as? Int == 1)
        try await world.sync(world.b)
        #expect(try await world.status(world.b)["pending"] as? Int == 0)

        let c = world.directory.appendingPathComponent("c.sqlite")
        try await world.addAccount(c)
        try await world.sync(c)
        let onC = try await world.items(c)
        #expect(Self.itemTags(onC["Title t1"]) == ["Elsewhere"])
        #expect(Self.itemTags(onC["Title t2"]) == [])
    }
}
