import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Synchronization
import Testing

@testable import ZeaderKit

/// A sync server gives data only, and its numbers are checked where they enter: ids out of
/// range, items listed twice, pages that never end (``FakeGReaderServer``).
@Suite("Sync: what a hostile or broken server sends")
struct SyncHostileServerTests {
    /// A store file with an account on `server` (token `t`), and the directory to remove.
    static func syncedStore(_ server: FakeGReaderServer) throws -> (FeedSync, URL) {
        let directory = try temporaryDirectory()
        let store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
        let sync = FeedSync(store: store)
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        return (sync, directory)
    }

    static let fetcher = FeedFetcher(configuration: FetcherConfiguration(version: "test"))

    static func items(_ sync: FeedSync) throws -> [(guid: String, syncID: String?)] {
        let context = sync.store.container.newBackgroundContext()
        return try context.performAndWait { try FeedItem.findAll(sortedBy: "guid", in: context).map { ($0.guid, $0.syncID) } }
    }

    static func error(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch {
            return String(describing: error)
        }
    }

    // MARK: - Item ids out of range

    static let hugeIDs: [UInt64] = [
        UInt64.max, UInt64(Int64.max), 1 << 53, 99_999_999_999_999_999, FakeGReaderServer.now + 30 * 86_400 * 1_000_000,
    ]

