import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// "Newest first" has one definition (``ItemOrder``); every way of listing items keeps it:
/// in memory, by fetch request (with and without a limit), through the search index, and
/// `zeader items` (``FeedLibrary/items(_:)``), ties and undated items included.
@Suite struct ItemOrderTests {
    static let dates: [(String, Double?)] = [
        ("undated one", nil), ("old", 10), ("tie first", 500), ("undated two", nil), ("tie second", 500), ("new", 900),
        ("tie third", 500),
    ]
    static let expected = [
        "match new", "match tie third", "match tie second", "match tie first", "match old", "match undated two",
        "match undated one",
    ]

    func makeStore() throws -> (ZeaderStore, ObjectID) {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        let serverID = try context.performAndWait { () throws -> ObjectID in
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            for (title, seconds) in Self.dates {
                let item = context.insert(FeedItem.self)
                item.guid = title
                item.title = "match \(title)"
                item.sortDate = seconds.map(Date.init(timeIntervalSince1970:))
                item.server = server
            }
            try context.save()
            return server.objectID
        }
        return (store, serverID)
    }

    func titles(_ ids: [ObjectID], _ context: ManagedObjectContext) throws -> [String] {
        try ids.map { (try context.existingObject(with: $0) as! FeedItem).title ?? "" }
    }

    @Test func inMemoryOrder() throws {
        let (store, server) = try makeStore()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            #expect(try titles(try ItemOrder.itemIDs(ofServer: server, in: context), context) == Self.expected)
        }
    }

    @Test func fetchRequestOrder() throws {
        let (store, _) = try makeStore()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            #expect(try titles(try ItemOrder.itemIDs(in: context), context) == Self.expected)
            #expect(try ItemOrder.items(in: context).map { $0.title ?? "" } == Self.expected)
        }
    }

    @Test func aLimitKeepsTheNewest() throws {
        let (store, _) = try makeStore()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            #expect(try titles(try ItemOrder.itemIDs(limit: 3, in: context), context) == Array(Self.expected.prefix(3)))
            #expect(try ItemOrder.items(limit: 100, in: context).map { $0.title ?? "" } == Self.expected)
            let unreadTies = try ObjectPredicate(format: "title CONTAINS 'tie'")
            #expect(
                try ItemOrder.items(matching: unreadTies, limit: 2, in: context).map { $0.title ?? "" }
                    == ["match tie third", "match tie second"])
        }
    }

    @Test func searchOrder() throws {
        let (store, _) = try makeStore()
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            #expect(try titles(try ItemSearch.itemIDs("MATCH", in: context), context) == Self.expected)
            #expect(try titles(try ItemSearch.itemIDs("match", limit: 2, in: context), context) == Array(Self.expected.prefix(2)))
            #expect(try ItemSearch.items("match", in: context).map { $0.title ?? "" } == Self.expected)
            #expect(
                try ItemSearch.items("match tie", limit: 2, in: context).map { $0.title ?? "" } == [
                    "match tie third", "match tie second",
                ])
        }
    }

    @Test func commandLineItemsOrder() throws {
        let (store, _) = try makeStore()
        let library = FeedLibrary(store: store)
        #expect(try library.items(ItemQuery()).map { $0.title ?? "" } == Self.expected)
        #expect(try library.items(ItemQuery(search: "match", limit: 4)).map { $0.title ?? "" } == Array(Self.expected.prefix(4)))
        #expect(try library.items(ItemQuery(limit: 1)).map { $0.title ?? "" } == ["match new"])
    }
}

/// Search has one implementation: the full-text index, with other filters in the same query.
@Suite struct ItemSearchTests {
    @Test func everyWordMustMatchAsAWordPrefixIgnoringCaseAndAccents() throws {
        let store = try ZeaderStore.inMemory()
        let library = FeedLibrary(store: store)
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            for (n, title) in ["Café déjà vu", "Swift on Linux", "Café Swift"].enumerated() {
                let item = context.insert(FeedItem.self)
                item.guid = "\(n)"
                item.title = title
                item.read = n == 2
                item.sortDate = Date(timeIntervalSince1970: Double(n))
                item.server = server
            }
            try context.save()
        }
        #expect(try library.items(ItemQuery(search: "CAFE deja")).map(\.id) == ["0"])
        #expect(try library.items(ItemQuery(search: "caf")).map(\.id) == ["2", "0"])
        #expect(try library.items(ItemQuery(search: "afe")).isEmpty)  // word prefixes, not substrings
        #expect(try library.items(ItemQuery(unreadOnly: true, search: "café")).map(\.id) == ["0"])
        #expect(try library.items(ItemQuery(search: "swift", wherePredicate: "title BEGINSWITH 'Café'")).map(\.id) == ["2"])
        #expect(throws: ZeaderError.self) { try library.items(ItemQuery(search: "swift", wherePredicate: "nosuchkey == 1")) }
    }
}

/// Listing the matches as IDs (the reader) and as items (the command line) gives the same
/// list, with filters and limits, among many matches with tied dates.
@Suite struct ItemSearchListingTests {
    @Test func idsAndItemsAgree() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        let count = 300
        try context.performAndWait { () throws in
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            for n in 0..<count {
                let item = context.insert(FeedItem.self)
                item.guid = "\(n)"
                item.title = n % 2 == 0 ? "common even \(n)" : "common odd \(n)"
                item.read = n % 3 == 0
                item.sortDate = Date(timeIntervalSince1970: Double(n / 4))  // ties in fours
                item.server = server
            }
            try context.save()
        }
        try context.performAndWait { () throws in
            let unread = try ObjectPredicate(format: "read == NO")
            for (text, filter, limit) in [("common", nil, nil), ("common", unread, nil), ("common", unread, 7), ("even", nil, 5)]
                as [(String, ObjectPredicate?, Int?)]
            {
                let loaded = try ItemSearch.items(text, filter: filter, limit: limit, in: context).map(\.objectID)
                #expect(
                    loaded == (try ItemSearch.itemIDs(text, filter: filter, limit: limit, in: context)),
                    "\(text) \(String(describing: filter))")
                let expected = try ItemOrder.items(matching: filter, in: context)
                    .filter { ($0.title ?? "").split(separator: " ").contains { $0.hasPrefix(text) } }
                #expect(loaded == Array(expected.prefix(limit ?? count)).map(\.objectID))
            }
            #expect(try ItemSearch.items("common", in: context).count == count)
            #expect(try ItemSearch.items("even", in: context).count == count / 2)
            #expect(try ItemSearch.itemIDs("common", filter: unread, in: context).count == count - (count + 2) / 3)
        }
    }
}
