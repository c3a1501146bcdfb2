import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// Random operations on an inheritance hierarchy (articles, podcasts and videos on shelves,
/// see `InheritanceModel`) in two contexts, one with undo, with saves merged late. After every
/// step:
/// - the store: each row's `Z_ENT` names an entity that exists and is not abstract, and each
///   shelf's stored derived counts (items, unread items, featured podcasts) equal the counts
///   of its rows;
/// - each context that has merged every save: a fetch of every entity of the hierarchy, with
///   and without sub-entities, finds exactly the objects of those classes among a fetch of the
///   root (SQL for stored rows, memory for changed ones), in rank order; counts and sums agree;
///   random predicates over inherited keys select the same objects from the parent and from
///   each sub-entity; each shelf's counts equal what its relationships hold.
@Suite struct InheritanceDifferentialTests {
    static let kinds: [(name: String, type: InhItem.Type)] = [
        ("Article", InhArticle.self), ("Podcast", InhPodcast.self), ("Video", InhVideo.self),
    ]

    func checkStore(_ container: PersistentContainer, _ step: String) throws {
        let (kinds, counts) = try container.store.database.read { db in
            (
                Set(try String.fetchAll(db, sql: "SELECT DISTINCT Z_ENT FROM Item")),
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT s.name, s.itemCount, (SELECT COUNT(*) FROM Item i WHERE i.shelf = s.Z_PK),
                          s.unreadCount, (SELECT COUNT(*) FROM Item i WHERE i.shelf = s.Z_PK AND i.read = 0),
                          s.podcastCount, (SELECT COUNT(*) FROM Item i WHERE i.feature = s.Z_PK AND i.Z_ENT IN ('Podcast', 'Video'))
                        FROM Shelf s
                        """)
            )
        }
        #expect(kinds.isSubset(of: ["Article", "Podcast", "Video"]), "\(step): kinds \(kinds)")
        for row in counts {
            let name: String = row[0]
            for (stored, actual, what) in [(1, 2, "items"), (3, 4, "unread"), (5, 6, "podcasts")] {
                let s: Int64 = row[stored]
                let a: Int64 = row[actual]
                #expect(s == a, "\(step): stored \(what) count of shelf \(name)")
                if s != a { throw CancellationError() }
            }
        }
    }

    func checkContext(_ context: ManagedObjectContext, _ step: String, _ rng: inout PredicateRandomGenerator) throws {
        let threshold = Int64.random(in: 0..<10, using: &rng)
        let read = Bool.random(using: &rng)
        try context.performAndWait { () throws in
            let byRank = [ObjectSortDescriptor("rank"), ObjectSortDescriptor("title")]
            let all = try context.fetch(FetchRequest<InhItem>(sortDescriptors: byRank))
            #expect(try context.count(for: FetchRequest<InhItem>()) == all.count, "\(step): count of items")
            let sum = try context.aggregate(.sum, of: "rank", for: FetchRequest<InhItem>())
            let expectedSum: Value = all.isEmpty ? .null : .integer(all.reduce(0) { $0 + $1.rank })
            #expect(sum == expectedSum, "\(step): sum of ranks \(sum) \(expectedSum)")
            func titles(_ objects: [InhItem]) -> [String] { objects.map { "\($0.title ?? "")#\($0.rank)" } }
            func check<T: InhItem>(_ type: T.Type, _ name: String, exact: Bool, _ predicate: ObjectPredicate?) throws {
                var request = FetchRequest<T>(predicate: predicate, sortDescriptors: byRank)
                request.includesSubentities = !exact
                let fetched = try context.fetch(request)
                let expected = try all.filter { object throws in
                    guard exact ? Swift.type(of: object) == type : object is T else { return false }
                    return try predicate?.evaluate(with: object) ?? true
                }
                #expect(
                    titles(fetched) == titles(expected), "\(step): \(name)\(exact ? " only" : "") \(predicate?.description ?? "")"
                )
                #expect(try context.count(for: request) == expected.count, "\(step): count of \(name)")
                if titles(fetched) != titles(expected) { throw CancellationError() }
            }
            let predicate = try ObjectPredicate(format: "rank >= %d AND read == %@", threshold, read)
            for p in [nil, predicate] as [ObjectPredicate?] {
                try check(InhArticle.self, "Article", exact: false, p)
                try check(InhPodcast.self, "Podcast", exact: false, p)
                try check(InhPodcast.self, "Podcast", exact: true, p)
                try check(InhVideo.self, "Video", exact: false, p)
            }
            for shelf in try context.fetch(FetchRequest<InhShelf>()) {
                let items = shelf.items
                #expect(shelf.itemCount == Int64(items.count), "\(step): itemCount of \(shelf.name)")
                #expect(shelf.unreadCount == Int64(items.filter { !$0.read }.count), "\(step): unreadCount of \(shelf.name)")
                #expect(shelf.podcastCount == Int64(shelf.podcasts.count), "\(step): podcastCount of \(shelf.name)")
                #expect(
                    Set(items.map(\.objectID))
                        == Set(all.filter { $0.shelf?.objectID == shelf.objectID }.map(\.objectID)),
                    "\(step): items of \(shelf.name)")
                if shelf.itemCount != Int64(items.count) { throw CancellationError() }
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomOperationsAgreeAcrossTheHierarchy(seed: UInt64) throws {
        var rng = PredicateRandomGenerator(seed: seed)  // SplitMix64, in PredicateTestSupport.swift
        let container = try InheritanceModel.container()
        let a = container.newContext(queue: DispatchQueue(label: "A"), name: "A")
        a.undoManager = ContextUndoManager()
        a.mergePolicy = .storeTrumps
        let b = container.newContext(queue: DispatchQueue(label: "B"), name: "B")
        b.mergePolicy = .objectTrumps
        let saves = Recorder<DidSaveNotification>()
        let token = container.bus.observeDidSave { saves.append($0) }
        try a.performAndWait { () throws in
            for name in ["S0", "S1", "S2"] { a.insert(InhShelf.self).name = name }
            try a.save()
        }
        var delivered = 0
        var serial = 0
        for step in 0..<200 {
            let context = Bool.random(using: &rng) ? a : b
            let op = Int.random(in: 0..<100, using: &rng)
            var description = "seed \(seed) step \(step) \(context.name!) op \(op)"
            try context.performAndWait { () throws in
                let shelves = try context.fetch(FetchRequest<InhShelf>(sortDescriptors: [ObjectSortDescriptor("name")]))
                let items = try context.fetch(FetchRequest<InhItem>(sortDescriptors: [ObjectSortDescriptor("title")]))
                switch op {
                case 0..<22:
                    let kind = Self.kinds.randomElement(using: &rng)!
                    let item = try context.insertObject(entityName: kind.name) as! InhItem
                    serial += 1
                    item.title = "\(kind.name.prefix(1))\(serial)"
                    item.rank = Int64.random(in: 0..<10, using: &rng)
                    item.read = Bool.random(using: &rng)
                    item.shelf = shelves.randomElement(using: &rng)
                    if let podcast = item as? InhPodcast, Bool.random(using: &rng) {
                        podcast.feature = shelves.randomElement(using: &rng)
                    }
                    description += " insert \(kind.name)"
                case 22..<40:
                    guard let item = items.randomElement(using: &rng) else { return }
                    item.read.toggle()
                    item.rank = Int64.random(in: 0..<10, using: &rng)
                    description += " change"
                case 40..<48:
                    guard let item = items.randomElement(using: &rng) else { return }
                    context.delete(item)
                    description += " delete"
                case 48..<56:
                    guard let item = items.randomElement(using: &rng) else { return }
                    item.shelf = Bool.random(using: &rng) ? shelves.randomElement(using: &rng) : nil
                    if let podcast = item as? InhPodcast { podcast.feature = shelves.randomElement(using: &rng) }
                    description += " move"
                case 56..<60:
                    guard let shelf = shelves.randomElement(using: &rng) else { return }
                    let updated = try context.execute(
                        BatchUpdateRequest(
                            entityName: ["Item", "Podcast", "Article"].randomElement(using: &rng)!,
                            predicate: try ObjectPredicate(format: "shelf == %@", shelf.objectID),
                            propertiesToUpdate: ["read": .bool(Bool.random(using: &rng))]))
                    description += " batch update \(updated.changedCount)"
                case 60..<75:
                    description += TwoContextSteps.save(context)
                case 75..<80:
                    context.rollback()
                    description += " rollback"
                case 80..<88:
                    description += TwoContextSteps.undo(context, undoing: a)
                case 88..<93:
                    description += TwoContextSteps.redo(context, undoing: a)
                default:
                    if shelves.count > 1, Int.random(in: 0..<4, using: &rng) == 0 {
                        context.delete(shelves.last!)
                        description += " delete shelf"
                    }
                }
            }
            TwoContextSteps.deliverLate(saves, delivered: &delivered, to: [a, b], using: &rng)
            if ProcessInfo.processInfo.environment["OG_TRACE"] != nil { print(description) }
            try checkStore(container, description)
            if delivered == saves.all.count {
                try checkContext(a, description, &rng)
                try checkContext(b, description, &rng)
            }
        }
        // The sequence must have exercised the hierarchy, or it proves little.
        let kinds = try container.store.database.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT Z_ENT FROM Item") }
        #expect(kinds.count >= 2, "only \(kinds) stored")
        withExtendedLifetime(token) {}
    }
}

extension DerivedCountTests {
    /// A derived count over a relationship to a sub-entity, new in a model version: the
    /// migration counts the existing rows of that entity and its sub-entities only.
    @Test func migrationCountsTheChildrenOfEveryKind() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("inherit-count-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("lib.sqlite")
        var old = InheritanceModel.entities()
        old[0].attributes.removeAll { $0.name == "podcastCount" || $0.name == "unreadCount" }
        let v1 = try ManagedObjectModel(name: "Library", version: 1, entities: old)
        let v2 = try ManagedObjectModel(name: "Library", version: 2, entities: InheritanceModel.entities())
        do {
            let container = try PersistentContainer(model: v1, store: .file(url))
            let ctx = container.viewContext
            try ctx.performAndWait { () throws in
                let shelf = ctx.insert(InhShelf.self)
                shelf.name = "S"
                for kind in ["Article", "Podcast", "Video", "Video"] {
                    let item = try ctx.insertObject(entityName: kind) as! InhItem
                    item.shelf = shelf
                    item.read = kind == "Podcast"
                    (item as? InhPodcast)?.feature = shelf
                }
                try ctx.save()
            }
        }
        let container = try PersistentContainer(model: v2, store: .file(url), migrator: try MigrationPlan(versions: [v1, v2]))
        try container.viewContext.performAndWait { () throws in
            let shelf = try #require(try container.viewContext.fetch(FetchRequest<InhShelf>()).first)
            #expect(shelf.itemCount == 4)
            #expect(shelf.unreadCount == 3)
            #expect(shelf.podcastCount == 3)
        }
    }
}
