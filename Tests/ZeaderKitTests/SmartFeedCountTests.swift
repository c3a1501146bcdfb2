import Foundation
import GRDB
import ObjectGraph
import Synchronization
import Testing

@testable import ZeaderKit

/// Smart-feed counts are kept in the store (``SmartFeeds/counts(of:in:forgettingOthers:)``):
/// after a refresh, a mark-read, an undo, a change of a feed's title and writes by other
/// processes they equal a fresh count, and the reader's next start reads the changed items
/// only, never the item table whole.
@Suite("Smart-feed counts are kept, not recounted", .serialized)
struct SmartFeedCountTests {
    static let formats = [
        #"read == NO AND title CONTAINS[cd] "swift""#,  // the item's own columns
        "flagged == YES",
        #"content CONTAINS[c] "kernel""#,  // through the item's body
        #"server.title == "Two""#,  // through the item's feed
    ]

    /// An RSS file titled `title` whose items are `items` (guid, title, content).
    static func writeFeed(_ title: String, _ items: [(String, String, String)], to url: URL) throws {
        let body = items.map { guid, title, content in
            "<item><guid>\(guid)</guid><title>\(title)</title><description>\(content)</description></item>"
        }.joined()
        try Data(#"<rss version="2.0"><channel><title>\#(title)</title>\#(body)</channel></rss>"#.utf8).write(to: url)
    }

    /// The kept counts of `formats`, as the reader asks for them, checked against counts over
    /// every item.
    static func check(_ store: ZeaderStore, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let kept = try SmartFeeds.counts(of: formats, in: context, forgettingOthers: true)
            for (format, result) in zip(formats, kept) {
                let predicate = try ZeaderModel.itemPredicate(format: format)
                let total = try context.count(for: FetchRequest<FeedItem>(predicate: predicate))
                let unread = try context.count(
                    for: FetchRequest<FeedItem>(predicate: predicate && (try ObjectPredicate(format: "read == NO"))))
                let counts = try result.get()
                #expect(counts.total == total && counts.unread == unread, "\(step): \(format)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Runs `body` with a trace on the store's writing connection (where kept counts are
    /// worked out); returns its result and each SELECT of the item table with its query plan.
    static func tracingStatements<T>(of store: ZeaderStore, _ body: () throws -> T) throws -> (T, [(String, [String])]) {
        let writer = try #require(store.container.store.databaseReader as? any DatabaseWriter)
        let statements = Mutex<[String]>([])
        writer.writeWithoutTransaction { db in
            db.trace(options: .statement) { event in
                if case .statement(let s) = event { statements.withLock { $0.append(s.expandedSQL) } }
            }
        }
        let result = try body()
        writer.writeWithoutTransaction { db in db.trace(options: .statement, nil) }
        let reads = statements.withLock { $0 }.filter { $0.hasPrefix("SELECT") && $0.contains("\"FeedItem\"") }
        let plans = try writer.read { db in
            try reads.map { sql in
                (sql, try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql)").map { $0["detail"] as String })
            }
        }
        return (result, plans)
    }

    @Test func countsStayRightAndTheNextStartReadsOnlyTheChangedItems() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite")
        let one = dir.appendingPathComponent("one.xml")
        let two = dir.appendingPathComponent("two.xml")
        try Self.writeFeed(
            "One", (0..<30).map { ("o\($0)", $0 % 3 == 0 ? "Swift \($0)" : "Item \($0)", $0 % 4 == 0 ? "kernel" : "text") },
            to: one)
        try Self.writeFeed("Two", (0..<20).map { ("t\($0)", "Swift two \($0)", "body") }, to: two)

        // A refresh in this process.
        var store: ZeaderStore? = try ZeaderStore.open(at: db)
        let library = FeedLibrary(store: store!)
        try library.add(url: one.absoluteString)
        try library.add(url: two.absoluteString)
        _ = try await FeedRefresher(store: store!).refresh()
        try Self.check(store!, "first count")

        // Read, flag and undo in this process, with the undo manager the reader uses.
        let context = store!.container.viewContext
        try context.performAndWait { () throws in
            context.undoManager = ContextUndoManager()
            let items = try context.fetch(
                FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "title BEGINSWITH 'Swift'")))
            try ItemMarking.setRead(Array(items.prefix(5).map(\.objectID)), true, in: context)
            items[6].flagged = true
            try context.save()
        }
        try Self.check(store!, "read and flag")
        try context.performAndWait { () throws in
            #expect(try ItemMarking.undo(in: context, bus: store!.container.bus) != nil)
        }
        try Self.check(store!, "undo")
        try context.performAndWait { () throws in
            _ = try ItemMarking.markRead(.matching(predicateFormat: #"title CONTAINS "two 1""#), in: context)
        }
        try Self.check(store!, "mark a smart feed read (a batch update)")

        // A feed's title changes: the items of `server.title == "Two"` change with it.
        try context.performAndWait { () throws in
            let server = try #require(try Server.findFirst(byAttribute: "url", value: .string(two.absoluteString), in: context))
            server.title = "Not two"
            try context.save()
            server.title = "Two"
            try context.save()
        }
        try Self.check(store!, "feed retitled")

        // Other processes while the store is open: mark-read --all, then a refresh with new items.
        var r = try zeader(["--db", db.path, "mark-read", "--all"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        try Self.check(store!, "mark-read --all by another process")
        try Self.writeFeed(
            "One", (0..<40).map { ("o\($0)", $0 % 3 == 0 ? "Swift \($0)" : "Item \($0)", $0 % 4 == 0 ? "kernel" : "text") },
            to: one)
        r = try zeader(["--db", db.path, "refresh"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        try Self.check(store!, "refresh by another process")
        try store!.container.store.close()
        store = nil

        // The reader closed; a refresh and a flag meanwhile; then the reader starts again.
        try Self.writeFeed(
            "One", (0..<50).map { ("o\($0)", $0 % 3 == 0 ? "Swift \($0)" : "Item \($0)", $0 % 4 == 0 ? "kernel" : "text") },
            to: one)
        r = try zeader(["--db", db.path, "refresh"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        r = try zeader(["--db", db.path, "items", "--json", "--limit", "1"], in: dir)
        let first = try #require(
            (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])?.first?["id"] as? String)
        r = try zeader(["--db", db.path, "flag", first], in: dir)
        #expect(r.status == 0, "\(r.stderr)")

        let reopened = try ZeaderStore.open(at: db)
        let (kept, reads) = try Self.tracingStatements(of: reopened) {
            try reopened.container.viewContext.performAndWait { () throws in
                try SmartFeeds.counts(of: Self.formats, in: reopened.container.viewContext, forgettingOthers: true)
            }
        }
        #expect(kept.allSatisfy { (try? $0.get()) != nil })
        // Every query of the start that reads items reads them by primary key (the 10 new
        // ones and the flagged one), never the item table whole nor through one of its indexes.
        #expect(reads.count == Self.formats.count * 2)
        for (sql, plan) in reads {
            #expect(plan.contains("SEARCH t0 USING INTEGER PRIMARY KEY (rowid=?)"), "\(sql): \(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN t0") || ($0.hasPrefix("SEARCH t0 ") && !$0.contains("PRIMARY KEY")) })
        }
        try Self.check(reopened, "the reader's next start")
    }
}
