import Foundation
import GRDB
import Testing

@testable import ObjectGraph

final class TodoList: ManagedObject {
    @Managed("name") var name: String
    @ToMany("tasks") var tasks: [TodoTask]
}

final class TodoTask: ManagedObject {
    @Managed("title") var title: String
    @ToOne("list") var list: TodoList?
}

enum TodoModel {
    static func entities(ordered: Bool = true, rule: DeleteRule = .cascade, taskAttributes: [AttributeDescription] = [])
        -> [EntityDescription]
    {
        [
            EntityDescription(
                "TodoList", managedClass: TodoList.self, attributes: [.string("name", optional: false)],
                relationships: [.toMany("tasks", destination: "TodoTask", inverse: "list", deleteRule: rule, ordered: ordered)]
            ),
            EntityDescription(
                "TodoTask", managedClass: TodoTask.self, attributes: [.string("title", optional: false)] + taskAttributes,
                relationships: [.toOne("list", destination: "TodoList", inverse: "tasks")]),
        ]
    }
    static let model = try! ManagedObjectModel(name: "Todo", version: 1, entities: entities())
}

func titles(_ tasks: [TodoTask]) -> [String] { tasks.map(\.title) }

/// Ordered one-to-many relationships: positions in the members' rows (`Z_FOK_list`).
@Suite struct OrderedOneToManyTests {
    func makeList(_ context: ManagedObjectContext, _ name: String, _ tasks: [String]) throws -> TodoList {
        let list = context.insert(TodoList.self)
        list.name = name
        for title in tasks {
            let task = context.insert(TodoTask.self)
            task.title = title
            task.list = list
        }
        return list
    }

