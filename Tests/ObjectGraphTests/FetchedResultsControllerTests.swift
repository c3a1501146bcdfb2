import Foundation
import Testing

@testable import ObjectGraph

/// Applies a controller's changes, in order, to a copy of its sections, checking each
/// change against the copy as it goes: the copy must end equal to a fresh fetch.
final class ResultsMirror<Result: ManagedObject>: FetchedResultsControllerDelegate {
    var sections: [(name: String, objects: [ManagedObject])]
    let context: ManagedObjectContext
    var changes: [FetchedResultsChange] = []
    var batches = 0
    var problems: [String] = []

    init(_ controller: FetchedResultsController<Result>) {
        sections = controller.sections.map { ($0.name, $0.objects) }
        context = controller.context
    }

    func controllerWillChangeContent(_ controller: FetchedResultsController<Result>) { batches += 1 }

    func controller(_ controller: FetchedResultsController<Result>, didChange change: FetchedResultsChange) {
        changes.append(change)
        func check(_ id: ObjectID, at path: ResultIndexPath) {
            guard path.section < sections.count, path.item < sections[path.section].objects.count,
                sections[path.section].objects[path.item].objectID == id
            else {
                problems.append("\(change): nothing with that ID at \(path)")
                return
            }
        }
        switch change {
        case .insertSection(let name, let index):
            sections.insert((name, []), at: index)
        case .deleteSection(let name, let index):
            if sections[index].name != name || !sections[index].objects.isEmpty { problems.append("\(change): not empty") }
            sections.remove(at: index)
        case .insert(let id, let path):
            guard let object = context.registeredObject(for: id) else {
                problems.append("\(change): no such object")
                return
            }
            sections[path.section].objects.insert(object, at: path.item)
        case .delete(let id, let path):
            check(id, at: path)
            sections[path.section].objects.remove(at: path.item)
        case .move(let id, let from, let to):
            check(id, at: from)
            let object = sections[from.section].objects.remove(at: from.item)
            sections[to.section].objects.insert(object, at: to.item)
        case .update(let id, let path):
            check(id, at: path)
        }
    }

    var objects: [ObjectIdentifier] { sections.flatMap { $0.objects.map(ObjectIdentifier.init) } }
}

@Suite struct FetchedResultsControllerTests {
    func populated(_ location: StoreLocation = .inMemory) throws -> PersistentContainer {
        try TestModel.twoFolders(location, notes: 10, inA: 5, ratings: 3)
    }

    /// The controller, its mirror and a fresh fetch agree.
    func expectCurrent<T>(_ controller: FetchedResultsController<T>, _ mirror: ResultsMirror<T>) throws {
        let freshObjects = try controller.context.fetch(controller.fetchRequest)
        let fresh = freshObjects.map(ObjectIdentifier.init)
        #expect(controller.fetchedObjects.map(ObjectIdentifier.init) == fresh)
        #expect(mirror.objects == fresh)
        #expect(mirror.problems == [])
        #expect(mirror.sections.map(\.name) == controller.sections.map(\.name))
        if let key = controller.sectionNameKeyPath {
            var names: [String] = []
            for object in try controller.context.fetch(controller.fetchRequest) {
                let value = try object.value(forKeyPath: key)
                var name = value.description
                if case .string(let s) = value { name = s } else if value == .null { name = "" }
                if names.last != name { names.append(name) }
            }
            #expect(controller.sections.map(\.name) == names)
        }
    }

