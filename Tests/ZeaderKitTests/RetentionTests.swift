import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing

@testable import ZeaderKit

@Suite("Retention: max-items, keep-days, tombstones, zeader cleanup")
struct RetentionTests {
    static let day: TimeInterval = 86_400
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A feed with items `g1`…`gN`, `g1` the oldest (N days old) … `gN` one day old.
    func storeWithFeed(items count: Int, read: Bool = true) throws -> (ZeaderStore, ObjectID) {
        let store = try makeStore()
        let context = store.container.newBackgroundContext(name: "setup")
        let id = try context.performAndWait { () throws -> ObjectID in
            let server = try FeedSubscription.add(url: "https://example.org/feed", tags: ["busy"], in: context)
            let parsed = (1...count).map { n in
                ParsedItem(
                    id: "g\(n)", title: "Item \(n)", published: Self.now.addingTimeInterval(-Double(count - n + 1) * Self.day))
            }
            _ = try ItemImport.upsert(parsed, into: server, in: context, now: Self.now)
            for item in server.feedItems { item.read = read }
            try context.save()
            return server.objectID
        }
        return (store, id)
    }

    func guids(_ store: ZeaderStore) throws -> [String] {
        try FeedLibrary(store: store).items(ItemQuery()).map(\.id).sorted { Int($0.dropFirst())! < Int($1.dropFirst())! }
    }

    @Test("max-items keeps the N newest; the removed leave tombstones a refresh respects")
    func maxItems() throws {
        let (store, serverID) = try storeWithFeed(items: 10)
        var policy = RetentionPolicy()
        try policy.apply(directive: "max-items", arguments: ["3"])
        let report = try FeedLibrary(store: store).cleanup(policy: policy, now: Self.now)
        #expect(report.removedItems == 7)
        #expect(report.feeds == 1)
        #expect(try guids(store) == ["g8", "g9", "g10"])
        #expect(try serverSummary(store, url: "https://example.org/feed")?.total == 3)

        // The feed still carries all ten: only g11 is new.
        let context = store.container.newBackgroundContext(name: "refresh")
        let (new, _) = try context.performAndWait { () throws -> (Int, Int) in
            let server = try #require(context.object(with: serverID) as? Server)
            let parsed = (1...11).map { ParsedItem(id: "g\($0)", title: "Item \($0)") }
            let counts = try ItemImport.upsert(parsed, into: server, in: context, now: Self.now)
            try context.save()
            return counts
        }
        #expect(new == 1)
        #expect(try guids(store) == ["g8", "g9", "g10", "g11"])
    }

    @Test("an item that changed after the cleanup read it stays, and its tombstone is taken back")
    func changedMeanwhile() throws {
        let (store, serverID) = try storeWithFeed(items: 6)
        let context = store.container.newBackgroundContext(name: "cleanup")
        let removed = try context.performAndWait { () throws -> Int in
            // g2 was read among the removable ones, then marked unread by the user.
            let g2 = try #require(try FeedItem.findFirst(byAttribute: "guid", value: .string("g2"), in: context))
            g2.read = false
            try context.save()
            context.reset()
            let removable = try ObjectPredicate(format: "server == %@ AND read == YES", serverID)
            return try RetentionCleanup.removeBatch(
                ["g1", "g2", "g3"], of: serverID, matching: removable, now: Self.now, in: context)
        }
        #expect(removed == 2)
        #expect(try guids(store) == ["g2", "g4", "g5", "g6"])
        let tombstones = try context.performAndWait {
            try RemovedItem.findAll(in: context).map(\.guid).sorted()
        }
        #expect(tombstones == ["g1", "g3"])
        #expect(try serverSummary(store, url: "https://example.org/feed")?.total == 4)
        #expect(try serverSummary(store, url: "https://example.org/feed")?.unread == 1)
    }