    @Test func theModelAcceptsItAndKeepsAPositionColumn() throws {
        #expect(TodoModel.model.schemaDescription.contains("order Z_FOK_list"))
        let statements = SchemaGenerator.createStatements(for: TodoModel.model)
        #expect(statements.contains { $0.contains("\"Z_FOK_list\" INTEGER NOT NULL DEFAULT 0") })
        #expect(throws: ModelError(message: "Note.folder: only a to-many relationship can be ordered")) {
            try ManagedObjectModel(
                name: "X", version: 1,
                entities: [
                    EntityDescription("Folder", relationships: [.toMany("notes", destination: "Note", inverse: "folder")]),
                    EntityDescription(
                        "Note",
                        relationships: [
                            RelationshipDescription(
                                name: "folder", destinationEntityName: "Folder", inverseName: "notes", isToMany: false,
                                isOrdered: true)
                        ]),
                ])
        }
    }

    @Test func insertMoveRemoveAndAssignmentSurviveSaveAndReload() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        do {
            let container = try PersistentContainer(model: TodoModel.model, store: .file(url))
            let context = container.viewContext
            try context.performAndWait { () throws in
                let list = try makeList(context, "home", ["a", "b", "c"])
                let other = try makeList(context, "work", ["x"])
                #expect(titles(list.tasks) == ["a", "b", "c"])
                try list.moveObject(at: 2, to: 0, inRelationship: "tasks")
                #expect(titles(list.tasks) == ["c", "a", "b"])
                try context.save()
                #expect(titles(list.tasks) == ["c", "a", "b"])
                let d = context.insert(TodoTask.self)
                d.title = "d"
                try list.insert(d, at: 1, inRelationship: "tasks")
                #expect(titles(list.tasks) == ["c", "d", "a", "b"] && d.list === list)
                // Pointed at through its to-one: last.
                let x = other.tasks[0]
                x.list = list
                #expect(titles(list.tasks) == ["c", "d", "a", "b", "x"] && other.tasks.isEmpty)
                try list.removeObject(at: 2, fromRelationship: "tasks")
                let a = try #require(
                    try context.fetch(FetchRequest<TodoTask>(predicate: try ObjectPredicate(format: "title == 'a'"))).first)
                #expect(a.list == nil && titles(list.tasks) == ["c", "d", "b", "x"])
                try other.insert(a, at: 0, inRelationship: "tasks")
                list.tasks = [list.tasks[3], list.tasks[0], list.tasks[2]]  // d leaves the list
                #expect(titles(list.tasks) == ["x", "c", "b"] && d.list == nil)
                try context.save()
                #expect(
                    throws: ObjectGraphError.invalidValue(
                        entity: "TodoList", key: "tasks", rule: "index", message: "index 5 is out of 0...3")
                ) { try list.insert(d, at: 5, inRelationship: "tasks") }
            }
            try container.store.close()
        }
        let container = try PersistentContainer(model: TodoModel.model, store: .file(url))
        try container.viewContext.performAndWait { () throws in
            let lists = try container.viewContext.fetch(FetchRequest<TodoList>(sortDescriptors: [ObjectSortDescriptor("name")]))
            #expect(titles(lists[0].tasks) == ["x", "c", "b"])
            #expect(titles(lists[1].tasks) == ["a"])
        }
        let positions = try container.store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT title, Z_FOK_list FROM TodoTask WHERE list IS NOT NULL ORDER BY list, Z_FOK_list")
                .map { "\($0["title"] as String)\($0["Z_FOK_list"] as Int)" }
        }
        #expect(positions == ["x0", "c1", "b2", "a0"])
    }

    @Test func undoRedoMergesOtherProcessesAndChildContextsKeepTheOrder() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        let container = try PersistentContainer(model: TodoModel.model, store: .file(url))
        container.automaticallyMergesChangesIntoViewContext = false
        let view = container.viewContext
        view.undoManager = ContextUndoManager()
        let (viewList, listID) = try view.performAndWait { () throws -> (TodoList, ObjectID) in
            let list = try makeList(view, "home", ["a", "b", "c"])
            try view.save()
            view.undoManager?.removeAllActions()
            try list.moveObject(at: 2, to: 0, inRelationship: "tasks")
            view.processPendingChanges()
            let d = view.insert(TodoTask.self)
            d.title = "d"
            d.list = list
            view.processPendingChanges()
            #expect(titles(list.tasks) == ["c", "a", "b", "d"])
            view.undo()
            #expect(titles(list.tasks) == ["c", "a", "b"])
            view.undo()
            #expect(titles(list.tasks) == ["a", "b", "c"])
            view.redo()
            #expect(titles(list.tasks) == ["c", "a", "b"])
            try view.save()
            return (list, list.objectID)
        }
        // Another context reads the saved order; its reorder arrives by merge.
        let background = container.newBackgroundContext()
        let changes = Recorder<ChangeSummary>()
        let token = container.bus.observeObjectsDidChange(in: view) { changes.append(summarize($0)) }
        defer { token.cancel() }
        let note = try background.performAndWait { () throws -> DidSaveNotification in
            let list = try background.existingObject(with: listID) as! TodoList
            #expect(titles(list.tasks) == ["c", "a", "b"])
            try list.moveObject(at: 0, to: 2, inRelationship: "tasks")
            let saved = Recorder<DidSaveNotification>()
            let t = container.bus.observeDidSave(excluding: view) { saved.append($0) }
            try background.save()
            t.cancel()
            return saved.all[0]
        }
        try view.performAndWait { () throws in
            view.mergeChanges(fromDidSave: note)
            #expect(titles(viewList.tasks) == ["a", "b", "c"])
        }
        #expect(changes.all.last?.keys == ["tasks"])
        // A child's insert and move are pushed into its parent, then saved.
        let sheet = view.newChildContext()
        try sheet.performAndWait { () throws in
            let list = try sheet.existingObject(with: listID) as! TodoList
            let task = sheet.insert(TodoTask.self)
            task.title = "new"
            try list.insert(task, at: 1, inRelationship: "tasks")
            try list.moveObject(at: 3, to: 0, inRelationship: "tasks")
            #expect(titles(list.tasks) == ["c", "a", "new", "b"])
            try sheet.save()
        }
        try view.performAndWait { () throws in
            #expect(titles(viewList.tasks) == ["c", "a", "new", "b"])
            try view.save()
        }
        try background.performAndWait { () throws in
            let list = try background.existingObject(with: listID) as! TodoList
            #expect(titles(list.tasks) == ["c", "a", "new", "b"])
        }
        // Another stack on the same file stands for another process.
        _ = container.checkForOtherProcessCommits()
        let other = try PersistentContainer(model: TodoModel.model, store: .file(url))
        try other.viewContext.performAndWait { () throws in
            let list = try other.viewContext.existingObject(with: listID) as! TodoList
            #expect(titles(list.tasks) == ["c", "a", "new", "b"])
            try list.moveObject(at: 3, to: 0, inRelationship: "tasks")
            try other.viewContext.save()
        }
        #expect(container.checkForOtherProcessCommits())
        try view.performAndWait { () throws in
            #expect(titles(viewList.tasks) == ["b", "c", "a", "new"])
        }
    }

    @Test func deleteRulesAndDeletedMembers() throws {
        for rule in [DeleteRule.cascade, .nullify] {
            let model = try ManagedObjectModel(name: "Todo", version: 1, entities: TodoModel.entities(rule: rule))
            let container = try PersistentContainer(model: model, store: .inMemory)
            let context = container.viewContext
            try context.performAndWait { () throws in
                let list = try makeList(context, "home", ["a", "b", "c", "d"])
                try context.save()
                context.delete(list.tasks[1])
                #expect(titles(list.tasks) == ["a", "c", "d"])
                try list.moveObject(at: 2, to: 0, inRelationship: "tasks")
                try context.save()
                #expect(titles(list.tasks) == ["d", "a", "c"])
                let remaining = list.tasks
                context.delete(list)
                try context.save()
                let left = try context.fetch(FetchRequest<TodoTask>())
                if rule == .cascade {
                    #expect(left.isEmpty)
                } else {
                    #expect(Set(titles(left)) == ["a", "c", "d"] && remaining.allSatisfy { $0.list == nil })
                }
            }
        }
    }

    @Test func becomingOrderedIsAnInferredStepKeepingKeyOrder() throws {
        let unordered = try ManagedObjectModel(name: "Todo", version: 1, entities: TodoModel.entities(ordered: false))
        let ordered = try ManagedObjectModel(name: "Todo", version: 2, entities: TodoModel.entities())
        // Version 3 rebuilds the task table (a new attribute): the positions are copied.
        let rebuilt = try ManagedObjectModel(
            name: "Todo", version: 3, entities: TodoModel.entities(taskAttributes: [.integer("priority", defaultValue: 1)]))
        let unorderedAgain = try ManagedObjectModel(
            name: "Todo", version: 4,
            entities: TodoModel.entities(ordered: false, taskAttributes: [.integer("priority", defaultValue: 1)]))
        #expect(unordered.schemaHash != ordered.schemaHash)
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        do {
            let container = try PersistentContainer(model: unordered, store: .file(url))
            try container.viewContext.performAndWait { () throws in
                _ = try makeList(container.viewContext, "home", ["a", "b", "c"])
                try container.viewContext.save()
            }
            try container.store.close()
        }
        do {
            let plan = try MigrationPlan(versions: [unordered, ordered], backupRetention: .remove)
            let container = try PersistentContainer(model: ordered, store: .file(url), migrator: plan)
            try container.viewContext.performAndWait { () throws in
                let list = try container.viewContext.fetch(FetchRequest<TodoList>())[0]
                #expect(titles(list.tasks) == ["a", "b", "c"])  // primary-key order, until reordered
                try list.moveObject(at: 2, to: 0, inRelationship: "tasks")
                try container.viewContext.save()
            }
            try container.store.close()
        }
        do {
            let plan = try MigrationPlan(versions: [unordered, ordered, rebuilt], backupRetention: .remove)
            let container = try PersistentContainer(model: rebuilt, store: .file(url), migrator: plan)
            try container.viewContext.performAndWait { () throws in
                let list = try container.viewContext.fetch(FetchRequest<TodoList>())[0]
                #expect(titles(list.tasks) == ["c", "a", "b"])
            }
            try container.store.close()
        }
        let plan = try MigrationPlan(versions: [unordered, ordered, rebuilt, unorderedAgain], backupRetention: .remove)
        let container = try PersistentContainer(model: unorderedAgain, store: .file(url), migrator: plan)
        let columns = try container.store.database.read { db in
            try Row.fetchAll(db, sql: "PRAGMA table_info(TodoTask)").map { $0["name"] as String }
        }
        #expect(!columns.contains("Z_FOK_list"))
    }

    /// Random inserts at an index, moves, removals, moves between two lists through the
    /// to-one, deletions, saves, rollbacks and undo/redo, against two Swift arrays; after each
    /// save a fresh context reads the same orders. The members are read through the
    /// relationship cache: after every step the cache holds exactly what the store holds, and
    /// a second long-lived context (caching too) reads the saved orders after each save, after
    /// a reorder saved by another context (merged) and by another process.
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func randomEditsMatchArrays(seed: UInt64) throws {
        var rng = PredicateRandomGenerator(seed: seed)
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        let container = try PersistentContainer(model: TodoModel.model, store: .file(url))
        let otherProcess = try PersistentContainer(model: TodoModel.model, store: .file(url))
        _ = container.checkForOtherProcessCommits()
        _ = otherProcess.checkForOtherProcessCommits()
        // Merged by hand, so that each merge happens at a known step.
        container.automaticallyMergesChangesIntoViewContext = false
        let context = container.viewContext
        let reader = container.newBackgroundContext()
        let elsewhere = Recorder<DidSaveNotification>()
        let token = container.bus.observeDidSave(excluding: context) { elsewhere.append($0) }
        defer { token.cancel() }
        var merged = 0
        context.undoManager = ContextUndoManager()
        context.undoManager?.levelsOfUndo = 0
        try context.performAndWait { () throws in
            let lists = [try makeList(context, "L0", []), try makeList(context, "L1", [])]
            try context.save()
            context.undoManager?.removeAllActions()
            let listIDs = lists.map(\.objectID)
            // The reader keeps its lists (and so their cached members) for the whole run.
            let readerLists = try reader.performAndWait { () throws in
                try listIDs.map { try reader.existingObject(with: $0) as! TodoList }
            }
            typealias State = [[String]]
            var saved: State = [[], []]
            var history: [State] = [saved]
            var redo: [State] = []
            var serial = 0
            func task(_ title: String) -> TodoTask? { lists.flatMap(\.tasks).first { $0.title == title } }
            func current() -> State { lists.map { titles($0.tasks) } }
            /// The store's order, read past every cache.
            func storedOrder<Column: DatabaseValueConvertible>(_ column: String = "title", as: Column.Type = String.self)
                throws -> [[Column]]
            {
                try container.store.database.read { db in
                    try listIDs.map { id in
                        try Column.fetchAll(
                            db, sql: "SELECT \(column) FROM TodoTask WHERE list = ? ORDER BY Z_FOK_list, Z_PK",
                            arguments: [id.primaryKey!])
                    }
                }
            }
            /// What the lists cache of the store, after a read: current, and the store's order.
            func expectCacheMatchesStore(_ description: String) throws {
                // By key: a member deleted in this context (not yet saved) is still in the store.
                let stored = try storedOrder("Z_PK", as: Int64.self)
                let task = try context.model.entity(named: "TodoTask")
                for (l, list) in lists.enumerated() {
                    guard let clock = context.relationshipClock, let cached = list.relationshipCache?.members[0] else {
                        Issue.record("\(description): list \(l) not cached")
                        return
                    }
                    #expect(cached.stamp == context.orderedOneToManyStamp(clock, owner: list.entity, destination: task))
                    #expect(cached.objects.map { $0.objectID.primaryKey } == stored[l], "\(description): cache of list \(l)")
                }
            }
            func readerOrder() -> State { reader.performAndWait { readerLists.map { titles($0.tasks) } } }
            /// After a reorder saved elsewhere: what every context reads; the main context's undo starts over.
            func adoptExternalChange(_ description: String) throws {
                for note in elsewhere.all.dropFirst(merged) { context.mergeChanges(fromDidSave: note) }
                merged = elsewhere.all.count
                saved = try storedOrder()
                #expect(current() == saved, "\(description): merged")
                #expect(readerOrder() == saved, "\(description): reader")
                try expectCacheMatchesStore(description)
                context.undoManager?.removeAllActions()
                history = [saved]
                redo = []
            }
            for step in 0..<160 {
                let op = Int.random(in: 0..<100, using: &rng)
                var expected = history.last!
                let l = Int.random(in: 0..<2, using: &rng)
                let list = lists[l]
                var description = "seed \(seed) step \(step) op \(op) list \(l)"
                switch op {
                case 0..<22:
                    let index = Int.random(in: 0...expected[l].count, using: &rng)
                    let new = context.insert(TodoTask.self)
                    serial += 1
                    new.title = "t\(serial)"
                    try list.insert(new, at: index, inRelationship: "tasks")
                    expected[l].insert(new.title, at: index)
                    description += " insert \(new.title) at \(index)"
                case 22..<34:
                    // A member of the other list moves here at an index.
                    guard let title = expected[1 - l].randomElement(using: &rng), let moving = task(title) else { continue }
                    expected[1 - l].removeAll { $0 == title }
                    let index = Int.random(in: 0...expected[l].count, using: &rng)
                    try list.insert(moving, at: index, inRelationship: "tasks")
                    expected[l].insert(title, at: index)
                    description += " take \(title) at \(index)"
                case 34..<42:
                    // Through the to-one: last.
                    guard let title = expected[1 - l].randomElement(using: &rng), let moving = task(title) else { continue }
                    moving.list = list
                    expected[1 - l].removeAll { $0 == title }
                    expected[l].append(title)
                    description += " point \(title)"
                case 42..<56:
                    guard expected[l].count > 1 else { continue }
                    let from = Int.random(in: 0..<expected[l].count, using: &rng)
                    let to = Int.random(in: 0..<expected[l].count, using: &rng)
                    try list.moveObject(at: from, to: to, inRelationship: "tasks")
                    expected[l].insert(expected[l].remove(at: from), at: to)
                    description += " move \(from) to \(to)"
                case 56..<62:
                    guard !expected[l].isEmpty else { continue }
                    let index = Int.random(in: 0..<expected[l].count, using: &rng)
                    let title = expected[l].remove(at: index)
                    context.delete(try #require(task(title)))
                    description += " delete \(title)"
                case 62..<66:
                    guard !expected[l].isEmpty else { continue }
                    let index = Int.random(in: 0..<expected[l].count, using: &rng)
                    let title = expected[l].remove(at: index)
                    let removed = try #require(task(title))
                    try list.removeObject(at: index, fromRelationship: "tasks")
                    context.delete(removed)  // no orphans left behind
                    description += " remove \(title)"
                case 66..<78:
                    try context.save()
                    saved = expected
                    let fresh = container.newBackgroundContext()
                    let read = try fresh.performAndWait { () throws in
                        try lists.map { titles((try fresh.existingObject(with: $0.objectID) as! TodoList).tasks) }
                    }
                    #expect(read == expected, "\(description): saved order")
                    #expect(readerOrder() == expected, "\(description): reader after save")
                    context.processPendingChanges()
                    #expect(current() == expected, "\(description): after save")
                    try expectCacheMatchesStore("\(description): after save")
                    guard Int.random(in: 0..<3, using: &rng) == 0, saved[l].count > 1 else { continue }
                    // Another context or another process reorders the saved list.
                    let from = Int.random(in: 0..<saved[l].count, using: &rng)
                    let shift = Int.random(in: 1..<saved[l].count, using: &rng)
                    let to = (from + shift) % saved[l].count  // a real move: the other process commits
                    if Bool.random(using: &rng) {
                        let other = container.newBackgroundContext()
                        try other.performAndWait { () throws in
                            let list = try other.existingObject(with: listIDs[l]) as! TodoList
                            try list.moveObject(at: from, to: to, inRelationship: "tasks")
                            try other.save()
                        }
                        try adoptExternalChange("\(description): other context moves \(from) to \(to)")
                    } else {
                        _ = otherProcess.checkForOtherProcessCommits()
                        let other = otherProcess.viewContext
                        try other.performAndWait { () throws in
                            let list = try other.existingObject(with: listIDs[l]) as! TodoList
                            #expect(titles(list.tasks) == saved[l], "\(description): other process reads")
                            try list.moveObject(at: from, to: to, inRelationship: "tasks")
                            try other.save()
                        }
                        #expect(container.checkForOtherProcessCommits())
                        try adoptExternalChange("\(description): other process moves \(from) to \(to)")
                    }
                    continue
                case 78..<82:
                    context.rollback()
                    history = [saved]
                    redo = []
                    #expect(current() == saved, "\(description): rollback")
                    try expectCacheMatchesStore("\(description): rollback")
                    continue
                case 82..<92:
                    guard context.undo() else { continue }
                    if history.count >= 2 {
                        redo.append(history.removeLast())
                        #expect(current() == history.last!, "\(description): undo")
                        try expectCacheMatchesStore("\(description): undo")
                    }
                    continue
                default:
                    guard context.redo() else { continue }
                    if let next = redo.popLast() {
                        history.append(next)
                        #expect(current() == next, "\(description): redo")
                        try expectCacheMatchesStore("\(description): redo")
                    }
                    continue
                }
                context.processPendingChanges()
                let actual = current()
                #expect(actual == expected, "\(description)")
                if actual != expected { return }
                try expectCacheMatchesStore(description)
                if expected != history.last! {
                    history.append(expected)
                    redo = []
                }
            }
        }
    }
}

