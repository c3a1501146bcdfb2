import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// A tag given here to a feed is queued for the account the feed is in and pushed to that
/// account's server only; a local feed's tag stays here.
@Suite("A feed's tag reaches its own account")
struct SyncAccountTagsTests {
    @Test("tagging feeds of one account and a local one: that account gets the label, no other account anything")
    func aTagReachesItsAccountOnly() async throws {
        let world = try SyncAccountsTests.world()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        _ = try await world.syncAll()
        let context = world.context()
        try context.performAndWait { () throws -> Void in
            for url in [SyncAccountsTests.homeFeed, SyncAccountsTests.localFeed] {
                let server = try #require(try Server.findFirst(byAttribute: "url", value: .string(url), in: context))
                _ = try FeedEditing.tag(server.objectID, add: ["later"], in: context)
            }
            #expect(try SyncChange.findAll(in: context).map(\.account) == ["home"])
        }
        #expect(try FeedSync(store: world.store, account: "home").status()?.pending == 1)
        #expect(try FeedSync(store: world.store, account: "127.0.0.1").status()?.pending == 0)
        for outcome in try await world.syncAll() { _ = try outcome.result.get() }
        #expect(world.home.feeds.first { $0.url == SyncAccountsTests.homeFeed }?.labels == ["later"])
        #expect(!world.work.calls.contains(.move))
        #expect(try FeedSync(store: world.store, account: "home").status()?.pending == 0)
        // Pulled back, the tag is still the feed's here.
        try context.performAndWait { () throws -> Void in
            let home = try #require(
                try Server.findFirst(byAttribute: "url", value: .string(SyncAccountsTests.homeFeed), in: context))
            #expect(FeedTags.list(home.tags) == ["later"])
        }
    }
}
