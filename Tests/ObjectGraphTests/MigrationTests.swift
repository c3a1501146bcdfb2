import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// The 2009 article's ToDo model, in three versions.
enum ToDoModels {
    static let v1 = try! ManagedObjectModel(
        name: "ToDo", version: 1,
        entities: [EntityDescription("ToDo", attributes: [.string("name", optional: false), .date("dueDate")])])

    static let v2 = try! ManagedObjectModel(
        name: "ToDo", version: 2,
        entities: [
            EntityDescription(
                "ToDo",
                attributes: [
                    .string("name", optional: false), .date("dueDate"), .date("lastAlertDate"),
                    .bool("doNotAlert", defaultValue: false),
                ])
        ])

    /// v3: `name` renamed `title`, `lastAlertDate` removed, a `List` entity with a derived
    /// count of open to-dos, a relationship from ToDo to List, a unique index on title.
    static let v3 = try! ManagedObjectModel(
        name: "ToDo", version: 3,
        entities: [
            EntityDescription(
                "ToDo",
                attributes: [
                    .string("title", optional: false, renamedFrom: "name"), .date("dueDate"),
                    .bool("doNotAlert", defaultValue: false), .bool("done", defaultValue: false),
                ],
                relationships: [.toOne("list", destination: "List", inverse: "todos")],
                uniquenessConstraints: [["title"]]),
            EntityDescription(
                "List", attributes: [.string("name"), .derivedCount("openCount", of: "todos", where: "done == NO")],
                relationships: [.toMany("todos", destination: "ToDo", inverse: "list")]),
        ])

    static let aNamesDoNotAlert = EntityMigrationPolicy(entity: "ToDo", toVersion: 2) { row in
        if row.oldString("name")?.hasPrefix("A") == true { row["doNotAlert"] = true }
    }
}

/// Writes a v1 store with the given names (dueDate = 1000 × position) and user metadata.
func makeToDoV1Store(at url: URL, names: [String]) throws {
    let container = try PersistentContainer(model: ToDoModels.v1, store: .file(url))
    let context = container.viewContext
    try context.performAndWait {
        for (i, name) in names.enumerated() {
            let todo = try context.insertObject(entityName: "ToDo")
            try todo.setValue(.string(name), forKey: "name")
            try todo.setValue(.date(Date(timeIntervalSince1970: Double(i) * 1000)), forKey: "dueDate")
        }
        try context.save()
    }
    try container.store.setMetadata("kept", forKey: "user.setting")
    try container.store.close()
}

func fetchAll(_ container: PersistentContainer, _ entity: String, sortedBy key: String) throws -> [ManagedObject] {
    let context = container.viewContext
    return try context.performAndWait {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        request.sortDescriptors = [ObjectSortDescriptor(key)]
        return try context.fetch(request)
    }
}

func fileBytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

