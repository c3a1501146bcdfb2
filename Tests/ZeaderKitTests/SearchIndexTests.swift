import Foundation
import ObjectGraph
import Testing
@testable import ZeaderKit

@Suite struct SearchIndexTests {
    /// A store with one feed and the given item titles (guid = title), indexed.
    func store(titles: [String], author: String? = nil) throws -> (ZeaderStore, SearchIndex) {
        let store = try ZeaderStore.inMemory()
        let index = try SearchIndex(store: store)
        let context = store.container.viewContext
        try context.performAndWait {
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            for (n, title) in titles.enumerated() {
                let item = context.insert(FeedItem.self)
                item.guid = title
                item.title = title
                item.author = author
                item.summary = "summary of \(title)"
                item.sortDate = Date(timeIntervalSince1970: Double(n) * 1000)
                item.server = server
            }
            try context.save()
        }
        return (store, index)
    }

    func titles(_ text: String, _ store: ZeaderStore, _ index: SearchIndex) throws -> [String] {
        let context = store.container.viewContext
        return try context.performAndWait {
            try index.search(text, in: context).map { (context.object(with: $0) as! FeedItem).title ?? "" }
        }
    }

    @Test func everyWordMustMatchIgnoringCaseAndDiacritics() throws {
        let (store, index) = try store(titles: ["Crème brûlée recipe", "Creme caramel", "Swift on Linux", "brûlée SWIFT"])
        #expect(try titles("creme BRULEE", store, index) == ["Crème brûlée recipe"])
        #expect(try titles("swift", store, index) == ["brûlée SWIFT", "Swift on Linux"])  // newest first
        #expect(try titles("crem", store, index) == ["Creme caramel", "Crème brûlée recipe"])  // word prefixes
        #expect(try titles("swift nowhere", store, index).isEmpty)
        #expect(try titles("\"", store, index).isEmpty)  // no words: nothing, and no FTS syntax error
        #expect(try titles("summary recipe", store, index) == ["Crème brûlée recipe"])  // text counts too
    }

    @Test func authorsAreSearched() throws {
        let (store, index) = try store(titles: ["One"], author: "Zoë Ångström")
        #expect(try titles("zoe angstrom", store, index) == ["One"])
    }

    @Test func theIndexFollowsInsertsUpdatesAndDeletesFromAnyContext() throws {
        let (store, index) = try store(titles: ["alpha", "beta"])
        let done = DispatchSemaphore(value: 0)
        store.container.saveInBackground({ context in
            let items = try context.fetch(ObjectGraph.FetchRequest<FeedItem>())
            for item in items where item.title == "alpha" {
                item.title = "gamma"
                item.summary = nil
            }
            for item in items where item.title == "beta" { context.delete(item) }
        }, completion: { _ in done.signal() })
        done.wait()
        #expect(try titles("alpha", store, index).isEmpty)
        #expect(try titles("beta", store, index).isEmpty)
        #expect(try titles("gamma", store, index) == ["gamma"])
        // Marking read does not touch the index (the trigger watches text columns only).
        try store.container.viewContext.performAndWait {
            for item in try store.container.viewContext.fetch(ObjectGraph.FetchRequest<FeedItem>()) { item.read = true }
            try store.container.viewContext.save()
        }
        #expect(try titles("gamma", store, index) == ["gamma"])
    }

    @Test func anIndexAddedToAFilledStoreIndexesWhatIsThere() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        try context.performAndWait {
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            let item = context.insert(FeedItem.self)
            item.guid = "1"
            item.title = "Before the index"
            item.server = server
            try context.save()
        }
        let index = try SearchIndex(store: store)
        #expect(try titles("before index", store, index) == ["Before the index"])
        _ = try SearchIndex(store: store)  // opening again keeps the index
        #expect(try titles("before", store, index) == ["Before the index"])
    }

    @Test func matchExpressionsQuoteEveryWord() {
        #expect(SearchIndex.matchExpression(for: "Café  swift") == #""Café"* AND "swift"*"#)
        #expect(SearchIndex.matchExpression(for: #"a" OR "b"#) == #""a"* AND "OR"* AND "b"*"#)
        #expect(SearchIndex.matchExpression(for: " -- ") == nil)
    }
}

@Suite struct SearchIndexOrderTests {
    @Test func newestFirstUndatedLastTiesByNewestKey() throws {
        let store = try ZeaderStore.inMemory()
        let index = try SearchIndex(store: store)
        let context = store.container.viewContext
        let dates: [(String, Double?)] = [("undated one", nil), ("old", 10), ("tie first", 500), ("tie second", 500), ("new", 900)]
        let keysByTitle = try context.performAndWait { () throws -> [String: ObjectID] in
            let server = context.insert(Server.self)
            server.url = "https://a.example/feed"
            let items = dates.map { title, seconds in
                let item = context.insert(FeedItem.self)
                item.guid = title
                item.title = "match \(title)"
                item.sortDate = seconds.map(Date.init(timeIntervalSince1970:))
                item.server = server
                return item
            }
            try context.save()
            return Dictionary(uniqueKeysWithValues: items.map { ($0.title!, $0.objectID) })
        }
        let ids = try context.performAndWait { try index.search("MATCH", in: context) }
        let expected = ["match new", "match tie second", "match tie first", "match old", "match undated one"]
        #expect(ids == expected.map { keysByTitle[$0]! })
        // The IDs name live rows of the view context.
        let titles = try context.performAndWait { try ids.map { (try context.existingObject(with: $0) as! FeedItem).title } }
        #expect(titles == expected)
        #expect(try index.matchingKeysNewestFirst("nothing here").isEmpty)
    }
}
