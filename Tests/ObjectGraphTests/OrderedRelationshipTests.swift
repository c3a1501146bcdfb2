import Foundation
import GRDB
import Testing

@testable import ObjectGraph

final class Playlist: ManagedObject {
    @Managed("name") var name: String
    @ToMany("songs") var songs: [Song]
}

final class Song: ManagedObject {
    @Managed("title") var title: String
    @ToMany("playlists") var playlists: [Playlist]
}

enum PlaylistModel {
    static let model = try! ManagedObjectModel(
        name: "Music", version: 1,
        entities: [
            EntityDescription(
                "Playlist", managedClass: Playlist.self, attributes: [.string("name", optional: false)],
                relationships: [.toMany("songs", destination: "Song", inverse: "playlists", ordered: true)]),
            EntityDescription(
                "Song", managedClass: Song.self, attributes: [.string("title", optional: false)],
                relationships: [.toMany("playlists", destination: "Playlist", inverse: "songs")]),
        ])
}

func titles(_ songs: [Song]) -> [String] { songs.map(\.title) }

@Suite struct OrderedRelationshipTests {
    @Test func modelAcceptsOnlyOneOrderedSideOfAManyToMany() throws {
        // (An ordered one-to-many is accepted: OrderedOneToManyTests.)
        #expect(
            throws: ModelError(message: "A.bs: only one side of a many-to-many relationship can be ordered")
        ) {
            try ManagedObjectModel(
                name: "X", version: 1,
                entities: [
                    EntityDescription("A", relationships: [.toMany("bs", destination: "B", inverse: "as", ordered: true)]),
                    EntityDescription("B", relationships: [.toMany("as", destination: "A", inverse: "bs", ordered: true)]),
                ])
        }
    }

    @Test func makingAManyToManyOrderedIsAnInferredStep() throws {
        let unordered = try ManagedObjectModel(
            name: "Music", version: 1,
            entities: [
                EntityDescription(
                    "Playlist", managedClass: Playlist.self, attributes: [.string("name", optional: false)],
                    relationships: [.toMany("songs", destination: "Song", inverse: "playlists")]),
                EntityDescription(
                    "Song", managedClass: Song.self, attributes: [.string("title", optional: false)],
                    relationships: [.toMany("playlists", destination: "Playlist", inverse: "songs")]),
            ])
        let ordered = try ManagedObjectModel(
            name: "Music", version: 2,
            entities: PlaylistModel.model.entities.map {
                EntityDescription(
                    $0.name, managedClass: $0.managedClass, attributes: $0.attributes, relationships: $0.relationships)
            })
        let tmp = TemporaryDirectory()
        let url = tmp.file("music.sqlite")
        do {
            let container = try PersistentContainer(model: unordered, store: .file(url))
            try container.viewContext.performAndWait { () throws in
                let list = container.viewContext.insert(Playlist.self)
                list.name = "Mix"
                for title in ["a", "b", "c"] {
                    let song = container.viewContext.insert(Song.self)
                    song.title = title
                    try list.add(song, toRelationship: "songs")
                }
                try container.viewContext.save()
            }
            try container.store.close()
        }
        let plan = try MigrationPlan(versions: [unordered, ordered], backupRetention: .remove)
        let container = try PersistentContainer(model: ordered, store: .file(url), migrator: plan)
        try container.viewContext.performAndWait { () throws in
            let list = try container.viewContext.fetch(FetchRequest<Playlist>())[0]
            #expect(titles(list.songs) == ["a", "b", "c"])  // key order, until reordered
            try list.moveObject(at: 2, to: 0, inRelationship: "songs")
            try container.viewContext.save()
        }
        try container.viewContext.performAndWait { () throws in
            container.viewContext.reset()
            let list = try container.viewContext.fetch(FetchRequest<Playlist>())[0]
            #expect(titles(list.songs) == ["c", "a", "b"])
        }
    }

    @Test func insertMoveRemoveAtIndexSurviveSaveAndReload() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("music.sqlite")
        do {
            let container = try PersistentContainer(model: PlaylistModel.model, store: .file(url))
            let context = container.viewContext
            try context.performAndWait { () throws in
                let list = context.insert(Playlist.self)
                list.name = "Mix"
                let songs = ["a", "b", "c", "d"].map { title -> Song in
                    let song = context.insert(Song.self)
                    song.title = title
                    return song
                }
                // Keys are a < b < c < d; the order is the playlist's own.
                list.songs = [songs[2], songs[0]]
                try list.insert(songs[3], at: 1, inRelationship: "songs")
                try list.add(songs[1], toRelationship: "songs")  // appends
                #expect(titles(list.songs) == ["c", "d", "a", "b"])
                try context.save()
                #expect(titles(list.songs) == ["c", "d", "a", "b"])
                try list.moveObject(at: 0, to: 3, inRelationship: "songs")
                #expect(titles(list.songs) == ["d", "a", "b", "c"])
                try list.removeObject(at: 1, fromRelationship: "songs")
                #expect(titles(list.songs) == ["d", "b", "c"] && songs[0].playlists.isEmpty)
                try list.insert(songs[2], at: 0, inRelationship: "songs")  // a member moves
                #expect(titles(list.songs) == ["c", "d", "b"])
                // Added from the other side: last.
                try songs[0].add(list, toRelationship: "playlists")
                #expect(titles(list.songs) == ["c", "d", "b", "a"])
                try context.save()
                #expect(
                    throws: ObjectGraphError.invalidValue(
                        entity: "Playlist", key: "songs", rule: "index", message: "index 9 is out of 0..<4")
                ) { try list.removeObject(at: 9, fromRelationship: "songs") }
            }
            try container.store.close()
        }
        let container = try PersistentContainer(model: PlaylistModel.model, store: .file(url))
        try container.viewContext.performAndWait { () throws in
            let list = try container.viewContext.fetch(FetchRequest<Playlist>())[0]
            #expect(titles(list.songs) == ["c", "d", "b", "a"])
        }
    }

    @Test func undoRedoMergeAndChildKeepTheOrder() throws {
        let container = try PersistentContainer(model: PlaylistModel.model, store: .inMemory)
        container.automaticallyMergesChangesIntoViewContext = false
        let view = container.viewContext
        view.undoManager = ContextUndoManager()
        let viewList = try view.performAndWait { () throws -> Playlist in
            let list = view.insert(Playlist.self)
            list.name = "Mix"
            for title in ["a", "b", "c"] {
                let song = view.insert(Song.self)
                song.title = title
                try list.add(song, toRelationship: "songs")
            }
            try view.save()
            view.undoManager?.removeAllActions()
            try list.moveObject(at: 2, to: 0, inRelationship: "songs")
            view.processPendingChanges()
            try list.removeObject(at: 1, fromRelationship: "songs")
            view.processPendingChanges()
            #expect(titles(list.songs) == ["c", "b"])
            view.undo()
            #expect(titles(list.songs) == ["c", "a", "b"])
            view.undo()
            #expect(titles(list.songs) == ["a", "b", "c"])
            view.redo()
            #expect(titles(list.songs) == ["c", "a", "b"])
            try view.save()
            return list
        }
        let listID = viewList.objectID
        // Another context sees the saved order, and its own move arrives by merge.
        let background = container.newBackgroundContext()
        let changes = Recorder<ChangeSummary>()
        let token = container.bus.observeObjectsDidChange(in: view) { changes.append(summarize($0)) }
        defer { token.cancel() }
        let note = try background.performAndWait { () throws -> DidSaveNotification in
            let list = try background.existingObject(with: listID) as! Playlist
            #expect(titles(list.songs) == ["c", "a", "b"])
            try list.moveObject(at: 0, to: 2, inRelationship: "songs")
            let saved = Recorder<DidSaveNotification>()
            let t = container.bus.observeDidSave(excluding: view) { saved.append($0) }
            try background.save()
            t.cancel()
            return saved.all[0]
        }
        try view.performAndWait { () throws in
            view.mergeChanges(fromDidSave: note)
            let list = try view.existingObject(with: listID) as! Playlist
            #expect(titles(list.songs) == ["a", "b", "c"])
        }
        #expect(changes.all.last?.keys == ["songs"])  // the view holds the playlist: it hears which key changed
        withExtendedLifetime(viewList) {}
        // A child's reorder is pushed into its parent, then saved.
        let sheet = view.newChildContext()
        try sheet.performAndWait { () throws in
            let list = try sheet.existingObject(with: listID) as! Playlist
            let song = sheet.insert(Song.self)
            song.title = "new"
            try list.insert(song, at: 1, inRelationship: "songs")
            try list.moveObject(at: 3, to: 0, inRelationship: "songs")
            #expect(titles(list.songs) == ["c", "a", "new", "b"])
            try sheet.save()
        }
        try view.performAndWait { () throws in
            let list = try view.existingObject(with: listID) as! Playlist
            #expect(titles(list.songs) == ["c", "a", "new", "b"])
            try view.save()
        }
        try background.performAndWait { () throws in
            let list = try background.existingObject(with: listID) as! Playlist
            #expect(titles(list.songs) == ["c", "a", "new", "b"])
        }
    }

    /// Random inserts, moves, removals, saves, rollbacks and undo/redo on one playlist,
    /// against a Swift array; after each save, a fresh context reads the same order.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomEditsMatchAnArray(seed: UInt64) throws {
        var rng = PredicateRandomGenerator(seed: seed)
        let container = try PersistentContainer(model: PlaylistModel.model, store: .inMemory)
        let context = container.viewContext
        context.undoManager = ContextUndoManager()
        context.undoManager?.levelsOfUndo = 0
        try context.performAndWait { () throws in
            let list = context.insert(Playlist.self)
            list.name = "L"
            var pool: [Song] = []
            var saved: [String] = []
            var history: [[String]] = [[]]
            var redo: [[String]] = []
            for step in 0..<150 {
                let op = Int.random(in: 0..<100, using: &rng)
                var expected = history.last!
                var description = "seed \(seed) step \(step) op \(op)"
                switch op {
                case 0..<30:
                    let song: Song
                    // Songs an undo or rollback took away are no longer usable.
                    pool.removeAll { $0.managedObjectContext == nil || $0.isDeleted }
                    if let unused = pool.first(where: { !expected.contains($0.title) }), Bool.random(using: &rng) {
                        song = unused
                    } else {
                        song = context.insert(Song.self)
                        song.title = "s\(step)"
                        pool.append(song)
                    }
                    let index = Int.random(in: 0...expected.count, using: &rng)
                    try list.insert(song, at: index, inRelationship: "songs")
                    expected.insert(song.title, at: index)
                    description += " insert \(song.title) at \(index)"
                case 30..<50:
                    guard expected.count > 1 else { continue }
                    let from = Int.random(in: 0..<expected.count, using: &rng)
                    let to = Int.random(in: 0..<expected.count, using: &rng)
                    try list.moveObject(at: from, to: to, inRelationship: "songs")
                    expected.insert(expected.remove(at: from), at: to)
                    description += " move \(from) to \(to)"
                case 50..<62:
                    guard !expected.isEmpty else { continue }
                    let index = Int.random(in: 0..<expected.count, using: &rng)
                    try list.removeObject(at: index, fromRelationship: "songs")
                    expected.remove(at: index)
                    description += " remove at \(index)"
                case 62..<75:
                    try context.save()
                    saved = expected
                    let fresh = container.newBackgroundContext()
                    let read = try fresh.performAndWait { () throws in
                        titles((try fresh.existingObject(with: list.objectID) as! Playlist).songs)
                    }
                    #expect(read == expected, "\(description): saved order")
                    description += " save"
                    context.processPendingChanges()
                    #expect(titles(list.songs) == expected, "\(description)")
                    continue
                case 75..<80:
                    context.rollback()
                    // Songs inserted since the save are gone.
                    pool.removeAll { $0.managedObjectContext == nil }
                    history = [saved]
                    redo = []
                    #expect(titles(list.songs) == saved, "\(description): rollback")
                    continue
                case 80..<92:
                    guard context.undo() else { continue }
                    if history.count >= 2 {
                        redo.append(history.removeLast())
                        #expect(titles(list.songs) == history.last!, "\(description): undo")
                    }
                    continue
                default:
                    guard context.redo() else { continue }
                    if let next = redo.popLast() {
                        history.append(next)
                        #expect(titles(list.songs) == next, "\(description): redo")
                    }
                    continue
                }
                context.processPendingChanges()
                let actual = titles(list.songs)
                #expect(actual == expected, "\(description)")
                if actual != expected { return }
                if expected != history.last! {
                    history.append(expected)
                    redo = []
                }
            }
        }
    }
}
