import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Synchronization
import Testing

@testable import ZeaderConfig
@testable import ZeaderKit
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

    @Test func aFolderSyncThatFailsIsNamedWithTheRefresh() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-folder-\(UUID().uuidString)")
        let folder = base.appendingPathComponent("Shared")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let store = try ZeaderStore.open(at: base.appendingPathComponent("z.sqlite"))
        try FolderSyncEngine(store: store).add(folder: folder.path)
        let quiet = try await SyncingRefresher(store: store).refresh(servers: [], progress: nil)
        #expect(quiet.folderSyncProblems.isEmpty)

        try FileManager.default.removeItem(at: folder)
        let summary = try await SyncingRefresher(store: store).refresh(servers: [], progress: nil)
        let line = "folder sync failed: sync folder \(folder.path) is missing or not a folder"
        // Both runs (before and after the feeds) failed alike: named once.
        #expect(summary.folderSyncProblems == [line])
        let message = StatusMessage.withFolderSync(.refreshed(summary.progress, firstProblem: nil), problem: line, more: 0)
        #expect(message.text == StatusMessage.refreshed(summary.progress, firstProblem: nil).text + "; " + line)
        #expect(message.isError)
    }

    @Test func anAccountAndTheFolderFailingAreNamedTogether() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-folder-\(UUID().uuidString)")
        let folder = base.appendingPathComponent("Shared")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let store = try ZeaderStore.open(at: base.appendingPathComponent("z.sqlite"))
        try FeedSync(store: store).addAccount(apiURL: "http://127.0.0.1:1/api/greader.php", user: "u", token: "t")
        try FolderSyncEngine(store: store).add(folder: folder.path)
        try FileManager.default.removeItem(at: folder)
        do {
            _ = try await SyncingRefresher(store: store).refresh(servers: [], progress: nil)
            Issue.record("the refresh did not fail")
        } catch {
            #expect(error.description.contains("cannot reach the sync server"), "\(error)")
            #expect(error.description.hasSuffix("; folder sync failed: sync folder \(folder.path) is missing or not a folder"))
        }
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

/// The status line tells what a sync did (not "Refreshed 1 feed"), says "Syncing" while
/// one runs, and cuts a long message at a word's end.
@Suite("The reader's status line and sync")
struct SyncStatusLineTests {
    /// A refresher that syncs and reports `report`, or fails with `failure`.
    final class ReportingRefresher: ReaderRefresher {
        let report: FeedSync.Report
        var syncs: Bool { true }
        let refreshesOnStart: Bool
        init(_ report: FeedSync.Report, onStart: Bool = true) {
            self.report = report
            refreshesOnStart = onStart
        }

        func refresh(servers: [ObjectID], progress: (@Sendable (RefreshEvent) -> Void)?) async throws(ZeaderError)
            -> RefreshSummary
        {
            var totals = RefreshProgress(total: 1)
            totals.completed = 1
            return RefreshSummary(progress: totals, results: [], duration: 0, sync: report)
        }
    }

    @Test func aSyncSaysWhatItPulledAndPushed() async throws {
        var report = FeedSync.Report()
        report.newItems = 12
        report.pushed = 1
        report.stateChanges = 5
        let h = try Harness(refresher: ReportingRefresher(report))
        var screen = h.settle()
        for _ in 0..<250 where !screen.contains("Synced") {
            try await Task.sleep(for: .milliseconds(20))
            screen = h.settle()
        }
        #expect(screen.contains("Synced: pulled 12 new items, pushed 1 change, 5 read/flag states changed"), "\(screen)")
        #expect(!screen.contains("Refreshed"))
    }

    @Test func aSyncRunningSaysSyncingNotRefreshingZeroOfOne() throws {
        let h = try Harness(refresher: ReportingRefresher(FeedSync.Report(), onStart: false))
        let app = h.app
        h.queue.sync {
            app.state.refreshProgress = (0, 1)
            app.state.refreshIsSync = true
        }
        var screen = h.settle()
        #expect(screen.contains("Syncing"), "\(screen)")
        #expect(!screen.contains("Refreshing 0/1"))
        h.queue.sync { app.state.refreshProgress = (250, 1000) }
        screen = h.settle()
        #expect(screen.contains("Syncing 250/1000 items"), "\(screen)")
    }

    @Test func aFailedSyncSaysTheChangesAreKept() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zs-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let account = context.insert(SyncAccount.self)
            account.apiURL = "http://127.0.0.1:1/api/greader.php"
            account.user = "alice"
            account.name = "127.0.0.1"
            let server = context.insert(Server.self)
            server.url = "http://127.0.0.1:1/feed.xml"
            server.syncID = "feed/1"
            server.account = account.name
            let item = context.insert(FeedItem.self)
            item.guid = "g1"
            item.syncID = "1"
            item.server = server
            try context.save()
            try ItemMarking.setRead([item.objectID], true, in: context)
        }
        do throws(ZeaderError) {
            _ = try await SyncingRefresher(store: store).refresh(servers: [], progress: nil)
            Issue.record("synced without a login token")
        } catch {
            #expect(error.description.hasPrefix("the sync failed: "), "\(error)")
            #expect(error.description.contains("the 1 change made here is kept for the next sync"), "\(error)")
        }
    }

    @Test func theStatusLineWrapsALongMessageAtWordEnds() throws {
        let h = try Harness(width: 38, height: 12)
        let app = h.app
        h.queue.sync { app.state.say(.cannotRefresh("the sync failed: cannot reach the sync server: connection refused")) }
        _ = h.settle()
        let status = (9...11).map { h.line($0).trimmingCharacters(in: .whitespaces) }
        #expect(
            status == ["Cannot refresh: the sync failed:", "cannot reach the sync server:", "connection refused"], "\(status)")
    }

    @Test(arguments: [20, 31, 40, 57])
    func aLongMessageIsCutAtAWordsEnd(width: Int) {
        let message = "Cannot refresh: the sync failed: cannot reach the sync server: connection refused"
        let cut = ReaderView.fitted(message, width: width)
        #expect(DisplayWidth.of(cut) <= width)
        #expect(cut.hasSuffix("…"))
        let words = Set(message.split(separator: " ").map(String.init))
        for word in cut.dropLast().split(separator: " ") {
            #expect(words.contains(String(word)) || words.contains(String(word) + ":"), "\(cut)")
        }
        #expect(ReaderView.fitted("Synced", width: width) == "Synced")
    }
}