/// Ordered one-to-many through a migration step with a custom policy (rows copied one by one).
@Suite struct OrderedOneToManyPolicyMigrationTests {
    static let withPriority = TodoModel.entities(taskAttributes: [.integer("priority", defaultValue: 1)])

    /// Positions (Z_FOK_list) of each list's tasks by title, in stored order.
    func storedPositions(_ container: PersistentContainer) throws -> [String: [String]] {
        try container.store.database.read { db in
            var result: [String: [String]] = [:]
            for row in try Row.fetchAll(
                db,
                sql:
                    "SELECT l.name, t.title, t.Z_FOK_list FROM TodoTask t JOIN TodoList l ON l.Z_PK = t.list ORDER BY l.name, t.Z_FOK_list, t.Z_PK"
            ) {
                result[row[0], default: []].append("\(row[1] as String)@\(row[2] as Int)")
            }
            return result
        }
    }

    @Test func aPolicyKeepsTheOrderAndPutsMovedMembersLast() throws {
        let v1 = TodoModel.model
        let v2 = try ManagedObjectModel(name: "Todo", version: 2, entities: Self.withPriority)
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        let otherList: Int64 = try {
            let container = try PersistentContainer(model: v1, store: .file(url))
            defer { try? container.store.close() }
            return try container.viewContext.performAndWait { () throws -> Int64 in
                let context = container.viewContext
                let home = context.insert(TodoList.self)
                home.name = "home"
                let work = context.insert(TodoList.self)
                work.name = "work"
                for title in ["a", "b", "c", "d"] {
                    let task = context.insert(TodoTask.self)
                    task.title = title
                    task.list = home
                }
                for title in ["e", "f"] {
                    let task = context.insert(TodoTask.self)
                    task.title = title
                    task.list = work
                }
                try context.save()
                try home.moveObject(at: 3, to: 0, inRelationship: "tasks")  // d a b c
                try home.moveObject(at: 2, to: 1, inRelationship: "tasks")  // d b a c
                try work.moveObject(at: 1, to: 0, inRelationship: "tasks")  // f e
                try context.save()
                return work.objectID.primaryKey!
            }
        }()
        // The policy sets each task's priority and moves "b" to the other list.
        let policy = EntityMigrationPolicy(entity: "TodoTask", toVersion: 2) { row in
            row["priority"] = .integer(row.oldString("title") == "d" ? 5 : 2)
            if row.oldString("title") == "b" { row["list"] = .integer(otherList) }
        }
        let plan = try MigrationPlan(versions: [v1, v2], policies: [policy], backupRetention: .remove)
        let container = try PersistentContainer(model: v2, store: .file(url), migrator: plan)
        #expect(try storedPositions(container) == ["home": ["d@0", "a@1", "c@2"], "work": ["f@0", "e@1", "b@2"]])
        try container.viewContext.performAndWait { () throws in
            let lists = try container.viewContext.fetch(FetchRequest<TodoList>(sortDescriptors: [.init("name")]))
            #expect(lists.map { titles($0.tasks) } == [["d", "a", "c"], ["f", "e", "b"]])
        }
    }

