import Feeds
import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// The one mapping from parsed items to stored ones, and its rule for items without an id.
@Suite struct ItemImportTests {
    func store() throws -> (ZeaderStore, ManagedObjectContext, Server) {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        let server = context.performAndWait { () -> Server in
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            return server
        }
        return (store, context, server)
    }

    @Test func anItemWithoutAnIDGetsAStableSynthesizedOne() {
        let item = ParsedItem(id: "", title: "Hello", link: "https://a.example/1")
        let guid = ItemImport.guid(for: item)
        #expect(guid.hasPrefix("zeader:") && guid.count == 7 + 16)
        #expect(ItemImport.guid(for: item) == guid)  // the same on every refresh
        #expect(ItemImport.guid(for: ParsedItem(id: "", title: "Other", link: "https://a.example/1")) != guid)
        #expect(ItemImport.guid(for: ParsedItem(id: "given", title: "Hello")) == "given")
    }

    @Test func itemsWithoutAnIDAreStoredOnceAndUpdatedInPlace() throws {
        let (_, context, server) = try store()
        try context.performAndWait { () throws in
            let items = [ParsedItem(id: "", title: "No id", link: "https://a.example/1"), ParsedItem(id: "g", title: "Has id")]
            #expect(try ItemImport.upsert(items, into: server, in: context, now: Date()) == (2, 0))
            try context.save()
            #expect(try ItemImport.upsert(items, into: server, in: context, now: Date()) == (0, 0))
            var changed = items
            changed[1].title = "Has id, renamed"
            #expect(try ItemImport.upsert(changed, into: server, in: context, now: Date()) == (0, 1))
            #expect(try FeedItem.count(in: context) == 2)
        }
    }

    @Test func theLookupIsThePredicateTheFormatWouldParse() throws {
        let (_, context, server) = try store()
        try context.performAndWait { () throws in
            try context.save()
            for guids in [[], ["a"], (0..<300).map { "g\($0)" }] {
                let parsed = try ObjectPredicate(format: "server == %@ AND guid IN %@", server.objectID, guids)
                #expect(ItemImport.lookup(guids, of: server) == parsed)
            }
        }
    }