@Suite struct MigrationTests {
    @Test func toDoV1ToV2WithCustomStepSetsDoNotAlertForNamesStartingWithA() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        try makeToDoV1Store(at: url, names: ["Apples", "bread", "Avocado", "cheese"])
        let identifier = try PersistentStore(model: ToDoModels.v1, location: .file(url), readOnly: true).identifier
        let plan = try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2], policies: [ToDoModels.aNamesDoNotAlert])
        let container = try PersistentContainer(model: ToDoModels.v2, store: .file(url), migrator: plan)
        #expect(container.store.identifier == identifier)  // object-ID URIs made before still resolve
        #expect(UUID(uuidString: identifier) != nil)
        let todos = try fetchAll(container, "ToDo", sortedBy: "dueDate")
        #expect(todos.map { $0["name"] } == ["Apples", "bread", "Avocado", "cheese"])
        #expect(todos.map { $0["doNotAlert"] } == [true, false, true, false])
        #expect(todos.map { $0["lastAlertDate"] } == [.null, .null, .null, .null])
        #expect(todos.map { $0["dueDate"] } == (0..<4).map { .date(Date(timeIntervalSince1970: Double($0) * 1000)) })
        #expect(try container.store.metadata(forKey: "user.setting") == "kept")
        #expect(try container.store.metadata(forKey: MetadataKey.modelVersion) == "2")
        #expect(try container.store.metadata(forKey: MetadataKey.schemaHash) == ToDoModels.v2.schemaHash)
        // The backup is the v1 store, still openable as v1.
        let backup = URL(fileURLWithPath: MigrationPlan.backupPath(forStoreAt: url.path, version: 1))
        let old = try PersistentContainer(model: ToDoModels.v1, store: .file(backup))
        #expect(try fetchAll(old, "ToDo", sortedBy: "dueDate").count == 4)
        // New objects get fresh primary keys after the migrated ones.
        try container.viewContext.performAndWait {
            let todo = try container.viewContext.insertObject(entityName: "ToDo")
            try todo.setValue("Zucchini", forKey: "name")
            try container.viewContext.save()
            #expect(todo.objectID.primaryKey == 5)
        }
    }

    @Test func inferredStepWithoutPolicyUsesDefaults() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        try makeToDoV1Store(at: url, names: ["Apples", "bread"])
        let plan = try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2], backupRetention: .remove)
        let container = try PersistentContainer(model: ToDoModels.v2, store: .file(url), migrator: plan)
        #expect(try fetchAll(container, "ToDo", sortedBy: "name").map { $0["doNotAlert"] } == [false, false])
        #expect(!FileManager.default.fileExists(atPath: MigrationPlan.backupPath(forStoreAt: url.path, version: 1)))
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
    }

    @Test func multiStepMigrationRunsEachStep() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        try makeToDoV1Store(at: url, names: ["Apples", "bread", "Avocado"])
        let plan = try MigrationPlan(
            versions: [ToDoModels.v1, ToDoModels.v2, ToDoModels.v3], policies: [ToDoModels.aNamesDoNotAlert])
        let container = try PersistentContainer(model: ToDoModels.v3, store: .file(url), migrator: plan)
        let todos = try fetchAll(container, "ToDo", sortedBy: "dueDate")
        #expect(todos.map { $0["title"] } == ["Apples", "bread", "Avocado"])  // renamed from name
        #expect(todos.map { $0["doNotAlert"] } == [true, false, true])  // from the v1→v2 policy
        #expect(todos.map { $0["done"] } == [false, false, false])
        let lists = try container.viewContext.performAndWait { try todos.map { try $0.object(forKey: "list") } }
        #expect(lists.allSatisfy { $0 == nil })
        #expect(try container.store.metadata(forKey: MetadataKey.modelVersion) == "3")
        #expect(try container.store.metadata(forKey: "user.setting") == "kept")
        let columns = try container.store.database.read { db in try db.columns(in: "ToDo").map(\.name) }
        // lastAlertDate removed; fixed-size columns before strings (SchemaGenerator).
        #expect(columns == ["Z_PK", "Z_OPT", "dueDate", "doNotAlert", "done", "list", "title"])
        // The new unique index works, and the new entity and relationship are usable.
        let context = container.viewContext
        try context.performAndWait {
            let list = try context.insertObject(entityName: "List")
            for todo in todos { try todo.setObject(list, forKey: "list") }
            try context.save()
            #expect(list["openCount"] == 3)
            let duplicate = try context.insertObject(entityName: "ToDo")
            try duplicate.setValue("bread", forKey: "title")
            #expect(throws: ObjectGraphError.self) { try context.save() }
            context.rollback()
        }
        // Reopening needs no further migration.
        try container.store.close()
        _ = try PersistentContainer(model: ToDoModels.v3, store: .file(url))
    }

    @Test func aStepStartingAtTheMiddleVersionWorks() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        try makeToDoV1Store(at: url, names: ["x"])
        _ = try PersistentContainer(
            model: ToDoModels.v2, store: .file(url), migrator: try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2]))
        let plan = try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2, ToDoModels.v3])
        let container = try PersistentContainer(model: ToDoModels.v3, store: .file(url), migrator: plan)
        #expect(try fetchAll(container, "ToDo", sortedBy: "title").map { $0["title"] } == ["x"])
        #expect(FileManager.default.fileExists(atPath: MigrationPlan.backupPath(forStoreAt: url.path, version: 2)))
    }

    @Test func newDerivedCountIsFilledByCountingOnce() throws {
        let parentV1 = EntityDescription(
            "Folder", attributes: [.string("name")], relationships: [.toMany("notes", destination: "Note", inverse: "folder")])
        let note = EntityDescription(
            "Note", attributes: [.bool("read", defaultValue: false)],
            relationships: [.toOne("folder", destination: "Folder", inverse: "notes")])
        var parentV2 = parentV1
        parentV2.attributes.append(.derivedCount("unreadCount", of: "notes", where: "read == NO"))
        parentV2.attributes.append(.derivedCount("noteCount", of: "notes"))
        let v1 = try ManagedObjectModel(name: "Notes", version: 1, entities: [parentV1, note])
        let v2 = try ManagedObjectModel(name: "Notes", version: 2, entities: [parentV2, note])
        let tmp = TemporaryDirectory()
        let url = tmp.file("notes.sqlite")
        do {
            let container = try PersistentContainer(model: v1, store: .file(url))
            let context = container.viewContext
            try context.performAndWait {
                for (name, reads) in [("a", [true, false, false]), ("b", [true]), ("c", [])] {
                    let folder = try context.insertObject(entityName: "Folder")
                    try folder.setValue(.string(name), forKey: "name")
                    for read in reads {
                        let n = try context.insertObject(entityName: "Note")
                        try n.setValue(.bool(read), forKey: "read")
                        try n.setObject(folder, forKey: "folder")
                    }
                }
                try context.save()
            }
            try container.store.close()
        }
        let container = try PersistentContainer(model: v2, store: .file(url), migrator: try MigrationPlan(versions: [v1, v2]))
        let folders = try fetchAll(container, "Folder", sortedBy: "name")
        #expect(folders.map { $0["unreadCount"] } == [2, 0, 0])
        #expect(folders.map { $0["noteCount"] } == [3, 1, 0])
        // Kept up to date from there on.
        try container.viewContext.performAndWait {
            let n = try container.viewContext.insertObject(entityName: "Note")
            try n.setObject(folders[2], forKey: "folder")
            try container.viewContext.save()
        }
        #expect(folders[2]["unreadCount"] == 1)
    }

    @Test func renamedEntityKeepsRowsAndPrimaryKeys() throws {
        let v1 = try ManagedObjectModel(
            name: "R", version: 1, entities: [EntityDescription("Feed", attributes: [.string("url")])])
        let v2 = try ManagedObjectModel(
            name: "R", version: 2,
            entities: [EntityDescription("Subscription", attributes: [.string("url", indexed: true)], renamingIdentifier: "Feed")]
        )
        let tmp = TemporaryDirectory()
        let url = tmp.file("r.sqlite")
        do {
            let container = try PersistentContainer(model: v1, store: .file(url))
            try container.viewContext.performAndWait {
                for u in ["a", "b"] {
                    try container.viewContext.insertObject(entityName: "Feed").setValue(.string(u), forKey: "url")
                }
                try container.viewContext.save()
            }
            try container.store.close()
        }
        let container = try PersistentContainer(model: v2, store: .file(url), migrator: try MigrationPlan(versions: [v1, v2]))
        let rows = try fetchAll(container, "Subscription", sortedBy: "url")
        #expect(rows.map { $0["url"] } == ["a", "b"])
        #expect(rows.map { $0.objectID.primaryKey } == [1, 2])
        let tables = try container.store.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        #expect(tables == ["Subscription", "Z_METADATA", "Z_PRIMARYKEY"])
        let maxKey = try container.store.database.read { db in
            try String.fetchOne(db, sql: "SELECT Z_ENTITY || ':' || Z_MAX FROM Z_PRIMARYKEY")
        }
        #expect(maxKey == "Subscription:2")
    }

    // MARK: Failures leave the store untouched

    func expectFailedMigrationLeavesStoreUntouched(
        plan: MigrationPlan, to model: ManagedObjectModel, names: [String], reasonContains: [String]
    ) throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        try makeToDoV1Store(at: url, names: names)
        let before = try fileBytes(url)
        let listing = try FileManager.default.contentsOfDirectory(atPath: tmp.url.path).sorted()
        // (Untyped throws here: a typed-throws do/catch crashes the 6.3.1 compiler.)
        let open: () throws -> Void = { _ = try PersistentContainer(model: model, store: .file(url), migrator: plan) }
        do {
            try open()
            Issue.record("migration should have failed")
        } catch {
            guard case .migrationFailed(let path, let reason)? = error as? ObjectGraphError else {
                Issue.record("expected migrationFailed, got \(error)")
                return
            }
            #expect(path == url.path)
            for fragment in reasonContains { #expect(reason.contains(fragment), "\(reason)") }
        }
        #expect(try fileBytes(url) == before)
        let after = try FileManager.default.contentsOfDirectory(atPath: tmp.url.path).filter {
            !$0.hasSuffix("-shm") && !$0.hasSuffix("-wal")
        }
        #expect(after.sorted() == listing.filter { !$0.hasSuffix("-shm") && !$0.hasSuffix("-wal") })
        // Still a good v1 store.
        let v1 = try PersistentContainer(model: ToDoModels.v1, store: .file(url))
        #expect(try fetchAll(v1, "ToDo", sortedBy: "name").count == names.count)
        #expect(try v1.store.metadata(forKey: "user.setting") == "kept")
    }

    @Test func throwingPolicyFailsAndLeavesStoreUntouched() throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "no bananas" } }
        let policy = EntityMigrationPolicy(entity: "ToDo", toVersion: 2) { row in
            if row.oldString("name") == "banana" { throw Refused() }
        }
        try expectFailedMigrationLeavesStoreUntouched(
            plan: try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2], policies: [policy]), to: ToDoModels.v2,
            names: ["apple", "banana"], reasonContains: ["step v1→v2", "entity ToDo", "no bananas", "Z_PK 2"])
    }

    @Test func newUniquenessViolatedByExistingRowsFails() throws {
        // v3 makes titles unique; two to-dos share a name.
        try expectFailedMigrationLeavesStoreUntouched(
            plan: try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2, ToDoModels.v3]), to: ToDoModels.v3,
            names: ["milk", "eggs", "milk"], reasonContains: ["step v2→v3", "entity ToDo", "uniqueness"])
    }

    @Test func newRequiredAttributeWithoutDefaultFails() throws {
        let v2 = try ManagedObjectModel(
            name: "ToDo", version: 2,
            entities: [
                EntityDescription("ToDo", attributes: [.string("name", optional: false), .date("dueDate"), .integer("priority")])
            ])
        try expectFailedMigrationLeavesStoreUntouched(
            plan: try MigrationPlan(versions: [ToDoModels.v1, v2]), to: v2, names: ["a"],
            reasonContains: ["step v1→v2", "entity ToDo", "'priority'"])
    }

    @Test func policyCanFillANewRequiredAttributeAndChangeTypes() throws {
        let v2 = try ManagedObjectModel(
            name: "ToDo", version: 2,
            entities: [
                EntityDescription(
                    "ToDo", attributes: [.string("name", optional: false), .string("dueDate"), .integer("priority")])
            ])
        let policy = EntityMigrationPolicy(entity: "ToDo", toVersion: 2) { row in
            row["priority"] = .integer(Int64(row.oldString("name")?.count ?? 0))
            if case .date(let d)? = row.old["dueDate"] { row["dueDate"] = .string("t=\(Int(d.timeIntervalSince1970))") }
        }
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        try makeToDoV1Store(at: url, names: ["ab", "cde"])
        let container = try PersistentContainer(
            model: v2, store: .file(url), migrator: try MigrationPlan(versions: [ToDoModels.v1, v2], policies: [policy]))
        let rows = try fetchAll(container, "ToDo", sortedBy: "name")
        #expect(rows.map { $0["priority"] } == [2, 3])
        #expect(rows.map { $0["dueDate"] } == ["t=0", "t=1000"])
    }

    @Test func policyWritingAWrongTypeFailsNamingTheKey() throws {
        let policy = EntityMigrationPolicy(entity: "ToDo", toVersion: 2) { row in row["doNotAlert"] = "maybe" }
        try expectFailedMigrationLeavesStoreUntouched(
            plan: try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2], policies: [policy]), to: ToDoModels.v2,
            names: ["a"], reasonContains: ["entity ToDo", "'doNotAlert'"])
    }

    @Test func typeChangeWithoutPolicyFails() throws {
        let v2 = try ManagedObjectModel(
            name: "ToDo", version: 2,
            entities: [EntityDescription("ToDo", attributes: [.string("name", optional: false), .integer("dueDate")])])
        try expectFailedMigrationLeavesStoreUntouched(
            plan: try MigrationPlan(versions: [ToDoModels.v1, v2]), to: v2, names: ["a"],
            reasonContains: ["entity ToDo", "'dueDate'", "from date to integer"])
    }

    @Test func uncheckpointedWALIsCarriedIntoTheMigration() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        try makeToDoV1Store(at: url, names: ["a"])
        // A second writer commits into the WAL and keeps the file open without checkpointing.
        var config = Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        let pool = try DatabasePool(path: url.path, configuration: config)
        try pool.write { db in
            try db.execute(sql: "INSERT INTO ToDo (Z_PK, Z_OPT, name) VALUES (2, 1, 'from the wal')")
        }
        // Copy the files as a crash would leave them: the committed row is only in the WAL.
        let crashed = tmp.file("crashed.sqlite")
        try FileManager.default.copyItem(atPath: url.path, toPath: crashed.path)
        try FileManager.default.copyItem(atPath: url.path + "-wal", toPath: crashed.path + "-wal")
        try pool.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: crashed.path + "-wal")).count > 0)
        let plan = try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2])
        let container = try PersistentContainer(model: ToDoModels.v2, store: .file(crashed), migrator: plan)
        #expect(try fetchAll(container, "ToDo", sortedBy: "name").map { $0["name"] } == ["a", "from the wal"])
        // The backup has it too.
        let backup = URL(fileURLWithPath: MigrationPlan.backupPath(forStoreAt: crashed.path, version: 1))
        let old = try PersistentContainer(model: ToDoModels.v1, store: .file(backup))
        #expect(try fetchAll(old, "ToDo", sortedBy: "name").count == 2)
    }

    @Test func storeNewerThanTheProgramIsRefusedAndUntouched() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        do {
            let container = try PersistentContainer(model: ToDoModels.v2, store: .file(url))
            try container.store.close()
        }
        let before = try fileBytes(url)
        let plan = try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2])
        #expect(throws: ObjectGraphError.storeTooNew(path: url.path, storeVersion: 2, modelVersion: 1)) {
            try PersistentContainer(model: ToDoModels.v1, store: .file(url), migrator: plan)
        }
        #expect(try fileBytes(url) == before)
    }

    @Test func storeNotMatchingThePlansVersionIsRefused() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        let impostorV1 = try ManagedObjectModel(
            name: "ToDo", version: 1, entities: [EntityDescription("ToDo", attributes: [.string("label")])])
        do {
            let container = try PersistentContainer(model: impostorV1, store: .file(url))
            try container.store.close()
        }
        let before = try fileBytes(url)
        let plan = try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2])
        let table = ToDoModels.v1.entities[0].tableName
        #expect(
            throws: ObjectGraphError.migrationFailed(
                path: url.path,
                reason: "the store's schema does not match version 1 of the migration plan: "
                    + "column \(table).name (string attribute) is missing from the store; "
                    + "column \(table).dueDate (date attribute) is missing from the store; "
                    + "column \(table).label is in the store but not in version 1 of the plan")
        ) {
            try PersistentContainer(model: ToDoModels.v2, store: .file(url), migrator: plan)
        }
        #expect(try fileBytes(url) == before)
    }

    @Test func aModelNotMatchingThePlansVersionSaysWhatDiffers() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        try makeToDoV1Store(at: url, names: ["a"])
        let before = try fileBytes(url)
        // Version 2 as the app declares it, not as the plan lists it.
        let drifted = try ManagedObjectModel(
            name: "ToDo", version: 2,
            entities: [
                EntityDescription(
                    "ToDo",
                    attributes: [
                        .string("name", optional: true), .date("dueDate"), .bool("doNotAlert", defaultValue: true),
                        .string("note"),
                    ])
            ])
        let plan = try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2])
        #expect(
            throws: ObjectGraphError.migrationFailed(
                path: url.path,
                reason: "model 'ToDo' version 2 differs from the plan's version 2: "
                    + "attribute ToDo.name is string required default=nil in the plan's version 2, string optional default=nil in the model; "
                    + "attribute ToDo.doNotAlert is bool required default=NO in the plan's version 2, bool required default=YES in the model; "
                    + "attribute ToDo.note is in the model, not in the plan's version 2; "
                    + "attribute ToDo.lastAlertDate is in the plan's version 2, not in the model")
        ) {
            try PersistentContainer(model: drifted, store: .file(url), migrator: plan)
        }
        #expect(try fileBytes(url) == before)
    }

    @Test func anExistingBackupIsNeverOverwrittenAndStaleWorkFilesAreReplaced() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        try makeToDoV1Store(at: url, names: ["a"])
        let earlierBackup = Data("an earlier backup".utf8)
        try earlierBackup.write(to: URL(fileURLWithPath: MigrationPlan.backupPath(forStoreAt: url.path, version: 1)))
        try Data("left by a killed migration".utf8).write(to: URL(fileURLWithPath: url.path + ".migrating"))
        let plan = try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2])
        let container = try PersistentContainer(model: ToDoModels.v2, store: .file(url), migrator: plan)
        #expect(try fetchAll(container, "ToDo", sortedBy: "name").count == 1)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: MigrationPlan.backupPath(forStoreAt: url.path, version: 1)))
                == earlierBackup)
        let second = URL(fileURLWithPath: MigrationPlan.backupPath(forStoreAt: url.path, version: 1) + ".2")
        #expect(
            try fetchAll(try PersistentContainer(model: ToDoModels.v1, store: .file(second)), "ToDo", sortedBy: "name").count == 1
        )
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
    }

    @Test func storeVersionMissingFromThePlanIsRefused() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        try makeToDoV1Store(at: url, names: ["a"])
        let before = try fileBytes(url)
        let plan = try MigrationPlan(versions: [ToDoModels.v2, ToDoModels.v3])
        #expect(
            throws: ObjectGraphError.migrationFailed(
                path: url.path, reason: "store is version 1, which the migration plan does not list")
        ) {
            try PersistentContainer(model: ToDoModels.v3, store: .file(url), migrator: plan)
        }
        #expect(try fileBytes(url) == before)
    }

    @Test func olderStoreWithoutMigratorIsRefused() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        try makeToDoV1Store(at: url, names: ["a"])
        #expect(throws: ObjectGraphError.self) { try PersistentContainer(model: ToDoModels.v2, store: .file(url)) }
    }

    @Test func invalidPlansAreRejected() throws {
        #expect(throws: ModelError.self) { try MigrationPlan(versions: [ToDoModels.v2, ToDoModels.v1]) }
        #expect(throws: ModelError.self) { try MigrationPlan(versions: []) }
        #expect(throws: ModelError.self) {
            try MigrationPlan(
                versions: [ToDoModels.v1, ToDoModels.v2],
                policies: [EntityMigrationPolicy(entity: "Nope", toVersion: 2) { _ in }])
        }
        #expect(throws: ModelError.self) {
            try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2], policies: [ToDoModels.aNamesDoNotAlert.retargeted(1)])
        }
    }
}

