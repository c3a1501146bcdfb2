import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// ``FeedSync/push()``: the reader's push after an edit and on quit sends the queue and
/// pulls nothing.
@Suite("Sync: push only")
struct SyncPushTests {
    @Test func aPushSendsTheChangesAndPullsNothing() async throws {
        let server = try FakeGReaderServer()
        let newest = FakeGReaderServer.now
        let (store, sync) = try await SyncReadMarkTests.synced(server, ids: [newest, newest - 1])
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let items = try FeedItem.findAll(in: context)
            _ = try ItemMarking.setRead([items[0].objectID], true, in: context)
            _ = try ItemMarking.setFlagged([items[1].objectID], true, in: context)
        }
        server.update { $0.posts = [] }
        let idsBefore = server.idsRequests
        let requestsBefore = server.http.requests.count
        #expect(try await sync.push() == 2)
        let posts = server.shared.state.withLock { $0.posts }
        #expect(posts.filter { $0.hasPrefix("edit-tag ") }.count == 2, "\(posts)")
        #expect(server.idsRequests == idsBefore)
        let paths = server.http.requests.dropFirst(requestsBefore).map(\.path)
        #expect(!paths.contains { $0.contains("stream/items") }, "\(paths)")
        #expect(try sync.status()?.pending == 0)
    }

    @Test func nothingPendingIsNoRequest() async throws {
        let server = try FakeGReaderServer()
        let (_, sync) = try await SyncReadMarkTests.synced(server, ids: [FakeGReaderServer.now])
        let before = server.http.requests.count
        #expect(try await sync.push() == 0)
        #expect(server.http.requests.count == before)
    }

    @Test func aServerThatForgotTheFeedsGetsNothing() async throws {
        let server = try FakeGReaderServer()
        server.update {
            $0.subscriptions = [("feed/1", "http://fake.example/one.xml"), ("feed/2", "http://fake.example/two.xml")]
        }
        let (store, sync) = try await SyncReadMarkTests.synced(server, ids: [FakeGReaderServer.now])
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let items = try FeedItem.findAll(in: context)
            _ = try ItemMarking.setRead([items[0].objectID], true, in: context)
        }
        // The account reset: it lists nothing.
        server.update {
            $0.subscriptions = []
            $0.posts = []
        }
        do throws(ZeaderError) {
            _ = try await sync.push()
            Issue.record("pushed to an account that forgot every feed")
        } catch {
            #expect(error.description.contains("lists 0 of the 2 feeds"), "\(error)")
        }
        #expect(server.shared.state.withLock { $0.posts }.isEmpty)
        #expect(try sync.status()?.pending == 1)
    }
}
