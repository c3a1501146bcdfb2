import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing

@testable import ZeaderKit

/// What `zeader refresh` and `zeader sync` say and do when the sync server is away: the
/// feeds the sync does not cover are still refreshed, and the changes made here are kept.
@Suite("Sync: messages when the server is away")
struct SyncMessagesCLITests {
    /// A store with an account on a server that has gone, one synced feed with one read
    /// change not pushed, and one feed the sync does not cover.
    static func store(in dir: URL, localFeed: String, syncedFeed: String) async throws -> String {
        let db = dir.appendingPathComponent("z.sqlite").path
        try await withLoopbackServer({ request in
            request.path.contains("ClientLogin")
                ? .ok("SID=s\nAuth=token\n", contentType: "text/plain") : .ok("OK", contentType: "text/plain")
        }) { api in
            let r = try zeader(
                ["sync", "add", api.url("/api/greader.php").absoluteString, "--user", "u", "--db", db], in: dir,
                environment: ["ZEADER_SYNC_PASSWORD": "pw"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let store = try ZeaderStore.open(at: URL(fileURLWithPath: db))
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let synced = context.insert(Server.self)
            synced.url = syncedFeed
            synced.syncID = "feed/1"
            synced.account = "127.0.0.1"
            let item = context.insert(FeedItem.self)
            item.guid = "g1"
            item.syncID = "1"
            item.server = synced
            let local = context.insert(Server.self)
            local.url = localFeed
            try context.save()
            try ItemMarking.setRead([item.objectID], true, in: context)
        }
        return db
    }

    @Test("the server away: refresh fetches the feeds the sync does not cover and says the changes are kept")
    func refreshWithTheServerAway() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withLoopbackServer({ _ in .ok(rss(title: "Local", guids: ["l1", "l2"])) }) { feeds in
            let local = feeds.url("/local.xml").absoluteString
            let db = try await Self.store(in: dir, localFeed: local, syncedFeed: feeds.url("/synced.xml").absoluteString)
            let r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 1)
            let warnings = r.stderr.split(separator: "\n")
            #expect(warnings.count == 1, "\(r.stderr)")
            #expect(r.stderr.contains("the sync failed: cannot reach the sync server"), "\(r.stderr)")
            #expect(r.stderr.contains("the 1 change made here is kept for the next sync"), "\(r.stderr)")
            #expect(r.stderr.contains("refreshing the 1 feed not synced here"), "\(r.stderr)")
            #expect(!r.stdout.isEmpty)
            // The local feed was fetched here; the synced one is the server's to fetch.
            #expect(feeds.requests.map(\.path) == ["/local.xml"])
            let list = try zeader(["list", "--json", "--db", db], in: dir)
            let feedsListed = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
            #expect(feedsListed.first { $0["url"] as? String == local }?["total"] as? Int == 2, "\(list.stdout)")
            let status = try zeader(["sync", "status", "--db", db], in: dir)
            #expect(status.stdout.contains("pending changes: 1"))
        }
    }

    @Test("the server away: sync says the changes made here are kept for the next sync")
    func syncWithTheServerAway() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try await Self.store(
            in: dir, localFeed: "http://127.0.0.1:1/local.xml", syncedFeed: "http://127.0.0.1:1/synced.xml")
        let r = try zeader(["sync", "--db", db], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("cannot reach the sync server"), "\(r.stderr)")
        #expect(r.stderr.contains("the 1 change made here is kept for the next sync"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }
}
