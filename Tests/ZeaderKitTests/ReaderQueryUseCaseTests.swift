import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// The reader's feed-list filter and random unread item, as use cases over a context.
@Suite struct ReaderQueryUseCaseTests {
    /// Feeds a (items a0…a2, a0 read) and b (b0, read); returns the store and a's and b's IDs.
    func makeStore() throws -> (ZeaderStore, ObjectID, ObjectID) {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        let (a, b) = try context.performAndWait { () throws -> (ObjectID, ObjectID) in
            var servers: [Server] = []
            for (n, (name, count)) in [("a", 3), ("b", 1)].enumerated() {
                let server = context.insert(Server.self)
                server.url = "https://\(name).example/feed"
                server.title = name == "a" ? "Swift news" : "Linux news"
                server.displayOrder = Int64(n)
                for i in 0..<count {
                    let item = context.insert(FeedItem.self)
                    item.guid = "\(name)\(i)"
                    item.read = i == 0
                    item.sortDate = Date(timeIntervalSince1970: Double(i))
                    item.server = server
                }
                servers.append(server)
            }
            try context.save()
            return (servers[0].objectID, servers[1].objectID)
        }
        return (store, a, b)
    }

    @Test func feedFilterMatchesServersOnly() throws {
        let (store, a, b) = try makeStore()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            #expect(try FeedFilter.serverIDs(matching: "unreadCount > 0", in: context) == [a])
            #expect(try FeedFilter.serverIDs(matching: "url CONTAINS \"b.example\"", in: context) == [b])
            #expect(try FeedFilter.serverIDs(matching: "title BEGINSWITH[c] \"SWIFT\"", in: context) == [a])
            #expect(try FeedFilter.serverIDs(matching: "TRUEPREDICATE", in: context) == [a, b])
            #expect(try FeedFilter.serverIDs(matching: "unreadCount > 99", in: context).isEmpty)
        }
    }

    @Test(arguments: [
        "unreadCount >", "title ==", "\"unterminated", "read == NO", "noSuchKey == 1", "title == \"x\"; DROP TABLE Server",
        "",
    ])
    func feedFilterRefusesWhatItCannotRun(_ format: String) throws {
        let (store, _, _) = try makeStore()
        let context = store.container.viewContext
        let error = context.performAndWait {
            #expect(throws: ZeaderError.self) { try FeedFilter.serverIDs(matching: format, in: context) }
        }
        guard case .invalidPredicate = error else {
            Issue.record("\(String(describing: error)) is not an invalid predicate")
            return
        }
    }

    @Test func randomUnreadIsUnreadAndNilWhenAllIsRead() throws {
        let (store, a, _) = try makeStore()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            for _ in 0..<20 {
                let id = try #require(try UnreadItems.random(in: context))
                let item = try #require(context.object(with: id) as? FeedItem)
                #expect(!item.read && item.server?.objectID == a)
            }
            for item in try context.fetch(FetchRequest<FeedItem>()) { item.read = true }
            try context.save()
            #expect(try UnreadItems.random(in: context) == nil)
        }
    }

    /// a: 3 items, 2 unread; b: 1 item, read. Counts as the stored counts have them.
    @Test func feedListPageReadsOneScreenAndTheWholeListsFigures() throws {
        let (store, a, b) = try makeStore()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let order = FeedEditing.order
            let page = try #require(try FeedListPage.first(rows: 1, showRead: true, order: order, in: context))
            #expect(page.servers.map(\.objectID) == [a])
            #expect(page.count == 2)
            #expect(page.unread == 2)
            #expect(page.maxTotal == 3)
            let reversed = order.map { ObjectSortDescriptor($0.key, ascending: !$0.ascending) }
            let last = try #require(try FeedListPage.first(rows: 1, showRead: true, order: reversed, in: context))
            #expect(last.servers.map(\.objectID) == [b])
            // A list that fits in the rows is read whole by the caller; so is one whose read
            // feeds are hidden down to one.
            #expect(try FeedListPage.first(rows: 2, showRead: true, order: order, in: context) == nil)
            #expect(try FeedListPage.first(rows: 1, showRead: false, order: order, in: context) == nil)
        }
    }
}
