import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// Busy stores, read-only stores and damaged stores.
@Suite struct StoreSafetyTests {
    func makeStore(_ url: URL, notes: Int = 10) throws {
        let container = try TestModel.container(.file(url))
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let folder = ctx.insert(Folder.self)
            folder.name = "F"
            for n in 0..<notes {
                let note = ctx.insert(Note.self)
                note.title = "note \(n)"
                note.body = String(repeating: "body text \(n) ", count: 20)
                note.folder = folder
            }
            try ctx.save()
        }
        try container.store.close()
    }

    @Test func openingWaitsForAnotherConnectionsLock() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("busy.sqlite")
        try makeStore(url)
        // Another connection holds the file's lock exclusively for a moment (readers of a
        // WAL store are blocked only so), as another process committing may.
        let locker = try DatabaseQueue(path: url.path)
        try locker.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "UPDATE Note SET rating = 1")
        }
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.4) {
            try? locker.close()
            released.signal()
        }
        // The read-only inspection before the open waits too, instead of failing with "database is locked".
        let container = try TestModel.container(.file(url))
        let count = try container.viewContext.performAndWait { try container.viewContext.count(for: FetchRequest<Note>()) }
        #expect(count == 10)
        released.wait()
    }

    @Test func aReadOnlyStoreCanBeReadAndRefusesWrites() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("readonly.sqlite")
        try makeStore(url)
        let container = try PersistentContainer(model: TestModel.model, store: .file(url), readOnly: true)
        #expect(container.store.isReadOnly)
        let ctx = container.viewContext
        let readOnly = ObjectGraphError.readOnlyStore(path: url.path)
        try ctx.performAndWait { () throws in
            #expect(try ctx.count(for: FetchRequest<Note>()) == 10)
            let folder = try ctx.fetch(FetchRequest<Folder>()).first!
            #expect(folder.unreadCount == 10)
            folder.name = "G"
            #expect(throws: readOnly) { try ctx.save() }
            #expect(ctx.hasChanges)  // nothing lost: the changes wait
            ctx.rollback()
            #expect(throws: readOnly) {
                try ctx.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["read": .bool(true)]))
            }
            #expect(throws: readOnly) { try ctx.execute(BatchDeleteRequest(entityName: "Note")) }
        }
        #expect(throws: readOnly) { try container.store.setMetadata("x", forKey: "y") }
        #expect(readOnly.description.contains("read-only"))
        #expect(try container.store.integrityCheck().isEmpty)
    }

    @Test(.enabled(if: getuid() != 0, "root may write any file")) func aFileWithoutWritePermissionOpensReadOnly() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("readonly.sqlite")
        try makeStore(url)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
        let container = try TestModel.container(.file(url))
        #expect(container.store.isReadOnly)
        try container.viewContext.performAndWait { () throws in
            #expect(try container.viewContext.count(for: FetchRequest<Note>()) == 10)
        }
    }

    @Test func damagedPagesSurfaceAsOneTypedError() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("damaged.sqlite")
        try makeStore(url, notes: 2000)
        // Flip bytes in the header of b-tree pages past the schema (as a bad disk would).
        let handle = try FileHandle(forUpdating: url)
        let size = try handle.seekToEnd()
        for page in stride(from: UInt64(4), to: size / 4096, by: 3) {
            try handle.seek(toOffset: page * 4096)
            try handle.write(contentsOf: Data([0x55, 0x55, 0x55]))
        }
        try handle.close()
        var error: ObjectGraphError?
        do {
            let container = try TestModel.container(.file(url))
            let problems = try container.store.integrityCheck()
            #expect(!problems.isEmpty)
            _ = try container.viewContext.performAndWait { () throws in
                try container.viewContext.fetch(FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]))
            }
        } catch let e {
            error = e as? ObjectGraphError
        }
        guard case .damaged(let path, let detail)? = error else {
            Issue.record("expected .damaged, got \(String(describing: error))")
            return
        }
        #expect(path == url.path)
        #expect(!detail.isEmpty)
        #expect(error!.description.contains("the store is damaged"))
    }

    @Test func notADatabaseFromAStatementIsDamage() {
        let error = ObjectGraphError.wrapping(
            DatabaseError(resultCode: .SQLITE_NOTADB, message: "file is not a database"), path: "/x.sqlite")
        #expect(error == .damaged(path: "/x.sqlite", detail: "file is not a database"))
        let corrupt = ObjectGraphError.wrapping(
            DatabaseError(resultCode: .SQLITE_CORRUPT_INDEX, message: "malformed"), path: "/x.sqlite")
        #expect(corrupt == .damaged(path: "/x.sqlite", detail: "malformed"))
    }

    @Test func aSoundStorePassesTheIntegrityCheck() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("sound.sqlite")
        try makeStore(url)
        let container = try TestModel.container(.file(url))
        #expect(try container.store.integrityCheck() == [])
    }
}
