import Foundation
import ObjectGraph
import Testing

/// Uniqueness conflicts resolved by merge policy: an inserted object whose constrained keys
/// are taken is merged into the object holding them, both ways, within one save and across
/// contexts.
@Suite struct UpsertTests {
    /// A container holding folder "A" (position 1) with one unread note "stored".
    private func storedFolder() throws -> PersistentContainer {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let a = ctx.insert(Folder.self)
            a.name = "A"
            a.position = 1
            let note = ctx.insert(Note.self)
            note.title = "stored"
            note.folder = a
            try ctx.save()
        }
        return container
    }

    /// Every folder in the store: name, position, unread count and its notes' titles, sorted.
    private func folders(in container: PersistentContainer) throws -> [String] {
        let ctx = container.newBackgroundContext()
        return try ctx.performAndWait { () throws in
            try ctx.fetch(FetchRequest<Folder>()).map { folder in
                "\(folder.name) \(folder.position) \(folder.unreadCount) \(folder.notes.compactMap(\.title).sorted())"
            }.sorted()
        }
    }

    /// Inserts folder "A" at `position` with a new note "new" in `ctx`, under `policy`, and saves.
    private func insertConflictingFolder(in ctx: ManagedObjectContext, policy: MergePolicy, position: Int64) throws {
        try ctx.performAndWait { () throws in
            ctx.mergePolicy = policy
            let a = ctx.insert(Folder.self)
            a.name = "A"
            a.position = position
            let note = ctx.insert(Note.self)
            note.title = "new"
            note.folder = a
            try ctx.save()
        }
    }

    @Test func objectTrumpsAppliesTheInsertedValuesToTheStoredObject() throws {
        let container = try storedFolder()
        let view = container.viewContext
        let viewFolder = try view.performAndWait { () throws in try #require(try view.fetch(FetchRequest<Folder>()).first) }
        let storedID = view.performAndWait { viewFolder.objectID }
        let background = container.newBackgroundContext()
        try insertConflictingFolder(in: background, policy: .objectTrumps, position: 5)
        #expect(try folders(in: container) == ["A 5 2 [\"new\", \"stored\"]"])
        try background.performAndWait { () throws in
            let kept = try #require(try background.fetch(FetchRequest<Folder>()).first)
            #expect(kept.objectID == storedID)
            #expect(!background.hasChanges)
        }
        // The view context, merged from the bus, sees the stored folder with both notes.
        view.performAndWait {
            #expect(viewFolder.position == 5)
            #expect(viewFolder.unreadCount == 2)
        }
    }

    @Test func storeTrumpsKeepsTheStoredValuesAndTakesTheRelatedObjects() throws {
        let container = try storedFolder()
        try insertConflictingFolder(in: container.newBackgroundContext(), policy: .storeTrumps, position: 5)
        #expect(try folders(in: container) == ["A 1 2 [\"new\", \"stored\"]"])
    }

    @Test func rollbackKeepsTheStoredValues() throws {
        let container = try storedFolder()
        try insertConflictingFolder(in: container.newBackgroundContext(), policy: .rollback, position: 5)
        #expect(try folders(in: container) == ["A 1 2 [\"new\", \"stored\"]"])
    }

    @Test func objectTrumpsLeavesKeysTheInsertedObjectWasNotGiven() throws {
        // Position 0 is the default: the inserted folder was not given one.
        let container = try storedFolder()
        try insertConflictingFolder(in: container.newBackgroundContext(), policy: .objectTrumps, position: 0)
        #expect(try folders(in: container) == ["A 1 2 [\"new\", \"stored\"]"])
    }

    @Test func overwriteWritesEveryValueOfTheInsertedObject() throws {
        let container = try storedFolder()
        try insertConflictingFolder(in: container.newBackgroundContext(), policy: .overwrite, position: 0)
        #expect(try folders(in: container) == ["A 0 2 [\"new\", \"stored\"]"])
    }

    @Test func errorPolicyStillRefusesTheConflict() throws {
        let container = try storedFolder()
        let background = container.newBackgroundContext()
        #expect(throws: ObjectGraphError.uniquenessViolation(entity: "Folder", keys: ["name"], values: ["\"A\""])) {
            try insertConflictingFolder(in: background, policy: .error, position: 5)
        }
        #expect(try folders(in: container) == ["A 1 1 [\"stored\"]"])
    }

    @Test(arguments: [(MergePolicy.objectTrumps, Int64(2)), (.storeTrumps, 1), (.overwrite, 2), (.rollback, 1)])
    func conflictsWithinOneSaveMergeIntoTheFirstInserted(policy: MergePolicy, position: Int64) throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            ctx.mergePolicy = policy
            var first: Folder?
            for (n, title) in ["one", "two"].enumerated() {
                let folder = ctx.insert(Folder.self)
                folder.name = "X"
                folder.position = Int64(n + 1)
                let note = ctx.insert(Note.self)
                note.title = title
                note.folder = folder
                first = first ?? folder
            }
            try ctx.save()
            #expect(first?.managedObjectContext === ctx)
            #expect(try ctx.count(for: FetchRequest<Folder>()) == 1)
        }
        #expect(try folders(in: container) == ["X \(position) 2 [\"one\", \"two\"]"])
    }

    @Test func aStoredObjectRegisteredInTheSavingContextIsTheOneKept() throws {
        let container = try storedFolder()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            ctx.mergePolicy = .objectTrumps
            let stored = try #require(try ctx.fetch(FetchRequest<Folder>()).first)
            let inserted = ctx.insert(Folder.self)
            inserted.name = "A"
            inserted.position = 9
            try ctx.save()
            #expect(stored.position == 9)
            #expect(inserted.managedObjectContext == nil)
            #expect(ctx.registeredObject(for: inserted.objectID) === stored)
            #expect(try ctx.count(for: FetchRequest<Folder>()) == 1)
        }
    }

    @Test func liveResultsAndCountsFollowAnUpsert() throws {
        let container = try storedFolder()
        let ctx = container.viewContext
        let controller = try ctx.performAndWait { () throws in
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Folder>(sortDescriptors: [ObjectSortDescriptor("name")]), context: ctx)
            try controller.performFetch()
            return controller
        }
        try insertConflictingFolder(in: container.newBackgroundContext(), policy: .objectTrumps, position: 4)
        ctx.performAndWait {
            #expect(controller.fetchedObjects.map(\.position) == [4])
            #expect(controller.fetchedObjects.map(\.unreadCount) == [2])
        }
    }
}

