import Feeds
import Foundation
import GRDB
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

    @Test func theBodysTextIsSearchedAndNotItsMarkup() throws {
        // The body's plain text counts; its HTML would match its markup ("paragraph").
        let store = try store(titles: ["One", "Two"])
        #expect(try titles("paragraph", store).isEmpty)
        #expect(try titles("body of one", store) == ["One"])
        #expect(try titles("summary two", store) == ["Two"])
        // Every word in any field: one in the title, one in the body.
        #expect(try titles("two body", store) == ["Two"])
    }

    @Test func theFullArticleIsSearchedOnceFetchedAndEditsFollow() throws {
        let store = try store(titles: ["One", "Two"])
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let one = try context.fetch(FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "title == 'One'"))).first!
            one.body?.article = "<article><p>The whole story of <b>zeppelins</b>.</p></article>"
            let two = try context.fetch(FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "title == 'Two'"))).first!
            two.content = "<p>Rewritten about <i>kites</i></p>"
            try context.save()
        }
        #expect(try titles("zeppelins", store) == ["One"])
        #expect(try titles("body of one", store).isEmpty)  // the article stands for the content
        #expect(try titles("kites", store) == ["Two"])
        #expect(try titles("body of two", store).isEmpty)
        try context.performAndWait { () throws in
            let two = try context.fetch(FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "title == 'Two'"))).first!
            two.content = nil
            try context.save()
        }
        #expect(try titles("kites", store).isEmpty)
        #expect(try titles("two", store) == ["Two"])
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
                    item.content = "<p>renamed</p>"
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

    /// FTS5's own check of the index against the rows it reads (the summary's extract, the
    /// body's text), the
    /// index's document count against the items', and every search word's matches against
    /// the same rules applied to the stored items in memory.
    func expectIndexConsistent(_ store: ZeaderStore, _ url: URL, words: [String], _ step: String) throws {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        try queue.write { db in
            try db.execute(sql: "INSERT INTO ZSEARCH(ZSEARCH, rank) VALUES ('integrity-check', 1)")
            let documents = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZSEARCH_docsize")
            let items = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM FeedItem")
            #expect(documents == items, "\(step)")
        }
        let context = store.container.newBackgroundContext(name: "check")
        try context.performAndWait { () throws in
            let all = try context.fetch(FetchRequest<FeedItem>(sortDescriptors: ItemOrder.sortDescriptors))
            for word in words {
                let expected = all.filter { item in
                    let extract = item.summary.map { String($0.prefix(ZeaderModel.searchExtractLength)) }
                    return FullTextSearch.matches(word, in: [item.title, item.author, extract, item.body?.text])
                }.map(\.guid)
                // Newest first (no title here is exactly a search's words).
                #expect(try ItemSearch.items(word, in: context).map(\.guid) == expected, "\(step): \(word)")
            }
            context.reset()
        }
    }

    @Test func theIndexStaysConsistentThroughRefreshUpdateDeleteAndCleanup() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-fts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("zeader.sqlite")
        let store = try ZeaderStore.open(at: url)
        let words = [
            "kernel", "swift", "release notes", "\"swift release\"", "zoe", "opening", "tail", "gophers", "crabs kernel",
        ]
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func parsed(_ n: Int, title: String) -> ParsedItem {
            ParsedItem(
                id: "g\(n)", title: title, author: n % 3 == 0 ? "Zoë" : nil,
                published: now.addingTimeInterval(Double(n - 100) * 86_400),
                summary: "The opening words of item \(n). " + String(repeating: "padding ", count: 30) + "tail words",
                content: n % 4 == 3
                    ? nil : "<p>Deep in the body, item \(n) mentions <b>\(n % 2 == 0 ? "gophers" : "crabs")</b>.</p>")
        }
        let titles = ["Kernel release notes", "Swift release", "Swift on Linux", "A kernel panic", "Release notes"]
        let context = store.container.newBackgroundContext(name: "refresh")
        // A refresh of two feeds, one save each (the insert triggers stand aside: each save indexes its rows).
        let serverIDs = try context.performAndWait { () throws -> [ObjectID] in
            var ids: [ObjectID] = []
            for feed in 0..<2 {
                let server = try FeedSubscription.add(url: "https://f\(feed).example/feed", in: context)
                let items = (0..<40).map { parsed(feed * 100 + $0, title: titles[$0 % titles.count] + " \($0)") }
                _ = try ItemImport.upsert(items, into: server, in: context, now: now)
                try context.save()
                ids.append(server.objectID)
            }
            return ids
        }
        try expectIndexConsistent(store, url, words: words, "after the refresh")
        // The feed changes a title and drops an item's author: the refresh updates them.
        try context.performAndWait { () throws in
            let server = try #require(context.object(with: serverIDs[0]) as? Server)
            var items = (0..<41).map { parsed($0, title: titles[$0 % titles.count] + " \($0)") }
            items[3].title = "Renamed to kotlin"
            items[6].author = nil
            items[8].content = "<p>Now about gophers and kotlin</p>"
            items[10].content = nil
            _ = try ItemImport.upsert(items, into: server, in: context, now: now)
            try context.save()
        }
        try expectIndexConsistent(store, url, words: words + ["kotlin"], "after the update")
        // One item deleted by the user, then a cleanup keeping the 10 newest of each feed.
        try context.performAndWait { () throws in
            let item = try #require(
                context.fetch(FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "guid == 'g1'"))).first)
            #expect(try ItemDeletion.delete([item.objectID], in: context) == 1)
        }
        try expectIndexConsistent(store, url, words: words, "after the delete")
        var policy = RetentionPolicy()
        try policy.apply(directive: "max-items", arguments: ["10"])
        policy.keepsUnread = false
        let report = try FeedLibrary(store: store).cleanup(policy: policy, now: now)
        #expect(report.removedItems > 0)
        try expectIndexConsistent(store, url, words: words, "after the cleanup")
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
