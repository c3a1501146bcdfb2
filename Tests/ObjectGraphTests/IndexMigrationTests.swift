import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// A version that only adds (or removes) plain indexes keeps the table and its rows where
/// they are: the indexes are built and dropped in place, not by copying every row into a
/// new table (a store of a million items would be rewritten whole).
@Suite struct IndexMigrationTests {
    static func model(version: Int, indexes: [[String]], indexedDue: Bool) throws -> ManagedObjectModel {
        try ManagedObjectModel(
            name: "ToDo", version: version,
            entities: [
                EntityDescription(
                    "ToDo",
                    attributes: [
                        .string("name", optional: false), .date("dueDate", indexed: indexedDue),
                        .bool("done", defaultValue: false),
                    ],
                    indexes: indexes, uniquenessConstraints: [["name"]])
            ])
    }

    func indexes(_ url: URL) throws -> Set<String> {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in
            Set(
                try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ToDo' AND sql IS NOT NULL"))
        }
    }

    func rootPage(_ url: URL) throws -> Int {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'ToDo'") ?? 0 }
    }

    @Test func addingAndRemovingIndexesKeepsTheTable() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        let v1 = try Self.model(version: 1, indexes: [["done"]], indexedDue: true)
        let v2 = try Self.model(version: 2, indexes: [["done", "dueDate"]], indexedDue: false)
        do {
            let container = try PersistentContainer(model: v1, store: .file(url))
            let context = container.viewContext
            try context.performAndWait { () throws in
                for n in 0..<50 {
                    let todo = try context.insertObject(entityName: "ToDo")
                    try todo.setValue(.string("todo \(n)"), forKey: "name")
                    try todo.setValue(.date(Date(timeIntervalSince1970: Double(n))), forKey: "dueDate")
                    try todo.setValue(.bool(n % 2 == 0), forKey: "done")
                }
                try context.save()
            }
            try container.store.close()
        }
        #expect(try indexes(url) == ["Z_ToDo_dueDate", "Z_ToDo_done", "Z_ToDo_unique_name"])
        let page = try rootPage(url)

        let plan = try MigrationPlan(versions: [v1, v2], backupRetention: .remove)
        let container = try PersistentContainer(model: v2, store: .file(url), migrator: plan)
        let done = try container.viewContext.performAndWait { () throws in
            try container.viewContext.count(
                for: FetchRequest<ManagedObject>(entityName: "ToDo", predicate: ObjectPredicate(format: "done == YES")))
        }
        #expect(done == 25)
        try container.store.close()
        #expect(try indexes(url) == ["Z_ToDo_done_dueDate", "Z_ToDo_unique_name"])
        #expect(try rootPage(url) == page)  // the same table: no copy
    }
}
