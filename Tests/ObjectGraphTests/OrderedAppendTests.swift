import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// Appending to an ordered relationship: one read of the members per owner and save, then
/// O(1) per member; a bulk append; the order stays right through saves, moves and removals.
@Suite struct OrderedAppendTests {
    func task(_ context: ManagedObjectContext, _ title: String) -> TodoTask {
        let task = context.insert(TodoTask.self)
        task.title = title
        return task
    }

    @Test(arguments: ["to-one", "add", "bulk"])
    func appendingManyMembersReadsTheMembersOncePerSave(way: String) throws {
        let container = try PersistentContainer(model: TodoModel.model, store: .inMemory)
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            let list = context.insert(TodoList.self)
            list.name = "reading"
            let other = context.insert(TodoList.self)
            other.name = "later"
            for round in 0..<2 {
                let before = context.orderRebuilds
                let tasks = (0..<500).map { task(context, "\(round).\($0)") }
                switch way {
                case "to-one": for t in tasks { t.list = list }
                case "add": for t in tasks { try list.add(t, toRelationship: "tasks") }
                default: try list.add(contentsOf: tasks, toRelationship: "tasks")
                }
                // A member of another list joining goes last too, and leaves the other's order.
                let mover = task(context, "mover\(round)")
                mover.list = other
                mover.list = list
                #expect(context.orderRebuilds - before <= 2)
                #expect(other.tasks.isEmpty)
                #expect(list.tasks.count == 501 * (round + 1))
                #expect(list.tasks.last === mover)
                try context.save()
            }
            let expected = (0..<2).flatMap { round in (0..<500).map { "\(round).\($0)" } + ["mover\(round)"] }
            #expect(titles(list.tasks) == expected)
            context.reset()
            let reread = try #require(
                try context.fetch(FetchRequest<TodoList>(predicate: try ObjectPredicate(format: "name == 'reading'"))).first)
            #expect(titles(reread.tasks) == expected)
        }
        // The positions as stored: 0, 1, 2… in the order, with no gap (runs of appended rows
        // are placed by one statement each).
        let stored = try container.store.database.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT t.title, t.Z_FOK_list FROM TodoTask t JOIN TodoList l ON t.list = l.Z_PK WHERE l.name = 'reading'"
            ).map { "\($0["Z_FOK_list"] as Int) \($0["title"] as String)" }
        }
        let expected = (0..<2).flatMap { round in (0..<500).map { "\(round).\($0)" } + ["mover\(round)"] }
        #expect(Set(stored) == Set(expected.enumerated().map { "\($0.offset) \($0.element)" }))
    }

    @Test func appendsMixWithMovesRemovalsAndInsertsInOneSave() throws {
        let container = try PersistentContainer(model: TodoModel.model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            let list = context.insert(TodoList.self)
            list.name = "mix"
            let a = task(context, "a")
            let b = task(context, "b")
            let c = task(context, "c")
            a.list = list
            b.list = list
            try list.moveObject(at: 1, to: 0, inRelationship: "tasks")
            c.list = list
            #expect(titles(list.tasks) == ["b", "a", "c"])
            b.list = nil
            let d = task(context, "d")
            d.list = list
            b.list = list
            #expect(titles(list.tasks) == ["a", "c", "d", "b"])
            try list.insert(task(context, "e"), at: 0, inRelationship: "tasks")
            task(context, "f").list = list
            #expect(titles(list.tasks) == ["e", "a", "c", "d", "b", "f"])
            context.delete(c)
            task(context, "g").list = list
            #expect(titles(list.tasks) == ["e", "a", "d", "b", "f", "g"])
            try context.save()
            context.reset()
            let reread = try #require(try context.fetch(FetchRequest<TodoList>()).first)
            #expect(titles(reread.tasks) == ["e", "a", "d", "b", "f", "g"])
        }
    }

    @Test func appendsWithUndoOnStillUndoOneByOne() throws {
        let container = try PersistentContainer(model: TodoModel.model, store: .inMemory)
        let context = container.viewContext
        context.undoManager = ContextUndoManager()
        try context.performAndWait { () throws in
            let list = context.insert(TodoList.self)
            list.name = "undo"
            try context.save()
            context.undoManager?.removeAllActions()
            for title in ["a", "b", "c"] {
                task(context, title).list = list
                context.processPendingChanges()
            }
            #expect(titles(list.tasks) == ["a", "b", "c"])
            context.undo()
            #expect(titles(list.tasks) == ["a", "b"])
        }
    }

    @Test func aBulkAppendChecksEveryMemberFirstAndChangesNothingOnAWrongOne() throws {
        let container = try PersistentContainer(model: TodoModel.model, store: .inMemory)
        let context = container.viewContext
        let elsewhere = container.newBackgroundContext()
        try context.performAndWait { () throws in
            let list = context.insert(TodoList.self)
            list.name = "checked"
            let good = task(context, "good")
            let wrongKind = context.insert(TodoList.self)
            wrongKind.name = "not a task"
            #expect(
                throws: ObjectGraphError.typeMismatch(
                    entity: "TodoList", key: "tasks", expected: "TodoTask", got: "TodoList")
            ) { try list.add(contentsOf: [good, wrongKind], toRelationship: "tasks") }
            let foreign = elsewhere.performAndWait { elsewhere.insert(TodoTask.self) }
            #expect(throws: ObjectGraphError.self) { try list.add(contentsOf: [good, foreign], toRelationship: "tasks") }
            #expect(throws: ObjectGraphError.unknownKey(entity: "TodoList", key: "name")) {
                try list.add(contentsOf: [good], toRelationship: "name")
            }
            #expect(list.tasks.isEmpty && good.list == nil)
            // Members already there keep their place; repeats count once.
            try list.add(contentsOf: [good, task(context, "next"), good], toRelationship: "tasks")
            try list.add(contentsOf: [task(context, "last"), good], toRelationship: "tasks")
            #expect(titles(list.tasks) == ["good", "next", "last"])
        }
    }

    @Test func aBulkAppendToAnOrderedManyToManyKeepsTheOrderAndSkipsMembers() throws {
        let container = try PersistentContainer(model: PlaylistModel.model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            let playlist = context.insert(Playlist.self)
            playlist.name = "mix"
            let songs = ["x", "y", "z"].map { title -> Song in
                let song = context.insert(Song.self)
                song.title = title
                return song
            }
            try playlist.add(songs[1], toRelationship: "songs")
            try playlist.add(contentsOf: songs, toRelationship: "songs")
            #expect(titles(playlist.songs) == ["y", "x", "z"])
            try context.save()
            context.reset()
            let reread = try #require(try context.fetch(FetchRequest<Playlist>()).first)
            #expect(titles(reread.songs) == ["y", "x", "z"])
            #expect(reread.songs.allSatisfy { $0.playlists.count == 1 })
        }
    }
}
