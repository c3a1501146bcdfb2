import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// After bulk writes through the command line, the store's `-wal` file is no larger than
/// `journal_size_limit` (the commands checkpoint it).
@Suite("The -wal file stays small after bulk writes", .serialized)
struct WALCLITests {
    static func walSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path + "-wal"))?[.size] as? Int) ?? 0
    }

    /// A JSON backup of one feed with `items` items of about 2 KB each.
    static func backup(items: Int, in dir: URL) throws -> URL {
        var json = #"{"format":"zeader-backup","version":1,"feeds":[{"url":"http://feed.example/rss","title":"Feed"}],"items":["#
        json += (0..<items).map { n in
            let content = String(repeating: "word\(n % 97) ", count: 300)
            return
                #"{"feed":"http://feed.example/rss","guid":"g-\#(n)","title":"Item \#(n)","content":"\#(content)","published":"2024-01-01T00:00:00Z"}"#
        }.joined(separator: ",")
        json += "]}"
        let url = dir.appendingPathComponent("backup.json")
        try json.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("import of a backup and mark-read --all leave the -wal within journal_size_limit")
    func importAndMarkAll() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite")
        let backup = try Self.backup(items: 6_000, in: dir)
        var r = try zeader(["--db", db.path, "import", backup.path], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.walSize(db) <= PersistentStore.journalSizeLimit)
        r = try zeader(["--db", db.path, "mark-read", "--all"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.walSize(db) <= PersistentStore.journalSizeLimit)
        r = try zeader(["--db", db.path, "items", "--unread"], in: dir)
        #expect(r.status == 0 && r.stdout.isEmpty, "\(r.stderr)")
    }

    @Test("a refresh that stores megabytes leaves the -wal within journal_size_limit while the store stays open")
    func refresh() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite")
        let feed = dir.appendingPathComponent("big.xml")
        let items = (0..<5_000).map { n in
            "<item><guid>g-\(n)</guid><title>Item \(n)</title><description>\(String(repeating: "word\(n % 97) ", count: 300))</description></item>"
        }
        try Data("<rss version=\"2.0\"><channel><title>Big</title>\(items.joined())</channel></rss>".utf8).write(to: feed)
        let store = try ZeaderStore.open(at: db)  // open throughout, as in the reader
        try FeedLibrary(store: store).add(url: feed.absoluteString)
        let summary = try await FeedRefresher(store: store).refresh()
        #expect(summary.progress.newItems == 5_000)
        #expect(Self.walSize(db) <= PersistentStore.journalSizeLimit)
    }

    @Test("mark-read in process checkpoints while the store stays open")
    func markAllInProcess() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite")
        let store = try ZeaderStore.open(at: db)
        let library = FeedLibrary(store: store)
        try library.add(url: "http://feed.example/rss")
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let server = try #require(
                try Server.findFirst(byAttribute: "url", value: .string("http://feed.example/rss"), in: context))
            for n in 0..<4_000 {
                let item = context.insert(FeedItem.self)
                item.guid = "g-\(n)"
                item.title = "Item \(n)"
                item.content = String(repeating: "word\(n % 97) ", count: 300)
                item.sortDate = Date(timeIntervalSince1970: Double(n))
                item.server = server
            }
            try context.save()
        }
        #expect(Self.walSize(db) > PersistentStore.journalSizeLimit)  // one big transaction
        #expect(try library.markRead(feed: nil) == 4_000)
        #expect(Self.walSize(db) <= PersistentStore.journalSizeLimit)
    }
}
