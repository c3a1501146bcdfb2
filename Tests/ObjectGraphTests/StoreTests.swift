import Foundation
import GRDB
import Testing

@testable import ObjectGraph

@Suite struct StoreTests {
    @Test func fileStoreUsesWAL() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("wal.sqlite")
        let container = try TestModel.container(.file(url))
        let mode = try container.store.database.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        #expect(try container.store.metadata(forKey: MetadataKey.modelName) == "Test")
    }

    @Test func notADatabaseIsRefusedAndUntouched() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("notes.txt")
        let bytes = Data("this is not a database, it is a shopping list\n".utf8)
        try bytes.write(to: url)
        #expect(throws: ObjectGraphError.notADatabase(path: url.path)) { try TestModel.container(.file(url)) }
        #expect(try Data(contentsOf: url) == bytes)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }

    @Test func foreignSQLiteDatabaseIsRefusedAndUntouched() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("other.sqlite")
        do {
            let q = try DatabaseQueue(path: url.path)
            try q.write { db in try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
            try q.close()
        }
        let before = try Data(contentsOf: url)
        #expect(throws: ObjectGraphError.self) { try TestModel.container(.file(url)) }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func storeOfAnotherModelOrNewerVersionIsRefused() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("s.sqlite")
        _ = try TestModel.container(.file(url))
        let otherModel = try ManagedObjectModel(
            name: "Other", version: 1, entities: [EntityDescription("X", attributes: [.string("a")])])
        #expect(throws: ObjectGraphError.incompatibleStore(path: url.path, reason: "made for model 'Test', not 'Other'")) {
            try PersistentContainer(model: otherModel, store: .file(url))
        }
        let olderModel = try ManagedObjectModel(name: "Test", version: 0, entities: TestModel.entities())
        #expect(throws: ObjectGraphError.storeTooNew(path: url.path, storeVersion: 1, modelVersion: 0)) {
            try PersistentContainer(model: olderModel, store: .file(url))
        }
        var changed = TestModel.entities()
        changed[0].attributes.append(.string("extra"))
        let sameVersionDifferentSchema = try ManagedObjectModel(name: "Test", version: 1, entities: changed)
        #expect(throws: ObjectGraphError.self) { try PersistentContainer(model: sameVersionDifferentSchema, store: .file(url)) }
    }

    @Test func schemaMismatchSaysWhatDiffers() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("s.sqlite")
        _ = try TestModel.container(.file(url))
        func reason(_ change: (inout [EntityDescription]) -> Void) -> String? {
            var entities = TestModel.entities()
            change(&entities)
            do {
                let model = try ManagedObjectModel(name: "Test", version: 1, entities: entities)
                _ = try PersistentContainer(model: model, store: .file(url))
                return nil
            } catch {
                guard case .incompatibleStore(_, let reason) = error as? ObjectGraphError else { return "\(error)" }
                return reason
            }
        }
        let prefix = "its schema differs from model 'Test' version 1: "
        #expect(
            reason { $0[1].attributes.append(.string("extra")) } == prefix
                + "column Note.extra (string attribute) is missing from the store")
        // A key the class declares but the model lacks is refused by the class check first
        // (MissingKeyTests); the store's extra column is named for a classless entity below.
        #expect(
            reason { $0[1].attributes.removeAll { $0.name == "body" } }
                == "the classes do not match the model: Note.body: @Managed(\"body\"): Note has no key 'body'")
        #expect(
            reason { $0[1].attributes[2] = .bool("read", defaultValue: true) }
                == prefix + "column Note.read defaults to 0 in the store, 1 in the model")
        #expect(
            reason { $0.append(EntityDescription("Tag", attributes: [.string("label")])) }
                == prefix + "table Tag (entity Tag) is missing from the store")
        #expect(
            reason { $0[0].indexes = [] } == prefix + "index Z_Folder_position is in the store but not in the model")
        #expect(
            reason { $0[1].attributes[0] = .string("title", optional: false) }
                == prefix + "tables, columns, types, defaults and indexes match, so an attribute's optionality differs")
        // The refused file still opens with its own model.
        _ = try TestModel.container(.file(url))

        // A changed type (on an entity without a class, which the class check would catch first).
        let plain = tmp.file("plain.sqlite")
        let v1 = try ManagedObjectModel(
            name: "P", version: 1, entities: [EntityDescription("Row", attributes: [.double("size")])])
        _ = try PersistentContainer(model: v1, store: .file(plain))
        let retyped = try ManagedObjectModel(
            name: "P", version: 1, entities: [EntityDescription("Row", attributes: [.integer("size"), .string("label")])])
        #expect(
            throws: ObjectGraphError.incompatibleStore(
                path: plain.path,
                reason: "its schema differs from model 'P' version 1: column Row.size is REAL in the store, INTEGER (integer) "
                    + "in the model; column Row.label (string attribute) is missing from the store")
        ) { try PersistentContainer(model: retyped, store: .file(plain)) }
        let narrowed = try ManagedObjectModel(name: "P", version: 1, entities: [EntityDescription("Row")])
        #expect(
            throws: ObjectGraphError.incompatibleStore(
                path: plain.path,
                reason: "its schema differs from model 'P' version 1: column Row.size is in the store but not in the model")
        ) { try PersistentContainer(model: narrowed, store: .file(plain)) }
    }

    @Test func metadataRoundTrip() throws {
        let container = try TestModel.container()
        try container.store.setMetadata("42", forKey: "import.resume")
        #expect(try container.store.metadata(forKey: "import.resume") == "42")
        try container.store.setMetadata(nil, forKey: "import.resume")
        #expect(try container.store.metadata(forKey: "import.resume") == nil)
    }

    @Test func schemaComesFromTheModel() throws {
        let container = try TestModel.container()
        let columns = try container.store.database.read { db in try db.columns(in: "Note").map(\.name) }
        // Fixed-size columns and keys first, then strings and data (each group in model order).
        #expect(columns == ["Z_PK", "Z_OPT", "read", "rating", "created", "folder", "title", "body", "blob"])
        let indexes = try container.store.database.read { db in try db.indexes(on: "Folder") }
        #expect(indexes.contains { $0.isUnique && $0.columns == ["name"] })
        #expect(indexes.contains { !$0.isUnique && $0.columns == ["position"] })
    }

    @Test func primaryKeysAreNeverReused() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let a = ctx.insert(Note.self)
            try ctx.save()
            let firstPK = a.objectID.primaryKey
            ctx.delete(a)
            try ctx.save()
            let b = ctx.insert(Note.self)
            try ctx.save()
            #expect(b.objectID.primaryKey != firstPK)
        }
    }
}
