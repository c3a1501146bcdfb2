import Foundation
import ObjectGraph
import Testing
import ZeaderKit
@testable import ZeaderTUI

/// "Mark everything read" (`C`) over more items than one batch: exact counts, one undo
/// step, and the view context not left holding every item.
@Suite struct MarkAllReadTests {
    @Test func moreItemsThanABatchAreMarkedAndUndoneInOneStep() throws {
        let store = try ZeaderStore.inMemory()
        let model = ReaderModel(store: store)
        let context = model.context
        let perFeed = ItemMarking.batchSize + 250
        try context.performAndWait { () throws in
            for f in 0..<2 {
                let server = context.insert(Server.self)
                server.url = "https://\(f).example/feed"
                server.displayOrder = Int64(f)
                for n in 0..<perFeed {
                    let item = context.insert(FeedItem.self)
                    item.guid = "\(f)-\(n)"
                    item.title = "item \(n)"
                    item.read = n % 10 == 0  // some already read: they are not counted
                    item.sortDate = Date(timeIntervalSince1970: Double(n))
                    item.server = server
                }
            }
            try context.save()
            context.undoManager?.removeAllActions()
        }
        let unreadBefore = perFeed - (perFeed + 9) / 10
        func unreadCounts() throws -> [Int64] {
            try context.fetch(ObjectGraph.FetchRequest<Server>(sortDescriptors: [SortDescriptor("displayOrder")])).map(\.unreadCount)
        }
        func storedUnread() throws -> Int {
            try context.count(for: ObjectGraph.FetchRequest<FeedItem>(predicate: try Predicate(format: "read == NO")))
        }
        try context.performAndWait { () throws in
            #expect(try unreadCounts() == [Int64(unreadBefore), Int64(unreadBefore)])
            #expect(try model.markRead(nil) == 2 * unreadBefore)
            #expect(try unreadCounts() == [0, 0])
            #expect(try storedUnread() == 0)
            #expect(!context.hasChanges)
            // Saved items are not kept: far fewer than all of them stay registered.
            #expect(context.registeredObjects.count < 2 * perFeed / 2)

            #expect(try model.undo() == "Mark All Read")
            #expect(try unreadCounts() == [Int64(unreadBefore), Int64(unreadBefore)])
            #expect(try storedUnread() == 2 * unreadBefore)
            #expect(try model.undo() == nil)  // it was one step

            #expect(try model.redo() == "Mark All Read")
            #expect(try unreadCounts() == [0, 0])
            #expect(try model.markRead(nil) == 0)
        }
    }
}
