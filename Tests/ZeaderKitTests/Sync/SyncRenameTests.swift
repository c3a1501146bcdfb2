import Feeds
import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// A feed renamed here (`zeader rename`, the reader's `i`, edit-urls' `"~title"`): queued for
/// its own account only, pushed at the next sync, kept by pulls where the service cannot take
/// it, undoable, and given back its own title by an empty one.
@Suite("Sync: a feed's title")
struct SyncRenameTests {
    static let feedA = SyncEngineTests.feedA

    static func title(_ store: ZeaderStore, _ url: String = feedA) throws -> String? {
        try FeedLibrary(store: store).servers().first { $0.url == url }?.title
    }

    static func queued(_ store: ZeaderStore) throws -> [(kind: String, url: String, account: String?)] {
        let context = store.container.newBackgroundContext()
        return try context.performAndWait {
            try SyncChange.findAll(in: context).map { ($0.kind, $0.feedURL, $0.account) }
        }
    }

    @Test("a rename is pushed at the next sync; a pull keeps it; an empty title gives back the feed's own, on the service too")
    func aRenameReachesTheService() async throws {
        let service = FakeSyncService()
        let feed = service.addFeed(url: Self.feedA, title: "Feed A")
        let (store, sync) = try SyncEngineTests.device(service)
        _ = try await sync.sync()
        #expect(try Self.title(store) == "Feed A")

        let library = FeedLibrary(store: store)
        #expect(try library.rename(url: Self.feedA, title: "  My\nown\ttitle ") == "My own title")
        #expect(try Self.queued(store).map(\.kind) == ["title"])
        // Renamed again before the sync: one change, the title as it is when pushed.
        #expect(try library.rename(url: Self.feedA, title: "Mine") == "Mine")
        #expect(try Self.queued(store).count == 1)
        let report = try await sync.sync()
        #expect(report.refused.isEmpty)
        #expect(service.feeds.first { $0.id == feed }?.title == "Mine")
        #expect(service.calls.filter { $0 == .rename }.count == 1)
        #expect(try sync.status()?.pending == 0)
        _ = try await sync.sync()
        #expect(try Self.title(store) == "Mine")

        // Its own title back, here and on the service.
        #expect(try library.rename(url: Self.feedA, title: "") == "Feed A")
        _ = try await sync.sync()
        #expect(service.feeds.first { $0.id == feed }?.title == "Feed A")
        #expect(try Self.title(store) == "Feed A")
    }

    @Test("a service without rename refuses it in one line; the title stays here across syncs until an empty one")
    func aServiceWithoutRenameKeepsTheTitleHere() async throws {
        let service = FakeSyncService()
        let feed = service.addFeed(url: Self.feedA, title: "Feed A")
        service.update { $0.refusesFeedEdits = .ttrss }
        let (store, sync) = try SyncEngineTests.device(service)
        _ = try await sync.sync()
        try FeedLibrary(store: store).rename(url: Self.feedA, title: "Mine")
        let report = try await sync.sync()
        #expect(report.refused == [Messages.syncUnsupported(.ttrss, .rename, url: Self.feedA)])
        #expect(service.feeds.first { $0.id == feed }?.title == "Feed A")
        #expect(try Self.title(store) == "Mine")
        #expect(try sync.status()?.pending == 0)
        // Not asked again, and the service's title does not come back.
        let again = try await sync.sync()
        #expect(again.refused.isEmpty)
        #expect(try Self.title(store) == "Mine")
        #expect(service.calls.filter { $0 == .rename }.count == 1)

        // An empty title: the service's own again, no call made.
        try FeedLibrary(store: store).rename(url: Self.feedA, title: "")
        let reset = try await sync.sync()
        #expect(reset.refused.isEmpty)
        #expect(try Self.title(store) == "Feed A")
        #expect(service.calls.filter { $0 == .rename }.count == 1)
        // A title changed on the service now reaches this device again.
        service.update { $0.feeds[0].title = "Renamed there" }
        _ = try await sync.sync()
        #expect(try Self.title(store) == "Renamed there")
    }

