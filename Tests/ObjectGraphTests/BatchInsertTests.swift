import Foundation
import ObjectGraph
import Testing

/// Batch inserts: rows from dictionaries or a filling closure, written without objects,
/// refused whole on a bad row, upserted by merge policy, and announced on the bus.
@Suite struct BatchInsertTests {
    /// Every note in the store as "title read rating", sorted.
    private func notes(in container: PersistentContainer) throws -> [String] {
        let ctx = container.newBackgroundContext()
        return try ctx.performAndWait { () throws in
            try ctx.fetch(FetchRequest<Note>()).map { "\($0.title ?? "-") \($0.read) \($0.rating)" }.sorted()
        }
    }

    /// Every folder in the store as "name position unreadCount", sorted.
    private func folders(in container: PersistentContainer) throws -> [String] {
        let ctx = container.newBackgroundContext()
        return try ctx.performAndWait { () throws in
            try ctx.fetch(FetchRequest<Folder>()).map { "\($0.name) \($0.position) \($0.unreadCount)" }.sorted()
        }
    }

    @Test func insertsDictionariesConvertingValues() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        let result = try ctx.performAndWait { () throws in
            try ctx.execute(
                BatchInsertRequest(
                    entityName: "Note", objects: [["title": "one", "read": 1, "rating": 2], ["title": "two", "read": true]]))
        }
        #expect(result.changedCount == 2)
        #expect(result.changedObjectIDs.allSatisfy { !$0.isTemporary && $0.entity.name == "Note" })
        #expect(try notes(in: container) == ["one true 2.0", "two true 0.0"])
    }

    @Test func insertsTheRowsAClosureFills() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        var n = 0
        let request = BatchInsertRequest(entityName: "Note") { row in
            n += 1
            row["title"] = .string("note \(n)")
            row["rating"] = .double(Double(n))
            return n <= 600
        }
        let result = try ctx.performAndWait { () throws in try ctx.execute(request) }
        #expect(result.changedCount == 600)
        let stored = try notes(in: container)
        #expect(stored.count == 600)
        #expect(stored.contains("note 600 false 600.0"))
        #expect(!stored.contains { $0.hasPrefix("note 601 ") })
    }

    @Test func keysAreNeverReusedAfterABatchInsert() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let batch = try ctx.execute(BatchInsertRequest(entityName: "Note", objects: [["title": "a"], ["title": "b"]]))
            let note = ctx.insert(Note.self)
            note.title = "c"
            try ctx.save()
            #expect(!batch.changedObjectIDs.contains(note.objectID))
            #expect(try ctx.count(for: FetchRequest<Note>()) == 3)
        }
    }

    @Test func theIDsAnInsertReturnsNameItsRowsInOrder() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            for batch in 0..<2 {
                var n = 0
                // Over two full statements and a shorter last one, twice: the keys go on.
                let request = BatchInsertRequest(entityName: "Note") { row in
                    n += 1
                    row["title"] = .string("batch \(batch) note \(n)")
                    return n <= 600
                }
                let ids = try ctx.execute(request).changedObjectIDs
                #expect(ids.count == 600)
                let titles = try ids.map { try (ctx.existingObject(with: $0) as! Note).title ?? "-" }
                #expect(titles == (1...600).map { "batch \(batch) note \($0)" })
            }
        }
    }

    @Test func fullStatementsOfAnUpsertKeepTheKeysTheirRowsGive() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let names = (0..<512).map { "folder \($0)" }
            try ctx.execute(
                BatchInsertRequest(entityName: "Folder", objects: names.map { ["name": .string($0), "position": 1] }))
            ctx.mergePolicy = .objectTrumps
            // A full statement of rows giving only the name, then one of rows giving the position too.
            let rows: [[String: Value]] =
                names[..<256].map { ["name": .string($0)] } + names[256...].map { ["name": .string($0), "position": 9] }
            #expect(try ctx.execute(BatchInsertRequest(entityName: "Folder", objects: rows)).changedCount == 512)
        }
        let stored = try folders(in: container)
        #expect(stored.count == 512)
        #expect(stored.filter { $0.hasSuffix(" 1 0") }.count == 256)
        #expect(stored.filter { $0.hasSuffix(" 9 0") }.count == 256)
        #expect(stored.contains("folder 300 9 0") && stored.contains("folder 3 1 0"))
    }

    @Test func aBadRowWritesNothingAndNamesTheProblem() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        let cases: [(BatchInsertRequest, ObjectGraphError)] = [
            (
                BatchInsertRequest(entityName: "Note", objects: [["title": "fine"], ["nope": 1]]),
                .unknownKey(entity: "Note", key: "nope")
            ),
            (
                BatchInsertRequest(entityName: "Note", objects: [["title": "fine"], ["read": "yes"]]),
                .typeMismatch(entity: "Note", key: "read", expected: "bool", got: "string")
            ),
            (
                BatchInsertRequest(entityName: "Folder", objects: [["name": "fine"], ["position": 3]]),
                .missingValue(entity: "Folder", key: "name")
            ),
            (
                BatchInsertRequest(entityName: "Folder", objects: [["name": nil]]),
                .missingValue(entity: "Folder", key: "name")
            ),
            (
                BatchInsertRequest(entityName: "Folder", objects: [["name": "x", "unreadCount": 4]]),
                .notBatchInsertable(entity: "Folder", key: "unreadCount", reason: "it is a derived count")
            ),
            (
                BatchInsertRequest(entityName: "Note", objects: [["scratch": "x"]]),
                .notBatchInsertable(entity: "Note", key: "scratch", reason: "it is transient")
            ),
            (
                BatchInsertRequest(entityName: "Note") { row in
                    row["title"] = "fine"
                    row["rating"] = "high"
                    return true
                },
                .typeMismatch(entity: "Note", key: "rating", expected: "double", got: "string")
            ),
            (BatchInsertRequest(entityName: "Nope", objects: [[:]]), .unknownEntity("Nope")),
        ]
        for (request, error) in cases {
            ctx.performAndWait { _ = #expect(throws: error) { try ctx.execute(request) } }
        }
        #expect(try notes(in: container).isEmpty)
        #expect(try folders(in: container).isEmpty)
    }

    @Test func aTakenKeyFailsTheWholeRequestUnderTheErrorPolicy() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            try ctx.execute(BatchInsertRequest(entityName: "Folder", objects: [["name": "A"]]))
            let rows: [[String: Value]] = (0..<300).map { ["name": .string("new \($0)")] } + [["name": "A"]]
            #expect(throws: ObjectGraphError.uniquenessViolation(entity: "Folder", keys: ["name"], values: ["\"A\""])) {
                try ctx.execute(BatchInsertRequest(entityName: "Folder", objects: rows))
            }
        }
        #expect(try folders(in: container) == ["A 0 0"])
    }

    @Test(arguments: [
        (MergePolicy.objectTrumps, ["A 5 0", "B 7 0", "C 0 0"]),
        (.overwrite, ["A 5 0", "B 0 0", "C 0 0"]),
        (.storeTrumps, ["A 1 0", "B 7 0", "C 0 0"]),
        (.rollback, ["A 1 0", "B 7 0", "C 0 0"]),
    ])
    func takenKeysAreUpsertedByMergePolicy(policy: MergePolicy, expected: [String]) throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        let (before, after) = try ctx.performAndWait { () throws in
            let before = try ctx.execute(
                BatchInsertRequest(entityName: "Folder", objects: [["name": "A", "position": 1], ["name": "B", "position": 7]]))
            ctx.mergePolicy = policy
            // B gives no position: only an overwrite resets it.
            let after = try ctx.execute(
                BatchInsertRequest(entityName: "Folder", objects: [["name": "A", "position": 5], ["name": "B"], ["name": "C"]]))
            return (before.changedObjectIDs, after.changedObjectIDs)
        }
        #expect(try folders(in: container) == expected)
        let kept = policy == .storeTrumps || policy == .rollback ? [] : before
        #expect(Set(after) == Set(kept).union(after.filter { !before.contains($0) }))
        #expect(after.filter { !before.contains($0) }.count == 1)
    }

    @Test func liveResultsInAnotherContextFollowABatchInsert() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let controller = try view.performAndWait { () throws in
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]), context: view)
            try controller.performFetch()
            return controller
        }
        let background = container.newBackgroundContext()
        try background.performAndWait { () throws in
            _ = try background.execute(BatchInsertRequest(entityName: "Note", objects: [["title": "b"], ["title": "a"]]))
        }
        view.performAndWait { #expect(controller.fetchedObjects.map(\.title) == ["a", "b"]) }
    }

    @Test func anUpsertOfRowsADerivedCountFollowsIsRefused() throws {
        let model = try ManagedObjectModel(
            name: "Tags", version: 1,
            entities: [
                EntityDescription(
                    "Box", attributes: [.derivedCount("open", of: "tags", where: "closed == NO")],
                    relationships: [.toMany("tags", destination: "Tag", inverse: "box")]),
                EntityDescription(
                    "Tag", attributes: [.string("key"), .bool("closed", defaultValue: false)],
                    relationships: [.toOne("box", destination: "Box", inverse: "tags")], uniquenessConstraints: [["key"]]),
            ])
        let container = try PersistentContainer(model: model, store: .inMemory)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            // Inserting is fine: a new row belongs to no box.
            try ctx.execute(BatchInsertRequest(entityName: "Tag", objects: [["key": "k"]]))
            ctx.mergePolicy = .objectTrumps
            #expect(throws: ObjectGraphError.self) {
                try ctx.execute(BatchInsertRequest(entityName: "Tag", objects: [["key": "k", "closed": true]]))
            }
            ctx.mergePolicy = .storeTrumps
            #expect(
                try ctx.execute(BatchInsertRequest(entityName: "Tag", objects: [["key": "k"], ["key": "l"]])).changedCount == 1)
        }
    }
}
