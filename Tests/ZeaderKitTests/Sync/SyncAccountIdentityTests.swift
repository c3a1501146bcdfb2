import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// A server whose feed ids name other feeds than this device stored under them (an account
/// reset and filled again from another device: ids restart at `feed/1`) never gets two
/// feeds joined: the URL decides, a feed moved on the server (the same items under a new
/// URL) keeps its id, and when most synced feeds changed this way the sync stops as for an
/// account that forgot its feeds.
@Suite("Sync: a change of the account's identity joins no feeds")
struct SyncAccountIdentityTests {
    typealias Forgotten = SyncForgottenFeedsTests
    static let others = (1...3).map { (id: "feed/\($0)", url: "http://fake.example/other-\($0).xml") }

    /// The account emptied and filled again elsewhere: `listed` as the subscriptions, and
    /// the items of `feed/1` new ones (a reset server's item ids are new).
    static func reset(_ server: FakeGReaderServer, to listed: [(id: String, url: String)]) {
        server.update { state in
            state.subscriptions = listed
            state.items = []
        }
        server.add(ids: [FakeGReaderServer.now - 60_000_000])
    }

    static func syncIDs(_ sync: FeedSync) throws -> [String: String] {
        let context = sync.store.container.newBackgroundContext()
        return try context.performAndWait {
            Dictionary(try Server.findAll(in: context).map { ($0.url, $0.syncID ?? "") }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// (ids naming other feeds, ids kept as they were): all of them, most of them.
    @Test(arguments: [(3, 0), (2, 1)])
    func mostIDsNamingOtherFeedsStopTheSyncBeforeAnyChange(renamed: Int, kept: Int) async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try await Forgotten.syncedStore(server, feeds: 3)
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Forgotten.snapshot(sync)
        let ids = try Self.syncIDs(sync)
        Self.reset(server, to: Array(Self.others.prefix(renamed)) + Array(Forgotten.feeds[renamed..<3]))

        let message = await Forgotten.error { _ = try await sync.sync() }
        #expect(message == SyncError.serverRenamedFeeds(renamed: renamed, listed: kept, synced: 3).description)
        #expect(message?.contains("--upload") == true && message?.contains("--detach") == true)
        #expect(try Forgotten.snapshot(sync) == before)
        #expect(try Self.syncIDs(sync) == ids)
        #expect(server.shared.state.withLock { $0.posts }.isEmpty)
        #expect(await Forgotten.error { _ = try await sync.sync() } == message)

        // --upload: this device's feeds go back to the account under ids of their own; the
        // other feeds come in as feeds of their own, none joined.
        let report = try await sync.sync(missingFeeds: .upload)
        #expect(report.feedsRemoved == 0)
        let after = try Self.syncIDs(sync)
        #expect(after.count == 3 + renamed)
        #expect(Set(after.values).count == after.count, "\(after)")
        for other in Self.others.prefix(renamed) { #expect(after[other.url] == other.id) }
        for feed in Forgotten.feeds.prefix(renamed) { #expect(after[feed.url]?.hasPrefix("feed/10") == true, "\(after)") }
        let snapshot = try Forgotten.snapshot(sync)
        #expect(snapshot.flagged == 1)
    }

    @Test func theSameFeedsUnderSwappedIDsAreMatchedByURL() async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try await Forgotten.syncedStore(server, feeds: 3)
        defer { try? FileManager.default.removeItem(at: directory) }
        let feeds = Forgotten.feeds
        server.update {
            $0.subscriptions = [(feeds[0].id, feeds[2].url), (feeds[1].id, feeds[0].url), (feeds[2].id, feeds[1].url)]
        }
        let report = try await sync.sync()
        #expect(report.feedsAdded == 0 && report.feedsRemoved == 0)
        #expect(
            try Self.syncIDs(sync) == [feeds[0].url: feeds[1].id, feeds[1].url: feeds[2].id, feeds[2].url: feeds[0].id])
    }

    @Test func oneIDNamingAnotherFeedKeepsThisDevicesFeedLocalAndSendsItNothing() async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try await Forgotten.syncedStore(server, feeds: 3)
        defer { try? FileManager.default.removeItem(at: directory) }
        let feeds = Forgotten.feeds
        // A tag queued here for the third feed: it must not reach the feed that has its id now.
        _ = try FeedLibrary(store: sync.store).tag(url: feeds[2].url, add: ["news"])
        let before = try Forgotten.snapshot(sync)
        server.update { $0.subscriptions = [feeds[0], feeds[1], (feeds[2].id, Self.others[0].url)] }

        let report = try await sync.sync()
        #expect(report.feedsAdded == 1 && report.feedsRemoved == 0)
        #expect(report.notStored == [Messages.syncFeedIDTaken(url: feeds[2].url)])
        let ids = try Self.syncIDs(sync)
        #expect(ids[feeds[2].url] == "")
        #expect(ids[Self.others[0].url] == feeds[2].id)
        let posts = server.shared.state.withLock { $0.posts }
        #expect(!posts.contains { $0.contains("feed%2F3") || $0.contains("feed/3") }, "\(posts)")
        // Kept with its items (the fake server stars nothing, so flags follow it here).
        #expect(try Forgotten.snapshot(sync).items == before.items)
    }

    @Test func aFeedMovedOnTheServerKeepsItsIDAndTakesTheNewURL() async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try await Forgotten.syncedStore(server, feeds: 3)
        defer { try? FileManager.default.removeItem(at: directory) }
        let feeds = Forgotten.feeds
        let before = try Forgotten.snapshot(sync)
        // feed/1 holds the items stored here: the same feed, its URL changed by a redirect.
        let moved = "http://fake.example/1-moved.xml"
        server.update { $0.subscriptions = [(feeds[0].id, moved), feeds[1], feeds[2]] }
        let report = try await sync.sync()
        #expect(report.feedsAdded == 0 && report.feedsRemoved == 0 && report.notStored.isEmpty)
        let ids = try Self.syncIDs(sync)
        #expect(ids[moved] == feeds[0].id && ids[feeds[0].url] == nil)
        let after = try Forgotten.snapshot(sync)
        #expect(after.items == before.items && after.flagged == before.flagged && after.syncedItems == before.syncedItems)
    }

