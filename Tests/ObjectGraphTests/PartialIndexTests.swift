import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// Partial indexes (``IndexDescription``, ``EntityDescription/partialIndexes``): the index
/// holds only the rows satisfying its condition, a fetch whose predicate says the condition
/// is read through it, a condition the index cannot express makes the model invalid, and a
/// model version that adds, drops or changes one migrates the indexes in place.
@Suite struct PartialIndexTests {
    static let flagged = IndexDescription(["dueDate"], where: .comparison("done", .equalTo, false))

    static func model(version: Int = 1, indexes: [[String]] = [], partial: [IndexDescription]) throws
        -> ManagedObjectModel
    {
        var todo = EntityDescription(
            "ToDo",
            attributes: [
                .string("name", optional: false), .date("dueDate"), .bool("done", defaultValue: false),
                .string("tag"), .integer("rank", defaultValue: 0),
            ],
            relationships: [.toOne("list", destination: "List", inverse: "items")],
            indexes: indexes, uniquenessConstraints: [["name"]])
        todo.partialIndexes = partial
        return try ManagedObjectModel(
            name: "ToDo", version: version,
            entities: [
                todo,
                EntityDescription(
                    "List", attributes: [.string("title")],
                    relationships: [.toMany("items", destination: "ToDo", inverse: "list", deleteRule: .cascade)]),
            ])
    }

