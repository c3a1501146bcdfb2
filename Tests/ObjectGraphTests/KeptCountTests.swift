import Foundation
import GRDB
import Synchronization
import Testing

@testable import ObjectGraph

/// Kept counts (``ManagedObjectContext/keptCounts(of:matching:timeLimit:forgettingOthers:)``):
/// after each kind of write the kept count equals a fresh count, and a call after changes
/// reads the changed objects only.
@Suite struct KeptCountTests {
    static let formats = [
        "read == NO AND title CONTAINS[c] '1'",  // the root's own columns
        "folder.name == 'A' AND rating >= 1",  // through a to-one stored in the row
        "read == NO",
    ]

    /// Asks for the kept counts and checks each against `COUNT(*)` of the same predicate.
    @discardableResult
    func check(_ context: ManagedObjectContext, _ step: String, formats: [String] = formats) throws -> KeptCounts {
        try context.performAndWait { () throws -> KeptCounts in
            let predicates = try formats.map { try ObjectPredicate(format: $0) }
            let kept = try context.keptCounts(of: "Note", matching: predicates)
            for (predicate, result) in zip(predicates, kept.counts) {
                let fresh = try context.count(for: FetchRequest<Note>(predicate: predicate))
                #expect(try result.get() == fresh, "\(step): \(predicate)")
            }
            return kept
        }
    }

    @Test func keptCountsFollowEveryKindOfWrite() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("k.sqlite")
        let container = try TestModel.twoFolders(.file(url), notes: 200, inA: 50, ratings: 3)
        let ctx = container.viewContext
        ctx.undoManager = ContextUndoManager()
        var kept = try check(ctx, "first")
        #expect(kept.fullCounts == 3)
        kept = try check(ctx, "unchanged")
        #expect(kept.fullCounts == 0 && kept.changedObjects == 0)

        // Inserts, a read toggle, a delete, in one save.
        try ctx.performAndWait { () throws in
            let a = try #require(try Folder.findFirst(byAttribute: "name", value: .string("A"), in: ctx))
            for i in 0..<10 {
                let n = ctx.insert(Note.self)
                n.title = "new 1\(i)"
                n.rating = 2
                n.folder = a
            }
            let notes = try ctx.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'note 11'")))
            notes[0].read.toggle()
            ctx.delete(try ctx.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'note 13'")))[0])
            try ctx.save()
        }
        kept = try check(ctx, "insert, toggle, delete")
        #expect(kept.fullCounts == 0 && kept.changedObjects == 12)

        // Undo of that save, then a batch update that bypasses objects.
        try ctx.performAndWait { () throws in
            #expect(ctx.undo())
            try ctx.save()
        }
        kept = try check(ctx, "undo")
        #expect(kept.fullCounts == 0)
        try ctx.performAndWait { () throws in
            let update = BatchUpdateRequest(
                entityName: "Note", predicate: try ObjectPredicate(format: "read == NO"),
                propertiesToUpdate: ["read": .bool(true)])
            _ = try ctx.execute(update)
        }
        kept = try check(ctx, "batch update")
        #expect(kept.fullCounts == 0 && kept.changedObjects > 0)

        // A change of the related object: folder B renamed A.
        try ctx.performAndWait { () throws in
            let a = try #require(try Folder.findFirst(byAttribute: "name", value: .string("A"), in: ctx))
            a.name = "Z"
            try ctx.save()
            let b = try #require(try Folder.findFirst(byAttribute: "name", value: .string("B"), in: ctx))
            b.name = "A"
            try ctx.save()
        }
        kept = try check(ctx, "folder renamed")
        #expect(kept.fullCounts == 0)

        // Another process: its own container on the same file, writing while this one is open.
        do {
            let other = try TestModel.container(.file(url))
            let o = other.viewContext
            try o.performAndWait { () throws in
                for n in try o.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "rating == 2"))) { n.read = false }
                let f = try #require(try Folder.findFirst(byAttribute: "name", value: .string("A"), in: o))
                o.delete(f)  // cascades to its notes
                try o.save()
            }
            try other.store.close()
        }
        kept = try check(ctx, "another process")
        #expect(kept.fullCounts == 0)

        // Forgetting: no kept count, no trigger left to cost writes.
        _ = try ctx.performAndWait { () throws in try ctx.keptCounts(of: "Note", matching: [], forgettingOthers: true) }
        let triggers = try container.store.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'Z_KEPT%'")
        }
        #expect(triggers.isEmpty)
        kept = try check(ctx, "counted again")
        #expect(kept.fullCounts == 3)
    }

    @Test func aCallAfterChangesReadsNoTableWhole() throws {
        let dir = TemporaryDirectory()
        let container = try TestModel.twoFolders(.file(dir.file("k.sqlite")), notes: 300, inA: 100, ratings: 3)
        let ctx = container.viewContext
        try check(ctx, "first")
        try ctx.performAndWait { () throws in
            for n in try ctx.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format: "rating == 1"))) { n.read.toggle() }
            try ctx.save()
        }
        // Every statement of the next call, on the connection it writes with.
        let statements = Mutex<[String]>([])
        container.store.database.writeWithoutTransaction { db in
            db.trace(options: .statement) { event in
                if case .statement(let s) = event { statements.withLock { $0.append(s.expandedSQL) } }
            }
        }
        let kept = try check(ctx, "after toggles")
        container.store.database.writeWithoutTransaction { db in db.trace(options: .statement, nil) }
        #expect(kept.fullCounts == 0 && kept.changedObjects == 100)
        let plans = try container.store.database.read { db in
            try statements.withLock { $0 }.filter { $0.hasPrefix("SELECT") && !$0.contains("sqlite_master") }.map {
                sql in (sql, try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql)").map { $0["detail"] as String })
            }
        }
        #expect(plans.count >= 3)
        for (sql, plan) in plans where !sql.contains("COUNT(*)") {
            #expect(!plan.contains { $0.hasPrefix("SCAN t0") || $0.hasPrefix("SCAN Note") }, "\(sql): \(plan)")
            // The table is read by primary key only, never through an index of a tested column.
            #expect(!plan.contains { $0.hasPrefix("SEARCH t0 ") && !$0.contains("INTEGER PRIMARY KEY") }, "\(sql): \(plan)")
        }
    }

    @Test func aPredicateThroughAOneToOneThatPointsBackAndOneThatCannotBeKept() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            for i in 0..<6 {
                let p = ctx.insert(Person.self)
                p.name = "p\(i)"
                let profile = ctx.insert(Profile.self)
                profile.bio = i % 2 == 0 ? "cat" : "dog"
                p.profile = profile
                if i < 2 {
                    let pet = ctx.insert(Pet.self)
                    pet.name = "rex"
                    pet.owner = p
                }
            }
            try ctx.save()
        }
        let formats = ["profile.bio == 'cat'", "ANY pets.name == 'rex'"]
        func checkPeople(_ step: String) throws -> KeptCounts {
            try ctx.performAndWait { () throws -> KeptCounts in
                let predicates = try formats.map { try ObjectPredicate(format: $0) }
                let kept = try ctx.keptCounts(of: "Person", matching: predicates)
                for (predicate, result) in zip(predicates, kept.counts) {
                    #expect(try result.get() == ctx.count(for: FetchRequest<Person>(predicate: predicate)), "\(step)")
                }
                return kept
            }
        }
        #expect(try checkPeople("first").fullCounts == 2)
        try ctx.performAndWait { () throws in
            for profile in try ctx.fetch(FetchRequest<Profile>()) { profile.bio = profile.bio == "cat" ? "dog" : "cat" }
            let p = ctx.insert(Person.self)
            p.name = "new"
            try ctx.save()
        }
        #expect(try checkPeople("bios swapped").fullCounts == 1)  // the to-many one is counted each time
        let invalid = try ctx.performAndWait { () throws in
            try ctx.keptCounts(of: "Person", matching: [try ObjectPredicate(format: "nosuchkey == 1")])
        }
        #expect(throws: ObjectGraphError.self) { try invalid.counts[0].get() }
    }
}