    @Test("unread and flagged items stay unless cleanup-keeps says otherwise; keep-days; scopes")
    func keptItems() throws {
        let (store, serverID) = try storeWithFeed(items: 6, read: false)
        let context = store.container.newBackgroundContext(name: "mark")
        try context.performAndWait {
            let server = try #require(context.object(with: serverID) as? Server)
            for item in server.feedItems where item.guid == "g1" { item.flagged = true }
            for item in server.feedItems where item.guid == "g2" { item.read = true }
            try context.save()
        }
        var policy = RetentionPolicy()
        try policy.apply(directive: "keep-days", arguments: ["2", "tag:busy"])
        var report = try FeedLibrary(store: store).cleanup(policy: policy, now: Self.now)
        #expect(report.removedItems == 1)  // g2: read, unflagged, 5 days old
        #expect(try guids(store) == ["g1", "g3", "g4", "g5", "g6"])

        try policy.apply(directive: "cleanup-keeps", arguments: ["flagged"])
        report = try FeedLibrary(store: store).cleanup(policy: policy, now: Self.now)
        #expect(report.removedItems == 2)  // g3, g4 (unread now removable); g1 flagged; g5 (2 days) and g6 young
        #expect(try guids(store) == ["g1", "g5", "g6"])

        try policy.apply(directive: "cleanup-keeps", arguments: ["none"])
        try policy.apply(directive: "keep-days", arguments: ["0", "https://example.org/feed"])  // the feed's own line: no limit
        report = try FeedLibrary(store: store).cleanup(policy: policy, now: Self.now)
        #expect(report.removedItems == 0)
    }

