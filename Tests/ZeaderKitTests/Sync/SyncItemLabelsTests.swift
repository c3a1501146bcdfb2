import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// An item's own tags travel as the service's labels on the item: pulled from the item's
/// categories (not its states, not its feed's folder), pushed as `edit-tag` once per label,
/// and refused in one line by a service without them.
@Suite("Sync: item tags as labels on items")
struct SyncItemLabelsTests {
    static let feed = (id: "feed/1", url: "http://fake.example/one.xml")

    /// A device with the account of `server` (one feed, in the folder `news`), synced once.
    static func device(_ server: FakeGReaderServer, rules: [ItemRules.Rule] = []) async throws -> FeedSync {
        server.update { state in
            state.subscriptions = [feed]
            state.labels[feed.id] = ["news"]
        }
        let store = try ZeaderStore.open(at: try temporaryDirectory().appendingPathComponent("z.sqlite"))
        let sync = FeedSync(store: store, itemRules: rules)
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
        _ = try await sync.sync()
        return sync
    }

    /// Each stored item's tags, by the server's id.
    static func tags(_ sync: FeedSync) throws -> [String: String] {
        let context = sync.store.container.newBackgroundContext()
        return try context.performAndWait {
            Dictionary(
                try FeedItem.findAll(in: context).compactMap { item in item.syncID.map { ($0, item.tags ?? "") } },
                uniquingKeysWith: { a, _ in a })
        }
    }

    /// Sets the tags of the item with the server's id `id` as the reader's prompt does.
    static func setTags(_ text: String, of id: UInt64, in sync: FeedSync) throws {
        let context = sync.store.container.newBackgroundContext()
        try context.performAndWait {
            let item = try #require(try FeedItem.findFirst(byAttribute: "syncID", value: .string(String(id)), in: context))
            try ItemTagging.set(text, on: item.objectID, in: context)
        }
    }

    /// The `edit-tag` posts the server got, each as its form without the action token.
    static func editTags(_ server: FakeGReaderServer) -> [[(String, String)]] {
        server.shared.state.withLock { $0.posts }.filter { $0.hasPrefix("edit-tag ") }.map {
            FakeGReaderServer.query(Substring($0.dropFirst("edit-tag ".count))).filter { $0.0 != "T" }
        }
    }

    @Test func theLabelsOfCategoriesAreTheItemsOwnNotStatesNorFolders() {
        let categories = [
            "user/-/state/com.google/reading-list", "user/-/state/com.google/read", "user/-/label/Tech",
            "user/1234/label/later", "user/-/label/ Two\tWords ", "user/-/label/", "user/-/label/LATER", "feed/1",
            "user//label/x", "user/-/label/a/b", "user/-/labels/y", "User/-/label/z", "user/a b/label/w",
            "user/\u{00A0}/label/v", "user/-/label", "user/-", "user/", "user/é/label/Été",
        ]
        #expect(ItemLabels.labels(inCategories: categories, folders: ["tech"]) == ["later", "Two Words", "a/b", "Été"])
        #expect(ItemLabels.labels(inCategories: ["user/-/label/Tech"], folders: []) == ["Tech"])
    }

    @Test func aPushSendsWhatChangedSinceTheLastSyncIgnoringCase() {
        #expect(ItemLabels.changes(tags: "Later,work", kept: ["later", "old"]) == (["work"], ["old"]))
        #expect(ItemLabels.changes(tags: nil, kept: ["later"]) == ([], ["later"]))
        #expect(ItemLabels.changes(tags: "a", kept: []) == (["a"], []))
    }