    @Test func aStoredURLWrittenAnotherWayIsTheSameFeed() async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try await Forgotten.syncedStore(server, feeds: 3)
        defer { try? FileManager.default.removeItem(at: directory) }
        let feeds = Forgotten.feeds
        let context = sync.store.container.newBackgroundContext()
        try context.performAndWait {
            let feed = try #require(try Server.findFirst(byAttribute: "url", value: .string(feeds[0].url), in: context))
            feed.url = "HTTP://fake.example/1.xml"
            try context.save()
        }
        let before = try Forgotten.snapshot(sync)
        let report = try await sync.sync()
        #expect(report.notStored.isEmpty && report.feedsAdded == 0 && report.feedsRemoved == 0)
        let ids = try Self.syncIDs(sync)
        #expect(ids.count == 3 && Set(ids.values) == Set(feeds.prefix(3).map(\.id)), "\(ids)")
        #expect(ids["HTTP://fake.example/1.xml"] ?? ids[feeds[0].url] == feeds[0].id)
        #expect(try Forgotten.snapshot(sync).items == before.items)
    }

    @Test func acceptingTheRemovalsRemovesFeedsWhoseIDsNameOthers() async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try await Forgotten.syncedStore(server, feeds: 3)
        defer { try? FileManager.default.removeItem(at: directory) }
        Self.reset(server, to: Self.others)
        let report = try await sync.sync(missingFeeds: .remove)
        #expect(report.feedsRemoved == 3 && report.feedsAdded == 3)
        #expect(try Self.syncIDs(sync) == Dictionary(uniqueKeysWithValues: Self.others.map { ($0.url, $0.id) }))
    }

    @Test func theManPageSaysTheURLDecides() throws {
        let section = try SyncManPageTests.syncSection()
        #expect(section.contains("names another feed"), "\(section.prefix(0))")
        #expect(section.contains("redirect"))
    }
}