    @Test func feedAfterFeedTheLookupsFindEachFeedsOwnItems() throws {
        // The lookup's statement is kept prepared and run again with each feed's values: each
        // refresh must find exactly its own feed's stored items (updated, not stored again),
        // and the tombstones of its own feed only.
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            var servers: [Server] = []
            for n in 0..<3 {
                let server = context.insert(Server.self)
                server.url = "https://\(n).example/feed"
                servers.append(server)
            }
            try context.save()
            func items(_ n: Int, title: String) -> [ParsedItem] {
                (0..<(n + 1) * 40).map { ParsedItem(id: "shared-\($0)", title: "\(title) \($0)") }
            }
            for (n, server) in servers.enumerated() {
                #expect(try ItemImport.upsert(items(n, title: "v1"), into: server, in: context, now: Date()) == ((n + 1) * 40, 0))
                try context.save()
            }
            // A tombstone for one guid of feed 1 only.
            Killfile.tombstone("shared-5", of: servers[1], in: context, now: Date())
            try context.save()
            for (n, server) in servers.enumerated().reversed() {
                #expect(try ItemImport.upsert(items(n, title: "v1"), into: server, in: context, now: Date()) == (0, 0))
                let renamed = try ItemImport.upsert(items(n, title: "v2"), into: server, in: context, now: Date())
                #expect(renamed == (0, (n + 1) * 40))
                try context.save()
            }
            #expect(try FeedItem.count(in: context) == 40 + 80 + 120)
            // The tombstone keeps feed 1 from storing its guid again, not the others.
            let deleted = try context.fetch(
                FetchRequest<FeedItem>(predicate: ItemImport.lookup(["shared-5"], of: servers[1])))
            for item in deleted { context.delete(item) }
            try context.save()
            #expect(try ItemImport.upsert(items(1, title: "v3"), into: servers[1], in: context, now: Date()) == (0, 79))
            #expect(try ItemImport.upsert(items(0, title: "v3"), into: servers[0], in: context, now: Date()) == (0, 40))
        }
    }

    @Test func aFeedWithNoStoredItemStillRespectsItsTombstones() throws {
        // A feed with no stored item skips the look-up of its guids among items, not among
        // tombstones: an item removed on purpose (all of a feed's items, say) stays removed.
        let (_, context, server) = try store()
        try context.performAndWait { () throws in
            let other = context.insert(Server.self)
            other.url = "https://b.example/feed"
            try context.save()
            #expect(!ItemImport.mayHaveStoredItems(server))
            #expect(try ItemImport.feedsWithNothingStored([server, other], in: context) == [server.objectID, other.objectID])
            Killfile.tombstone("gone", of: server, in: context, now: Date())
            try context.save()
            #expect(try ItemImport.feedsWithNothingStored([server, other], in: context) == [other.objectID])
            let items = [
                ParsedItem(id: "gone", title: "Removed"),
                ParsedItem(id: "kept", title: "New", content: "<p>Fish &amp; chips</p>"),
            ]
            #expect(try ItemImport.upsert(items, into: server, in: context, now: Date()) == (1, 0))
            try context.save()
            let stored = try FeedItem.findAll(in: context)
            #expect(stored.map(\.guid) == ["kept"])
            // A new item's body is made with it, and its search text at the save.
            #expect(stored.first?.content == "<p>Fish &amp; chips</p>")
            #expect(stored.first?.body?.text == "Fish & chips")
            // Its count, as the save left it, sends the next refresh to the look-up again.
            #expect(ItemImport.mayHaveStoredItems(server))
            #expect(try ItemImport.feedsWithNothingStored([server, other], in: context) == [other.objectID])
            #expect(try ItemImport.upsert(items, into: server, in: context, now: Date()) == (0, 0))
        }
    }

    @Test func aFeedsStoredItemsAreFoundThroughAnotherContext() throws {
        // The stored count is read with the server's row: a context that reads the feed after
        // another stored its items looks them up and updates them in place.
        let (store, context, server) = try store()
        let id = try context.performAndWait { () throws -> ObjectID in
            #expect(try ItemImport.upsert([ParsedItem(id: "a", title: "One")], into: server, in: context, now: Date()) == (1, 0))
            try context.save()
            return server.objectID
        }
        let other = store.container.newBackgroundContext()
        try other.performAndWait { () throws in
            let server = try #require(try other.existingObject(with: id) as? Server)
            #expect(ItemImport.mayHaveStoredItems(server))
            let changed = [ParsedItem(id: "a", title: "One, renamed"), ParsedItem(id: "b", title: "Two")]
            #expect(try ItemImport.upsert(changed, into: server, in: other, now: Date()) == (1, 1))
            try other.save()
            #expect(try FeedItem.count(in: other) == 2)
        }
    }

    @Test func aRepeatedGuidIsStoredOnceAndSortDateFallsBackToFirstSeen() throws {
        let (_, context, server) = try store()
        let now = Date(timeIntervalSince1970: 1_000)
        try context.performAndWait { () throws in
            let items = [ParsedItem(id: "x", title: "first"), ParsedItem(id: "x", title: "second")]
            #expect(try ItemImport.upsert(items, into: server, in: context, now: now) == (1, 0))
            let stored = try FeedItem.findAll(in: context)
            #expect(stored.map(\.title) == ["first"])
            #expect(stored.first?.sortDate == now)
        }
    }
}

@Suite struct StoreFolderTests {
    @Test func aFolderThatCannotBeCreatedIsReportedAsSuch() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zf-\(UUID().uuidString.prefix(8))")
        try Data("not a folder".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            _ = try ZeaderStore.open(at: file.appendingPathComponent("sub/z.sqlite"))
            Issue.record("opened a store under a file")
        } catch {
            guard case .cannotCreateFolder(let path, let reason) = error else {
                Issue.record("expected cannotCreateFolder, got \(error)")
                return
            }
            #expect(path == file.appendingPathComponent("sub").path)
            #expect(!reason.isEmpty)
            #expect(error.description.hasPrefix("cannot create the store's folder \(path): "))
        }
    }
}