    @Test("limits: the feed's line beats a tag's, a tag's beats the line for all")
    func limitsResolution() throws {
        var policy = RetentionPolicy()
        for line in [["100"], ["50", "tag:news"], ["10", "https://a/feed"], ["20", "tag:other"]] {
            try policy.apply(directive: "max-items", arguments: line)
        }
        #expect(policy.limits(url: "https://a/feed", tags: "news").maxItems == 10)
        #expect(policy.limits(url: "https://b/feed", tags: "News").maxItems == 50)
        #expect(policy.limits(url: "https://b/feed", tags: nil).maxItems == 100)
        #expect(policy.limits(url: "https://b/feed", tags: nil).keepDays == nil)
        #expect(throws: RetentionPolicyError.self) { try policy.apply(directive: "max-items", arguments: ["-1"]) }
        #expect(throws: RetentionPolicyError.self) {
            try policy.apply(directive: "cleanup-keeps", arguments: ["none", "unread"])
        }
        #expect(throws: RetentionPolicyError.self) { try policy.apply(directive: "cleanup-on-quit", arguments: ["maybe"]) }
    }

    @Test("tombstones not seen for 90 days are dropped; seen ones are kept")
    func tombstonePruning() throws {
        let (store, serverID) = try storeWithFeed(items: 4)
        var policy = RetentionPolicy()
        try policy.apply(directive: "max-items", arguments: ["1"])
        let library = FeedLibrary(store: store)
        #expect(try library.cleanup(policy: policy, now: Self.now).removedItems == 3)
        // g2 is still in the feed 100 days later; g1 and g3 are not.
        let later = Self.now.addingTimeInterval(100 * Self.day)
        let context = store.container.newBackgroundContext(name: "refresh")
        try context.performAndWait {
            let server = try #require(context.object(with: serverID) as? Server)
            _ = try ItemImport.upsert([ParsedItem(id: "g2"), ParsedItem(id: "g4")], into: server, in: context, now: later)
            try context.save()
        }
        let report = try library.cleanup(policy: policy, now: later.addingTimeInterval(Self.day))
        #expect(report.droppedTombstones == 2)
        let left = try context.performAndWait { try RemovedItem.findAll(in: context).map(\.guid) }
        #expect(left == ["g2"])
    }

    @Test("zeader cleanup reads the config, removes, and the next refresh adds nothing back")
    func commandLine() async throws {
        let routes = Routes()
        routes["/feed"] = .ok(rss(guids: ["a1", "a2", "a3", "a4", "a5"]))
        try await withLoopbackServer(routes.handler) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            let config = try writeConfig("max-items 2   # newest two\n", in: dir)
            let feed = http.url("/feed").absoluteString
            _ = try zeader(["add", feed, "--db", db], in: dir)
            _ = try zeader(["refresh", "--db", db], in: dir)
            var r = try zeader(["cleanup", "--db", db], in: dir)
            #expect(r.stdout == "removed 0 items from 0 feeds\n")  // all unread
            _ = try zeader(["mark-read", "--all", "--db", db], in: dir)
            r = try zeader(["cleanup", "--db", db, "--vacuum"], in: dir)
            #expect(r.status == 0)
            #expect(r.stdout.hasPrefix("removed 3 items from 1 feed (vacuumed, "))
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.stdout.contains("0 new items"))
            r = try zeader(["items", "--db", db], in: dir)
            #expect(r.stdout.split(separator: "\n").count == 2)
            r = try zeader(["cleanup", "--db", db, "--max-items", "0"], in: dir)
            #expect(r.stdout == "removed 0 items from 0 feeds\n")
            r = try zeader(["cleanup", "--db", db, "--keep-days", "-3"], in: dir)
            #expect(r.status == 2)

            try "max-items lots\n".write(to: config, atomically: true, encoding: .utf8)
            r = try zeader(["cleanup", "--db", db], in: dir)
            #expect(r.status == 1)
            #expect(r.stderr.contains("config:1: max-items needs a number"))
        }
    }

    @Test("a refresh applies max-items to the feeds it grew, as newsboat does on reload")
    func refreshAppliesMaxItems() async throws {
        let routes = Routes()
        routes["/feed"] = .ok(rss(guids: ["a1", "a2", "a3", "a4", "a5"]))
        try await withLoopbackServer(routes.handler) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            let config = try writeConfig("max-items 2\n", in: dir)
            let feed = http.url("/feed").absoluteString
            _ = try zeader(["add", feed, "--db", db], in: dir)
            // Unread items are kept (cleanup-keeps' default): nothing goes yet.
            var r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0)
            #expect(!r.stdout.contains("removed"))
            #expect(try zeader(["items", "--db", db], in: dir).stdout.split(separator: "\n").count == 5)
            // Once read, the feed's next new item trims it to the two newest.
            _ = try zeader(["mark-read", "--all", "--db", db], in: dir)
            routes["/feed"] = .ok(rss(guids: ["a1", "a2", "a3", "a4", "a5", "a6"]))
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.stdout.contains("1 new item, 4 old removed (max-items, keep-days)"), "\(r.stdout)")
            r = try zeader(["items", "--db", db], in: dir)
            #expect(r.stdout.contains("Title a6") && r.stdout.contains("Title a5"))
            #expect(r.stdout.split(separator: "\n").count == 2)
            // The removed stay removed (tombstones), and a refresh without news trims nothing.
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.stdout.contains("0 new items in"), "\(r.stdout)")
            #expect(try zeader(["items", "--db", db], in: dir).stdout.split(separator: "\n").count == 2)

            // newsboat's rule, which keeps only flagged items: unread ones beyond the limit go too.
            try "max-items 3\ncleanup-keeps flagged\n".write(to: config, atomically: true, encoding: .utf8)
            routes["/other"] = .ok(rss(guids: ["c1", "c2", "c3", "c4", "c5"]))
            _ = try zeader(["add", http.url("/other").absoluteString, "--db", db], in: dir)
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.stdout.contains("5 new items, 2 old removed"), "\(r.stdout)")
            r = try zeader(["items", "--db", db], in: dir)
            #expect(r.stdout.split(separator: "\n").count == 5)
            #expect(!r.stdout.contains("Title c1") && !r.stdout.contains("Title c2") && r.stdout.contains("Title c3"))
        }
    }
}
