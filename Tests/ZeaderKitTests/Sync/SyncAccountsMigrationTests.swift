import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// A store of model version 10, with its one sync account unnamed, opened by this version:
/// the account gets a name and keeps what was its (synced and queued feeds, queued changes,
/// its protocol, kept lists and token); feeds the account did not sync become local ones.
@Suite("A single-account store brought to named accounts")
struct SyncAccountsMigrationTests {
    static let api = "http://RSS.Example.org:8080/api/fever.php"

    /// Writes, with version 10's model, what a store of one account held: a synced feed with
    /// an item (its read change pending), a feed queued for subscription, a local feed the
    /// server refused, a queued tag change, the protocol and labels in store metadata, and
    /// the token beside the store.
    static func version10Store(at url: URL) throws {
        let old = try PersistentContainer(model: ZeaderModel.version10, store: .file(url))
        let context = old.newBackgroundContext(name: "v10")
        try context.performAndWait {
            let synced = context.insert(Server.self)
            synced.url = "http://127.0.0.1:9/synced.xml"
            synced.syncID = "feed/1"
            let item = context.insert(FeedItem.self)
            item.guid = "g1"
            item.syncID = "1700000000000000"
            item.read = true
            item.syncReadPending = true
            item.server = synced
            let queued = context.insert(Server.self)
            queued.url = "http://127.0.0.1:9/queued.xml"
            let refused = context.insert(Server.self)
            refused.url = "http://127.0.0.1:9/refused.xml"
            for (kind, feed) in [(SyncChange.Kind.subscribe, queued.url), (.tags, synced.url)] {
                let change = context.insert(SyncChange.self)
                change.kind = kind.rawValue
                change.feedURL = feed
                change.created = Date()
            }
            let account = context.insert(SyncAccount.self)
            account.apiURL = api
            account.user = "alice"
            account.newestItemID = "1700000000000000"
            try context.save()
        }
        try old.store.setMetadata("fever", forKey: "zeader.sync.service")
        try old.store.setMetadata("{\"http://127.0.0.1:9/synced.xml\":[\"news\"]}", forKey: "zeader.sync.labels")
        try old.store.close()
        try "alice-key\n".write(toFile: url.path + ".sync", atomically: true, encoding: .utf8)
    }

    @Test("the account is named by its host and keeps its feeds, queue, protocol, lists and token")
    func theUnnamedAccountIsNamed() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("z.sqlite")
        try Self.version10Store(at: url)

        let store = try ZeaderStore.open(at: url)
        #expect(try store.container.store.metadata(forKey: "objectgraph.version") == String(ZeaderModel.current.version))
        let status = try #require(try FeedSync(store: store).status())
        #expect(status.name == "rss.example.org")
        #expect(status.service == .fever)
        #expect(status.user == "alice")
        #expect(status.pending == 3)  // two queued changes and the item's read mark
        let context = store.container.newBackgroundContext()
        try context.performAndWait { () throws -> Void in
            func account(_ feed: String) throws -> String? {
                try #require(try Server.findFirst(byAttribute: "url", value: .string(feed), in: context)).account
            }
            #expect(try account("http://127.0.0.1:9/synced.xml") == "rss.example.org")
            #expect(try account("http://127.0.0.1:9/queued.xml") == "rss.example.org")
            #expect(try account("http://127.0.0.1:9/refused.xml") == nil)
            #expect(try SyncChange.findAll(in: context).allSatisfy { $0.account == "rss.example.org" })
            #expect(try SyncAccount.findFirst(where: .true, in: context)?.newestItemID == "1700000000000000")
        }
        #expect(try store.container.store.metadata(forKey: "zeader.sync.labels.rss.example.org")?.contains("news") == true)
        #expect(try store.container.store.metadata(forKey: "zeader.sync.labels") == nil)
        #expect(try store.container.store.metadata(forKey: "zeader.sync.service") == nil)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".sync"))
        #expect(try String(contentsOfFile: url.path + ".sync.rss.example.org", encoding: .utf8).contains("alice-key"))
        #expect(try FeedSync(store: store).localFeeds().count == 1)

        // Opened again: nothing more to do, nothing changed.
        try store.container.store.close()
        let again = try ZeaderStore.open(at: url)
        #expect(try FeedSync(store: again).statuses().map(\.name) == ["rss.example.org"])
    }

    @Test("the migrated account syncs, and a second account added beside it leaves its feeds alone")
    func theMigratedAccountSyncs() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("z.sqlite")
        try Self.version10Store(at: url)
        let store = try ZeaderStore.open(at: url)
        let service = FakeSyncService()
        service.addFeed(url: "http://127.0.0.1:9/synced.xml", title: "Synced", labels: ["news"])
        let other = FakeSyncService()
        let sync = FeedSync(store: store, service: { api, _ in api.contains("fever") ? service : other })
        try sync.addAccount(apiURL: "http://127.0.0.1:9002/api/greader.php", user: "bob", token: "t", localFeeds: .keep)
        let outcomes = try await SyncAccounts.syncAll(store: store) { name in
            FeedSync(store: store, service: { api, _ in api.contains("fever") ? service : other }, account: name)
        }
        #expect(outcomes.map(\.name) == ["127.0.0.1", "rss.example.org"])
        for outcome in outcomes { _ = try outcome.result.get() }
        #expect(service.feeds.map(\.url).contains("http://127.0.0.1:9/queued.xml"))
        #expect(other.feeds.isEmpty)
        #expect(try FeedSync(store: store, account: "rss.example.org").status()?.pending == 0)
    }
}
