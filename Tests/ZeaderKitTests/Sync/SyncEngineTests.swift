import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// The sync engine's rules over an in-memory service (``FakeSyncService``): the offline
/// queue, the conflict rule, undo after a push, a sync stopped at any step, and pulled items
/// stored as a refresh stores them (``ItemImport``). No server, no network.
@Suite("Sync engine over a fake service")
struct SyncEngineTests {
    static let feedA = "http://127.0.0.1:9/a.xml"
    static let feedB = "http://127.0.0.1:9/b.xml"

    /// A new store with an account on `service`.
    static func device(_ service: FakeSyncService, ignoreRules: [Killfile.Rule] = []) throws -> (ZeaderStore, FeedSync) {
        let store = try ZeaderStore.open(at: try temporaryDirectory().appendingPathComponent("z.sqlite"))
        let sync = FeedSync(store: store, ignoreRules: ignoreRules, service: { _, _ in service })
        try sync.addAccount(apiURL: "http://127.0.0.1:9/api/greader.php", user: "alice", token: "t")
        return (store, sync)
    }

    /// An item as this device stores it, by what does not change from run to run.
    struct Stored: Equatable, CustomStringConvertible {
        var feed: String
        var title: String
        var read: Bool
        var flagged: Bool
        var synced: Bool
        var description: String { "\(title)\(read ? " read" : "")\(flagged ? " flagged" : "")\(synced ? "" : " local")" }
    }

    static func stored(_ store: ZeaderStore) throws -> [Stored] {
        let context = store.container.newBackgroundContext()
        return try context.performAndWait {
            try FeedItem.findAll(in: context).map {
                Stored(
                    feed: $0.server?.url ?? "", title: $0.title ?? "", read: $0.read, flagged: $0.flagged,
                    synced: $0.syncID != nil)
            }
            .sorted { ($0.feed, $0.title) < ($1.feed, $1.title) }
        }
    }

    static func item(_ title: String, in store: ZeaderStore) throws -> ObjectID {
        let context = store.container.newBackgroundContext()
        return try context.performAndWait {
            try #require(try FeedItem.findFirst(byAttribute: "title", value: .string(title), in: context)).objectID
        }
    }

    static func setRead(_ title: String, _ read: Bool, in store: ZeaderStore) throws {
        let id = try item(title, in: store)
        let context = store.container.newBackgroundContext()
        try context.performAndWait { _ = try ItemMarking.setRead([id], read, in: context) }
    }

    static func setFlagged(_ title: String, _ flagged: Bool, in store: ZeaderStore) throws {
        let id = try item(title, in: store)
        let context = store.container.newBackgroundContext()
        try context.performAndWait { _ = try ItemMarking.setFlagged([id], flagged, in: context) }
    }

    // MARK: - Pull

