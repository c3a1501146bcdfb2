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
            #expect(try FeedItem.count(where: try ObjectGraph.Predicate(format: "read == YES"), in: context) == 6)
            #expect(servers[0].title == "Zürich Tech Blog #1")
        }
    }
}
