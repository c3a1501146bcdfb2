import Foundation
import GRDB
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Model version 4 keeps an item's HTML content in its own row (FeedItemBody), so that
/// marking items read or flagged rewrites narrow rows, not their content (issue 18); the
/// search index takes the title, the author and the summary's opening words.
@Suite struct ItemBodyTests {
    func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-body-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func columns(_ table: String, at url: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]) }
    }

    func count(_ sql: String, at url: URL) throws -> Int {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    @Test func theContentLivesInItsOwnRowAndGoesWithTheItem() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store.sqlite")
        do {
            let store = try ZeaderStore.open(at: url)
            let context = store.container.viewContext
            try context.performAndWait { () throws in
                let server = context.insert(Server.self)
                server.url = "https://a.example/feed"
                for n in 0..<4 {
                    let item = context.insert(FeedItem.self)
                    item.guid = "\(n)"
                    item.content = n == 3 ? nil : "<p>body \(n)</p>"
                    item.server = server
                }
                try context.save()
            }
            try store.container.store.close()
        }
        #expect(try !columns("FeedItem", at: url).contains("content"))
        #expect(try columns("FeedItemBody", at: url).contains("content"))
        #expect(try count("SELECT COUNT(*) FROM FeedItemBody", at: url) == 3)

        let store = try ZeaderStore.open(at: url)
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let items = try context.fetch(FetchRequest<FeedItem>(sortDescriptors: [ObjectSortDescriptor("guid")]))
            #expect(items.map(\.content) == ["<p>body 0</p>", "<p>body 1</p>", "<p>body 2</p>", nil])
            items[0].content = "<p>changed</p>"
            items[1].content = nil  // no content: no body row
            items[3].content = "<p>new</p>"
            try context.save()
            context.delete(items[2])  // the body goes with its item
            try context.save()
        }
        try store.container.store.close()
        #expect(try count("SELECT COUNT(*) FROM FeedItemBody", at: url) == 2)
        #expect(try count("SELECT COUNT(*) FROM FeedItemBody WHERE content IN ('<p>changed</p>', '<p>new</p>')", at: url) == 2)
        #expect(try count("SELECT COUNT(*) FROM FeedItem f JOIN FeedItemBody b ON b.Z_PK = f.body", at: url) == 2)

        // A feed removed with its items (a batch delete's cascade) takes their bodies.
        let library = FeedLibrary(store: try ZeaderStore.open(at: url))
        _ = try library.remove(url: "https://a.example/feed")
        #expect(try count("SELECT COUNT(*) FROM FeedItemBody", at: url) == 0)
    }

    /// A version 3 store, content in the item's row, opened by this version: each content
    /// moves to a body row of the same key, linked; the search index is rebuilt over the
    /// summary's opening; new items get new keys.
    @Test func aVersion3StoreMovesItsContent() throws {
        let folder = try directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("store.sqlite")
        do {
            let container = try PersistentContainer(model: ZeaderModel.version3, store: .file(url))
            let context = container.viewContext
            try context.performAndWait { () throws in
                let server = try context.insertObject(entityName: "Server")
                try server.setValue(.string("https://a.example/feed"), forKey: "url")
                for n in 0..<5 {
                    let item = try context.insertObject(entityName: "FeedItem")
                    try item.setValue(.string("g\(n)"), forKey: "guid")
                    try item.setValue(.string("Title \(n) kernel"), forKey: "title")
                    try item.setValue(.string("opening words \(n)"), forKey: "summary")
                    try item.setValue(n == 2 ? .null : .string("<p>content \(n) zebra</p>"), forKey: "content")
                    try item.setValue(.bool(n % 2 == 0), forKey: "read")
                    try item.setValue(.date(Date(timeIntervalSince1970: Double(n))), forKey: "sortDate")
                    try item.setObject(server, forKey: "server")
                }
                try context.save()
            }
            try container.store.close()
        }
        #expect(try columns("FeedItem", at: url).contains("content"))

        let store = try ZeaderStore.open(at: url)
        defer { try? FileManager.default.removeItem(atPath: MigrationPlan.backupPath(forStoreAt: url.path, version: 3)) }
        let library = FeedLibrary(store: store)
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let items = try context.fetch(FetchRequest<FeedItem>(sortDescriptors: [ObjectSortDescriptor("guid")]))
            #expect(
                items.map(\.content) == [
                    "<p>content 0 zebra</p>", "<p>content 1 zebra</p>", nil, "<p>content 3 zebra</p>", "<p>content 4 zebra</p>",
                ])
            #expect(items.map { $0.body?.objectID.primaryKey } == items.map { $0.content == nil ? nil : $0.objectID.primaryKey })
            #expect(items.map(\.read) == [true, false, true, false, true])
            #expect(try context.fetch(FetchRequest<Server>()).first?.unreadCount == 2)
            // Keys handed out after the move follow the moved ones.
            let server = try #require(items.first?.server)
            let item = context.insert(FeedItem.self)
            item.guid = "g5"
            item.title = "Title 5 kernel"
            item.content = "<p>content 5 zebra</p>"
            item.server = server
            try context.save()
            #expect(try #require(item.body?.objectID.primaryKey) > 5)
        }
        try store.container.store.close()
        #expect(try !columns("FeedItem", at: url).contains("content"))

        // Search, `--where` on content, and marking by content work on the migrated store.
        let reopened = FeedLibrary(store: try ZeaderStore.open(at: url))
        _ = library
        #expect(try reopened.items(ItemQuery(search: "kernel")).count == 6)
        #expect(try reopened.items(ItemQuery(search: "opening 3")).map(\.id) == ["g3"])
        #expect(try reopened.items(ItemQuery(wherePredicate: #"content CONTAINS "zebra""#)).count == 5)
        #expect(try reopened.items(ItemQuery(wherePredicate: #"content == nil"#)).map(\.id) == ["g2"])
    }

    @Test func predicatesStillSayContent() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            for n in 0..<4 {
                let item = context.insert(FeedItem.self)
                item.guid = "\(n)"
                item.content = n % 2 == 0 ? "<p>Linux \(n)</p>" : "<p>other</p>"
                item.server = server
            }
            try context.save()
            #expect(try ItemMarking.markRead(.matching(predicateFormat: #"content CONTAINS[cd] "linux""#), in: context) == 2)
            #expect(try SmartFeeds.counts(of: #"content CONTAINS "Linux""#, in: context) == (unread: 0, total: 2))
        }
        try SmartFeeds.validate(#"content CONTAINS "x" AND read == NO"#)
        _ = try Killfile.compile(Killfile.Rule(scope: .all, predicateFormat: #"content CONTAINS "ad""#))
        #expect(
            ZeaderModel.itemPredicate(try ObjectPredicate(format: #"content == nil OR title == "content""#)).description
                == #"body.content == nil OR title == "content""#)
    }

    @Test func theSearchIndexTakesTheOpeningOfTheSummary() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        let filler = String(repeating: "filler ", count: ZeaderModel.searchExtractLength / 7 + 1)
        try context.performAndWait { () throws in
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            let item = context.insert(FeedItem.self)
            item.guid = "1"
            item.title = "Title"
            item.author = "Ada"
            item.summary = "early words " + filler + "latecomer"
            item.server = server
            try context.save()
            #expect(try ItemSearch.itemIDs("early", in: context).count == 1)
            #expect(try ItemSearch.itemIDs("ada title", in: context).count == 1)
            #expect(try ItemSearch.itemIDs("latecomer", in: context).isEmpty)
            // The same for an unsaved change (matched in memory).
            item.summary = "fresh " + filler + "tardy"
            #expect(try ItemSearch.itemIDs("fresh", in: context).count == 1)
            #expect(try ItemSearch.itemIDs("tardy", in: context).isEmpty)
            try context.save()
            #expect(try ItemSearch.itemIDs("fresh", in: context).count == 1)
            #expect(try ItemSearch.itemIDs("early", in: context).isEmpty)
        }
    }
}