/// Uniqueness over several keys, one of them a to-one relationship: items are unique by
/// feed and guid.
@Suite struct CompoundUpsertTests {
    final class Feed: ManagedObject {
        @Managed("url") var url: String
        @ToMany("items") var items: [Item]
    }

    final class Item: ManagedObject {
        @Managed("guid") var guid: String
        @Managed("title") var title: String?
        @ToOne("feed") var feed: Feed?
    }

    static let model = try! ManagedObjectModel(
        name: "Feeds", version: 1,
        entities: [
            EntityDescription(
                "Feed", managedClass: Feed.self, attributes: [.string("url", optional: false)],
                relationships: [.toMany("items", destination: "Item", inverse: "feed", deleteRule: .cascade)],
                uniquenessConstraints: [["url"]]),
            EntityDescription(
                "Item", managedClass: Item.self, attributes: [.string("guid", optional: false), .string("title")],
                relationships: [.toOne("feed", destination: "Feed", inverse: "items")],
                uniquenessConstraints: [["feed", "guid"]]),
        ])

    /// Inserts (and saves, as an upsert) the feed with `url` and items `guid: title`.
    private func refresh(_ container: PersistentContainer, url: String, items: [(String, String)]) throws {
        let ctx = container.newBackgroundContext()
        try ctx.performAndWait { () throws in
            ctx.mergePolicy = .objectTrumps
            let feed = ctx.insert(Feed.self)
            feed.url = url
            for (guid, title) in items {
                let item = ctx.insert(Item.self)
                item.guid = guid
                item.title = title
                item.feed = feed
            }
            try ctx.save()
        }
    }

    private func contents(_ container: PersistentContainer) throws -> [String] {
        let ctx = container.newBackgroundContext()
        return try ctx.performAndWait { () throws in
            try ctx.fetch(FetchRequest<Item>()).map { "\($0.feed?.url ?? "-") \($0.guid) \($0.title ?? "-")" }.sorted()
        }
    }

    @Test func theSameGuidInAnotherFeedIsNoConflict() throws {
        let container = try PersistentContainer(model: Self.model, store: .inMemory)
        try refresh(container, url: "a", items: [("1", "a one"), ("2", "a two")])
        try refresh(container, url: "b", items: [("1", "b one")])
        try refresh(container, url: "a", items: [("2", "a two, edited"), ("3", "a three")])
        #expect(try contents(container) == ["a 1 a one", "a 2 a two, edited", "a 3 a three", "b 1 b one"])
        let ctx = container.newBackgroundContext()
        try ctx.performAndWait { () throws in #expect(try ctx.count(for: FetchRequest<Feed>()) == 2) }
    }

    @Test func aFileStoreUpsertsAcrossContainers() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("feeds.sqlite")
        try refresh(try PersistentContainer(model: Self.model, store: .file(url)), url: "a", items: [("1", "old")])
        let container = try PersistentContainer(model: Self.model, store: .file(url))
        try refresh(container, url: "a", items: [("1", "new"), ("1", "newer")])
        #expect(try contents(container) == ["a 1 newer"])
    }
}