    @Test func reportsInsertUpdateMoveAndDeleteInOrder() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Note>(
                    predicate: try ObjectPredicate(format: "read == NO"), sortDescriptors: [ObjectSortDescriptor("title")]),
                context: ctx)
            try controller.performFetch()
            #expect(controller.fetchedObjects.map(\.title) == ["note 1", "note 3", "note 5", "note 7", "note 9"])
            let mirror = ResultsMirror(controller)
            controller.delegate = mirror

            let new = ctx.insert(Note.self)
            new.title = "note 4a"
            ctx.processPendingChanges()
            #expect(mirror.changes == [.insert(new.objectID, at: ResultIndexPath(section: 0, item: 2))])

            mirror.changes = []
            let seven = controller.object(at: ResultIndexPath(section: 0, item: 4))
            seven.title = "note 0"
            ctx.processPendingChanges()
            #expect(
                mirror.changes == [
                    .move(seven.objectID, from: ResultIndexPath(section: 0, item: 4), to: ResultIndexPath(section: 0, item: 0))
                ])

            mirror.changes = []
            seven.rating = 9
            ctx.processPendingChanges()
            #expect(mirror.changes == [.update(seven.objectID, at: ResultIndexPath(section: 0, item: 0))])

            mirror.changes = []
            let one = controller.object(at: ResultIndexPath(section: 0, item: 1))
            one.read = true  // no longer matches
            ctx.delete(controller.object(at: ResultIndexPath(section: 0, item: 2)))
            ctx.processPendingChanges()
            #expect(mirror.changes.count == 2)
            #expect(controller.fetchedObjects.map(\.title) == ["note 0", "note 4a", "note 5", "note 9"])
            try expectCurrent(controller, mirror)

            try ctx.save()
            try expectCurrent(controller, mirror)
            ctx.rollback()
            #expect(controller.indexPath(for: new) == ResultIndexPath(section: 0, item: 1))
        }
    }

    @Test func aKeyPathSectionsAsItsNameDoes() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            func sections(_ controller: FetchedResultsController<Note>) throws -> [String] {
                try controller.performFetch()
                return controller.sections.map { "\($0.name) \($0.numberOfObjects)" }
            }
            let request = FetchRequest<Note>(
                sortDescriptors: [ObjectSortDescriptor(\Note.folder?.name), ObjectSortDescriptor(\Note.title)])
            let typed = try FetchedResultsController(fetchRequest: request, context: ctx, sectionNameKeyPath: \Note.folder?.name)
            let named = try FetchedResultsController(fetchRequest: request, context: ctx, sectionNameKeyPath: "folder.name")
            #expect(typed.sectionNameKeyPath == "folder.name")
            #expect(try sections(typed) == sections(named))
            #expect(try sections(typed) == ["A 5", "B 5"])
            // Not the first sort key: refused as the string form is.
            #expect(throws: ObjectGraphError.self) {
                try FetchedResultsController(fetchRequest: request, context: ctx, sectionNameKeyPath: \Note.rating)
            }
        }
    }

    @Test func sectionsComeAndGo() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Note>(
                    sortDescriptors: [ObjectSortDescriptor("rating", ascending: false), ObjectSortDescriptor("title")]),
                context: ctx, sectionNameKeyPath: "rating")
            try controller.performFetch()
            #expect(controller.sections.map(\.name) == ["2.0", "1.0", "0.0"])
            #expect(controller.sections.map(\.numberOfObjects) == [3, 3, 4])
            let mirror = ResultsMirror(controller)
            controller.delegate = mirror

            let new = ctx.insert(Note.self)
            new.title = "fresh"
            new.rating = 5
            ctx.processPendingChanges()
            #expect(
                mirror.changes == [
                    .insertSection(name: "5.0", at: 0), .insert(new.objectID, at: ResultIndexPath(section: 0, item: 0)),
                ])
            mirror.changes = []
            new.rating = 1  // its section empties: a deletion and an insertion, not a move
            ctx.processPendingChanges()
            #expect(mirror.changes.first == .delete(new.objectID, at: ResultIndexPath(section: 0, item: 0)))
            #expect(mirror.changes.dropFirst().first == .deleteSection(name: "5.0", at: 0))
            try expectCurrent(controller, mirror)
            mirror.changes = []
            // Moving between existing sections is a move.
            let top = controller.object(at: ResultIndexPath(section: 0, item: 0))
            top.rating = 0
            ctx.processPendingChanges()
            guard case .move(_, let from, let to) = mirror.changes.first else {
                Issue.record("expected a move, got \(mirror.changes)")
                return
            }
            #expect(from.section == 0 && to.section == 2)
            try expectCurrent(controller, mirror)
        }
    }

    @Test func followsSavesOfOtherContexts() throws {
        let container = try populated()
        let view = container.viewContext
        let (controller, mirror) = try view.performAndWait { () throws in
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]), context: view)
            try controller.performFetch()
            let mirror = ResultsMirror(controller)
            controller.delegate = mirror
            return (controller, mirror)
        }
        let background = container.newBackgroundContext()
        try background.performAndWait { () throws in
            let notes = try background.fetch(FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]))
            notes[0].title = "zzz"
            background.delete(notes[1])
            let n = background.insert(Note.self)
            n.title = "note 55"
            try background.save()
        }
        try view.performAndWait { () throws in
            #expect(mirror.batches == 1)
            #expect(controller.fetchedObjects.map(\.title).last == "zzz")
            #expect(controller.fetchedObjects.contains { $0.title == "note 55" })
            #expect(!controller.fetchedObjects.contains { $0.title == "note 1" })
            try expectCurrent(controller, mirror)
        }
    }

    @Test func followsCommitsOfOtherProcesses() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.sqlite")
        let container = try populated(.file(url))
        let view = container.viewContext
        let (controller, mirror) = try view.performAndWait { () throws in
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Note>(
                    predicate: try ObjectPredicate(format: "read == NO"), sortDescriptors: [ObjectSortDescriptor("title")]),
                context: view)
            try controller.performFetch()
            let mirror = ResultsMirror(controller)
            controller.delegate = mirror
            return (controller, mirror)
        }
        _ = container.checkForOtherProcessCommits()  // sets the baseline
        // Another stack on the same file stands for another process (its own connections).
        let other = try TestModel.container(.file(url))
        try other.viewContext.performAndWait { () throws in
            let ctx = other.viewContext
            let notes = try ctx.fetch(FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]))
            notes[1].title = "zz"  // note 1, unread: moves to the end
            notes[3].read = true  // note 3 leaves
            notes[0].read = false  // note 0 joins
            let n = ctx.insert(Note.self)
            n.title = "note 77"
            try ctx.save()
        }
        #expect(container.checkForOtherProcessCommits())
        try view.performAndWait { () throws in
            #expect(controller.fetchedObjects.map(\.title) == ["note 0", "note 5", "note 7", "note 77", "note 9", "zz"])
            try expectCurrent(controller, mirror)
        }
    }

    @Test func streamsChangeBatches() async throws {
        let container = try populated()
        let view = container.viewContext
        let controller = try view.performAndWait { () throws in
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]), context: view)
            try controller.performFetch()
            return controller
        }
        let batches = controller.changeBatches()
        let id = try view.performAndWait { () throws in
            let n = view.insert(Note.self)
            n.title = "a"
            view.processPendingChanges()
            return n.objectID
        }
        var iterator = batches.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first == [.insert(id, at: ResultIndexPath(section: 0, item: 0))])
    }

    @Test func refusesRequestsItCannotKeepLive() throws {
        let container = try populated()
        let ctx = container.viewContext
        ctx.performAndWait {
            #expect(throws: ObjectGraphError.self) {
                try FetchedResultsController(fetchRequest: FetchRequest<Note>(fetchLimit: 5), context: ctx)
            }
            do {
                _ = try FetchedResultsController(
                    fetchRequest: FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]), context: ctx,
                    sectionNameKeyPath: "rating")
                Issue.record("a section key path that is not the first sort key was accepted")
            } catch {
                #expect(
                    "\(error)"
                        == "invalid fetch request for Note: the section key path 'rating' must be the key of the first sort descriptor"
                )
            }
            #expect(throws: ObjectGraphError.unknownKey(entity: "Note", key: "nope")) {
                try FetchedResultsController(
                    fetchRequest: FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("nope")]), context: ctx)
            }
        }
    }

    /// Random inserts, edits, deletions, saves, rollbacks, undos and other contexts' saves:
    /// after every batch the live results equal a fresh fetch, and the reported changes
    /// turn the old results into the new ones.
    @Test(arguments: Array(1...16) as [UInt64])
    func randomChangesKeepResultsEqualToAFreshFetch(seed: UInt64) throws {
        var random = PredicateRandomGenerator(seed: seed)
        let container = try populated()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let sectioned = seed % 2 == 0
        let (controller, mirror) = try view.performAndWait { () throws in
            view.undoManager = ContextUndoManager()
            view.mergePolicy = .objectTrumps
            let request = FetchRequest<Note>(
                predicate: try ObjectPredicate(format: "read == NO OR rating >= 2"),
                sortDescriptors: sectioned
                    ? [ObjectSortDescriptor("rating"), ObjectSortDescriptor("title", ascending: false)]
                    : [ObjectSortDescriptor("title"), ObjectSortDescriptor("rating", ascending: false)])
            let controller = try FetchedResultsController(
                fetchRequest: request, context: view, sectionNameKeyPath: sectioned ? "rating" : nil)
            try controller.performFetch()
            let mirror = ResultsMirror(controller)
            controller.delegate = mirror
            return (controller, mirror)
        }
        func edit(_ ctx: ManagedObjectContext, _ random: inout PredicateRandomGenerator) throws {
            let notes = try ctx.fetch(FetchRequest<Note>())
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                switch Int.random(in: 0..<10, using: &random) {
                case 0, 1:
                    let n = ctx.insert(Note.self)
                    n.title = "note \(Int.random(in: 0..<30, using: &random))"
                    n.rating = Double(Int.random(in: 0..<4, using: &random))
                    n.read = Bool.random(using: &random)
                case 2:
                    if let n = notes.randomElement(using: &random), !n.isDeleted { ctx.delete(n) }
                case 3, 4, 5:
                    notes.randomElement(using: &random)?.title = "note \(Int.random(in: 0..<30, using: &random))"
                case 6, 7:
                    notes.randomElement(using: &random)?.rating = Double(Int.random(in: 0..<4, using: &random))
                default:
                    notes.randomElement(using: &random)?.read = Bool.random(using: &random)
                }
            }
        }
        for _ in 0..<100 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1:
                try background.performAndWait { () throws in
                    try edit(background, &random)
                    try background.save()
                }
            default:
                try view.performAndWait { () throws in
                    switch Int.random(in: 0..<8, using: &random) {
                    case 0: try view.save()
                    case 1: view.rollback()
                    case 2: _ = view.undoManager?.undo(in: view)
                    default: try edit(view, &random)
                    }
                    view.processPendingChanges()
                }
            }
            try view.performAndWait { () throws in try expectCurrent(controller, mirror) }
        }
        #expect(mirror.batches > 10)
    }
}