    @Test func pulledLabelsBecomeTheItemsTagsAndTheFolderStaysTheFeeds() async throws {
        let server = try FakeGReaderServer()
        let id = FakeGReaderServer.now
        server.add(ids: [id, id - 1])
        server.update { $0.items[0].labels = ["later", "News", "Two Words"] }
        let sync = try await Self.device(server)
        #expect(try Self.tags(sync) == [String(id): "later,Two Words", String(id - 1): ""])
        #expect(try FeedLibrary(store: sync.store).servers().first?.tags == ["news"])
        // Nothing changed here: nothing to push, nothing pending.
        #expect(try sync.status()?.pending == 0)
        server.update { $0.posts = [] }
        _ = try await sync.sync()
        #expect(Self.editTags(server).isEmpty)
    }

    @Test func aTagAddedAndOneRemovedHereArePushedAsEditTagAndWin() async throws {
        let server = try FakeGReaderServer()
        let id = FakeGReaderServer.now
        server.add(ids: [id, id - 1])
        server.update { $0.items[0].labels = ["old"] }
        let sync = try await Self.device(server)
        try Self.setTags("new, Keep", of: id, in: sync)
        try Self.setTags("new", of: id - 1, in: sync)
        #expect(try sync.status()?.pending == 2)
        server.update { $0.posts = [] }
        let report = try await sync.sync()
        let forms = Self.editTags(server)
        #expect(forms.count == 3, "\(forms)")
        #expect(
            forms.contains {
                $0.first! == ("a", "user/-/label/new") && Set($0.dropFirst().map(\.1)) == [String(id), String(id - 1)]
            })
        #expect(forms.contains { $0.first! == ("a", "user/-/label/Keep") && $0.dropFirst().map(\.1) == [String(id)] })
        #expect(forms.contains { $0.first! == ("r", "user/-/label/old") && $0.dropFirst().map(\.1) == [String(id)] })
        #expect(server.shared.state.withLock { $0.items.map { Set($0.labels) } } == [["Keep", "new"], ["new"]])
        #expect(report.pushed == 2)
        #expect(try sync.status()?.pending == 0)
        // Pushed once: the next sync sends nothing.
        server.update { $0.posts = [] }
        _ = try await sync.sync()
        #expect(Self.editTags(server).isEmpty)
        // Every tag removed here is removed there.
        try Self.setTags("", of: id, in: sync)
        _ = try await sync.sync()
        #expect(server.shared.state.withLock { $0.items.map { Set($0.labels) } } == [[], ["new"]])
    }

    @Test func aRuleTaggingAPulledItemReachesTheServerInTheSameSync() async throws {
        let server = try FakeGReaderServer()
        let id = FakeGReaderServer.now
        server.add(ids: [id])
        let sync = try await Self.device(server, rules: [try ItemRules.parse("title CONTAINS \"Item\" -> tag from-rule")])
        #expect(try Self.tags(sync) == [String(id): "from-rule"])
        #expect(server.shared.state.withLock { $0.items.map(\.labels) } == [["from-rule"]])
        #expect(try sync.status()?.pending == 0)
    }

    @Test func aServiceWithoutItemLabelsRefusesInOneLinePerSync() async throws {
        let service = FakeSyncService()
        let feed = service.addFeed(url: "http://a.example/feed.xml", title: "A")
        let first = service.addItem(to: feed, title: "One")
        let second = service.addItem(to: feed, title: "Two")
        service.state.withLock { $0.refusesLabels = .fever }
        let store = try ZeaderStore.open(at: try temporaryDirectory().appendingPathComponent("z.sqlite"))
        let sync = FeedSync(store: store, service: { _, _ in service })
        try sync.addAccount(apiURL: "http://127.0.0.1:1/fever.php", user: "alice", token: "t")
        _ = try await sync.sync()
        try Self.setTags("later", of: first, in: sync)
        try Self.setTags("later, work", of: second, in: sync)
        var report = try await sync.sync()
        #expect(report.refused == ["the Fever API cannot tag items: the tags of 2 items stay on this device"])
        #expect(try Self.tags(sync) == [String(first): "later", String(second): "later,work"])
        #expect(try sync.status()?.pending == 0)
        report = try await sync.sync()
        #expect(report.refused == [])
    }
}
