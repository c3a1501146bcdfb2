import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Model version 3 (newsboat's additions): a version 2 store opens, migrated, with everything
/// it held, and takes tombstones, flag letters and ignore rules.
@Suite("Model version 3: RemovedItem, FeedItem.flagLetters, IgnoreRule")
struct ModelVersion3Tests {
    @Test("a version 2 store migrates to version 3 keeping its feeds, items, read and flagged state")
    func migratesFromVersion2() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("z.sqlite")
        let old = try PersistentContainer(model: ZeaderModel.version2, store: .file(url))
        let context = old.newBackgroundContext(name: "v2")
        try context.performAndWait {
            let server = context.insert(Server.self)
            server.url = "https://example.org/feed"
            server.tags = "news"
            for n in 1...3 {
                let item = context.insert(FeedItem.self)
                item.guid = "g\(n)"
                item.read = n == 1
                item.flagged = n == 2
                item.sortDate = Date(timeIntervalSince1970: Double(n) * 1000)
                item.server = server
            }
            try context.save()
        }
        try old.store.close()

        let store = try ZeaderStore.open(at: url)
        // Migrated on to the current version (4 moves the content out of the item's row).
        #expect(try store.container.store.metadata(forKey: "objectgraph.version") == String(ZeaderModel.current.version))
        let library = FeedLibrary(store: store)
        #expect(try library.servers().map { [$0.unread, $0.total] } == [[2, 3]])
        let items = try library.items(ItemQuery())
        #expect(Set(items.filter(\.read).map(\.id)) == ["g1"])
        #expect(Set(items.filter(\.flagged).map(\.id)) == ["g2"])
        var policy = RetentionPolicy()
        try policy.apply(directive: "max-items", arguments: ["1"])
        try policy.apply(directive: "cleanup-keeps", arguments: ["none"])
        #expect(try library.cleanup(policy: policy).removedItems == 2)
        #expect(try library.addIgnoreRule(.init(scope: .tag("news"), predicateFormat: "guid BEGINSWITH \"g\"")) == 1)
        #expect(try library.ignoreRules().map(\.rule.line) == ["ignore tag:news guid BEGINSWITH \"g\""])
    }
}