    func indexSQL(_ url: URL) throws -> [String: String] {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(
                    db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ToDo' AND sql IS NOT NULL"
                ).map { ($0["name"] as String, $0["sql"] as String) })
        }
    }

    func fill(_ container: PersistentContainer, count: Int = 40) throws {
        let context = container.viewContext
        try context.performAndWait { () throws in
            for n in 0..<count {
                let todo = try context.insertObject(entityName: "ToDo")
                try todo.setValue(.string("todo \(n)"), forKey: "name")
                try todo.setValue(.date(Date(timeIntervalSince1970: Double(n * 7 % count))), forKey: "dueDate")
                try todo.setValue(.bool(n % 4 != 0), forKey: "done")
                try todo.setValue(n % 3 == 0 ? .null : .string("t\(n % 5)"), forKey: "tag")
            }
            try context.save()
        }
    }

    @Test func theIndexIsCreatedWithItsConditionAndHoldsOnlyItsRows() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        let container = try PersistentContainer(model: Self.model(partial: [Self.flagged]), store: .file(url))
        try fill(container)
        let entity = try container.model.entity(named: "ToDo")
        let name = Self.flagged.name(entity: "ToDo", conditionSQL: entity.partialIndexConditions[0])
        #expect(name.hasPrefix("Z_ToDo_dueDate_where_"))
        try container.store.close()
        let sql = try #require(try indexSQL(url)[name])
        #expect(sql.hasSuffix("ON \"ToDo\" (\"dueDate\") WHERE (\"done\" IS 0)"), "\(sql)")
        // Only the 10 open items have an entry (the index's b-tree, counted through it).
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        let entries = try queue.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"ToDo\" INDEXED BY \"\(name)\" WHERE \"done\" IS 0")
        }
        #expect(entries == 10)
    }

    @Test func aFetchThatSaysTheConditionIsReadThroughTheIndexInItsOrder() throws {
        let container = try PersistentContainer(model: Self.model(partial: [Self.flagged]), store: .inMemory)
        try fill(container)
        let context = container.viewContext
        try context.performAndWait { () throws in
            let open = try ObjectPredicate(format: "done == NO")
            let request = FetchRequest<ManagedObject>(
                entityName: "ToDo", predicate: open, sortDescriptors: [ObjectSortDescriptor("dueDate")], fetchLimit: 5)
            for idsOnly in [false, true] {
                let steps = try context.queryPlan(for: request, idsOnly: idsOnly)
                #expect(steps.count == 1 && steps[0].contains("INDEX Z_ToDo_dueDate_where_"), "\(steps)")
                #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(steps)")
            }
            // The same rows a scan finds, in the same order.
            let dates = try context.fetch(request).map { try $0.value(forKey: "dueDate") }
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "ToDo")).filter {
                try $0.value(forKey: "done") == .bool(false)
            }
            let expected = try all.map { try $0.value(forKey: "dueDate") }.sorted { a, b in
                guard case .date(let x) = a, case .date(let y) = b else { return false }
                return x < y
            }
            #expect(dates == Array(expected.prefix(5)))
            // The other rows are not in it: a fetch of them cannot use it.
            let done = FetchRequest<ManagedObject>(
                entityName: "ToDo", predicate: try ObjectPredicate(format: "done == YES"),
                sortDescriptors: [ObjectSortDescriptor("dueDate", ascending: false)])
            #expect(!(try context.queryPlan(for: done)).contains { $0.contains("Z_ToDo_dueDate_where_") })
        }
    }

    @Test func aNotNilConditionServesLookUpsByTheKey() throws {
        let tagged = IndexDescription(["tag"], where: .comparison("tag", .notEqualTo, nil))
        let container = try PersistentContainer(model: Self.model(partial: [tagged]), store: .inMemory)
        try fill(container)
        let context = container.viewContext
        try context.performAndWait { () throws in
            // A page in the key's order, and a look-up of some keys.
            let requests = [
                FetchRequest<ManagedObject>(
                    entityName: "ToDo", predicate: try ObjectPredicate(format: "tag != nil AND tag > %@", "t1"),
                    sortDescriptors: [ObjectSortDescriptor("tag")], fetchLimit: 5),
                FetchRequest<ManagedObject>(
                    entityName: "ToDo", predicate: try ObjectPredicate(format: "tag IN %@", ["t1", "t2"])),
            ]
            for request in requests {
                let format = request.predicate.map(String.init(describing:)) ?? ""
                let steps = try context.queryPlan(for: request)
                #expect(steps.contains { $0.contains("INDEX Z_ToDo_tag_where_") }, "\(format): \(steps)")
            }
            let found = try context.count(
                for: FetchRequest<ManagedObject>(
                    entityName: "ToDo", predicate: try ObjectPredicate(format: "tag IN %@", ["t1", "t2"])))
            #expect(found == 11)
        }
    }

    @Test func conditionsAnIndexCannotExpressMakeTheModelInvalid() throws {
        let refused: [(ObjectPredicate, String)] = [
            (try ObjectPredicate(format: "list.title == \"x\""), "list.title"),
            (try ObjectPredicate(format: "title == \"x\""), "title"),
            (.comparison(.keyPath("rank"), .lessThan, .keyPath("done")), "constant"),
            (try ObjectPredicate(format: "tag ==[c] \"x\""), "[c]"),
            (try ObjectPredicate(format: "tag CONTAINS \"x\""), "operator"),
            (try ObjectPredicate(format: "rank IN {1, 2}"), "constant"),
            (try ObjectPredicate(format: "rank > nil"), "nil"),
        ]
        for (condition, words) in refused {
            #expect {
                try Self.model(partial: [IndexDescription(["dueDate"], where: condition)])
            } throws: { error in
                guard let error = error as? ModelError else { return false }
                return error.message.contains("partial index") && error.message.contains(words)
            }
        }
        #expect(throws: ModelError.self) {
            try Self.model(partial: [IndexDescription(["nope"], where: .comparison("done", .equalTo, true))])
        }
        #expect(throws: ModelError.self) {
            try Self.model(partial: [IndexDescription([], where: .comparison("done", .equalTo, true))])
        }
        // What it can express: AND, OR, NOT, comparisons of attributes and to-ones with constants.
        let allowed = try ObjectPredicate(
            format: "(done == NO AND rank >= 2) OR NOT (tag != nil) OR list == nil OR dueDate < %@",
            Date(timeIntervalSince1970: 0))
        _ = try Self.model(partial: [IndexDescription(["dueDate"], where: allowed)])
    }

    @Test func theConditionIsPartOfTheSchemaHash() throws {
        let a = try Self.model(partial: [Self.flagged])
        let b = try Self.model(partial: [IndexDescription(["dueDate"], where: .comparison("done", .equalTo, true))])
        let plain = try Self.model(partial: [])
        #expect(a.schemaHash != b.schemaHash && a.schemaHash != plain.schemaHash)
        #expect(a.schemaDescription.contains("index dueDate where (\"done\" IS 0)"))
    }

    @Test func versionsThatAddChangeOrDropAPartialIndexMigrateItInPlace() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        let v1 = try Self.model(version: 1, indexes: [["done", "dueDate"]], partial: [])
        let v2 = try Self.model(version: 2, partial: [Self.flagged])
        let changed = IndexDescription(["dueDate"], where: .comparison("rank", .greaterThan, 0))
        let v3 = try Self.model(version: 3, partial: [changed])
        let v4 = try Self.model(version: 4, indexes: [["done", "dueDate"]], partial: [])
        do {
            let container = try PersistentContainer(model: v1, store: .file(url))
            try fill(container)
            try container.store.close()
        }
        let root = {
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            return try queue.read { db in try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'ToDo'") }
        }
        let page = try root()
        for (model, expected) in [(v2, "WHERE (\"done\" IS 0)"), (v3, "WHERE (\"rank\" > 0)"), (v4, nil)] {
            let plan = try MigrationPlan(
                versions: [v1, v2, v3, v4].filter { $0.version <= model.version }, backupRetention: .remove)
            let container = try PersistentContainer(model: model, store: .file(url), migrator: plan)
            let open = try container.viewContext.performAndWait { () throws in
                try container.viewContext.count(
                    for: FetchRequest<ManagedObject>(entityName: "ToDo", predicate: ObjectPredicate(format: "done == NO")))
            }
            #expect(open == 10)
            try container.store.close()
            let sql = try indexSQL(url)
            let partial = sql.filter { $0.key.contains("_where_") }
            if let expected {
                #expect(partial.count == 1 && partial.values.first?.hasSuffix(expected) == true, "\(sql)")
                #expect(sql["Z_ToDo_done_dueDate"] == nil)
            } else {
                #expect(partial.isEmpty && sql["Z_ToDo_done_dueDate"] != nil, "\(sql)")
            }
            #expect(try root() == page)  // the same table: no copy
        }
    }
}