@Suite struct KeptCountLimitTests {
    /// A costly predicate stops at the time limit with its error; the others in the same call
    /// are counted (each gets the whole limit), and nothing is kept for the stopped one.
    @Test func aPredicatePastTheTimeLimitFailsAloneAndIsNotKept() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            for i in 0..<4 {
                let n = ctx.insert(Note.self)
                n.title = i == 0 ? String(repeating: "a", count: 80) + "b" : "note \(i)"
            }
            try ctx.save()
        }
        let costly = ObjectPredicate.comparison("title", .matches, .string("(a|aa)+"))
        let kept = try ctx.performAndWait { () throws in
            try ctx.keptCounts(
                of: "Note", matching: [try ObjectPredicate(format: "title BEGINSWITH 'note'"), costly],
                timeLimit: .milliseconds(500))
        }
        #expect(try kept.counts[0].get() == 3)
        #expect {
            try kept.counts[1].get()
        } throws: { error in
            guard case .timeLimitExceeded = error as? ObjectGraphError else { return false }
            return true
        }
        let stored = try container.store.database.read { db in
            try String.fetchAll(db, sql: "SELECT predicate FROM Z_KEPTCOUNT")
        }
        #expect(stored == ["title BEGINSWITH \"note\""])
    }
}

@Suite struct KeptCountMigrationTests {
    /// A migration moves tables aside, which SQLite refuses while a trigger reads them: the
    /// kept counts go first, and the next call counts afresh.
    @Test func aStoreWithKeptCountsMigratesAndCountsAfresh() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("todo.sqlite")
        try makeToDoV1Store(at: url, names: ["Apples", "Bread", "Avocado", "Milk"])
        do {
            let v1 = try PersistentContainer(model: ToDoModels.v1, store: .file(url))
            let kept = try v1.viewContext.performAndWait { () throws in
                try v1.viewContext.keptCounts(of: "ToDo", matching: [try ObjectPredicate(format: "name BEGINSWITH 'A'")])
            }
            #expect(try kept.counts[0].get() == 2)
            try v1.store.close()
        }
        let plan = try MigrationPlan(versions: [ToDoModels.v1, ToDoModels.v2, ToDoModels.v3])
        let container = try PersistentContainer(model: ToDoModels.v3, store: .file(url), migrator: plan)
        let leftOver = try container.store.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'Z_KEPT%'")
        }
        #expect(leftOver.isEmpty)
        let kept = try container.viewContext.performAndWait { () throws in
            try container.viewContext.keptCounts(of: "ToDo", matching: [try ObjectPredicate(format: "title BEGINSWITH 'A'")])
        }
        #expect(try kept.counts[0].get() == 2 && kept.fullCounts == 1)
    }
}
