import Feeds
import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// The examples of ZeaderKit's doc comments, compiled and run: when an API changes, the
/// example that shows it has to change too. Each block below is the example as written in
/// the comment named above it (with the values it assumes declared first).
@Suite("ZeaderKit's doc-comment examples compile and run")
struct DocumentationExamplesTests {
    func temporaryStoreURL() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("zdoc-\(UUID().uuidString.prefix(8))/zeader.sqlite")
    }

    @Test func feedLibraryExamples() throws {
        let dbURL = temporaryStoreURL()
        defer { try? FileManager.default.removeItem(at: dbURL.deletingLastPathComponent()) }
        // FeedLibrary
        let library = FeedLibrary(store: try ZeaderStore.open(at: dbURL))
        try library.add(url: "https://example.org/feed.xml", title: "Example")
        print(try library.servers().map(\.url))
        // FeedLibrary.add
        try library.add(url: "https://example.org/other.xml", title: "Example", tags: ["news"])
        // FeedLibrary.addSmartFeed
        try library.addSmartFeed(title: "Swift", predicate: "read == NO AND title CONTAINS[cd] \"swift\"")
        // FeedLibrary.servers(tag:)
        for feed in try library.servers(tag: "linux") { print(feed.unread, feed.title ?? "") }
        // FeedLibrary.items
        let unread = try library.items(ItemQuery(unreadOnly: true, limit: 20))
        // ItemQuery
        let query = ItemQuery(feed: "https://example.org/feed.xml", unreadOnly: true, search: "swift linux", limit: 10)
        let items = try library.items(query)
        // ItemQuery.predicate()
        let predicate = try ItemQuery(unreadOnly: true, wherePredicate: "author == \"Ann\"").predicate()
        #expect(predicate.description.contains("read == NO"))
        // ItemQuery.tagPredicate
        let p = ItemQuery.tagPredicate("linux", keyPath: "server.tags")
        // FeedLibrary.markRead
        let n = try library.markRead(feed: nil)  // everything
        // FeedLibrary.exportOPML
        print(try library.exportOPML(), terminator: "")
        // FeedLibrary+Tags
        try library.tag(url: "https://example.org/other.xml", add: ["linux", "news"])
        try library.tag(url: "https://example.org/other.xml", remove: ["news"])  // ["linux"]
        for (tag, feeds) in try library.tags() { print(tag, feeds) }
        // Listings
        let feeds = try library.servers()
        print(ServerSummary.json(feeds))
        print(ItemSummary.json(items), terminator: "")
        // FeedLibrary+Backup
        var json = ""
        let (feedCount, itemCount) = try library.exportBackup { json += $0 }
        #expect(FeedLibrary.looksLikeBackup(Data(json.utf8)) && feedCount == 2 && itemCount == 0)
        // FeedLibrary.remove, ZeaderError
        let gone = try library.remove(url: "https://example.org/feed.xml")
        // Prints "zeader remove: not subscribed: https://example.org/feed".
        do { try library.remove(url: "https://example.org/feed") } catch { print("zeader remove: \(error)") }
        #expect(unread.isEmpty && n == 0 && gone == 0 && p != .true)
        #expect(try library.tags().map(\.tag) == ["linux"])
    }

    @Test func useCaseExamples() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        context.undoManager = ContextUndoManager()
        try context.performAndWait { () throws in
            // FeedSubscription
            let server = try FeedSubscription.add(url: "https://example.org/feed.xml", title: "Example", in: context)
            try context.save()
            #expect(try FeedSubscription.validatedURL(" https://example.org/feed ") == "https://example.org/feed")
            let url = "https://example.org/feed.xml"
            if try FeedSubscription.isSubscribed(url, in: context) { print("subscribed") }
            try FeedSubscription.add(url: "https://example.org/b.xml", tags: ["news"], in: context)
            // ItemImport
            let feed = ParsedFeed(format: .rss2, title: "Example", items: [ParsedItem(id: "1", title: "cafe swift")])
            let (new, changed) = try ItemImport.upsert(feed.items, into: server, in: context, now: Date())
            ItemImport.updateDetails(of: server, from: feed)
            try context.save()
            #expect(new == 1 && changed == 0)
            // ItemImport.feedsWithNothingStored
            let servers = [server]
            let empty = try ItemImport.feedsWithNothingStored(servers, in: context)
            #expect(empty.isEmpty)
            #expect(ItemImport.guid(for: ParsedItem(id: "", title: "Hello", link: "https://example.org/1")).hasPrefix("zeader:"))
            // ItemOrder
            let serverID = server.objectID
            let ids = try ItemOrder.itemIDs(matching: try ObjectPredicate(format: "read == NO"), limit: 20, in: context)
            let sorted = server.feedItems.sorted(by: ItemOrder.precedes)
            let latest = try ItemOrder.items(matching: nil, limit: 10, in: context)
            #expect(ids == sorted.map(\.objectID) && latest.map(\.objectID) == ids)
            #expect(try ItemOrder.itemIDs(ofServer: serverID, in: context) == ids)
            // ItemSearch
            #expect(
                try ItemSearch.itemIDs("cafe swift", filter: try ObjectPredicate(format: "read == NO"), limit: 20, in: context)
                    == ids)
            #expect(try ItemSearch.items("linux", filter: nil, limit: 10, in: context).isEmpty)
            // ItemMarking
            let id = ids[0]
            try ItemMarking.setRead([id], true, in: context)
            try ItemMarking.setRead([id], false, in: context)  // "Mark Unread"
            try ItemMarking.setFlagged([id], true, in: context)  // "Flag"
            let count = try ItemMarking.markRead(.matching(predicateFormat: "title CONTAINS[cd] \"swift\""), in: context)
            let changedAll = try ItemMarking.markRead(.all, in: context)  // "Mark All Read"; undo restores it
            try ItemMarking.markRead(.feed(serverID), in: context)
            try ItemMarking.undoable("Move Feed", in: context) { server.displayOrder = 3 }
            #expect(count == 1 && changedAll == 0)
            // FeedEditing
            for server in try FeedEditing.servers(in: context) { print(server.displayTitle) }
            try FeedEditing.move(serverID, by: 1, in: context)
            try FeedEditing.move(serverID, by: -1, in: context)  // "Move Feed"
            #expect(try FeedEditing.server(url: "https://example.org/feed.xml", in: context) === server)
            try FeedEditing.tag(serverID, add: ["linux"], remove: ["news"], in: context)
            // SmartFeeds
            try SmartFeeds.validate("read == NO")
            try SmartFeeds.add(title: "Swift", predicate: "read == NO AND title CONTAINS[cd] \"swift\"", in: context)
            let (unread, total) = try SmartFeeds.counts(of: "title CONTAINS[cd] \"swift\"", in: context)
            for smart in try SmartFeeds.stored(in: context) { print(smart.title) }
            #expect(unread == 0 && total == 1)
            let items = try FeedEditing.delete(serverID, in: context)
            #expect(items == 1)
        }
    }

    @Test func refreshAndMessageExamples() async throws {
        let store = try ZeaderStore.inMemory()
        // FeedRefresher, RefreshOptions
        var options = RefreshOptions(jobs: 16)
        options.fetcherConfiguration.totalTimeout = 30
        let refresher = FeedRefresher(store: store, options: RefreshOptions(jobs: 8))
        let summary = try await refresher.refresh { event in print(event.progress.completed, "of", event.progress.total) }
        print(summary.line)  // "0 feeds: 0 updated, 0 unchanged, 0 failed; 0 new items in 0.0 s"
        #expect(summary.line.hasPrefix("0 feeds: 0 updated, 0 unchanged, 0 failed; 0 new items in "))
        let failed = summary.results.filter(\.status.isFailure)
        #expect(failed.isEmpty && options.jobs == 16)
        // ManagedObjectContext.run
        let context = store.container.viewContext
        let n = await context.run { (try? context.count(for: FetchRequest<Server>())) ?? 0 }
        #expect(n == 0)
        // Messages
        #expect(ZeaderError.notSubscribed("https://example.org/feed").description == "not subscribed: https://example.org/feed")
        #expect(RefreshFailure.invalidURL("not a url").description == "not a url: invalid URL")
        // JSONText, FeedTags, ZeaderPaths
        var out = ""
        JSONText.appendString("a \"b\"", to: &out)
        #expect(out == #""a \"b\"""#)
        #expect(JSONText.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(FeedTags.normalized(["news", " Linux ", "NEWS"]) == "Linux,news")
        #expect(FeedTags.list("Linux,news") == ["Linux", "news"])
        #expect(FeedTags.clean("  tech,\tnews ") == "tech news")
        #expect(FeedTags.contains("Linux,news", "linux"))
        let url = ZeaderPaths.databaseURL(explicit: nil, environment: ["ZEADER_DB": "/tmp/z.sqlite"])
        #expect(url.path == "/tmp/z.sqlite")
    }
}