extension EntityMigrationPolicy {
    func retargeted(_ version: Int) -> EntityMigrationPolicy {
        EntityMigrationPolicy(entity: entityName, toVersion: version, transform: transform)
    }
}

@Suite struct MigrationIndexTests {
    /// Rebuilding a table that has indexes (a foreign-key index, an attribute index, a unique
    /// index) drops and recreates them.
    @Test func rebuiltTableKeepsItsIndexes() throws {
        func model(_ version: Int) throws -> ManagedObjectModel {
            var attributes: [AttributeDescription] = [.string("guid", optional: false), .date("published", indexed: true)]
            if version == 2 { attributes.append(.bool("flagged", defaultValue: false, indexed: true)) }
            return try ManagedObjectModel(
                name: "Idx", version: version,
                entities: [
                    EntityDescription(
                        "Server", attributes: [.string("url")],
                        relationships: [.toMany("items", destination: "Item", inverse: "server")]),
                    EntityDescription(
                        "Item", attributes: attributes,
                        relationships: [.toOne("server", destination: "Server", inverse: "items")],
                        uniquenessConstraints: [["guid"]]),
                ])
        }
        let tmp = TemporaryDirectory()
        let url = tmp.file("idx.sqlite")
        // Filled by a batched import, closed without being released (as a long-running program would).
        let old = try PersistentContainer(model: try model(1), store: .file(url))
        let serverID = try old.viewContext.performAndWait {
            let server = try old.viewContext.insertObject(entityName: "Server")
            try old.viewContext.save()
            return server.objectID
        }
        try BatchImporter(container: old, name: "fill", batchSize: 5_000).run(0..<20_000) { i, context in
            let item = try context.insertObject(entityName: "Item")
            try item.importValues(from: ["guid": .string("g\(i)"), "published": .integer(Int64(i))])
            try item.setObject(context.object(with: serverID), forKey: "server")
        }
        try old.store.close()
        let v2 = try model(2)
        let container = try PersistentContainer(
            model: v2, store: .file(url), migrator: try MigrationPlan(versions: [try model(1), v2]))
        let indexes = try container.store.database.read { db in
            try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Item' AND sql IS NOT NULL ORDER BY name"
            )
        }
        #expect(indexes == ["Z_Item_flagged", "Z_Item_published", "Z_Item_server", "Z_Item_unique_guid"])
        let integrity = try container.store.database.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
        #expect(try container.store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Item") } == 20_000)
    }
}
