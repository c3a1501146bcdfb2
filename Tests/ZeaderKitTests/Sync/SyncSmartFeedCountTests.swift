import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

extension SyncFreshRSSTests {
    /// The kept counts of smart feeds on `store`, each checked against a count over every
    /// item; returns how many had to be counted over the whole item table.
    static func checkSmartCounts(_ store: URL, _ formats: [String], _ step: String) throws -> Int {
        let opened = try ZeaderStore.open(at: store)
        defer { try? opened.container.store.close() }
        let context = opened.container.viewContext
        return try context.performAndWait { () throws -> Int in
            let predicates = try formats.map { try ZeaderModel.itemPredicate(format: $0) }
            let kept = try context.keptCounts(of: "FeedItem", matching: predicates, forgettingOthers: true)
            for (predicate, result) in zip(predicates, kept.counts) {
                #expect(
                    try result.get() == context.count(for: FetchRequest<FeedItem>(predicate: predicate)), "\(step): \(predicate)")
            }
            return kept.fullCounts
        }
    }

    @Test("smart-feed counts kept on one device follow what a sync pulls: reads, flags, new items")
    func smartFeedCountsFollowASync() async throws {
        let world = try await World()
        world.feeds.setItems(["a1", "a2", "a3"], of: "one")
        let one = world.feeds.url("one")
        try await world.addAccount(world.a)
        try await world.addAccount(world.b)
        let r = try await world.zeader(world.a, ["add", one])
        #expect(r.status == 0, "\(r.stderr)")
        try await world.sync(world.a)
        try await world.sync(world.b)
        let formats = ["read == NO", "flagged == YES", #"read == NO AND title ENDSWITH "4""#]
        #expect(try Self.checkSmartCounts(world.b, formats, "first") == formats.count)

        // Read and flagged on A, a new item on the server; B's sync pulls them all.
        try world.setRead(world.a, "Title a1", true)
        let a2 = try #require(try await world.items(world.a)["Title a2"]?["id"] as? String)
        #expect(try await world.zeader(world.a, ["flag", a2]).status == 0)
        try await world.sync(world.a)
        world.feeds.setItems(["a1", "a2", "a3", "a4"], of: "one")
        try await world.refreshServer()
        try await world.sync(world.b)
        #expect(Self.read(try await world.items(world.b)["Title a1"]) == true)
        #expect(try Self.checkSmartCounts(world.b, formats, "after the sync") == 0)
    }
}
