import Foundation
import Synchronization
import Testing

@testable import ObjectGraph

/// Dictionary results (`propertiesToFetch`, grouping, aggregates), and a randomized
/// differential test of them and of cached to-many contents against plain object fetches.
@Suite struct DictionaryResultTests {
    /// Folders A (notes 0–5) and B (notes 6–9); rating i % 3, read for even i.
    func populated() throws -> PersistentContainer {
        try TestModel.twoFolders(notes: 10, inA: 6, ratings: 3)
    }

    @Test func groupsWithAggregates() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var request = FetchRequest<Note>()
            request.propertiesToGroupBy = ["folder.name"]
            request.propertiesToFetch = [
                .key("folder.name", as: "folder"), .count(as: "n"), .aggregate(.sum, of: "rating", as: "sum"),
                .aggregate(.avg, of: "rating", as: "avg"), .aggregate(.min, of: "title", as: "first"),
                .aggregate(.max, of: "rating", as: "best"), .aggregate(.count, of: "created", as: "dated"),
            ]
            let rows = try ctx.fetchDictionaries(request)
            #expect(rows.map { $0["folder"] } == [.string("A"), .string("B")])
            #expect(rows.map { $0["n"] } == [.integer(6), .integer(4)])
            #expect(rows.map { $0["sum"] } == [.double(6), .double(3)])  // 0+1+2+0+1+2, 0+1+2+0
            #expect(rows.map { $0["avg"] } == [.double(1), .double(0.75)])
            #expect(rows.map { $0["first"] } == [.string("note 0"), .string("note 6")])
            #expect(rows.map { $0["best"] } == [.double(2), .double(2)])
            #expect(rows.map { $0["dated"] } == [.integer(0), .integer(0)])