    @Test("edit-urls' tag change is refused by a service without folders in one line; the tag stays here")
    func aServiceWithoutFoldersKeepsTheTagHere() async throws {
        let service = FakeSyncService()
        service.addFeed(url: Self.feedA, title: "Feed A")
        service.update { $0.refusesFeedEdits = .fever }
        let (store, sync) = try SyncEngineTests.device(service)
        _ = try await sync.sync()
        let context = store.container.newBackgroundContext()
        try context.performAndWait { () throws in _ = try FeedURLsEditing.apply("\(Self.feedA) later\n", in: context) }
        let report = try await sync.sync()
        #expect(report.refused == [Messages.syncUnsupported(.fever, .move, url: Self.feedA)])
        #expect(try FeedLibrary(store: store).servers().first?.tags == ["later"])
        #expect(service.feeds[0].labels.isEmpty)
        #expect(try sync.status()?.pending == 0)
    }

    @Test("a rename is queued for the feed's own account only, never for a local feed")
    func queuedForItsOwnAccountOnly() async throws {
        let world = try SyncAccountsTests.world()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        for outcome in try await world.syncAll() { _ = try outcome.result.get() }
        let library = FeedLibrary(store: world.store)
        try library.rename(url: SyncAccountsTests.localFeed, title: "Local one")
        #expect(try Self.queued(world.store).isEmpty)
        try library.rename(url: SyncAccountsTests.workFeed, title: "Work renamed")
        #expect(try Self.queued(world.store).map(\.account) == ["127.0.0.1"])
        for outcome in try await world.syncAll() { _ = try outcome.result.get() }
        #expect(world.work.feeds.map(\.title) == ["Work renamed"])
        #expect(world.home.feeds.map(\.title) == ["Home"])
        #expect(!world.home.calls.contains(.rename))
        #expect(try Self.title(world.store, SyncAccountsTests.localFeed) == "Local one")
    }