    @Test func becomingOrderedThroughAPolicyNumbersTheMembersInKeyOrder() throws {
        let v1 = try ManagedObjectModel(name: "Todo", version: 1, entities: TodoModel.entities(ordered: false))
        let v2 = try ManagedObjectModel(name: "Todo", version: 2, entities: Self.withPriority)
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        do {
            let container = try PersistentContainer(model: v1, store: .file(url))
            try container.viewContext.performAndWait { () throws in
                let context = container.viewContext
                let lists = ["home", "work"].map { name -> TodoList in
                    let list = context.insert(TodoList.self)
                    list.name = name
                    return list
                }
                for (n, title) in ["a", "b", "c", "d", "e"].enumerated() {
                    let task = context.insert(TodoTask.self)
                    task.title = title
                    task.list = lists[n % 2]
                }
                try context.save()
            }
            try container.store.close()
        }
        let policy = EntityMigrationPolicy(entity: "TodoTask", toVersion: 2) { row in row["priority"] = 3 }
        let plan = try MigrationPlan(versions: [v1, v2], policies: [policy], backupRetention: .remove)
        let container = try PersistentContainer(model: v2, store: .file(url), migrator: plan)
        #expect(try storedPositions(container) == ["home": ["a@0", "c@1", "e@2"], "work": ["b@0", "d@1"]])
    }
}
