import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// The write transaction of a save: inserted rows' text and blob bytes bound without SQLite
/// copying them (``BoundBytes``), primary keys handed out per table when the inserts of
/// several entities alternate, and `INSERT OR FAIL` for tables without triggers only.
@Suite struct SaveWriteTests {
    /// Texts and blobs of every size (empty, inline-sized, larger than a chunk of
    /// ``BoundBytes``, non-ASCII) in a save of several multi-row statements: every value is
    /// stored whole, as another connection reads it back.
    @Test func boundTextsAndBlobsAreStoredWhole() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("bytes.sqlite")
        let big = String(repeating: "0123456789abcdef", count: BoundBytes.chunkSize / 16 + 3)
        let titles = [
            "", "a", "fifteen bytes!!", "sixteen bytes!!!", "ünïcödé 🎉 text", String(repeating: "x", count: 1_000), big,
        ]
        let blobs: [Data?] = [nil, Data(), Data([0, 1, 2]), Data(repeating: 0xAB, count: BoundBytes.chunkSize + 5)]
        let count = 700
        func title(_ i: Int) -> String { titles[i % titles.count] + (i % 3 == 0 ? "" : " #\(i)") }
        func blob(_ i: Int) -> Data? { blobs[i % blobs.count] }
        do {
            let container = try TestModel.container(.file(url))
            let ctx = container.viewContext
            try ctx.performAndWait { () throws in
                for i in 0..<count {
                    let note = ctx.insert(Note.self)
                    note.title = title(i)
                    note.body = i % 5 == 0 ? nil : "body \(i) " + title(count - i)
                    note.rating = Double(i)
                    note.blob = blob(i)
                }
                try ctx.save()
            }
        }
        let rows = try DatabaseQueue(path: url.path).read { db in
            try Row.fetchAll(db, sql: "SELECT title, body, blob FROM Note ORDER BY rating")
        }
        #expect(rows.count == count)
        for (i, row) in rows.enumerated() {
            #expect(row["title"] as String? == title(i))
            #expect(row["body"] as String? == (i % 5 == 0 ? nil : "body \(i) " + title(count - i)))
            // An empty blob is stored as an empty blob, not as NULL.
            #expect(row["blob"] as Data? == blob(i))
        }
    }

    /// Copies stay intact while later ones fill the chunk and start new ones, and after
    /// ``BoundBytes/removeAll()`` the memory is used again.
    @Test func boundBytesKeepEveryCopyUntilRemoved() {
        let bytes = BoundBytes()
        var copies: [(UnsafeRawPointer, [UInt8])] = []
        for n in 0..<40 {
            let value = [UInt8](repeating: UInt8(n), count: n * 9_001 % 70_000)
            let pointer = value.withUnsafeBytes { bytes.copy($0) }
            copies.append((pointer, value))
        }
        for (pointer, value) in copies {
            #expect(Array(UnsafeRawBufferPointer(start: pointer, count: value.count)) == value)
        }
        bytes.removeAll()
        let again = [UInt8]("again".utf8)
        let pointer = again.withUnsafeBytes { bytes.copy($0) }
        #expect(Array(UnsafeRawBufferPointer(start: pointer, count: again.count)) == again)
    }

    /// Inserts of several entities alternating in one save, two of them sharing their
    /// hierarchy's table: each table's keys are consecutive and unique, the last one given
    /// out is recorded, and the next save continues after it.
    @Test func alternatingEntitiesGetEachTablesNextKeys() throws {
        let container = try InheritanceModel.container()
        let ctx = container.viewContext
        var items: [InhItem] = []
        var bookmarks: [InhBookmark] = []
        try ctx.performAndWait { () throws in
            for i in 0..<30 {
                let item: InhItem = i % 2 == 0 ? ctx.insert(InhArticle.self) : ctx.insert(InhPodcast.self)
                item.title = "item \(i)"
                let bookmark = ctx.insert(InhBookmark.self)
                bookmark.item = item
                items.append(item)
                bookmarks.append(bookmark)
            }
            try ctx.save()
        }
        let itemKeys = items.map { $0.objectID.primaryKey! }
        let bookmarkKeys = bookmarks.map { $0.objectID.primaryKey! }
        #expect(itemKeys == Array(1...30))
        #expect(bookmarkKeys == Array(1...30))
        let recorded = try container.store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT Z_ENTITY, Z_MAX FROM Z_PRIMARYKEY").reduce(into: [String: Int64]()) {
                $0[$1[0]] = $1[1]
            }
        }
        #expect(recorded.values.sorted() == [30, 30])
        try ctx.performAndWait { () throws in
            let video = ctx.insert(InhVideo.self)
            video.title = "v"
            let bookmark = ctx.insert(InhBookmark.self)
            bookmark.item = video
            try ctx.save()
            #expect(video.objectID.primaryKey == 31)
            #expect(bookmark.objectID.primaryKey == 31)
        }
        let other = container.newBackgroundContext()
        try other.performAndWait { () throws in
            let saved = try other.fetch(FetchRequest<InhBookmark>())
            #expect(saved.count == 31)
            #expect(Set(saved.compactMap { $0.item?.title }).count == 31)
        }
    }

    /// A trigger added to a table after saves into it: the next save sees it and keeps the
    /// plain INSERT, so the trigger's own `INSERT OR IGNORE` still ignores (an outer
    /// `OR FAIL` would replace it and fail the save), and a violation still names its row.
    @Test func aTableWithTriggersKeepsThePlainInsert() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            ctx.insert(Folder.self).name = "first"
            try ctx.save()
        }
        try container.store.database.write { db in
            try db.execute(sql: "CREATE TABLE folder_log (position INTEGER PRIMARY KEY)")
            try db.execute(
                sql: """
                    CREATE TRIGGER folder_logged AFTER INSERT ON Folder \
                    BEGIN INSERT OR IGNORE INTO folder_log (position) VALUES (new.position); END
                    """)
        }
        try ctx.performAndWait { () throws in
            for i in 0..<10 {
                let folder = ctx.insert(Folder.self)
                folder.name = "f\(i)"
                folder.position = 7
            }
            try ctx.save()
            var folders: [Folder] = []
            for i in 0..<40 {
                let folder = ctx.insert(Folder.self)
                folder.name = i == 20 ? "f3" : "g\(i)"
                folders.append(folder)
            }
            #expect(throws: ObjectGraphError.uniquenessViolation(entity: "Folder", keys: ["name"], values: ["\"f3\""])) {
                try ctx.save()
            }
            folders[20].name = "g20"
            try ctx.save()
        }
        let (folders, logged) = try container.store.database.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Folder"),
                try Int.fetchAll(db, sql: "SELECT position FROM folder_log ORDER BY position")
            )
        }
        #expect(folders == 51)
        #expect(logged == [0, 7])
    }
}
