import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Two stores synced through one folder by ``FolderSyncEngine``, their items stored by hand
/// (no network): the changes no command makes — deleting items, smart feeds, ignore rules,
/// a store's own writes not sent back.
@Suite("Folder sync of a store", .serialized)
struct FolderSyncEngineTests {
    static let feed = "https://a.example/feed"

    /// A store in `base` with one feed and `guids` as its items, syncing through `folder`.
    static func device(_ name: String, in base: URL, folder: URL, guids: [String]) throws -> FolderSyncEngine {
        let store = try ZeaderStore.open(at: base.appendingPathComponent("\(name).sqlite"))
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let server = context.insert(Server.self)
            server.url = feed
            for guid in guids {
                let item = context.insert(FeedItem.self)
                item.guid = guid
                item.server = server
            }
            try context.save()
        }
        let sync = FolderSyncEngine(store: store)
        try sync.add(folder: folder.path)
        return sync
    }

    static func setUp() throws -> (base: URL, folder: URL) {
        let base = try temporaryDirectory()
        let folder = base.appendingPathComponent("Shared")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (base, folder)
    }

    static func edit(_ sync: FolderSyncEngine, _ body: (ManagedObjectContext) throws -> Void) throws {
        let context = sync.store.container.newBackgroundContext()
        try context.performAndWait {
            try body(context)
            if context.hasChanges { try context.save() }
        }
    }

    static func guids(_ sync: FolderSyncEngine, where format: String = "TRUEPREDICATE") throws -> Set<String> {
        let context = sync.store.container.newBackgroundContext()
        return try context.performAndWait {
            Set(try context.fetch(FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: format))).map(\.guid))
        }
    }

    @Test("an item deleted on one device is deleted on the other, and a refresh does not store it again")
    func deletion() throws {
        let (base, folder) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: base) }
        let a = try Self.device("a", in: base, folder: folder, guids: ["x", "y"])
        let b = try Self.device("b", in: base, folder: folder, guids: ["x", "y"])
        try Self.edit(a) { context in
            let item = try #require(try FeedItem.findFirst(byAttribute: "guid", value: .string("x"), in: context))
            try ItemDeletion.delete([item.objectID], in: context)
        }
        #expect(try a.run().sent == 1)
        #expect(try b.run().applied == 1)
        #expect(try Self.guids(b) == ["y"])
        let context = b.store.container.newBackgroundContext()
        #expect(try context.performAndWait { try RemovedItem.findAll(in: context).map(\.guid) } == ["x"])
        // What B applied is not sent back.
        #expect(try b.run().sent == 0)
    }

    @Test("marks made by a batch update and single edits travel; the receiving store's writes are not sent back")
    func marks() throws {
        let (base, folder) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: base) }
        let a = try Self.device("a", in: base, folder: folder, guids: ["x", "y", "z"])
        let b = try Self.device("b", in: base, folder: folder, guids: ["x", "y", "z"])
        try Self.edit(a) { context in _ = try ItemMarking.markRead(.all, in: context) }
        try Self.edit(a) { context in
            let item = try #require(try FeedItem.findFirst(byAttribute: "guid", value: .string("y"), in: context))
            item.read = false
            item.flagged = true
        }
        // x and z read, y flagged; y's read and unread cancel out.
        #expect(try a.run().sent == 3)
        let run = try b.run()
        #expect(run.received == 3)
        #expect(try Self.guids(b, where: "read == YES") == ["x", "z"])
        #expect(try Self.guids(b, where: "flagged == YES") == ["y"])
        #expect(try b.run().sent == 0)
        #expect(try a.run().received == 0)
    }

    @Test("smart feeds and ignore rules travel, and their removal too")
    func smartFeedsAndRules() throws {
        let (base, folder) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: base) }
        let a = try Self.device("a", in: base, folder: folder, guids: [])
        let b = try Self.device("b", in: base, folder: folder, guids: [])
        try Self.edit(a) { context in
            try SmartFeeds.add(title: "Swift", predicate: "title CONTAINS[cd] \"swift\"", in: context)
            try Killfile.add(Killfile.Rule(scope: .tag("news tech"), predicateFormat: "author == \"spam\""), in: context)
        }
        try a.run()
        try b.run()
        let context = b.store.container.newBackgroundContext()
        #expect(
            try context.performAndWait { try SmartFeeds.stored(in: context).map(\.predicateFormat) } == [
                "title CONTAINS[cd] \"swift\""
            ])
        #expect(try context.performAndWait { try Killfile.stored(in: context).map(\.scope) } == ["tag:news tech"])
        try Self.edit(b) { context in
            for smart in try SmartFeeds.stored(in: context) { context.delete(smart) }
            for rule in try Killfile.stored(in: context) { context.delete(rule) }
        }
        try b.run()
        try a.run()
        let contextA = a.store.container.newBackgroundContext()
        #expect(try contextA.performAndWait { try SmartFeeds.stored(in: contextA).count } == 0)
        #expect(try contextA.performAndWait { try Killfile.stored(in: contextA).count } == 0)
    }

    @Test("a lost state file is rebuilt from the folder")
    func lostState() throws {
        let (base, folder) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: base) }
        let a = try Self.device("a", in: base, folder: folder, guids: ["x"])
        let b = try Self.device("b", in: base, folder: folder, guids: ["x"])
        try Self.edit(a) { context in _ = try ItemMarking.markRead(.all, in: context) }
        try a.run()
        try b.run()
        try FileManager.default.removeItem(at: base.appendingPathComponent("b.sqlite.folder-sync"))
        try Self.edit(b) { context in
            let item = try #require(try FeedItem.findFirst(byAttribute: "guid", value: .string("x"), in: context))
            item.flagged = true
        }
        try b.run()
        let state = try FolderSyncStateFile(storeURL: base.appendingPathComponent("b.sqlite")).load()
        #expect(state.item(ItemSyncKey(feedURL: Self.feed, guid: "x")) == .init(read: true, flagged: true, deleted: false))
    }

    // MARK: - A feed that moved (a permanent redirect followed)

    static let moved = "https://b.example/new-feed"

    static func urls(_ sync: FolderSyncEngine) throws -> [String] {
        let context = sync.store.container.newBackgroundContext()
        return try context.performAndWait { try Server.findAll(in: context).map(\.url).sorted() }
    }

    static func mark(_ sync: FolderSyncEngine, _ guid: String, read: Bool? = nil, flagged: Bool? = nil) throws {
        try edit(sync) { context in
            let item = try #require(try FeedItem.findFirst(byAttribute: "guid", value: .string(guid), in: context))
            if let read { item.read = read }
            if let flagged { item.flagged = flagged }
        }
    }

    @Test("a feed's move reaches the other device, whose feed follows it; marks made under either URL meet")
    func move() throws {
        let (base, folder) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: base) }
        let a = try Self.device("a", in: base, folder: folder, guids: ["x", "y", "z"])
        let b = try Self.device("b", in: base, folder: folder, guids: ["x", "y", "z"])
        try Self.mark(a, "x", read: true)
        try a.run()
        try b.run()
        // A's refresh follows a permanent redirect (FeedImporter sets the URL); B, not yet told,
        // marks under the old URL.
        try Self.edit(a) { context in
            let server = try #require(try Server.findFirst(byAttribute: "url", value: .string(Self.feed), in: context))
            server.url = Self.moved
        }
        try Self.mark(a, "z", flagged: true)
        try Self.mark(b, "y", read: true)
        try Self.mark(b, "x", flagged: true)
        try b.run()
        try a.run()
        let bRun = try b.run()
        #expect(bRun.applied > 0)
        try a.run()
        for sync in [a, b] {
            #expect(try Self.urls(sync) == [Self.moved])
            #expect(try Self.guids(sync, where: "read == YES") == ["x", "y"])
            #expect(try Self.guids(sync, where: "flagged == YES") == ["x", "z"])
        }
        // Neither sends the move back, nor anything else.
        #expect(try b.run().sent == 0)
        #expect(try a.run().sent == 0)
    }

    @Test("marks made at a feed's new URL that arrive before its move are applied once the move arrives")
    func moveArrivingLate() throws {
        let (base, folder) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: base) }
        let b = try Self.device("b", in: base, folder: folder, guids: ["x", "y"])
        let other = folder.appendingPathComponent("zeader-sync/otherdev")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        func stamp(_ millis: Int64) -> HybridTimestamp {
            HybridTimestamp(millis: 1_765_000_000_000 + millis, counter: 0, device: "otherdev")
        }
        let marks = [
            FolderSyncEntry(stamp: stamp(2), change: .read(ItemSyncKey(feedURL: Self.moved, guid: "x"), true)),
            FolderSyncEntry(stamp: stamp(3), change: .subscribed(feed: Self.moved, true)),
        ]
        // A conflict copy or a slow file: the marks come first, the move later (stamped earlier).
        try (marks.map { $0.line + "\n" }.joined()).write(
            to: other.appendingPathComponent("log-2.jsonl"), atomically: true, encoding: .utf8)
        try b.run()
        #expect(try Self.guids(b, where: "read == YES").isEmpty)
        let move = FolderSyncEntry(stamp: stamp(1), change: .moved(feed: Self.feed, to: Self.moved))
        try (move.line + "\n").write(to: other.appendingPathComponent("log-1.jsonl"), atomically: true, encoding: .utf8)
        try b.run()
        #expect(try Self.urls(b) == [Self.moved])
        #expect(try Self.guids(b, where: "read == YES") == ["x"])
    }
}
