import Dispatch
import Foundation
import ObjectGraph
import Synchronization
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// The refresh pipeline as the reader drives it (file feeds, no network): the events the
/// adapter reports, and the status line they make.
@Suite struct ReaderRefresherTests {
    /// A store with one good file feed (two items) and one whose file does not exist.
    static func makeStore() throws -> (ZeaderStore, good: ObjectID, missing: ObjectID, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zrr-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let good = directory.appendingPathComponent("good.xml")
        try Data(
            """
            <rss version="2.0"><channel><title>Good Feed</title>
            <item><guid>g1</guid><title>One</title></item><item><guid>g2</guid><title>Two</title></item>
            </channel></rss>
            """.utf8
        ).write(to: good)
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        let ids = try context.performAndWait { () throws -> (ObjectID, ObjectID) in
            let first = context.insert(Server.self)
            first.url = good.absoluteString
            first.displayOrder = 0
            let second = context.insert(Server.self)
            second.url = directory.appendingPathComponent("missing.xml").absoluteString
            second.displayOrder = 1
            try context.save()
            return (first.objectID, second.objectID)
        }
        return (store, ids.0, ids.1, directory)
    }

    static func refresh(_ refresher: ReaderRefresher, _ servers: [ObjectID]) async throws -> ([RefreshEvent], RefreshSummary) {
        let events = Mutex<[RefreshEvent]>([])
        let summary = try await refresher.refresh(servers: servers) { event in events.withLock { $0.append(event) } }
        return (events.withLock { $0 }, summary)
    }

    @Test func feedRefresherReportsEachFeedByObjectID() async throws {
        let (store, good, missing, directory) = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let refresher = FeedRefresher(store: store)

        let (all, summary) = try await Self.refresh(refresher, [])
        #expect(summary.progress.total == 2 && summary.progress.failed == 1)
        #expect(all.count == 4)  // started and finished (or failed) per feed
        #expect(all.first?.progress.total == 2)
        let finished = all.compactMap { event -> FeedRefreshResult? in
            if case .finished(let result, _) = event { return result }
            return nil
        }
        #expect(finished.map(\.serverID) == [good])
        #expect(finished.first?.status == .updated(newItems: 2, updatedItems: 0))
        let failed = all.compactMap { event -> FeedRefreshResult? in
            if case .failed(let result, _) = event { return result }
            return nil
        }
        #expect(failed.map(\.serverID) == [missing])
        #expect(failed.first?.problem?.contains("missing.xml") == true, "\(all)")
        if case .failed(.fetch(.fileNotFound))? = failed.first?.status {} else { Issue.record("\(failed)") }

        // One feed, named by its ID: only that feed is refreshed (a file unchanged costs nothing).
        let (one, oneSummary) = try await Self.refresh(refresher, [good])
        #expect(one.count == 2)
        #expect(oneSummary.results.map(\.serverID) == [good])
        #expect(oneSummary.results.first?.status == .notModified)
        let count = try store.container.viewContext.performAndWait { try FeedItem.count(in: store.container.viewContext) }
        #expect(count == 2)
    }

    @Test func aRemovedFeedIsNotRefreshed() async throws {
        let (store, good, _, directory) = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = store.container.viewContext
        try context.performAndWait {
            context.delete(try context.existingObject(with: good))
            try context.save()
        }
        let (events, summary) = try await Self.refresh(FeedRefresher(store: store), [good])
        #expect(events.isEmpty)
        #expect(summary.progress.total == 0)
    }

    @Test func statusLineCountsFeedsInWords() throws {
        let h = try Harness()
        let app = h.app
        let id = try h.queue.sync { try Server.findAll(in: h.store.container.viewContext)[0].objectID }
        h.queue.sync {
            app.apply(.started(url: "https://a.example/", RefreshProgress(total: 1)))
            app.redraw()
        }
        #expect(h.screen.contains("Refreshing 0/1"))
        var progress = RefreshProgress(total: 1)
        progress.completed = 1
        progress.failed = 1
        let gone = FeedRefreshResult(serverID: id, url: "https://a.example/", status: .gone)
        h.queue.sync { app.apply(.failed(gone, progress)) }
        #expect(h.screen.contains("https://a.example/: HTTP 410 Gone; the feed is disabled"))
        progress.failed = 0
        h.queue.sync { app.finishRefresh(.success(RefreshSummary(progress: progress, results: [], duration: 0))) }
        #expect(h.screen.contains("Refreshed 1 feed") && !h.screen.contains("1 feeds"))
    }
}