    @Test("a first sync stores the feeds, their folders as tags, the items and their states")
    func aFirstSyncStoresEverything() async throws {
        let service = FakeSyncService()
        let feed = service.addFeed(url: Self.feedA, title: "Fish &amp; chips", labels: ["tech"])
        let updated = Date(timeIntervalSince1970: 1_700_000_000)
        service.addItem(to: feed, title: "one", link: "http://127.0.0.1:9/1", updated: updated)
        let two = service.addItem(to: feed, title: "two &amp; more", read: true, starred: true)
        let (store, sync) = try Self.device(service)
        let report = try await sync.sync()
        #expect(report.feedsAdded == 1)
        #expect(report.newItems == 2)
        #expect(report.requests == service.requestCount)
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let server = try #require(try Server.findFirst(byAttribute: "url", value: .string(Self.feedA), in: context))
            #expect(server.title == "Fish & chips")
            #expect(FeedTags.list(server.tags) == ["tech"])
            #expect(server.syncID == feed)
            let one = try #require(try FeedItem.findFirst(byAttribute: "title", value: .string("one"), in: context))
            #expect(one.guid == "http://127.0.0.1:9/1")
            #expect(one.content == "<p>one</p>")
            #expect(one.summary == "one")
            // Dated as a refresh dates an item: published, else updated, else first seen.
            #expect(one.updated == updated)
            #expect(one.sortDate == updated)
            #expect(!one.read && !one.flagged)
            let other = try #require(try FeedItem.findFirst(byAttribute: "title", value: .string("two & more"), in: context))
            #expect(other.guid == "greader:\(two)")
            #expect(other.syncID == String(two))
            #expect(other.read && other.flagged)
        }
        // Nothing new: nothing stored again, nothing fetched.
        let again = try await sync.sync()
        #expect(again.newItems == 0)
        #expect(try Self.stored(store).count == 2)
    }

    @Test("a first sync takes the states from the items it pulled; the next finds what changed on the server since")
    func aFirstSyncTakesStatesFromItsItems() async throws {
        let service = FakeSyncService()
        let feed = service.addFeed(url: Self.feedA, title: "A")
        let one = service.addItem(to: feed, title: "one")
        let two = service.addItem(to: feed, title: "two", read: true, starred: true)
        service.addItem(to: feed, title: "three", starred: true)
        let (store, sync) = try Self.device(service)
        _ = try await sync.sync()
        // Every item came with its states: no unread or starred list is asked for.
        #expect(!service.calls.contains(.itemIDs), "\(service.calls)")
        #expect(
            try Self.stored(store).map(\.description) == ["one", "three flagged", "two read flagged"])

        service.update {
            $0.items[one]?.isRead = true
            $0.items[two]?.isRead = false
            $0.items[two]?.isStarred = false
        }
        let before = service.calls.count
        let report = try await sync.sync()
        #expect(service.calls.dropFirst(before).filter { $0 == .itemIDs }.count == 2)
        #expect(report.stateChanges == 3)
        #expect(try Self.stored(store).map(\.description) == ["one read", "three flagged", "two"])
    }

    @Test("pulled items meet the ignore rules as a refresh's do: killed ones become tombstones, starred ones stay")
    func pulledItemsMeetTheIgnoreRules() async throws {
        let service = FakeSyncService()
        let feed = service.addFeed(url: Self.feedA, title: "A")
        service.addItem(to: feed, title: "spam one", link: "http://127.0.0.1:9/s1")
        service.addItem(to: feed, title: "spam starred", starred: true)
        service.addItem(to: feed, title: "fine")
        let rule = Killfile.Rule(scope: .all, predicateFormat: "title CONTAINS 'spam'")
        let (store, sync) = try Self.device(service, ignoreRules: [rule])
        #expect(try await sync.sync().newItems == 2)
        #expect(try Self.stored(store).map(\.title) == ["fine", "spam starred"])
        let context = store.container.newBackgroundContext()
        #expect(try context.performAndWait { try RemovedItem.findAll(in: context).map(\.guid) } == ["http://127.0.0.1:9/s1"])
        // The server lists the killed item again (a state change): it stays out.
        service.update { state in
            for (id, item) in state.items where item.title == "spam one" { state.items[id]?.isStarred = false }
        }
        _ = try await sync.sync()
        #expect(try Self.stored(store).map(\.title) == ["fine", "spam starred"])
    }

    @Test("two of the server's items with one link are two items; a removed one stays removed")
    func itemsSharingALinkAreKeptApart() async throws {
        let service = FakeSyncService()
        let feed = service.addFeed(url: Self.feedA, title: "A")
        service.addItem(to: feed, title: "first", link: "http://127.0.0.1:9/same")
        service.addItem(to: feed, title: "second", link: "http://127.0.0.1:9/same")
        let (store, sync) = try Self.device(service)
        #expect(try await sync.sync().newItems == 2)
        let context = store.container.newBackgroundContext()
        let guids = try context.performAndWait { try FeedItem.findAll(in: context).map(\.guid) }
        #expect(Set(guids).count == 2)
        #expect(guids.contains("http://127.0.0.1:9/same"))
    }

    @Test("a new feed's items over several saves: a link is one item's guid, removed stays removed")
    func aNewFeedsItemsOverSeveralSavesKeepTheirLinksApart() async throws {
        // Eight items a save (chunks of two, four a save): the feed's first save looks nothing
        // up, the later ones find the links and the tombstone the earlier ones stored.
        let service = FakeSyncService()
        let feed = service.addFeed(url: Self.feedA, title: "A")
        var expected: [String: String] = [:]  // title → guid
        for n in 1...20 {
            let link = "http://127.0.0.1:9/\(n % 3)"
            let id = service.addItem(to: feed, title: n == 2 ? "spam" : "item \(n)", link: link)
            switch n {
            case 1, 3: expected["item \(n)"] = link  // the first with its link
            case 2: break  // killed: its link is a tombstone
            case 5, 8: expected["item \(n)"] = "greader:\(id)"  // the spam took the link in that save
            case _ where n % 3 == 2: break  // a later save finds the tombstone: not stored
            default: expected["item \(n)"] = "greader:\(id)"
            }
        }
        let store = try ZeaderStore.open(at: try temporaryDirectory().appendingPathComponent("z.sqlite"))
        let rule = Killfile.Rule(scope: .all, predicateFormat: "title CONTAINS 'spam'")
        let sync = FeedSync(store: store, chunkSize: 2, ignoreRules: [rule], service: { _, _ in service })
        try sync.addAccount(apiURL: "http://127.0.0.1:9/api/greader.php", user: "alice", token: "t")
        _ = try await sync.sync()
        let context = store.container.newBackgroundContext()
        let guids = try context.performAndWait {
            Dictionary(uniqueKeysWithValues: try FeedItem.findAll(in: context).map { ($0.title ?? "", $0.guid) })
        }
        #expect(guids == expected)
        #expect(try context.performAndWait { try RemovedItem.findAll(in: context).map(\.guid) } == ["http://127.0.0.1:9/2"])
    }

    @Test("a first sync stores an item the service sends with every answer once")
    func anItemSentWithEveryAnswerIsStoredOnce() async throws {
        let service = FakeSyncService()
        let feed = service.addFeed(url: Self.feedA, title: "A")
        let first = service.addItem(to: feed, title: "item 1", link: "http://127.0.0.1:9/1")
        for n in 2...20 { service.addItem(to: feed, title: "item \(n)", link: "http://127.0.0.1:9/\(n)") }
        service.update { $0.answersAlso = [first] }
        let store = try ZeaderStore.open(at: try temporaryDirectory().appendingPathComponent("z.sqlite"))
        let sync = FeedSync(store: store, chunkSize: 2, service: { _, _ in service })
        try sync.addAccount(apiURL: "http://127.0.0.1:9/api/greader.php", user: "alice", token: "t")
        #expect(try await sync.sync().newItems == 20)
        let context = store.container.newBackgroundContext()
        let synced = try context.performAndWait { try FeedItem.findAll(in: context).compactMap(\.syncID) }
        #expect(synced.count == 20 && Set(synced).count == 20)
    }

    @Test("a pull stopped by the service keeps the items it fetched before; the next sync stores the rest once")
    func aPullStoppedKeepsWhatItFetched() async throws {
        // One feed of ten items, asked for two at a time: several requests' items are stored
        // in one save, and the third request fails before that save.
        func setUp() throws -> (FakeSyncService, ZeaderStore, FeedSync) {
            let service = FakeSyncService()
            let feed = service.addFeed(url: Self.feedA, title: "A")
            for n in 1...10 { service.addItem(to: feed, title: "item \(n)") }
            let store = try ZeaderStore.open(at: try temporaryDirectory().appendingPathComponent("z.sqlite"))
            let sync = FeedSync(store: store, chunkSize: 2, service: { _, _ in service })
            try sync.addAccount(apiURL: "http://127.0.0.1:9/api/greader.php", user: "alice", token: "t")
            return (service, store, sync)
        }
        let (reference, _, referenceSync) = try setUp()
        _ = try await referenceSync.sync()
        let itemsCalls = reference.calls.indices.filter { reference.calls[$0] == .items }
        #expect(itemsCalls.count == 5)
        let (service, store, sync) = try setUp()
        service.failing(at: itemsCalls[2] + 1)
        await #expect(throws: ZeaderError.self) { try await sync.sync() }
        #expect(try Self.stored(store).map(\.title).sorted() == ["item 1", "item 2", "item 3", "item 4"])
        #expect(try await sync.sync().newItems == 6)
        let stored = try Self.stored(store)
        #expect(stored.count == 10 && Set(stored.map(\.title)).count == 10 && stored.allSatisfy(\.synced))
    }

    // MARK: - Push and the queue

    @Test("changes made while the service is away wait in the queue and are pushed once")
    func changesMadeOfflineArePushedOnce() async throws {
        let service = FakeSyncService()
        let feed = service.addFeed(url: Self.feedA, title: "A")
        service.addItem(to: feed, title: "one")
        service.addItem(to: feed, title: "two")
        let (store, sync) = try Self.device(service)
        _ = try await sync.sync()
        try Self.setRead("one", true, in: store)
        try Self.setFlagged("two", true, in: store)
        let library = FeedLibrary(store: store)
        try library.add(url: Self.feedB)
        _ = try library.tag(url: Self.feedA, add: ["news"])
        let pending = try #require(try sync.status()?.pending)
        #expect(pending == 4)

        service.failing(at: 1)
        do throws(ZeaderError) {
            _ = try await sync.sync()
            Issue.record("a sync through a service away succeeded")
        } catch {
            guard case .sync(.unreachable) = error else {
                Issue.record("\(error)")
                return
            }
        }
        #expect(try sync.status()?.pending == pending)
        #expect(try await sync.push() == pending)
        #expect(try sync.status()?.pending == 0)
        let items = service.items
        #expect(items.first { $0.title == "one" }?.isRead == true)
        #expect(items.first { $0.title == "two" }?.isStarred == true)
        #expect(service.feeds.map(\.url) == [Self.feedA, Self.feedB])
        #expect(service.feeds.first?.labels == ["news"])
        // Nothing is pushed twice.
        let before = service.calls.count
        #expect(try await sync.sync().pushed == 0)
        let calls = service.calls.dropFirst(before)
        #expect(!calls.contains(.mark) && !calls.contains(.subscribe) && !calls.contains(.move), "\(calls)")
    }

    @Test("a change not yet pushed wins over the server's state of the same item; the rest is the server's")
    func theConflictRule() async throws {
        let service = FakeSyncService()
        let feed = service.addFeed(url: Self.feedA, title: "A")
        let one = service.addItem(to: feed, title: "one", read: true)
        let two = service.addItem(to: feed, title: "two")
        let (store, sync) = try Self.device(service)
        _ = try await sync.sync()
        // Another device stars one and reads two; this one marks one unread, not pushed yet.
        service.update {
            $0.items[one]?.isStarred = true
            $0.items[two]?.isRead = true
        }
        try Self.setRead("one", false, in: store)
        _ = try await sync.sync()
        #expect(service.item(one)?.isRead == false)
        #expect(service.item(one)?.isStarred == true)
        #expect(
            try Self.stored(store) == [
                Stored(feed: Self.feedA, title: "one", read: false, flagged: true, synced: true),
                Stored(feed: Self.feedA, title: "two", read: true, flagged: false, synced: true),
            ])
    }

    @Test("undo after a push is pushed too: the service ends in the undone state")
    func undoAfterPush() async throws {
        let service = FakeSyncService()
        let feed = service.addFeed(url: Self.feedA, title: "A")
        let one = service.addItem(to: feed, title: "one")
        let two = service.addItem(to: feed, title: "two")
        let (store, sync) = try Self.device(service)
        _ = try await sync.sync()
        let view = store.container.viewContext
        let bus = store.container.bus
        let ids = (try Self.item("one", in: store), try Self.item("two", in: store))
        try view.performAndWait { () throws in
            view.undoManager = ContextUndoManager()
            #expect(try ItemMarking.setRead([ids.0], true, in: view) == 1)
            #expect(try ItemMarking.setFlagged([ids.1], true, in: view) == 1)
        }
        #expect(try await sync.push() == 2)
        #expect(service.item(one)?.isRead == true && service.item(two)?.isStarred == true)
        try view.performAndWait { () throws in
            #expect(try ItemMarking.undo(in: view, bus: bus) == "Flag")
            #expect(try ItemMarking.undo(in: view, bus: bus) == "Mark Read")
        }
        _ = try await sync.sync()
        #expect(service.item(one)?.isRead == false && service.item(two)?.isStarred == false)
        #expect(try Self.stored(store).allSatisfy { !$0.read && !$0.flagged })
        // Mark all read, pushed as one call, then undone: every item unread on the service.
        try view.performAndWait { () throws in #expect(try ItemMarking.markRead(.all, in: view) == 2) }
        _ = try await sync.sync()
        #expect(service.items.allSatisfy { $0.isRead })
        try view.performAndWait { () throws in #expect(try ItemMarking.undo(in: view, bus: bus) == "Mark All Read") }
        _ = try await sync.sync()
        #expect(service.items.allSatisfy { !$0.isRead })
    }

    @Test("a service without the bulk mark gets the items one by one")
    func aServiceWithoutTheBulkMark() async throws {
        let service = FakeSyncService()
        let feed = service.addFeed(url: Self.feedA, title: "A")
        for n in 1...3 { service.addItem(to: feed, title: "item \(n)") }
        service.update { $0.lacking = [.markAllRead] }
        let (store, sync) = try Self.device(service)
        _ = try await sync.sync()
        _ = try FeedLibrary(store: store).markRead(feed: nil)
        _ = try await sync.sync()
        #expect(service.items.allSatisfy { $0.isRead })
        #expect(try sync.status()?.pending == 0)
    }

    @Test("a feed the service cannot fetch stays local, named in the report, and is not asked for again")
    func aRefusedFeedStaysLocal() async throws {
        let service = FakeSyncService()
        service.update { $0.unfetchable = [Self.feedB] }
        let (store, sync) = try Self.device(service)
        try FeedLibrary(store: store).add(url: Self.feedB)
        let report = try await sync.sync()
        #expect(report.refused.count == 1)
        #expect(report.refused.first?.contains(Self.feedB) == true)
        #expect(try sync.status()?.pending == 0)
        #expect(try sync.localFeeds().count == 1)
        let before = service.calls.count
        _ = try await sync.sync()
        #expect(!service.calls.dropFirst(before).contains(.subscribe))
    }

    // MARK: - A sync stopped part-way

    /// What one run of ``aSyncStoppedAtAnyStep()`` ends with.
    struct Outcome: Equatable {
        var stored: [Stored]
        var serverItems: [String]
        var serverFeeds: [String]
        var pending: Int
        var duplicateSyncIDs: Int
    }

    /// Two synced feeds, then changes on both sides, then a sync that fails at call
    /// `failAt` of the service (none when nil), then syncs until one succeeds. Returns the
    /// outcome and how many calls the first sync after the changes made.
    static func run(failAt: Int?) async throws -> (Outcome, calls: Int) {
        let service = FakeSyncService()
        let a = service.addFeed(url: feedA, title: "A")
        let b = service.addFeed(url: feedB, title: "B")
        for n in 1...3 { service.addItem(to: a, title: "a\(n)", link: "http://127.0.0.1:9/a/\(n)") }
        service.addItem(to: b, title: "b1")
        let (store, sync) = try device(service)
        _ = try await sync.sync()
        // This device, offline: reads, stars, marks a feed read, subscribes, tags.
        try setRead("a1", true, in: store)
        try setFlagged("a2", true, in: store)
        let library = FeedLibrary(store: store)
        _ = try library.markRead(feed: feedB)
        try library.add(url: "http://127.0.0.1:9/c.xml")
        _ = try library.tag(url: feedA, add: ["news"])
        // Another device: a new item, a star, a new feed with an item.
        service.addItem(to: a, title: "a4")
        service.update { state in
            for (id, item) in state.items where item.title == "a3" { state.items[id]?.isStarred = true }
        }
        let d = service.addFeed(url: "http://127.0.0.1:9/d.xml", title: "D")
        service.addItem(to: d, title: "d1")
        let before = service.calls.count
        if let failAt {
            service.failing(at: failAt)
            do throws(ZeaderError) { _ = try await sync.sync() } catch {}
        }
        _ = try await sync.sync()
        let calls = service.calls.count - before
        let context = store.container.newBackgroundContext()
        let duplicates = try context.performAndWait {
            let ids = try FeedItem.findAll(in: context).compactMap(\.syncID)
            return ids.count - Set(ids).count
        }
        let outcome = Outcome(
            stored: try stored(store),
            serverItems: service.items.map { "\($0.title ?? "")\($0.isRead ? " read" : "")\($0.isStarred ? " starred" : "")" }
                .sorted(),
            serverFeeds: service.feeds.map { "\($0.url) \($0.labels)" }.sorted(),
            pending: try sync.status()?.pending ?? -1, duplicateSyncIDs: duplicates)
        return (outcome, calls)
    }

    @Test("a sync stopped at any step of the service loses nothing and doubles nothing: the next one ends the same")
    func aSyncStoppedAtAnyStep() async throws {
        let (reference, calls) = try await Self.run(failAt: nil)
        #expect(reference.pending == 0)
        #expect(reference.duplicateSyncIDs == 0)
        #expect(reference.stored.count == 6)
        #expect(reference.serverItems.contains("a1 read") && reference.serverItems.contains("b1 read"))
        #expect(reference.stored.contains(Stored(feed: Self.feedA, title: "a3", read: false, flagged: true, synced: true)))
        #expect(calls > 5)
        for step in 1...calls {
            let (outcome, _) = try await Self.run(failAt: step)
            #expect(outcome == reference, "stopped at call \(step)")
        }
    }
}