    @Test("undo of a pushed rename is pushed too; redo pushes the rename again")
    func undoOfAPushedRename() async throws {
        let service = FakeSyncService()
        service.addFeed(url: Self.feedA, title: "Feed A")
        let (store, sync) = try SyncEngineTests.device(service)
        _ = try await sync.sync()
        let view = store.container.viewContext
        let bus = store.container.bus
        try view.performAndWait { () throws in
            view.undoManager = ContextUndoManager()
            let server = try #require(try Server.findFirst(byAttribute: "url", value: .string(Self.feedA), in: view))
            #expect(try FeedEditing.retitle(server.objectID, to: "Mine", in: view) == "Mine")
        }
        #expect(try await sync.push() == 1)
        #expect(service.feeds[0].title == "Mine")
        try view.performAndWait { () throws in #expect(try ItemMarking.undo(in: view, bus: bus) == "Rename Feed") }
        _ = try await sync.sync()
        #expect(service.feeds[0].title == "Feed A")
        #expect(try Self.title(store) == "Feed A")
        try view.performAndWait { () throws in #expect(try ItemMarking.redo(in: view, bus: bus) == "Rename Feed") }
        _ = try await sync.sync()
        #expect(service.feeds[0].title == "Mine")
    }

    @Test("edit-urls' changed \"~title\" and tags reach the account")
    func editURLsReachesTheAccount() async throws {
        let service = FakeSyncService()
        service.addFeed(url: Self.feedA, title: "Feed A")
        let (store, sync) = try SyncEngineTests.device(service)
        _ = try await sync.sync()
        let context = store.container.newBackgroundContext()
        try context.performAndWait { () throws in
            let report = try FeedURLsEditing.apply("\(Self.feedA) news \"~Edited\"\n", in: context)
            #expect(report.changed == 1)
        }
        #expect(Set(try Self.queued(store).map(\.kind)) == ["tags", "title"])
        _ = try await sync.sync()
        #expect(service.feeds[0].title == "Edited")
        #expect(service.feeds[0].labels == ["news"])
    }

    @Test("a refresh keeps a title given here; a feed without one takes the feed's")
    func aRefreshKeepsTheTitle() throws {
        let store = try ZeaderStore.inMemory()
        let context = store.container.newBackgroundContext()
        try context.performAndWait { () throws in
            let server = try FeedSubscription.add(url: Self.feedA, title: "Feed A", in: context)
            try context.save()
            #expect(try FeedEditing.retitle(server.objectID, to: "Mine", in: context) == "Mine")
            ItemImport.updateDetails(of: server, from: ParsedFeed(format: .rss2, title: "Feed A, newer"))
            #expect(server.title == "Mine")
            // Its own title back at once: the one it had before the rename.
            #expect(try FeedEditing.retitle(server.objectID, to: "", in: context) == "Feed A")
            // Not known (renamed by edit-urls): none until the next refresh, which reads the feed again.
            server.title = "Other"
            server.etag = "\"e\""
            try context.save()
            #expect(try FeedEditing.retitle(server.objectID, to: "", in: context) == nil)
            #expect(server.etag == nil)
            ItemImport.updateDetails(of: server, from: ParsedFeed(format: .rss2, title: "Feed A, newer"))
            #expect(server.title == "Feed A, newer")
        }
    }

    @Test("a feed not subscribed to is an error naming it")
    func anUnknownFeed() throws {
        let store = try ZeaderStore.inMemory()
        #expect(throws: ZeaderError.self) { try FeedLibrary(store: store).rename(url: Self.feedA, title: "x") }
    }

    @Test("no account is named folder: sync remove folder means folder sync; the line says what to do")
    func noAccountNamedFolder() throws {
        #expect(!SyncAccounts.isValidName("folder"))
        #expect(!SyncAccounts.isValidName("Folder"))
        #expect(SyncAccounts.isValidName("folders"))
        #expect(SyncAccounts.defaultName(apiURL: "http://folder/api/greader.php", taken: []) == "account")
        let line = ZeaderError.sync(.invalidAccountName("folder")).description
        #expect(line.contains("folder sync") && line.contains("--name") && line.contains("sync remove folder"))
        #expect(ZeaderError.sync(.invalidAccountName("folder")).isUsageError)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
        #expect(throws: ZeaderError.sync(.invalidAccountName("folder"))) {
            try FeedSync(store: store).addAccount(
                apiURL: "http://127.0.0.1:9/api/greader.php", user: "alice", token: "t", name: "folder")
        }
    }
}

@Suite("zeader rename", .serialized)
struct RenameCommandTests {
    @Test("rename prints the title; an empty one gives back the feed's own; list shows it; a store with an account queues it")
    func renameThroughTheBinary() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite").path
        let feed = "http://127.0.0.1:9/feed.xml"
        var r = try zeader(["--db", db, "add", feed, "--title", "Feed", "--no-fetch"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        r = try zeader(["--db", db, "rename", feed, "My \u{1B}[31mfeed"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "renamed \(feed): My [31mfeed\n")
        r = try zeader(["--db", db, "list", "--json"], in: dir)
        let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(list.first?["title"] as? String == "My [31mfeed")
        r = try zeader(["--db", db, "rename", feed], in: dir)
        #expect(r.status == 0 && r.stdout == "renamed \(feed): Feed\n", "\(r.stderr)")
        r = try zeader(["--db", db, "rename", feed, ""], in: dir)
        #expect(r.stdout == "renamed \(feed): its own title at the next refresh or sync\n")

        // With an account the feed belongs to: queued for it (sync status counts it).
        let store = try ZeaderStore.open(at: URL(fileURLWithPath: db))
        let service = FakeSyncService()
        service.addFeed(url: feed, title: "Feed")
        let sync = FeedSync(store: store, service: { _, _ in service })
        try sync.addAccount(apiURL: "http://127.0.0.1:9/api/greader.php", user: "alice", token: "t")
        _ = try await sync.sync()
        r = try zeader(["--db", db, "rename", feed, "Mine"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try sync.status()?.pending == 1)
        _ = try await sync.sync()
        #expect(service.feeds.first?.title == "Mine")
    }
}
