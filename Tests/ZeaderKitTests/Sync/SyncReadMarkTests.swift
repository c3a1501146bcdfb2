import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// "Mark feed read" and "mark all read" with a sync account: one queued change each, pushed
/// as the API's `mark-all-as-read` up to the moment of the mark.
@Suite("Sync of read marks")
struct SyncReadMarkTests {
    static func marks(in context: ManagedObjectContext) throws -> [String] {
        try context.fetch(FetchRequest<SyncChange>(sortDescriptors: [ObjectSortDescriptor("created")])).map {
            $0.kind + " " + $0.feedURL
        }
    }

    @Test func aFeedOrEverythingIsOneQueuedMarkThatLaterMarksReplace() throws {
        let (store, context) = try SyncQueueTests.store(account: true)
        let feed = "http://127.0.0.1/feed.xml"
        try context.performAndWait {
            let server = try FeedEditing.server(url: feed, in: context)
            try ItemMarking.markRead(.feed(server.objectID), in: context)
            #expect(try Self.marks(in: context) == ["markFeedRead \(feed)"])
            // Already read: marked again, one change still (the later moment covers more).
            try ItemMarking.markRead(.feed(server.objectID), in: context)
            #expect(try Self.marks(in: context) == ["markFeedRead \(feed)"])
            // A tag change of the feed is queued beside the mark, not swallowed by it.
            try FeedEditing.tag(server.objectID, add: ["news"], in: context)
            #expect(try Self.marks(in: context) == ["markFeedRead \(feed)", "tags \(feed)"])
            // Everything: replaces every earlier mark.
            try ItemMarking.markRead(.all, in: context)
            #expect(try Self.marks(in: context) == ["tags \(feed)", "markAllRead "])
            // A smart feed's items are marked one by one: no mark of a scope the server knows.
            try ItemMarking.markRead(.matching(predicateFormat: "title == nil"), in: context)
            #expect(try SyncChange.count(in: context) == 2)
        }
        // Saved in the store, not only in the context: another context sees it.
        let other = store.container.newBackgroundContext()
        #expect(try other.performAndWait { try Self.marks(in: other) } == ["tags \(feed)", "markAllRead "])
    }

    /// A file store with `ids` pulled from `server` by a first sync.
    static func synced(_ server: FakeGReaderServer, ids: [UInt64]) async throws -> (ZeaderStore, FeedSync) {
        server.add(ids: ids)
        let store = try ZeaderStore.open(at: try temporaryDirectory().appendingPathComponent("z.sqlite"))
        let sync = FeedSync(store: store)
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        _ = try await sync.sync()
        return (store, sync)
    }

    @Test func markAllIsPushedAsOneCallUpToItsMomentAndClearsItsItems() async throws {
        let server = try FakeGReaderServer()
        let newest = FakeGReaderServer.now
        let ids = (0..<3_000).map { newest - UInt64($0) }
        let (store, sync) = try await Self.synced(server, ids: ids)
        let before = FakeGReaderServer.now
        try FeedLibrary(store: store).markRead(feed: nil)
        server.update { $0.posts = [] }
        let report = try await sync.sync()
        let posts = server.shared.state.withLock { $0.posts }
        #expect(posts.count == 1, "\(posts.map { $0.prefix(60) })")
        let form = FakeGReaderServer.query(Substring(posts.first?.split(separator: " ", maxSplits: 1).last ?? ""))
        #expect(posts.first?.hasPrefix("mark-all-as-read ") == true)
        #expect(form.contains { $0 == ("s", "user/-/state/com.google/reading-list") })
        let ts = try #require(form.first { $0.0 == "ts" }.flatMap { UInt64($0.1) })
        #expect(ts >= newest && ts >= before - 1_000 && ts <= FakeGReaderServer.now)
        #expect(report.pushed == 1)
        #expect(try sync.status()?.pending == 0)
    }

    @Test func aServerWithoutTheBulkCallGetsTheItemsOneByOne() async throws {
        let server = try FakeGReaderServer()
        let (store, sync) = try await Self.synced(server, ids: [FakeGReaderServer.now - 5, FakeGReaderServer.now - 9])
        server.update { $0.missing = ["reader/api/0/mark-all-as-read"] }
        try FeedLibrary(store: store).markRead(feed: "http://fake.example/one.xml")
        server.update { $0.posts = [] }
        _ = try await sync.sync()
        let posts = server.shared.state.withLock { $0.posts }
        #expect(posts.map { String($0.prefix { $0 != " " }) } == ["mark-all-as-read", "edit-tag"])
        #expect(posts.first?.contains("s=feed%2F1") == true, "\(posts)")
        #expect(try sync.status()?.pending == 0)
    }

    @Test func aFeedOnlyOnThisDeviceSendsNoMark() async throws {
        let server = try FakeGReaderServer()
        let (store, sync) = try await Self.synced(server, ids: [FakeGReaderServer.now - 5])
        let library = FeedLibrary(store: store)
        // The fake server's quickadd answer has no stream id: the feed stays local.
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            _ = try FeedSubscription.add(url: "http://127.0.0.1/local.xml", in: context)
            try context.save()
        }
        _ = try await sync.sync()
        try library.markRead(feed: "http://127.0.0.1/local.xml")
        server.update { $0.posts = [] }
        _ = try await sync.sync()
        #expect(server.shared.state.withLock { $0.posts } == [])
        #expect(try sync.status()?.pending == 0)
    }
}