            // Unsaved changes count: a new note in B, note 0 deleted, note 1 marked 5.
            let b = try #require(try ctx.fetch(FetchRequest<Folder>(predicate: try ObjectPredicate(format: "name == 'B'"))).first)
            let extra = ctx.insert(Note.self)
            extra.title = "extra"
            extra.rating = 3
            extra.folder = b
            let notes = try ctx.fetch(
                FetchRequest<Note>(
                    predicate: try ObjectPredicate(format: "title BEGINSWITH 'note'"),
                    sortDescriptors: [ObjectSortDescriptor("title")]))
            ctx.delete(notes[0])
            notes[1].rating = 5
            request.sortDescriptors = [ObjectSortDescriptor("n", ascending: false)]
            let changed = try ctx.fetchDictionaries(request)
            #expect(changed.map { $0["folder"] } == [.string("A"), .string("B")])
            #expect(changed.map { $0["n"] } == [.integer(5), .integer(5)])
            #expect(changed.map { $0["sum"] } == [.double(10), .double(6)])
            #expect(changed.map { $0["first"] } == [.string("note 1"), .string("extra")])
            #expect(changed.map { $0["best"] } == [.double(5), .double(3)])
        }
    }

    @Test func groupByRelationshipGivesObjectIDs() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var request = FetchRequest<Note>(predicate: try ObjectPredicate(format: "read == YES"))
            request.propertiesToGroupBy = ["folder", "read"]
            request.propertiesToFetch = [.key("folder"), .key("read"), .count(as: "n")]
            let rows = try ctx.fetchDictionaries(request)
            let folders = try ctx.fetch(FetchRequest<Folder>(sortDescriptors: [ObjectSortDescriptor("name")]))
            #expect(rows.map { $0.objectIDs["folder"] } == folders.map(\.objectID))
            #expect(rows.map { $0["n"] } == [.integer(3), .integer(2)])
            #expect(rows.allSatisfy { $0["read"] == .bool(true) })
        }
    }

    @Test func aggregatesWithoutGroupsGiveOneResultEvenForNoObjects() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var request = FetchRequest<Note>()
            request.propertiesToFetch = [.count(as: "n"), .aggregate(.sum, of: "rating", as: "sum")]
            #expect(
                try ctx.fetchDictionaries(request) == [
                    FetchedDictionary(values: ["n": .integer(0), "sum": .null], objectIDs: [:])
                ])
        }
    }

    @Test func projectionAndDistinct() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var request = FetchRequest<Note>(
                sortDescriptors: [ObjectSortDescriptor("rating", ascending: false), ObjectSortDescriptor("title")], fetchLimit: 3)
            request.propertiesToFetch = [.key("title"), .key("folder.name", as: "folder")]
            #expect(
                try ctx.fetchDictionaries(request).map { [$0["title"], $0["folder"]] } == [
                    [.string("note 2"), .string("A")], [.string("note 5"), .string("A")], [.string("note 8"), .string("B")],
                ])
            request.propertiesToFetch = [.key("rating")]
            request.returnsDistinctResults = true
            request.fetchLimit = 2
            request.fetchOffset = 1
            #expect(try ctx.fetchDictionaries(request).map { $0["rating"] } == [.double(1), .double(0)])
            // Every stored attribute by default.
            var all = FetchRequest<Note>(predicate: try ObjectPredicate(format: "title == 'note 3'"))
            all.propertiesToFetch = []
            let row = try #require(try ctx.fetchDictionaries(all).first)
            #expect(Set(row.values.keys) == ["title", "body", "read", "rating", "created", "blob"])
        }
    }

    @Test func badPropertiesAreRefusedWithAReason() throws {
        let container = try populated()
        let ctx = container.viewContext
        ctx.performAndWait {
            var request = FetchRequest<Note>()
            request.propertiesToGroupBy = ["read"]
            request.propertiesToFetch = [.key("title"), .count(as: "n")]
            #expect(
                throws: ObjectGraphError.invalidFetchRequest(
                    entity: "Note", message: "'title' is neither grouped by nor an aggregate")
            ) {
                try ctx.fetchDictionaries(request)
            }
            request.propertiesToFetch = [.key("read"), .aggregate(.sum, of: "folder", as: "s")]
            #expect(throws: ObjectGraphError.self) { try ctx.fetchDictionaries(request) }
            request.propertiesToFetch = [.key("read")]
            request.sortDescriptors = [ObjectSortDescriptor("title")]
            #expect(throws: ObjectGraphError.self) { try ctx.fetchDictionaries(request) }
            var toMany = FetchRequest<Folder>()
            toMany.propertiesToFetch = [.key("notes.title")]
            #expect(throws: ObjectGraphError.self) { try ctx.fetchDictionaries(toMany) }
            var unknown = FetchRequest<Note>()
            unknown.propertiesToFetch = [.key("nope")]
            #expect(throws: ObjectGraphError.unknownKey(entity: "Note", key: "nope")) { try ctx.fetchDictionaries(unknown) }
        }
    }

    // MARK: Randomized differential test

    /// What a dictionary result should be, computed from objects.
    private struct Expected {
        static func groupKey(_ v: Value?, _ id: ObjectID?) -> [String] {
            ["\(v.map(String.init(describing:)) ?? "-")", "\(id?.rawValue ?? 0)"]
        }
    }

    /// Random inserts, changes, moves, deletes, saves, rollbacks and other contexts' saves;
    /// after each step, dictionary results and every folder's notes are compared with what
    /// a plain fetch of all notes gives.
    @Test(arguments: 0..<12) func differential(seed: Int) throws {
        var random = PredicateRandomGenerator(seed: UInt64(seed) &* 7919 &+ 17)
        let container = try TestModel.container()
        let ctx = container.viewContext
        let other = container.newBackgroundContext()
        // The other context's saves, merged into ctx (an unmerged context's objects keep
        // their old relationships while the store has new ones).
        let saves = Mutex<[DidSaveNotification]>([])
        let token = container.bus.observeDidSave(excluding: ctx) { note in saves.withLock { $0.append(note) } }
        defer { token.cancel() }
        ctx.mergePolicy = .objectTrumps
        try ctx.performAndWait { () throws in
            for name in ["A", "B", "C"] { ctx.insert(Folder.self).name = name }
            try ctx.save()
            var folderCount = 3
            for step in 0..<80 {
                let folders = try ctx.fetch(FetchRequest<Folder>())
                let notes = try ctx.fetch(FetchRequest<Note>())
                switch Int.random(in: 0..<12, using: &random) {
                case 0, 1, 2:
                    let n = ctx.insert(Note.self)
                    n.title = ["x", "y", "z", nil].randomElement(using: &random)!
                    n.rating = Double(Int.random(in: 0..<4, using: &random))
                    n.read = Bool.random(using: &random)
                    n.folder = (folders + [nil]).randomElement(using: &random)!
                case 3:
                    if let n = notes.randomElement(using: &random) { n.folder = (folders + [nil]).randomElement(using: &random)! }
                case 4:
                    if let n = notes.randomElement(using: &random) { n.rating = Double(Int.random(in: 0..<4, using: &random)) }
                case 5:
                    if let n = notes.randomElement(using: &random) { n.read.toggle() }
                case 6:
                    if let n = notes.randomElement(using: &random) { ctx.delete(n) }
                case 7, 8:
                    try ctx.save()
                case 9:
                    ctx.rollback()
                case 10:
                    folderCount += 1
                    ctx.insert(Folder.self).name = "F\(folderCount)"
                default:
                    // Another context inserts and moves saved notes between saved folders.
                    let moveAnother = Bool.random(using: &random)
                    try other.performAndWait { () throws in
                        let saved = try other.fetch(FetchRequest<Folder>())
                        let n = other.insert(Note.self)
                        n.title = "other"
                        n.rating = 1
                        n.folder = saved.first
                        if moveAnother, let m = try other.fetch(FetchRequest<Note>()).first { m.folder = saved.last }
                        try other.save()
                    }
                    for note in saves.withLock({ s in
                        defer { s = [] }
                        return s
                    }) { ctx.mergeChanges(fromDidSave: note) }
                }
                ctx.processPendingChanges()
                try check(ctx, context: "seed \(seed) step \(step)")
            }
        }
    }

    private func check(_ ctx: ManagedObjectContext, context: String) throws {
        let notes = try ctx.fetch(FetchRequest<Note>())
        // Every folder's notes, cached or not, as the notes' own relationship says.
        for folder in try ctx.fetch(FetchRequest<Folder>()) {
            let expected = Set(notes.filter { $0.folder === folder }.map(\.objectID))
            #expect(Set(folder.notes.map(\.objectID)) == expected, "\(context): \(folder.name)")
            #expect(folder.notes.count == expected.count, "\(context): duplicates in \(folder.name)")
        }
        // Grouped by folder and read.
        var request = FetchRequest<Note>()
        request.propertiesToGroupBy = ["folder", "read"]
        request.propertiesToFetch = [
            .key("folder"), .key("read"), .count(as: "n"), .aggregate(.sum, of: "rating", as: "sum"),
            .aggregate(.avg, of: "rating", as: "avg"), .aggregate(.min, of: "title", as: "min"),
            .aggregate(.max, of: "title", as: "max"), .aggregate(.count, of: "title", as: "titled"),
        ]
        var groups: [[String]: [Note]] = [:]
        for n in notes { groups[Expected.groupKey(.bool(n.read), n.folder?.objectID), default: []].append(n) }
        let expected = groups.values.map { members -> FetchedDictionary in
            let titles = members.compactMap(\.title)
            var d = FetchedDictionary(
                values: [
                    "read": .bool(members[0].read), "n": .integer(Int64(members.count)),
                    "sum": .double(members.reduce(0) { $0 + $1.rating }),
                    "avg": .double(members.reduce(0) { $0 + $1.rating } / Double(members.count)),
                    "min": titles.min().map(Value.string) ?? .null, "max": titles.max().map(Value.string) ?? .null,
                    "titled": .integer(Int64(titles.count)),
                ], objectIDs: [:])
            if let id = members[0].folder?.objectID { d.objectIDs["folder"] = id }
            return d
        }
        let sorted = expected.sorted { a, b in
            let p = a.objectIDs["folder"]?.rawValue ?? 0
            let q = b.objectIDs["folder"]?.rawValue ?? 0
            if p != q { return p < q }
            return a["read"] == .bool(false) && b["read"] == .bool(true)
        }
        #expect(try ctx.fetchDictionaries(request) == sorted, "\(context): grouped")
        // Projection in the request's order, with a limit.
        var projection = FetchRequest<Note>(
            sortDescriptors: [ObjectSortDescriptor("rating"), ObjectSortDescriptor("title", ascending: false)], fetchLimit: 7,
            fetchOffset: 2)
        projection.propertiesToFetch = [.key("title"), .key("folder.name", as: "folder"), .key("folder", as: "id")]
        let projected = try ctx.fetch(projection).map { n -> FetchedDictionary in
            var d = FetchedDictionary(
                values: ["title": n.title.map(Value.string) ?? .null, "folder": n.folder.map { .string($0.name) } ?? .null],
                objectIDs: [:])
            if let id = n.folder?.objectID { d.objectIDs["id"] = id }
            return d
        }
        #expect(try ctx.fetchDictionaries(projection) == projected, "\(context): projection")
    }
}
