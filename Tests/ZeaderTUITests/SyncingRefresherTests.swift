import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Synchronization
import Testing
import ZeaderKit

@testable import ZeaderTUI

/// The reader's refresh with sync: a refresher that syncs is run once when the reader
/// starts; a store without an account refreshes its feeds as before.
@Suite("The reader and sync")
struct SyncingRefresherTests {
    /// Counts refreshes; asks for one at start.
    final class StartingRefresher: ReaderRefresher {
        let count = Mutex(0)
        var refreshesOnStart: Bool { true }

        func refresh(servers: [ObjectID], progress: (@Sendable (RefreshEvent) -> Void)?) async throws(ZeaderError)
            -> RefreshSummary
        {
            count.withLock { $0 += 1 }
            var totals = RefreshProgress(total: 1)
            totals.completed = 1
            return RefreshSummary(progress: totals, results: [], duration: 0)
        }
    }

    @Test func aRefresherThatSyncsRunsWhenTheReaderStarts() async throws {
        let refresher = StartingRefresher()
        let h = try Harness(refresher: refresher)
        for _ in 0..<250 where !h.settle().contains("Refreshed 1 feed") {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(refresher.count.withLock { $0 } == 1)
    }

    @Test func aPlainRefresherDoesNotRunAtStart() throws {
        let refresher = FakeRefresher()
        let h = try Harness(refresher: refresher)
        _ = h.settle()
        #expect(refresher.requested.withLock { $0 }.isEmpty)
    }

    @Test func withoutAnAccountTheSyncingRefresherIsAPlainOne() throws {
        let store = try ZeaderStore.inMemory()
        #expect(SyncingRefresher(store: store).refreshesOnStart == false)
    }
}

/// The reader's refresh with an account also refreshes, here, the feeds the account does
/// not sync (one the server refused to subscribe to).
@Suite("The reader and sync: local feeds")
struct SyncingRefresherLocalFeedsTests {
    /// A Google Reader API that lists no feeds and refuses every subscription.
    static func refusingServer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        if request.path.contains("/subscription/list") { return .ok(#"{"subscriptions":[]}"#, contentType: "application/json") }
        if request.path.contains("/subscription/quickadd") {
            return .ok(#"{"error":"cannot"}"#, contentType: "application/json")
        }
        if request.path.contains("/stream/items/ids") { return .ok(#"{"itemRefs":[]}"#, contentType: "application/json") }
        return .ok("OK", contentType: "text/plain")
    }

    @Test func aFeedTheServerRefusedIsRefreshedHere() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rss = """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Local</title><link>http://127.0.0.1/</link>
            <item><guid>l1</guid><title>L1</title></item><item><guid>l2</guid><title>L2</title></item></channel></rss>
            """
        try await withLoopbackServer(Self.refusingServer) { api in
            try await withLoopbackServer({ _ in .ok(rss, contentType: "application/rss+xml") }) { feeds in
                let store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
                let context = store.container.newBackgroundContext()
                try context.performAndWait {
                    let feed = context.insert(Server.self)
                    feed.url = feeds.url("/feed.xml").absoluteString
                    try context.save()
                }
                try FeedSync(store: store).addAccount(
                    apiURL: api.url("/api/greader.php").absoluteString, user: "alice", token: "t")
                _ = try await SyncingRefresher(store: store).refresh(servers: [], progress: nil)
                #expect(api.requests.contains { $0.path.contains("/subscription/quickadd") })
                #expect(!feeds.requests.isEmpty)
                #expect(try context.performAndWait { try FeedItem.count(in: context) } == 2)
            }
        }
    }
}
