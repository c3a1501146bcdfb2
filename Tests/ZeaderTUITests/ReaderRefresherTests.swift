import Dispatch
import Foundation
import ObjectGraph
import Synchronization
import Testing
import ZeaderKit
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

    static func events(_ refresher: ReaderRefresher, _ servers: [ObjectID]) async -> [ReaderRefreshEvent] {
        let events = Mutex<[ReaderRefreshEvent]>([])
        await refresher.refresh(servers: servers) { event in events.withLock { $0.append(event) } }
        return events.withLock { $0 }
    }

    @Test func feedRefresherReportsEachFeedByObjectID() async throws {
        let (store, good, missing, directory) = try Self.makeStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let refresher = FeedRefresher(store: store)

        let all = await Self.events(refresher, [])
        #expect(all.first == .started(total: 2))
        #expect(all.last == .finished(failed: 1))
        #expect(all.count == 4)
        #expect(all.contains(.feedFinished(good, error: nil, newItems: 2)))
        let missingEvent = all.first {
            if case .feedFinished(missing, let error?, 0) = $0 { return error.contains("missing.xml") }
            return false
        }
        #expect(missingEvent != nil, "\(all)")

        // One feed, named by its ID: only that feed is refreshed (a file unchanged costs nothing).
        let one = await Self.events(refresher, [good])
        #expect(one == [.started(total: 1), .feedFinished(good, error: nil, newItems: 0), .finished(failed: 0)])
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
        let events = await Self.events(FeedRefresher(store: store), [good])
        #expect(events == [.started(total: 0), .finished(failed: 0)])
    }

    @Test func statusLineCountsFeedsInWords() throws {
        let h = try Harness()
        let app = h.app
        h.queue.sync {
            app.apply(.started(total: 1))
            app.redraw()
        }
        #expect(h.screen.contains("Refreshing 0/1"))
        h.queue.sync { app.apply(.finished(failed: 0)) }
        #expect(h.screen.contains("Refreshed 1 feed") && !h.screen.contains("1 feeds"))
    }
}
