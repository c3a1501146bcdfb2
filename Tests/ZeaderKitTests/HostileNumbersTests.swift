import Feeds
import Foundation
import GRDB
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Numbers from outside — a backup, newsboat's cache, a sync server — are checked where they
/// enter (``DateBounds``, ``FeedSubscription/displayOrderRange``), and every printing path is
/// total: no date, however it reached the store, stops a later `items` or `export --json`.
@Suite("Hostile numbers: dates and positions from outside")
struct HostileNumbersTests {
    /// Seconds since 1970 that no date of the range has, as a backup or a cache may hold them.
    static let hostileSeconds: [Double] = [
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e17, -1e17, 9.3e18, -9.3e18, Double(Int64.max),
        Double(Int64.min), 253_402_300_800, -62_135_596_801,
    ]

    /// Dates a program can make but no entry lets in any more.
    static let hostileDates: [Date] =
        (hostileSeconds + [.nan, .infinity, -.infinity]).map { Date(timeIntervalSince1970: $0) }

    static func isTimestamp(_ text: String) -> Bool {
        text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/) != nil
    }

    /// The parsed JSON of `text`, failing the test when it is not JSON.
    static func json(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
        try #require(try? JSONSerialization.jsonObject(with: Data(text.utf8)), "not JSON: \(text.prefix(300))")
    }

    func export(_ library: FeedLibrary) throws -> String {
        var out = ""
        try library.exportBackup { out += $0 }
        return out
    }

    func temporaryFile(_ name: String, _ text: String) throws -> URL {
        let url = try temporaryDirectory().appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    // MARK: - Printing

    @Test("every Date prints: a valid timestamp (clamped) in text, null in JSON and backups")
    func printingIsTotal() throws {
        #expect(JSONText.timestamp(DateBounds.earliest) == "0001-01-01T00:00:00Z")
        #expect(JSONText.timestamp(DateBounds.latest) == "9999-12-31T23:59:59Z")
        for date in Self.hostileDates {
            let text = JSONText.timestamp(date)
            #expect(Self.isTimestamp(text), "\(date.timeIntervalSince1970): \(text)")
            #expect(text == "9999-12-31T23:59:59Z" || text == "0001-01-01T00:00:00Z", "\(date.timeIntervalSince1970)")
            var out = ""
            JSONText.appendDate(date, to: &out)
            #expect(out == "null", "\(date.timeIntervalSince1970)")
            #expect(BackupJSON.dateString(date) == "null", "\(date.timeIntervalSince1970)")
            let item = ItemSummary(feed: "http://a.example/", id: "1", published: date, updated: date, sortDate: date)
            #expect(try Self.json(ItemSummary.json([item])) is [Any])
            #expect(
                Self.isTimestamp(Messages.deferred(url: "u", httpStatus: 429, until: date).components(separatedBy: " ").last!))
        }
        // The feed parser's own JSON (`zeader parse`) too, for an item built by hand.
        for date in Self.hostileDates {
            var feed = ParsedFeed(format: .rss2)
            feed.items = [ParsedItem(id: "1", published: date, updated: date)]
            #expect(try Self.json(String(decoding: feed.contractJSON(), as: UTF8.self)) is [String: Any])
        }
    }

    @Test("a store already holding dates out of range still lists, exports and restores")
    func poisonedStoreStillWorks() throws {
        let store = try makeStore()
        let library = FeedLibrary(store: store)
        try library.add(url: "http://a.example/feed")
        let context = store.container.newBackgroundContext()
        try context.performAndWait { () throws in
            let server = try #require(try Server.findAll(in: context).first)
            for (n, date) in Self.hostileDates.enumerated() {
                let item = context.insert(FeedItem.self)
                item.guid = "g\(n)"
                item.published = date
                item.updated = date
                item.firstSeen = date
                item.sortDate = date
                item.server = server
            }
            try context.save()
        }
        let items = try library.items(ItemQuery())
        #expect(items.count == Self.hostileDates.count)
        #expect(try Self.json(ItemSummary.json(items)) is [Any])
        let backup = try export(library)
        let document = try #require(try Self.json(backup) as? [String: Any])
        #expect((document["items"] as? [Any])?.count == Self.hostileDates.count)
        let restored = FeedLibrary(store: try makeStore())
        let report = try restored.restoreBackup(from: try temporaryFile("backup.json", backup))
        #expect(report.itemsAdded == Self.hostileDates.count)
        #expect(try restored.items(ItemQuery()).allSatisfy { $0.published == nil && $0.updated == nil })
    }

    // MARK: - Backups

    @Test("a backup's dates out of range are no dates; its other numbers are clamped; its other keys ignored")
    func backupNumbersAreClamped() throws {
        var items: [String] = []
        let numbers = Self.hostileSeconds.map { String($0) } + ["9223372036854775807", "-9223372036854775808", "1e300"]
        for (n, number) in numbers.enumerated() {
            items.append(
                #"{"feed":"http://a.example/feed","guid":"n\#(n)","title":"T","published":\#(number),"updated":\#(number),"firstSeen":\#(number),"read":false}"#
            )
        }
        for (n, text) in ["0000-01-01T00:00:00Z", "0001-01-01T00:30:00+01:00", "9999-12-31T23:59:59-01:00"].enumerated() {
            items.append(
                #"{"feed":"http://b.example/feed","guid":"s\#(n)","published":"\#(text)","updated":"\#(text)","firstSeen":"\#(text)"}"#
            )
        }
        items.append(
            #"{"feed":"http://b.example/feed","guid":"ok","published":"2024-05-01T10:00:00Z","firstSeen":1714557600,"syncID":"123","sortDate":1e300,"enclosureLength":-5}"#
        )
        let feeds = [
            #"{"url":"http://a.example/feed","displayOrder":9223372036854775807,"retryAfter":1e300,"lastRefresh":9.3e18,"disabled":true,"lastError":"x"}"#,
            #"{"url":"http://b.example/feed","displayOrder":-9223372036854775808}"#,
            #"{"url":"http://c.example/feed","displayOrder":1e300}"#,
            #"{"url":"http://d.example/feed","displayOrder":"99999999999999999999"}"#,
            #"{"url":"http://e.example/feed","displayOrder":-1.7976931348623157e308}"#,
        ]
        let text =
            #"{"format":"zeader-backup","version":2,"feeds":["# + feeds.joined(separator: ",") + #"],"items":["#
            + items.joined(separator: ",\n") + "]}"
        let store = try makeStore()
        let library = FeedLibrary(store: store)
        let report = try library.restoreBackup(from: try temporaryFile("backup.json", text), batchSize: 4)
        #expect(report.feedsAdded == 5 && report.itemsAdded == items.count)

        let listed = try library.items(ItemQuery())
        #expect(listed.count == items.count)
        #expect(try Self.json(ItemSummary.json(listed)) is [Any])
        for item in listed where item.id != "ok" {
            #expect(item.published == nil && item.updated == nil, "\(item.id)")
        }
        let ok = try #require(listed.first { $0.id == "ok" })
        #expect(ok.published == Date(timeIntervalSince1970: 1_714_557_600))
        #expect(listed.first?.id == "ok")  // the only dated item is the newest; the rest sort as undated
        let context = store.container.newBackgroundContext()
        try context.performAndWait { () throws in
            for item in try FeedItem.findAll(in: context) {
                #expect(item.firstSeen.map(DateBounds.contains) ?? true, "\(item.guid)")
                #expect(item.syncID == nil && item.enclosureLength == nil)
            }
            for server in try Server.findAll(in: context) {
                #expect(FeedSubscription.displayOrderRange.contains(server.displayOrder), "\(server.url)")
                #expect(server.retryAfter == nil && server.lastRefresh == nil && !server.disabled && server.lastError == nil)
            }
        }
        // A feed added after them still goes last, with no overflow.
        try library.add(url: "http://f.example/feed")
        #expect(try library.servers().last?.url == "http://f.example/feed")
        // The backup of the restored store is one valid document.
        let again = try export(library)
        #expect(((try Self.json(again) as? [String: Any])?["items"] as? [Any])?.count == items.count)
    }

    @Test("zeader import of a hostile backup, then items --json and export --json: exit 0 and valid JSON")
    func hostileBackupThroughTheCommandLine() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let backup = dir.appendingPathComponent("backup.json")
        let items = Self.hostileSeconds.enumerated().map { n, seconds in
            #"{"feed":"http://a.example/feed","guid":"g\#(n)","published":\#(seconds),"updated":\#(seconds)}"#
        }
        try Data(
            (#"{"format":"zeader-backup","version":2,"feeds":[{"url":"http://a.example/feed"}],"items":["#
                + items.joined(separator: ",") + "]}").utf8
        ).write(to: backup)
        let db = dir.appendingPathComponent("z.sqlite").path
        var r = try zeader(["import", backup.path, "--db", db], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        r = try zeader(["items", "--json", "--db", db], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect((try Self.json(r.stdout) as? [Any])?.count == items.count)
        r = try zeader(["items", "--db", db], in: dir)
        #expect(r.status == 0 && r.stdout.split(separator: "\n").count == items.count, "\(r.stderr)")
        r = try zeader(["export", "--json", "--db", db], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(((try Self.json(r.stdout) as? [String: Any])?["items"] as? [Any])?.count == items.count)
    }

    @Test("export --json to a full disk: exit 1 and one line saying the backup is incomplete")
    func exportReportsAWriteFailure() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite").path
        #expect(try zeader(["add", "http://a.example/feed", "--db", db], in: dir).status == 0)
        let binary = try #require(zeaderBinary)
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let process = Process()
        process.executableURL = binary
        process.arguments = ["export", "--json", "--db", db]
        process.environment = ["HOME": dir.path, "XDG_CONFIG_HOME": dir.appendingPathComponent("nothing").path]
        process.standardOutput = full
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(stderr.hasPrefix("zeader export: cannot write the backup ("), "\(stderr)")
        #expect(stderr.split(separator: "\n").count == 1, "\(stderr)")
    }

    // MARK: - newsboat's cache

    @Test("a newsboat cache's dates out of range are no dates; the items are kept")
    func newsboatDatesAreChecked() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache.db")
        let feed = "http://a.example/feed"
        let values: [(any DatabaseValueConvertible)?] = [
            Int64.max, Int64.min, 100_000_000_000_000_000, 9.3e18, Double.greatestFiniteMagnitude, Double.infinity,
            253_402_300_800, -1, 0, "soon", nil,
        ]
        try NewsboatCacheBuilder.make(
            at: cache,
            schema: NewsboatCacheBuilder.schema.replacingOccurrences(of: "pubDate INTEGER NOT NULL", with: "pubDate INTEGER")
        ) { db in
            try NewsboatCacheBuilder.feed(feed, in: db)
            for (n, value) in values.enumerated() {
                try NewsboatCacheBuilder.item(guid: "g\(n)", feed: feed, pubDate: value, in: db)
            }
            try NewsboatCacheBuilder.item(guid: "ok", feed: feed, pubDate: 1_700_000_000, in: db)
        }
        let library = FeedLibrary(store: try makeStore())
        let report = try library.importNewsboatCache(from: cache)
        #expect(report.items.added == values.count + 1)
        let listed = try library.items(ItemQuery())
        #expect(try Self.json(ItemSummary.json(listed)) is [Any])
        #expect(listed.filter { $0.published != nil }.map(\.id) == ["ok"])
        #expect(((try Self.json(try export(library)) as? [String: Any])?["items"] as? [Any])?.count == values.count + 1)
    }

    // MARK: - Sync

    @Test("a synced item's date out of range is no date: it is listed by when it was first seen")
    func syncedDatesAreChecked() throws {
        let store = try makeStore()
        let context = store.container.newBackgroundContext()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try context.performAndWait { () throws in
            for seconds in [Int64.max, Int64.min, 100_000_000_000_000_000, 9_300_000_000_000_000, 253_402_300_800] {
                var pulled = GReaderClient.Item(id: "1")
                pulled.published = seconds
                let item = context.insert(FeedItem.self)
                item.firstSeen = now
                FeedSync.copy(try #require(pulled.syncItem), into: item, now: now)
                #expect(item.published == nil, "\(seconds)")
                #expect(item.sortDate == now, "\(seconds)")
            }
            var pulled = GReaderClient.Item(id: "2")
            pulled.published = 1_700_000_000
            let item = context.insert(FeedItem.self)
            FeedSync.copy(try #require(pulled.syncItem), into: item, now: now)
            #expect(item.published == Date(timeIntervalSince1970: 1_700_000_000))
        }
    }
}
