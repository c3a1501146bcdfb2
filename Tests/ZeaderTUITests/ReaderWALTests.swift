import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderTUI

/// The reader stays open for hours: after a bulk edit (mark all read, its undo and redo) it
/// cuts the `-wal` back to `journal_size_limit` instead of keeping the bulk write's size
/// until it quits.
@Suite struct ReaderWALTests {
    static func walSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path + "-wal"))?[.size] as? Int) ?? 0
    }

    @Test func bulkEditsInTheReaderLeaveASmallWAL() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-wal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite")
        let store = try ZeaderStore.open(at: db)
        try FeedLibrary(store: store).add(url: "http://feed.example/rss")
        let background = store.container.newBackgroundContext()
        try background.performAndWait { () throws in
            let server = try #require(
                try Server.findFirst(byAttribute: "url", value: .string("http://feed.example/rss"), in: background))
            for n in 0..<20_000 {
                let item = background.insert(FeedItem.self)
                item.guid = "g-\(n)"
                item.title = "Item \(n) " + String(repeating: "title words ", count: 20)
                item.summary = String(repeating: "summary \(n % 97) ", count: 20)
                item.sortDate = Date(timeIntervalSince1970: Double(n))
                item.server = server
            }
            try background.save()
        }
        store.checkpoint()
        #expect(Self.walSize(db) <= PersistentStore.journalSizeLimit)

        let model = ReaderModel(store: store)
        let context = store.container.viewContext
        #expect(try context.performAndWait { try model.markRead(nil) } == 20_000)
        #expect(Self.walSize(db) <= PersistentStore.journalSizeLimit)
        #expect(try context.performAndWait { try model.undo() } == "Mark All Read")
        #expect(Self.walSize(db) <= PersistentStore.journalSizeLimit)
        #expect(try context.performAndWait { try model.redo() } == "Mark All Read")
        #expect(Self.walSize(db) <= PersistentStore.journalSizeLimit)
    }
}
