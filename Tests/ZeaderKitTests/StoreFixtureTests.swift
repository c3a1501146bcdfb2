import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// `Fixtures/zeader-v1.sqlite` was written by Zeader's model version 1 code (commit of
/// 2026-11-22, `zeader import` + `refresh` against bench/serve.py, then `mark-read` of one
/// feed): 4 feeds with ETag/Last-Modified, 24 items, 6 read. Model changes must keep
/// opening it (through migration once there is a version 2) with every item, read flag,
/// order and validator intact.
@Suite struct StoreFixtureTests {
    static func copyOfFixture() throws -> URL {
        let source = try #require(Bundle.module.url(forResource: "Fixtures/zeader-v1", withExtension: "sqlite"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-fixture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let copy = directory.appendingPathComponent("zeader.sqlite")
        try FileManager.default.copyItem(at: source, to: copy)
        return copy
    }

    @Test func versionOneStoreOpensWithEverythingKept() throws {
        let url = try Self.copyOfFixture()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try ZeaderStore.open(at: url)
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            let servers = try Server.findAll(sortedBy: "displayOrder", in: context)
            #expect(servers.map(\.displayOrder) == [0, 1, 2, 3])
            #expect(servers.allSatisfy { $0.etag?.hasPrefix("\"") == true && $0.lastModified != nil })
            #expect(servers.map(\.unreadCount) == [6, 0, 6, 6])
            #expect(servers.map(\.totalCount) == [6, 6, 6, 6])
            #expect(try FeedItem.count(in: context) == 24)
            #expect(try FeedItem.count(where: try ObjectPredicate(format: "read == YES"), in: context) == 6)
            #expect(servers[0].title == "Zürich Tech Blog #1")
        }
    }

    @Test func versionOneStoreMigratesToVersionTwoKeepingEverything() throws {
        let url = try Self.copyOfFixture()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let old = ZeaderStore(container: try PersistentContainer(model: ZeaderModel.version1, store: .file(url)), url: url)
        let before = try Self.snapshot(old)
        try old.container.store.close()
        #expect(before.items.count == 24)

        let store = try ZeaderStore.open(at: url)
        // Opened by this program, the store is migrated to the current version.
        #expect(try store.container.store.metadata(forKey: "objectgraph.version") == String(ZeaderModel.current.version))
        #expect(FileManager.default.fileExists(atPath: MigrationPlan.backupPath(forStoreAt: url.path, version: 1)))
        let after = try Self.snapshot(store)
        #expect(after.servers == before.servers)
        #expect(after.items == before.items)
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            #expect(try FeedItem.count(where: try ObjectPredicate(format: "flagged == YES"), in: context) == 0)
            #expect(try Server.count(where: try ObjectPredicate(format: "tags != nil"), in: context) == 0)
            // The new attributes work, and the derived counts still follow the items.
            let servers = try Server.findAll(sortedBy: "displayOrder", in: context)
            servers[1].tags = "news"
            let item = try #require(servers[1].feedItems.first)
            item.flagged = true
            item.read = false
            try context.save()
            #expect(servers[1].unreadCount == 1)
        }
        // Opened again: no second migration, the changes are there.
        let reopened = try ZeaderStore.open(at: url)
        let library = FeedLibrary(store: reopened)
        #expect(try library.items(ItemQuery(flaggedOnly: true)).count == 1)
        #expect(try library.servers().map(\.tags) == [[], ["news"], [], []])
    }

    @Test func theMigratedStoreIsSearchable() throws {
        let url = try Self.copyOfFixture()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try ZeaderStore.open(at: url)
        let context = store.container.viewContext
        try context.performAndWait { () throws in
            // Every item is found by the first word of its title (the index was built at open).
            for item in try FeedItem.findAll(in: context) {
                let words = item.title?.split { !($0.isLetter || $0.isNumber) } ?? []
                let word = try #require(words.first.map(String.init))
                #expect(try ItemSearch.itemIDs(word, in: context).contains(item.objectID), "\(word)")
            }
            // Diacritics fold ("Brûlée" at the start of a summary). The index takes the start of
            // a summary and the whole text of the body, which the migration made from the stored
            // content: "Zürich", 225 characters into one, is found in the bodies that have it.
            #expect(try ItemSearch.itemIDs("BRULEE", in: context).count > 0)
            let zurich = try FeedItem.findAll(in: context).filter { $0.content?.contains("Zürich") == true }
            #expect(!zurich.isEmpty)
            #expect(Set(try ItemSearch.itemIDs("ZURICH", in: context)) == Set(zurich.map(\.objectID)))
        }
    }

    struct Snapshot: Equatable {
        var servers: [String]
        var items: [String]
    }

    /// Every value the migration must keep, as text, in a fixed order.
    static func snapshot(_ store: ZeaderStore) throws -> Snapshot {
        let context = store.container.newBackgroundContext(name: "snapshot")
        return try context.performAndWait { () throws -> Snapshot in
            let servers = try Server.findAll(sortedBy: "displayOrder", in: context)
            let serverLines = servers.map {
                [
                    $0.url, $0.title ?? "-", $0.siteLink ?? "-", "\($0.displayOrder)", $0.etag ?? "-", $0.lastModified ?? "-",
                    "\($0.unreadCount)/\($0.totalCount)", "\($0.lastRefresh?.timeIntervalSince1970 ?? 0)",
                ].joined(separator: "|")
            }
            let items = try FeedItem.findAll(sortedBy: "guid", in: context).map {
                [
                    $0.server?.url ?? "-", $0.guid, $0.title ?? "-", $0.link ?? "-", $0.author ?? "-", $0.summary ?? "-",
                    $0.content ?? "-", "\($0.published?.timeIntervalSince1970 ?? 0)", "\($0.updated?.timeIntervalSince1970 ?? 0)",
                    "\($0.read)", "\($0.firstSeen?.timeIntervalSince1970 ?? 0)", "\($0.sortDate?.timeIntervalSince1970 ?? 0)",
                ]
                .joined(separator: "|")
            }
            return Snapshot(servers: serverLines, items: items.sorted())
        }
    }
}
