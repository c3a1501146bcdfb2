import Feeds
import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// newsboat's edit-urls as a use case: the feeds as a urls file, and an edited file applied
/// back (subscribe, unsubscribe, tags, titles, order) as one undo step.
@Suite struct FeedURLsEditingTests {
    func makeContext() throws -> (ZeaderStore, ManagedObjectContext) {
        let store = try ZeaderStore.inMemory()
        let context = store.container.viewContext
        try context.performAndWait {
            context.undoManager = ContextUndoManager()
            try FeedSubscription.add(
                url: "https://a.example/feed", title: "Site \"A\"", tags: ["news", "two words"], in: context)
            let b = try FeedSubscription.add(url: "https://b.example/feed", in: context)
            _ = try ItemImport.upsert([ParsedItem(id: "b1", title: "B one")], into: b, in: context, now: Date())
            try FeedSubscription.add(url: "https://c.example/feed", tags: ["tech"], in: context)
            try context.save()
            context.undoManager?.removeAllActions()
        }
        return (store, context)
    }

    func feeds(_ context: ManagedObjectContext) throws -> [String] {
        try FeedEditing.servers(in: context).map { "\($0.url) [\($0.tags ?? "")] \($0.title ?? "-")" }
    }

    @Test func theTextIsANewsboatURLsFileThatReadsBackUnchanged() throws {
        let (store, context) = try makeContext()
        defer { withExtendedLifetime(store) {} }
        try context.performAndWait {
            let text = try FeedURLsEditing.text(in: context)
            #expect(text.contains("https://a.example/feed news \"two words\" \"~Site \\\"A\\\"\"\n"))
            #expect(text.contains("\nhttps://b.example/feed\nhttps://c.example/feed tech\n"))
            let parsed = NewsboatURLs.parse(text, source: "urls")
            #expect(
                parsed.subscriptions.map(\.url) == ["https://a.example/feed", "https://b.example/feed", "https://c.example/feed"])
            #expect(parsed.subscriptions[0].title == "Site \"A\"")
            let report = try FeedURLsEditing.apply(text, in: context)
            #expect(report.isEmpty)
            #expect(context.undoManager?.canUndo == false || !context.hasChanges)
        }
    }

    /// Command feeds whose lines have blanks, quotes, backslashes and `#` survive an unchanged
    /// edit with their items: the URL word is quoted as the tags are.
    @Test(arguments: [
        "exec:~/bin/feed --all --since 2d", "exec:sh -c \"echo '<rss/>' # not a comment\"",
        "filter:~/bin/clean --strip \\ x:https://a.example/feed", "exec:\"/opt/my feeds/run\" --x",
    ])
    func aCommandFeedWithBlanksKeepsItsCommandAndItems(command: String) throws {
        let (store, context) = try makeContext()
        defer { withExtendedLifetime(store) {} }
        try context.performAndWait {
            let feed = try FeedSubscription.add(url: command, title: "Mine", tags: ["cmd"], in: context)
            _ = try ItemImport.upsert([ParsedItem(id: "c1", title: "C one")], into: feed, in: context, now: Date())
            try context.save()
            let text = try FeedURLsEditing.text(in: context)
            #expect(NewsboatURLs.parse(text, source: "urls").subscriptions.map(\.url).contains(command), "\(text)")
            let report = try FeedURLsEditing.apply(text, in: context)
            #expect(report.isEmpty, "\(report)")
            #expect(try FeedEditing.servers(in: context).contains { $0.url == command && $0.title == "Mine" })
            #expect(feed.isDeleted == false)
            #expect(
                try context.count(
                    for: FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "server == %@", feed.objectID)))
                    == 1)
        }
    }

    @Test func anEditSubscribesUnsubscribesRetagsReordersAndUndoesAsOneStep() throws {
        let (store, context) = try makeContext()
        defer { withExtendedLifetime(store) {} }
        try context.performAndWait {
            let before = try feeds(context)
            let edited = """
                # a comment
                https://c.example/feed tech linux "~C Feed"
                https://a.example/feed news
                https://d.example/feed new
                "query:Unread:unread = \\"yes\\""
                """
            let report = try FeedURLsEditing.apply(edited, in: context)
            #expect(report.removed == ["https://b.example/feed"])
            #expect(report.added.count == 1)
            #expect(report.changed == 2)
            #expect(report.reordered)
            #expect(report.notes.count == 1 && report.notes[0].contains("urls:5: skipped query feed"))
            #expect(
                try feeds(context) == [
                    "https://c.example/feed [linux,tech] C Feed", "https://a.example/feed [news] Site \"A\"",
                    "https://d.example/feed [new] -",
                ])
            #expect(try context.count(for: FetchRequest<FeedItem>()) == 0)  // b's item went with it
            #expect(context.undoManager?.undoActionName == "Edit URLs")
            #expect(context.undo())
            try context.save()
            #expect(try feeds(context) == before)
            #expect(try context.count(for: FetchRequest<FeedItem>()) == 1)
            // A bad URL changes nothing.
            #expect(throws: (any Error).self) { try FeedURLsEditing.apply("https://a.example/feed\nhttp://\n", in: context) }
            #expect(try feeds(context) == before)
        }
    }
}
