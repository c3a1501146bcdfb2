import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Search through the full-text index Zeader's model declares on FeedItem
/// (``ZeaderModel/searchIndex``): which fields count, how words match, and that the index
/// follows every change.
@Suite struct ItemSearchIndexTests {
    /// A store with one feed and the given item titles (guid = title).
    func store(titles: [String], author: String? = nil) throws -> ZeaderStore {
        let store = try ZeaderStore.inMemory()
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
                item.content = "<p class=\"paragraph\">body of \(title)</p>"
                item.sortDate = Date(timeIntervalSince1970: Double(n) * 1000)
                item.server = server
            }
            try context.save()
        }
        return store
    }

    func titles(_ text: String, _ store: ZeaderStore) throws -> [String] {
        let context = store.container.viewContext
        return try context.performAndWait {
            try ItemSearch.itemIDs(text, in: context).map { (context.object(with: $0) as! FeedItem).title ?? "" }
        }
    }

    @Test func everyWordMustMatchIgnoringCaseAndDiacritics() throws {
        let store = try store(titles: ["Crème brûlée recipe", "Creme caramel", "Swift on Linux", "brûlée SWIFT"])
        #expect(try titles("creme BRULEE", store) == ["Crème brûlée recipe"])
        #expect(try titles("swift", store) == ["brûlée SWIFT", "Swift on Linux"])  // newest first
        #expect(try titles("crem", store) == ["Creme caramel", "Crème brûlée recipe"])  // word prefixes
        #expect(try titles("rème", store).isEmpty)  // not the middle of a word
        #expect(try titles("swift nowhere", store).isEmpty)
        #expect(try titles("\"", store).isEmpty)  // no words: nothing, and no FTS syntax error
        #expect(try titles("\"swift\" OR NEAR(", store).isEmpty)  // FTS5 syntax is only words here
        #expect(try titles("summary recipe", store) == ["Crème brûlée recipe"])  // the summary counts too
    }

    @Test func theHTMLContentIsNotSearched() throws {
        // The summary is the item's plain text; the HTML would match its markup ("paragraph").
        let store = try store(titles: ["One"])
        #expect(try titles("paragraph", store).isEmpty)
        #expect(try titles("body", store).isEmpty)
        #expect(try titles("summary one", store) == ["One"])
    }

    @Test func authorsAreSearched() throws {
        let store = try store(titles: ["One"], author: "Zoë Ångström")
        #expect(try titles("zoe angstrom", store) == ["One"])
    }

    @Test func theIndexFollowsInsertsUpdatesAndDeletesFromAnyContext() throws {
        let store = try store(titles: ["alpha", "beta"])
        let done = DispatchSemaphore(value: 0)
        store.container.saveInBackground(
            { context in
                let items = try context.fetch(FetchRequest<FeedItem>())
                for item in items where item.title == "alpha" {
                    item.title = "gamma"
                    item.summary = nil
                }
                for item in items where item.title == "beta" { context.delete(item) }
            }, completion: { _ in done.signal() })
        done.wait()
        #expect(try titles("alpha", store).isEmpty)
        #expect(try titles("beta", store).isEmpty)
        #expect(try titles("gamma", store) == ["gamma"])
        // Marking read (one batch update) leaves the index as it was.
        try store.container.viewContext.performAndWait { () throws in
            #expect(try ItemMarking.markRead(.all, in: store.container.viewContext) == 1)
        }
        #expect(try titles("gamma", store) == ["gamma"])
    }

    @Test func unsavedChangesAreSearchedByTheSameRules() throws {
        let store = try store(titles: ["alpha"])
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let item = context.insert(FeedItem.self)
            item.guid = "new"
            item.title = "Ålpha unsaved"
            item.sortDate = Date(timeIntervalSince1970: 5000)
            item.server = try Server.findFirst(where: .true, in: context)
            let ids = try ItemSearch.itemIDs("ALPH", in: context)
            #expect(ids.map { (context.object(with: $0) as! FeedItem).title } == ["Ålpha unsaved", "alpha"])
            context.rollback()
        }
    }

    @Test func aStoreFileReopenedKeepsItsIndex() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-search-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("zeader.sqlite")
        do {
            let store = try ZeaderStore.open(at: url)
            let context = store.container.viewContext
            try context.performAndWait { () throws in
                let server = context.insert(Server.self)
                server.url = "https://a.example/feed"
                let item = context.insert(FeedItem.self)
                item.guid = "1"
                item.title = "Stored before closing"
                item.server = server
                try context.save()
            }
            try store.container.store.close()
        }
        let store = try ZeaderStore.open(at: url)
        #expect(try titles("stored closing", store) == ["Stored before closing"])
    }
}
