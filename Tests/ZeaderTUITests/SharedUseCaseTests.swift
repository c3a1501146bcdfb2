import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderTUI

/// The reader and the command line list, search and mark items through the same use
/// cases: on the demo feeds, each way gives the same answer.
@Suite struct SharedUseCaseTests {
    func demo() throws -> (ZeaderStore, ReaderModel, FeedLibrary) {
        let store = try ZeaderStore.inMemory()
        try DemoFeeds.load(into: store)
        return (store, ReaderModel(store: store), FeedLibrary(store: store))
    }

    func guids(_ ids: [ObjectID], _ model: ReaderModel) -> [String] {
        ids.compactMap { model.item($0)?.guid }
    }

    @Test func aFeedsItemsComeInTheSameOrderInBoth() throws {
        let (store, model, library) = try demo()
        let context = store.container.viewContext
        for row in try context.performAndWait({ try model.feedRows() }) {
            guard let id = row.serverID, let url = row.url else { continue }
            let reader = try context.performAndWait { guids(try model.itemIDs(.server(id)), model) }
            #expect(reader == (try library.items(ItemQuery(feed: url)).map(\.id)), "\(url)")
        }
    }

    @Test func smartFeedsAndWhereAgree() throws {
        let (store, model, library) = try demo()
        let format = #"read == NO AND title CONTAINS[cd] "zeader""#
        let reader = try store.container.viewContext.performAndWait {
            guids(try model.itemIDs(.smart(predicateFormat: format)), model)
        }
        #expect(!reader.isEmpty)
        #expect(reader == (try library.items(ItemQuery(wherePredicate: format)).map(\.id)))
    }

    @Test func searchAgrees() throws {
        let (store, model, library) = try demo()
        let reader = try store.container.viewContext.performAndWait { guids(try model.itemIDs(.search("ZEADER")), model) }
        #expect(!reader.isEmpty)
        #expect(reader == (try library.items(ItemQuery(search: "zeader")).map(\.id)))
    }

    @Test func markingAFeedReadCountsTheSameAndTheReaderCanUndoIt() throws {
        let (store, model, library) = try demo()
        let context = store.container.viewContext
        let rows = try context.performAndWait { try model.feedRows() }
        let first = try #require(rows.first { $0.serverID != nil && $0.unread > 0 })
        let second = try #require(rows.last { $0.serverID != nil && $0.unread > 0 && $0.kind != first.kind })
        #expect(try context.performAndWait { try model.markRead(first.kind) } == first.unread)
        #expect(try library.markRead(feed: second.url) == second.unread)
        #expect(try context.performAndWait { try model.undo() } == "Mark Feed Read")
        #expect(try library.servers().first { $0.url == first.url }?.unread == first.unread)
    }
}