    @Test(arguments: hugeIDs)
    func oneHugeIDIsRefusedAndTheNextSyncPullsTheNewItems(huge: UInt64) async throws {
        let server = try FakeGReaderServer()
        let base = FakeGReaderServer.now - 3_600_000_000
        server.add(ids: [base, huge, base + 1])
        let (sync, directory) = try Self.syncedStore(server)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try await sync.sync().newItems == 2)
        #expect(!(try Self.items(sync)).contains { $0.syncID == String(huge) })
        server.add(ids: (1...4).map { FakeGReaderServer.now + $0 })
        #expect(try await sync.sync().newItems == 4)
        #expect(try Self.items(sync).count == 6)
    }

    @Test func aStoreWhoseNewestMarkerIsOutOfRangeRecovers() async throws {
        let server = try FakeGReaderServer()
        server.add(ids: [FakeGReaderServer.now - 10, FakeGReaderServer.now - 5])
        let (sync, directory) = try Self.syncedStore(server)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try await sync.sync().newItems == 2)
        let context = sync.store.container.newBackgroundContext()
        try context.performAndWait {
            try SyncAccount.findFirst(where: .true, in: context)?.newestItemID = String(UInt64.max)
            try context.save()
        }
        server.add(ids: (1...4).map { FakeGReaderServer.now + $0 })
        #expect(try await sync.sync().newItems == 4)
        #expect(try Self.items(sync).count == 6)
    }

    @Test func idsOutOfRangeAreLeftOutOfEveryList() throws {
        let now = Date()
        let ceiling = GReaderClient.itemIDCeiling(now: now)
        #expect(GReaderClient.isPlausibleItemID(1, now: now))
        #expect(GReaderClient.isPlausibleItemID(UInt64(now.timeIntervalSince1970 * 1_000_000), now: now))
        #expect(!GReaderClient.isPlausibleItemID(0, now: now))
        #expect(!GReaderClient.isPlausibleItemID(ceiling + 1, now: now))
        let page = ItemRefScanner.scan(
            Array(
                #"{"itemRefs":[{"id":"0"},{"id":"18446744073709551615"},{"id":"tag:google.com,2005:reader/item/ffffffffffffffff"},{"id":"7"}]}"#
                    .utf8), ceiling: ceiling)
        #expect(page?.ids == [7])
    }

    // MARK: - One server item, one FeedItem

    @Test(arguments: [true, false])
    func anItemListedTwiceInOneAnswerIsStoredOnce(withLinks: Bool) async throws {
        let server = try FakeGReaderServer()
        let ids = [FakeGReaderServer.now - 20, FakeGReaderServer.now - 10]
        server.add(ids: ids, withLinks: withLinks)
        server.update { $0.contentsRepeat = 2 }
        let (sync, directory) = try Self.syncedStore(server)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try await sync.sync().newItems == 2)
        let stored = try Self.items(sync)
        #expect(stored.count == 2, "\(stored)")
        #expect(Set(stored.compactMap(\.syncID)) == Set(ids.map { String($0) }))
    }

    @Test func anItemListedAgainInALaterPullIsNotStoredTwice() async throws {
        let server = try FakeGReaderServer()
        let first = FakeGReaderServer.now - 20
        server.add(ids: [first])
        let (sync, directory) = try Self.syncedStore(server)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try await sync.sync().newItems == 1)
        // Asked for the new item, the server gives the old one again beside it.
        server.update { $0.extraContents = [first] }
        server.add(ids: [FakeGReaderServer.now + 1])
        #expect(try await sync.sync().newItems == 1)
        let stored = try Self.items(sync)
        #expect(stored.count == 2, "\(stored)")
        #expect(stored.filter { $0.syncID == String(first) }.count == 1)
    }

    // MARK: - Pagination

    /// A reading list that repeats one continuation with new ids each time (the server
    /// gives up after 200 requests, so that a sync without the bound ends too).
    @Test func aRepeatedContinuationEndsTheSyncWithAClearError() async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try Self.syncedStore(server)
        defer { try? FileManager.default.removeItem(at: directory) }
        let counter = Mutex(UInt64(0))
        server.update { state in
            state.idsOverride = { _ in
                let page = counter.withLock { n in
                    n += 1
                    return n
                }
                if page > 200 { return .status(500) }
                let refs = (UInt64(0)..<3).map { #"{"id":"\#(page * 10 + $0)"}"# }.joined(separator: ",")
                return FakeGReaderServer.json(#"{"itemRefs":[\#(refs)],"continuation":"again"}"#)
            }
        }
        let message = await Self.error { _ = try await sync.sync() }
        #expect(message?.contains("repeated the continuation \"again\"") == true, "\(message ?? "no error")")
        #expect(message?.contains("nothing stored was lost") == true)
        #expect(server.idsRequests == 2)
    }

    @Test func aCycleOfContinuationsIsFoundToo() async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try Self.syncedStore(server)
        defer { try? FileManager.default.removeItem(at: directory) }
        let counter = Mutex(UInt64(0))
        server.update { state in
            state.idsOverride = { _ in
                let page = counter.withLock { n in
                    n += 1
                    return n
                }
                if page > 200 { return .status(500) }
                let token = ["a", "b", "c"][Int(page % 3)]
                return FakeGReaderServer.json(#"{"itemRefs":[{"id":"\#(page)"}],"continuation":"\#(token)"}"#)
            }
        }
        let message = await Self.error { _ = try await sync.sync() }
        #expect(message?.contains("repeated the continuation") == true, "\(message ?? "no error")")
        #expect(server.idsRequests == 4)
    }

    /// `itemIDs` with pages that never end: new tokens and new ids each time.
    static func endlessIDs(perPage: Int) -> @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        let counter = Mutex(0)
        return { _ in
            let page = counter.withLock { n in
                n += 1
                return n
            }
            if page > 200 { return .status(500) }
            let refs = (0..<perPage).map { #"{"id":"\#(page * perPage + $0 + 1)"}"# }.joined(separator: ",")
            return .ok(#"{"itemRefs":[\#(refs)],"continuation":"page\#(page)"}"#, contentType: "application/json")
        }
    }

    @Test func aListPastTheIDCapEndsWithAClearErrorHoldingNoMoreThanTheCap() async throws {
        try await withLoopbackServer(Self.endlessIDs(perPage: 20_000)) { server in
            let client = GReaderClient(apiURL: server.url("/api").absoluteString, token: "t", fetcher: Self.fetcher)
            do throws(SyncError) {
                _ = try await client.itemIDs(
                    stream: "user/-/state/com.google/reading-list", limits: .init(maxPages: 100, maxIDs: 50_000))
                Issue.record("no error")
            } catch {
                #expect(error == .pagination(request: "stream/items/ids", .tooManyIDs(limit: 50_000)))
                #expect(error.description.contains("more than 50000 items"))
            }
            #expect(server.requests.count == 3)
        }
    }

    @Test func aListPastThePageCapEndsWithAClearError() async throws {
        try await withLoopbackServer(Self.endlessIDs(perPage: 1)) { server in
            let client = GReaderClient(apiURL: server.url("/api").absoluteString, token: "t", fetcher: Self.fetcher)
            do throws(SyncError) {
                _ = try await client.itemIDs(stream: "user/-/state/com.google/starred", limits: .init(maxPages: 25))
                Issue.record("no error")
            } catch {
                #expect(error == .pagination(request: "stream/items/ids", .tooManyPages(limit: 25)))
            }
            #expect(server.requests.count == 25)
        }
    }

    @Test func aHugeContinuationIsRefused() async throws {
        let token = String(repeating: "c", count: 5000)
        let counter = Mutex(0)
        try await withLoopbackServer({ _ in
            let page = counter.withLock { n in
                n += 1
                return n
            }
            if page > 50 { return .status(500) }
            return .ok(#"{"itemRefs":[{"id":"\#(page)"}],"continuation":"\#(token)\#(page)"}"#, contentType: "application/json")
        }) { server in
            let client = GReaderClient(apiURL: server.url("/api").absoluteString, token: "t", fetcher: Self.fetcher)
            await #expect(throws: SyncError.pagination(request: "stream/items/ids", .continuationTooLong(limit: 1024))) {
                _ = try await client.itemIDs(stream: "user/-/state/com.google/starred")
            }
            #expect(server.requests.count == 1)
        }
    }

    @Test func idsRepeatedAcrossPagesAreListedOnce() async throws {
        try await withLoopbackServer({ request in
            let body =
                request.path.contains("c=next")
                ? #"{"itemRefs":[{"id":"3"},{"id":"4"},{"id":"4"}]}"#
                : #"{"itemRefs":[{"id":"1"},{"id":"2"},{"id":"2"},{"id":"3"}],"continuation":"next"}"#
            return .ok(body, contentType: "application/json")
        }) { server in
            let client = GReaderClient(apiURL: server.url("/api").absoluteString, token: "t", fetcher: Self.fetcher)
            let ids = try await client.itemIDs(stream: "user/-/state/com.google/starred")
            #expect(ids == [1, 2, 3, 4])
        }
    }
}
