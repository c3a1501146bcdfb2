import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// "Mark everything read" (`C`) is one batch update: exact counts, one undo step, and no
/// item loaded into the view context.
@Suite struct MarkAllReadTests {
    @Test func thousandsOfItemsAreMarkedAndUndoneInOneStep() throws {
        let store = try ZeaderStore.inMemory()
        let model = ReaderModel(store: store)
        let context = model.context
        let perFeed = 1250
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
            context.reset()  // as a reader that has shown nothing yet
        }
        let unreadBefore = perFeed - (perFeed + 9) / 10
        func unreadCounts() throws -> [Int64] {
            try context.fetch(FetchRequest<Server>(sortDescriptors: [ObjectSortDescriptor("displayOrder")])).map(\.unreadCount)
        }
        func storedUnread() throws -> Int {
            try context.count(for: FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "read == NO")))
        }
        try context.performAndWait { () throws in
            #expect(try unreadCounts() == [Int64(unreadBefore), Int64(unreadBefore)])
            #expect(try model.markRead(nil) == 2 * unreadBefore)
            #expect(try unreadCounts() == [0, 0])
            #expect(try storedUnread() == 0)
            #expect(!context.hasChanges)
            // No item was loaded to be marked: only the two feeds (fetched above) are registered.
            #expect(context.registeredObjects.count <= 2)

            #expect(try model.undo() == "Mark All Read")
            #expect(try unreadCounts() == [Int64(unreadBefore), Int64(unreadBefore)])
            #expect(try storedUnread() == 2 * unreadBefore)
            #expect(try model.undo() == nil)  // it was one step

            #expect(try model.redo() == "Mark All Read")
            #expect(try unreadCounts() == [0, 0])
            #expect(try model.markRead(nil) == 0)
        }
    }

    @Test func theReaderShowsItThroughTheBusAndUndoesIt() throws {
        let h = try Harness()
        h.type(.enter)  // Zeader News: its unread items show N
        #expect(h.line(1).hasPrefix("N "))
        h.type(.character("C"))
        #expect(h.screen.contains("Marked 9 items read (z to undo)"))
        #expect(!h.line(1).hasPrefix("N "))  // the open list was redrawn from the notification
        h.type(.character("q"))
        #expect(h.line(0).contains("(0 unread)"))
        #expect(h.line(1).contains("0/4") && h.line(2).contains("0/3"))
        h.type(.character("z"))
        #expect(h.screen.contains("Undid Mark All Read"))
        #expect(h.line(0).contains("(9 unread)"))
        #expect(h.line(1).contains("3/4") && h.line(2).contains("3/3"))
        h.type(.character("z"))
        #expect(h.screen.contains("Nothing to undo"))
        #expect(h.line(0).contains("(9 unread)"))
    }

    @Test func markReadWithAnOpenItemLeavesTheStoreAndTheViewAgreeing() throws {
        // A single read toggle, then C, then undo twice: each undo is one step.
        let h = try Harness()
        h.type(.enter, .character("N"))  // one item of Zeader News read by hand
        h.type(.character("q"))
        #expect(h.line(0).contains("(8 unread)"))
        h.type(.character("C"))
        #expect(h.line(0).contains("(0 unread)"))
        h.type(.character("z"))
        #expect(h.line(0).contains("(8 unread)"))
        h.type(.character("z"))
        #expect(h.line(0).contains("(9 unread)"))
        let stored = try h.queue.sync {
            try h.store.container.viewContext.count(
                for: FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "read == NO")))
        }
        #expect(stored == 9)
    }
}
