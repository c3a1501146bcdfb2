import Foundation
import GRDB
import Testing

@testable import ObjectGraph

@Suite struct DerivedCountTests {
    /// The invariant, as an observer can see it in `context`: every folder's unreadCount
    /// equals the number of its unread notes, unsaved changes included.
    func checkInvariant(_ context: ManagedObjectContext, _ step: String) throws {
        try context.performAndWait { () throws in
            for folder in try context.fetch(FetchRequest<Folder>()) {
                let unread = try context.count(
                    for: FetchRequest<Note>(
                        predicate: try ObjectPredicate(format: "folder.name == %@ AND read == NO", folder.name)))
                #expect(folder.unreadCount == Int64(unread), "\(step): \(context.name ?? "") folder \(folder.name)")
                if folder.unreadCount != Int64(unread) { throw CancellationError() }
            }
        }
    }

    func checkStore(_ container: PersistentContainer, _ step: String) throws {
        let rows = try container.store.database.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT f.name, f.unreadCount, (SELECT COUNT(*) FROM Note n WHERE n.folder = f.Z_PK AND n.read = 0) FROM Folder f"
            )
        }
        for row in rows {
            let name: String = row[0]
            let stored: Int64 = row[1]
            let actual: Int64 = row[2]
            #expect(stored == actual, "\(step): stored count of \(name)")
            if stored != actual { throw CancellationError() }
        }
    }

    @Test func aKeyPathPredicateCountsAsItsFormatStringDoes() throws {
        let typed = AttributeDescription.derivedCount(
            "unreadCount", of: "notes", where: \Note.read == false && \Note.rating > 1.5)
        let named = AttributeDescription.derivedCount("unreadCount", of: "notes", where: "read == NO AND rating > 1.5")
        let format = try #require(typed.derivedCount?.predicateFormat)
        #expect(try ObjectPredicate(format: format) == ObjectPredicate(format: "read == NO AND rating > 1.5"))
        func model(_ count: AttributeDescription) throws -> ManagedObjectModel {
            var entities = TestModel.entities()
            entities[0].attributes[2] = count
            return try ManagedObjectModel(name: "Test", version: 1, entities: entities)
        }
        // The same schema: a store made with one opens with the other.
        #expect(try model(typed).schemaHash == model(named).schemaHash)
        let container = try PersistentContainer(model: try model(typed), store: .inMemory)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let folder = ctx.insert(Folder.self)
            folder.name = "A"
            for (read, rating) in [(false, 2.0), (false, 1.0), (true, 3.0), (false, 5.0)] {
                let note = ctx.insert(Note.self)
                note.read = read
                note.rating = rating
                note.folder = folder
            }
            try ctx.save()
            #expect(folder.unreadCount == 2)
        }
        let stored = try container.store.database.read { db in try Int64.fetchOne(db, sql: "SELECT unreadCount FROM Folder") }
        #expect(stored == 2)
    }

    @Test func aCountedParentIsHeldUntilTheSave() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let folderID = try {
                let folder = ctx.insert(Folder.self)
                folder.name = "F"
                try ctx.save()
                return folder.objectID
            }()
            weak var parent: Folder?
            do {
                let folder = try #require(try ctx.existingObject(with: folderID) as? Folder)
                for _ in 0..<3 { ctx.insert(Note.self).folder = folder }
                parent = folder
            }
            // Nobody but the context holds the folder now: without the hold, the save would
            // read it again from the store to update its count. Held once, for three notes.
            #expect(parent != nil)
            #expect(ctx.heldCounterParents.count == 1)
            try ctx.save()
            #expect(ctx.heldCounterParents.isEmpty, "held past the save")
            #expect(try (ctx.existingObject(with: folderID) as? Folder)?.unreadCount == 3)
        }
        try checkStore(container, "after the save")
    }

    @Test func toggleUpdatesCountAtOnce() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let f = ctx.insert(Folder.self)
            f.name = "F"
            var notes: [Note] = []
            for _ in 0..<5 {
                let n = ctx.insert(Note.self)
                n.folder = f
                notes.append(n)
            }
            ctx.processPendingChanges()
            #expect(f.unreadCount == 5)
            try ctx.save()
            #expect(f.unreadCount == 5)
            notes[0].read = true
            ctx.processPendingChanges()
            #expect(f.unreadCount == 4)
            ctx.delete(notes[1])
            ctx.processPendingChanges()
            #expect(f.unreadCount == 3)
            ctx.rollback()
            #expect(f.unreadCount == 5)
            let g = ctx.insert(Folder.self)
            g.name = "G"
            notes[2].folder = g
            ctx.processPendingChanges()
            #expect(f.unreadCount == 4 && g.unreadCount == 1)
            try ctx.save()
        }
        try checkStore(container, "end")
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomOperationSequencesKeepCountsExact(seed: UInt64) throws {
        var rng = PredicateRandomGenerator(seed: seed)  // SplitMix64, in PredicateTestSupport.swift
        let container = try TestModel.container()
        let a = container.newContext(queue: DispatchQueue(label: "A"), name: "A")
        a.undoManager = ContextUndoManager()
        a.mergePolicy = .storeTrumps
        let b = container.newContext(queue: DispatchQueue(label: "B"), name: "B")
        b.mergePolicy = .objectTrumps
        let saves = Recorder<DidSaveNotification>()
        let token = container.bus.observeDidSave { saves.append($0) }
        try a.performAndWait { () throws in
            for name in ["F0", "F1", "F2"] { a.insert(Folder.self).name = name }
            try a.save()
        }
        var delivered = 0
        for step in 0..<400 {
            let context = Bool.random(using: &rng) ? a : b
            let other = context === a ? b : a
            let op = Int.random(in: 0..<100, using: &rng)
            var description = "seed \(seed) step \(step) \(context.name!) op \(op)"
            try context.performAndWait { () throws in
                let folders = try context.fetch(FetchRequest<Folder>(sortDescriptors: [ObjectSortDescriptor("name")]))
                let notes = try context.fetch(FetchRequest<Note>())
                switch op {
                case 0..<25:
                    guard !folders.isEmpty else { return }
                    let n = context.insert(Note.self)
                    n.read = Bool.random(using: &rng)
                    n.folder = folders.randomElement(using: &rng)
                    description += " insert"
                case 25..<50:
                    guard let n = notes.randomElement(using: &rng) else { return }
                    n.read.toggle()
                    description += " toggle"
                case 50..<60:
                    guard let n = notes.randomElement(using: &rng) else { return }
                    context.delete(n)
                    description += " delete"
                case 60..<68:
                    guard let n = notes.randomElement(using: &rng) else { return }
                    n.folder = Bool.random(using: &rng) ? folders.randomElement(using: &rng) : nil
                    description += " move"
                case 68..<85:
                    description += TwoContextSteps.save(context)
                case 85..<89:
                    context.rollback()
                    description += " rollback"
                case 89..<95:
                    description += TwoContextSteps.undo(context, undoing: a)
                case 95..<98:
                    description += TwoContextSteps.redo(context, undoing: a)
                default:
                    if folders.count > 1, Int.random(in: 0..<4, using: &rng) == 0 {
                        context.delete(folders.last!)
                        description += " delete folder"
                    }
                }
            }
            TwoContextSteps.deliverLate(saves, delivered: &delivered, to: [a, b], using: &rng)
            _ = other
            if ProcessInfo.processInfo.environment["OG_TRACE"] != nil { print(description) }
            // The store is exact after every step; a context is exact whenever it has merged
            // every save made elsewhere (before that it shows an older state, as any context does).
            try checkStore(container, description)
            if delivered == saves.all.count {
                try checkInvariant(a, description)
                try checkInvariant(b, description)
            }
        }
        withExtendedLifetime(token) {}
    }

    @Test func mergeKeepsLocalUnsavedDelta() throws {
        let container = try TestModel.container()
        let ui = container.newContext(queue: DispatchQueue(label: "ui"), name: "ui")
        let (folderID, noteIDs) = try ui.performAndWait { () throws in
            let f = ui.insert(Folder.self)
            f.name = "F"
            var ids: [Note] = []
            for _ in 0..<4 {
                let n = ui.insert(Note.self)
                n.folder = f
                ids.append(n)
            }
            try ui.save()
            return (f.objectID, ids.map(\.objectID))
        }
        // UI marks note 0 read (unsaved); a background import adds 2 unread notes and
        // another process marks note 0 read as well.
        ui.performAndWait { (ui.object(with: noteIDs[0]) as! Note).read = true }
        let bg = container.newBackgroundContext()
        let saves = Recorder<DidSaveNotification>()
        let token = container.bus.observeDidSave(excluding: ui) { saves.append($0) }
        try bg.performAndWait { () throws in
            let f = try bg.existingObject(with: folderID) as! Folder
            for _ in 0..<2 { bg.insert(Note.self).folder = f }
            (try bg.existingObject(with: noteIDs[0]) as! Note).read = true
            try bg.save()
        }
        try ui.performAndWait { () throws in
            for note in saves.all { ui.mergeChanges(fromDidSave: note) }
            let f = ui.object(with: folderID) as! Folder
            #expect(f.unreadCount == 5)  // 4 + 2 - 1, not double-counting note 0
            try ui.save()
            #expect(f.unreadCount == 5)
        }
        try checkStore(container, "after merge")
        withExtendedLifetime(token) {}
    }
}
