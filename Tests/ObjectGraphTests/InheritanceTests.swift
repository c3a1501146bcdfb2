import Foundation
import GRDB
import Testing

@testable import ObjectGraph

// A library: shelves hold items; an item is abstract, an article or a podcast, and a
// video is a podcast. Bookmarks point at any item, tags are many-to-many with items.

final class InhShelf: ManagedObject {
    @Managed("name") var name: String
    @Managed("itemCount") var itemCount: Int64
    @Managed("unreadCount") var unreadCount: Int64
    @Managed("podcastCount") var podcastCount: Int64
    @ToMany("items") var items: [InhItem]
    @ToMany("podcasts") var podcasts: [InhPodcast]
}

class InhItem: ManagedObject {
    @Managed("title") var title: String?
    @Managed("read") var read: Bool
    @Managed("rank") var rank: Int64
    @ToOne("shelf") var shelf: InhShelf?
    @ToMany("bookmarks") var bookmarks: [InhBookmark]
    @ToMany("tags") var tags: [InhTag]
}

final class InhArticle: InhItem {
    @Managed("body") var body: String?
    @Managed("words") var words: Int64
}

class InhPodcast: InhItem {
    @Managed("duration") var duration: Double
    @ToOne("feature") var feature: InhShelf?
}

final class InhVideo: InhPodcast {
    @Managed("resolution") var resolution: Int64?
}

final class InhBookmark: ManagedObject {
    @Managed("note") var note: String?
    @ToOne("item") var item: InhItem?
}

final class InhTag: ManagedObject {
    @Managed("name") var name: String?
    @ToMany("items") var items: [InhItem]
}

// The doc comment example of EntityDescription.init(_:parent:isAbstract:…), as written.
class ReadingItem: ManagedObject {
    @Managed("title") var title: String?
}
final class Essay: ReadingItem {
    @Managed("body") var body: String?
}
final class Episode: ReadingItem {
    @Managed("duration") var duration: Double?
}

enum InheritanceModel {
    static func entities(
        videoAttributes: [AttributeDescription] = [.integer("resolution", optional: true)], withVideo: Bool = true
    )
        -> [EntityDescription]
    {
        var entities = [
            EntityDescription(
                "Shelf", managedClass: InhShelf.self,
                attributes: [
                    .string("name", optional: false), .derivedCount("itemCount", of: "items"),
                    .derivedCount("unreadCount", of: "items", where: "read == NO"),
                    .derivedCount("podcastCount", of: "podcasts"),
                ],
                relationships: [
                    .toMany("items", destination: "Item", inverse: "shelf", deleteRule: .cascade),
                    .toMany("podcasts", destination: "Podcast", inverse: "feature"),
                ]),
            EntityDescription(
                "Item", parent: nil, isAbstract: true, managedClass: InhItem.self,
                attributes: [
                    .string("title").validated(.maxLength(40)), .bool("read", defaultValue: false),
                    .integer("rank", defaultValue: 0),
                ],
                relationships: [
                    .toOne("shelf", destination: "Shelf", inverse: "items"),
                    .toMany("bookmarks", destination: "Bookmark", inverse: "item", deleteRule: .cascade),
                    .toMany("tags", destination: "Tag", inverse: "items"),
                ],
                indexes: [["rank"]]),
            EntityDescription(
                "Article", parent: "Item", managedClass: InhArticle.self,
                attributes: [.string("body"), .integer("words", defaultValue: 0)],
                uniquenessConstraints: [["title"]]),
            EntityDescription(
                "Podcast", parent: "Item", managedClass: InhPodcast.self,
                attributes: [.double("duration", optional: false, defaultValue: 0)],
                relationships: [.toOne("feature", destination: "Shelf", inverse: "podcasts")]),
            EntityDescription(
                "Bookmark", managedClass: InhBookmark.self, attributes: [.string("note")],
                relationships: [.toOne("item", destination: "Item", inverse: "bookmarks")]),
            EntityDescription(
                "Tag", managedClass: InhTag.self, attributes: [.string("name")],
                relationships: [.toMany("items", destination: "Item", inverse: "tags")]),
        ]
        if withVideo {
            entities.append(
                EntityDescription("Video", parent: "Podcast", managedClass: InhVideo.self, attributes: videoAttributes))
        }
        return entities
    }

    static let model = try! ManagedObjectModel(name: "Library", version: 1, entities: entities())

    static func container(_ location: StoreLocation = .inMemory) throws -> PersistentContainer {
        try PersistentContainer(model: model, store: location)
    }
}

@Suite struct InheritanceTests {
    /// A shelf with two articles, a podcast and a video, saved.
    func stocked(_ container: PersistentContainer) throws -> (shelf: InhShelf, items: [InhItem]) {
        let ctx = container.viewContext
        return try ctx.performAndWait { () throws in
            let shelf = ctx.insert(InhShelf.self)
            shelf.name = "S"
            let a1 = ctx.insert(InhArticle.self)
            a1.title = "a1"
            a1.body = "first"
            a1.rank = 3
            let a2 = ctx.insert(InhArticle.self)
            a2.title = "a2"
            a2.rank = 1
            a2.read = true
            let p = ctx.insert(InhPodcast.self)
            p.title = "p"
            p.duration = 60
            p.rank = 2
            let v = ctx.insert(InhVideo.self)
            v.title = "v"
            v.duration = 90
            v.resolution = 1080
            v.rank = 4
            for item in [a1, a2, p, v] as [InhItem] { item.shelf = shelf }
            try ctx.save()
            return (shelf, [a1, a2, p, v])
        }
    }

    @Test func modelFlattensAndDescribesTheHierarchy() throws {
        let model = InheritanceModel.model
        let item = try model.entity(named: "Item")
        let video = try model.entity(named: "Video")
        #expect(item.isAbstract)
        #expect(item.subentityNames == ["Article", "Podcast"])
        #expect(video.parentEntityName == "Podcast")
        #expect(video.attributes.map(\.name) == ["title", "read", "rank", "duration", "resolution"])
        #expect(video.relationships.map(\.name) == ["shelf", "bookmarks", "tags", "feature"])
        #expect(video.indexes == [["rank"]])
        #expect(video.attributes[0].validationRules == item.attributes[0].validationRules)
        #expect(video.isKind(of: item) && !item.isKind(of: video))
        #expect(model.subentities(of: item).map(\.name) == ["Article", "Podcast", "Video"])
        #expect(video.tableName == "Item")
        // One table for the hierarchy, with the discriminator and the sub-entities' columns.
        let create = SchemaGenerator.createStatements(for: model).filter { $0.hasPrefix("CREATE TABLE \"Item\"") }
        #expect(create.count == 1)
        #expect(create[0].contains("\"Z_ENT\" TEXT NOT NULL"))
        for column in ["body", "words", "duration", "resolution", "feature"] { #expect(create[0].contains("\"\(column)\"")) }
        #expect(!SchemaGenerator.createStatements(for: model).contains { $0.hasPrefix("CREATE TABLE \"Article\"") })
        // The article's uniqueness holds among articles only: a partial index.
        #expect(
            SchemaGenerator.createStatements(for: model).contains {
                $0.contains("UNIQUE INDEX") && $0.contains("WHERE \"Z_ENT\" IN ('Article')")
            })
    }

    @Test func badHierarchiesAreRefusedNamingEntityAndKey() {
        func refusal(_ entities: [EntityDescription]) -> String {
            do {
                _ = try ManagedObjectModel(name: "Bad", version: 1, entities: entities)
                return "accepted"
            } catch {
                return error.message
            }
        }
        #expect(refusal([EntityDescription("A", parent: "Nope")]) == "entity 'A': parent entity 'Nope' does not exist")
        #expect(
            refusal([EntityDescription("A", parent: "B"), EntityDescription("B", parent: "A")])
                == "entity 'B': inheritance cycle A → B → A")
        #expect(refusal([EntityDescription("A", parent: "A")]).contains("inheritance cycle"))
        #expect(
            refusal([
                EntityDescription("A", attributes: [.string("x")]),
                EntityDescription("B", parent: "A", attributes: [.integer("x")]),
            ]) == "B.x redeclares A.x as an integer; it is a string in A")
        #expect(
            refusal([
                EntityDescription("A", attributes: [.string("x")]),
                EntityDescription("B", parent: "A", relationships: [.toOne("x", destination: "A", inverse: "y")]),
            ]) == "B.x redeclares attribute A.x as a relationship")
        #expect(
            refusal([EntityDescription("A", parent: nil, isAbstract: true)]) == "entity 'A' is abstract but has no sub-entities")
        // A same-typed redeclaration is allowed: it may change the default.
        #expect(
            refusal([
                EntityDescription("A", attributes: [.integer("x")]),
                EntityDescription("B", parent: "A", attributes: [.integer("x", defaultValue: 7)]),
            ]) == "accepted")
    }

    @Test func abstractEntitiesCannotBeInserted() throws {
        let container = try InheritanceModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            #expect(throws: ObjectGraphError.abstractEntity("Item")) { try ctx.insertObject(entityName: "Item") }
            #expect(
                ObjectGraphError.abstractEntity("Item").description
                    == "entity Item is abstract: insert an object of one of its sub-entities")
            #expect(try ctx.insertObject(entityName: "Video") is InhVideo)
        }
    }

    @Test func fetchesArePolymorphic() throws {
        let container = try InheritanceModel.container()
        _ = try stocked(container)
        // A fresh context: objects are made as rows are read, and through the registered path.
        for warm in [false, true] {
            let ctx = container.newBackgroundContext()
            try ctx.performAndWait { () throws in
                if warm { _ = try ctx.fetch(FetchRequest<InhShelf>()) }
                let items = try ctx.fetch(FetchRequest<InhItem>(sortDescriptors: [ObjectSortDescriptor("rank")]))
                #expect(items.map(\.title) == ["a2", "p", "a1", "v"])
                #expect(items[0] is InhArticle && items[1] is InhPodcast && items[3] is InhVideo)
                #expect(items.map(\.objectID.entity.name) == ["Article", "Podcast", "Article", "Video"])
                #expect((items[2] as? InhArticle)?.body == "first")
                #expect((items[3] as? InhVideo)?.resolution == 1080 && (items[3] as? InhVideo)?.duration == 90)
                let podcasts = try ctx.fetch(FetchRequest<InhPodcast>(sortDescriptors: [ObjectSortDescriptor("duration")]))
                #expect(podcasts.map(\.title) == ["p", "v"])
                var only = FetchRequest<InhPodcast>()
                only.includesSubentities = false
                #expect(try ctx.fetch(only).map(\.title) == ["p"])
                #expect(try ctx.count(for: only) == 1)
                #expect(try ctx.count(for: FetchRequest<InhItem>()) == 4)
                #expect(try ctx.count(for: FetchRequest<InhArticle>()) == 2)
                #expect(try ctx.fetch(FetchRequest<InhVideo>()).map(\.title) == ["v"])
                // Predicates on inherited keys, on a sub-entity's own key, through relationships.
                #expect(
                    try ctx.fetch(FetchRequest<InhItem>(predicate: try ObjectPredicate(format: "read == NO AND rank > 2")))
                        .compactMap(\.title).sorted() == ["a1", "v"])
                #expect(
                    try ctx.fetch(FetchRequest<InhPodcast>(predicate: try ObjectPredicate(format: "duration > 70"))).map(\.title)
                        == ["v"])
                #expect(
                    try ctx.count(for: FetchRequest<InhItem>(predicate: try ObjectPredicate(format: "shelf.name == 'S'"))) == 4)
                #expect(try ctx.aggregate(.sum, of: "rank", for: FetchRequest<InhItem>()) == .integer(10))
                #expect(try ctx.aggregate(.max, of: "duration", for: FetchRequest<InhPodcast>()) == .double(90))
                #expect(
                    try ctx.fetchObjectIDs(FetchRequest<InhItem>()).map(\.entity.name).sorted() == [
                        "Article", "Article", "Podcast", "Video",
                    ])
                // An unknown key of the parent (a sub-entity's own) is refused for the parent.
                #expect(throws: ObjectGraphError.self) {
                    try ctx.fetch(FetchRequest<InhItem>(predicate: try ObjectPredicate(format: "duration > 1")))
                }
            }
        }
    }

    @Test func pendingChangesAndFaultsAcrossTheHierarchy() throws {
        let container = try InheritanceModel.container()
        let (_, items) = try stocked(container)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let extra = ctx.insert(InhVideo.self)
            extra.title = "unsaved"
            extra.rank = 0
            (items[0] as! InhArticle).rank = 9
            ctx.delete(items[2])
            let titles = try ctx.fetch(FetchRequest<InhItem>(sortDescriptors: [ObjectSortDescriptor("rank")])).compactMap(\.title)
            #expect(titles == ["unsaved", "a2", "v", "a1"])
            #expect(
                try ctx.fetch(FetchRequest<InhPodcast>(sortDescriptors: [ObjectSortDescriptor("rank")])).map(\.title) == [
                    "unsaved", "v",
                ])
            var only = FetchRequest<InhPodcast>()
            only.includesSubentities = false
            #expect(try ctx.fetch(only).isEmpty)
            try ctx.save()
        }
        // Faults by ID: an ID naming the parent entity becomes an object of the row's class.
        let other = container.newBackgroundContext()
        try other.performAndWait { () throws in
            let item = try other.model.entity(named: "Item")
            let pk = try #require(items[3].objectID.primaryKey)
            let fault = other.object(with: ObjectID(entity: item, primaryKey: pk))
            #expect(fault is InhVideo && fault.isFault)
            #expect((fault as! InhVideo).resolution == 1080)
            #expect(fault.objectID == items[3].objectID)
            var faults = FetchRequest<InhItem>(sortDescriptors: [ObjectSortDescriptor("rank")], fetchBatchSize: 2)
            faults.returnsObjectsAsFaults = true
            let fetched = try other.fetch(faults)
            #expect(fetched.map { String(describing: type(of: $0)) } == ["InhVideo", "InhArticle", "InhVideo", "InhArticle"])
            #expect(fetched.compactMap(\.title) == ["unsaved", "a2", "v", "a1"])
        }
    }

    @Test func relationshipsToTheParentHoldSubentities() throws {
        let container = try InheritanceModel.container()
        let (shelf, items) = try stocked(container)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let mark = ctx.insert(InhBookmark.self)
            mark.item = items[3]
            let mark2 = ctx.insert(InhBookmark.self)
            mark2.item = items[0]
            let tag = ctx.insert(InhTag.self)
            tag.name = "t"
            items[1].tags = [tag]
            items[3].tags = [tag]
            (items[2] as! InhPodcast).feature = shelf
            try ctx.save()
            #expect(items[3].bookmarks.map(\.objectID) == [mark.objectID])
        }
        let other = container.newBackgroundContext()
        try other.performAndWait { () throws in
            let marks = try other.fetch(
                FetchRequest<InhBookmark>(sortDescriptors: [ObjectSortDescriptor(ObjectSortDescriptor.storeOrderKey)]))
            #expect(marks[0].item is InhVideo && marks[1].item is InhArticle)
            #expect((marks[0].item as? InhVideo)?.resolution == 1080)
            let shelf = try #require(try other.fetch(FetchRequest<InhShelf>()).first)
            #expect(Set(shelf.items.map { String(describing: type(of: $0)) }) == ["InhArticle", "InhPodcast", "InhVideo"])
            #expect(shelf.podcasts.map(\.title) == ["p"])
            let tag = try #require(try other.fetch(FetchRequest<InhTag>()).first)
            #expect(tag.items.compactMap(\.title).sorted() == ["a2", "v"])
            #expect(
                try other.count(for: FetchRequest<InhItem>(predicate: try ObjectPredicate(format: "ANY tags.name == 't'"))) == 2)
            #expect(
                try other.count(for: FetchRequest<InhBookmark>(predicate: try ObjectPredicate(format: "item.title == 'v'"))) == 1)
            // Prefetching a to-many whose members are of several entities.
            var request = FetchRequest<InhShelf>()
            request.relationshipKeyPathsForPrefetching = ["items"]
            let prefetched = try other.fetch(request)
            #expect(prefetched[0].items.count == 4)
            // Delete rules: the shelf's items cascade, and each item's bookmarks with it.
            other.delete(shelf)
            try other.save()
            #expect(try other.count(for: FetchRequest<InhItem>()) == 0)
            #expect(try other.count(for: FetchRequest<InhBookmark>()) == 0)
            #expect(tag.items.isEmpty)
        }
    }

    @Test func derivedCountsCountEverySubentity() throws {
        let container = try InheritanceModel.container()
        let (shelf, items) = try stocked(container)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            #expect(shelf.itemCount == 4)
            #expect(shelf.unreadCount == 3)
            #expect(shelf.podcastCount == 0)
            (items[3] as! InhVideo).feature = shelf
            items[3].read = true
            ctx.processPendingChanges()
            #expect(shelf.podcastCount == 1)
            #expect(shelf.unreadCount == 2)
            try ctx.save()
            ctx.delete(items[3])
            ctx.processPendingChanges()
            #expect(shelf.itemCount == 3 && shelf.podcastCount == 0)
            try ctx.save()
        }
        let stored = try container.store.database.read { db in
            try Row.fetchOne(db, sql: "SELECT itemCount, unreadCount, podcastCount FROM Shelf")
        }
        #expect(stored?[0] as Int64? == 3 && stored?[1] as Int64? == 2 && stored?[2] as Int64? == 0)
    }

    @Test func batchRequestsAndDictionariesAcrossTheHierarchy() throws {
        let container = try InheritanceModel.container()
        _ = try stocked(container)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var grouped = FetchRequest<ManagedObject>(entityName: "Item", sortDescriptors: [ObjectSortDescriptor("read")])
            grouped.propertiesToFetch = [.key("read"), .count(as: "n")]
            grouped.propertiesToGroupBy = ["read"]
            let groups = try ctx.fetchDictionaries(grouped)
            #expect(groups.map { $0["n"] } == [.integer(3), .integer(1)])
            var podcastsOnly = FetchRequest<ManagedObject>(entityName: "Podcast")
            podcastsOnly.propertiesToFetch = [.key("title")]
            podcastsOnly.includesSubentities = false
            #expect(try ctx.fetchDictionaries(podcastsOnly).map { $0["title"] } == [.string("p")])

            let marked = try ctx.execute(
                BatchUpdateRequest(entityName: "Podcast", predicate: nil, propertiesToUpdate: ["read": .bool(true)]))
            #expect(marked.changedCount == 2)
            let shelf = try #require(try ctx.fetch(FetchRequest<InhShelf>()).first)
            #expect(shelf.unreadCount == 1)
            ctx.undoManager = ContextUndoManager()
            let deleted = try ctx.execute(
                BatchDeleteRequest(entityName: "Item", predicate: try ObjectPredicate(format: "rank >= 2")))
            #expect(deleted.changedCount == 3)
            #expect(try ctx.fetch(FetchRequest<InhItem>()).compactMap(\.title) == ["a2"])
            #expect(shelf.itemCount == 1)
            let again = try ctx.execute(BatchDeleteRequest(entityName: "Item", predicate: nil))
            #expect(again.changedCount == 1)
            _ = ctx.undoManager?.undo(in: ctx)
            #expect(ctx.undoManager?.lastError == nil)
            #expect(try ctx.count(for: FetchRequest<InhArticle>()) == 1)
            // Undoing the first batch delete puts back a podcast (an entity with sub-entities) and a video.
            _ = ctx.undoManager?.undo(in: ctx)
            #expect(ctx.undoManager?.lastError == nil)
            #expect(try ctx.fetch(FetchRequest<InhPodcast>()).compactMap(\.title).sorted() == ["p", "v"])
            #expect((try ctx.fetch(FetchRequest<InhVideo>()).first)?.resolution == 1080)
            #expect(try ctx.count(for: FetchRequest<InhArticle>()) == 2)
            #expect(shelf.itemCount == 4)
        }
    }

    @Test func liveResultsFollowSubentities() throws {
        let container = try InheritanceModel.container()
        _ = try stocked(container)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let all = try FetchedResultsController(
                fetchRequest: FetchRequest<InhItem>(sortDescriptors: [ObjectSortDescriptor("rank")]), context: ctx)
            try all.performFetch()
            var only = FetchRequest<InhPodcast>(sortDescriptors: [ObjectSortDescriptor("rank")])
            only.includesSubentities = false
            let podcasts = try FetchedResultsController(fetchRequest: only, context: ctx)
            try podcasts.performFetch()
            #expect(all.fetchedObjects.count == 4 && podcasts.fetchedObjects.count == 1)
            let v = ctx.insert(InhVideo.self)
            v.rank = -1
            let p = ctx.insert(InhPodcast.self)
            p.rank = -2
            ctx.processPendingChanges()
            #expect(all.fetchedObjects.count == 6 && all.fetchedObjects.first === p && all.fetchedObjects[1] === v)
            #expect(podcasts.fetchedObjects.map(\.objectID) == [p.objectID, try ctx.fetch(only).last!.objectID])
        }
    }

    @Test func uniquenessOfASubentityHoldsAmongItsObjects() throws {
        let container = try InheritanceModel.container()
        _ = try stocked(container)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let podcast = ctx.insert(InhPodcast.self)
            podcast.title = "a1"  // an article's title: allowed for a podcast
            try ctx.save()
            let article = ctx.insert(InhArticle.self)
            article.title = "a1"
            #expect(throws: ObjectGraphError.self) { try ctx.save() }
            ctx.rollback()
            let long = ctx.insert(InhVideo.self)
            long.title = String(repeating: "x", count: 41)  // the parent's rule, inherited
            #expect(throws: ObjectGraphError.self) { try ctx.save() }
        }
    }

    /// Found by the differential test: with no stored row matching, the sum of an integer
    /// attribute over unsaved objects came back as a double.
    @Test func sumOfUnsavedIntegersIsAnInteger() throws {
        let container = try InheritanceModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let video = ctx.insert(InhVideo.self)
            video.rank = 4
            #expect(try ctx.aggregate(.sum, of: "rank", for: FetchRequest<InhItem>()) == .integer(4))
        }
    }

    @Test func childContextsSeeAndSaveSubentities() throws {
        let container = try InheritanceModel.container()
        let (shelf, items) = try stocked(container)
        let parent = container.viewContext
        let child = parent.performAndWait { parent.newChildContext(name: "edit") }
        try child.performAndWait { () throws in
            let fetched = try child.fetch(FetchRequest<InhPodcast>(sortDescriptors: [ObjectSortDescriptor("rank")]))
            #expect(fetched.map { String(describing: type(of: $0)) } == ["InhPodcast", "InhVideo"])
            let item = try child.existingObject(
                with: ObjectID(entity: try child.model.entity(named: "Item"), primaryKey: items[3].objectID.primaryKey!))
            #expect((item as? InhVideo)?.resolution == 1080)
            let article = child.insert(InhArticle.self)
            article.title = "from child"
            article.shelf = child.object(with: shelf.objectID) as? InhShelf
            try child.save()
        }
        try parent.performAndWait { () throws in
            let articles = try parent.fetch(
                FetchRequest<InhArticle>(predicate: try ObjectPredicate(format: "title == 'from child'")))
            #expect(articles.count == 1 && articles[0].shelf === shelf)
            parent.processPendingChanges()
            #expect(shelf.itemCount == 5)
            try parent.save()
        }
    }

    @Test func observersOfAParentHearOfItsSubentities() throws {
        let container = try InheritanceModel.container()
        let heard = Recorder<DidSaveNotification>()
        let token = container.bus.observeDidSave(entities: ["Podcast"]) { heard.append($0) }
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            ctx.insert(InhArticle.self).title = "a"
            try ctx.save()
            ctx.insert(InhVideo.self).title = "v"
            try ctx.save()
        }
        #expect(heard.all.count == 1)
        #expect(heard.all.first?.involves(entity: "Item") == true)
        #expect(heard.all.first?.involves(entity: "Article") == false)
        withExtendedLifetime(token) {}
    }

    @Test func theDocCommentExampleWorks() throws {
        let item = EntityDescription(
            "ReadingItem", parent: nil, isAbstract: true, managedClass: ReadingItem.self,
            attributes: [.string("title")])
        let essay = EntityDescription(
            "Essay", parent: "ReadingItem", managedClass: Essay.self,
            attributes: [.string("body")])
        let episode = EntityDescription(
            "Episode", parent: "ReadingItem", managedClass: Episode.self,
            attributes: [.double("duration", optional: true)])
        let model = try ManagedObjectModel(name: "Reading", version: 1, entities: [item, essay, episode])
        let container = try PersistentContainer(model: model, store: .inMemory)
        try container.viewContext.performAndWait {
            let context = container.viewContext
            context.insert(Essay.self).title = "On trees"
            context.insert(Episode.self).duration = 1800
            try context.save()
            let all = try context.fetch(FetchRequest<ReadingItem>())  // an Essay and an Episode
            print(all.map { type(of: $0) }, try context.count(for: FetchRequest<Episode>()))  // [Essay, Episode] 1
            #expect("\(all.map { type(of: $0) })".hasSuffix("Essay, ObjectGraphTests.Episode]"))
            #expect(try context.count(for: FetchRequest<Episode>()) == 1)
        }
        let isItem = try model.entity(named: "Essay").isKind(of: try model.entity(named: "ReadingItem"))  // true
        let kinds = model.subentities(of: try model.entity(named: "ReadingItem")).map(\.name)  // ["Essay", "Episode"]
        #expect(isItem && kinds == ["Essay", "Episode"])
        var onlyItems = FetchRequest<ManagedObject>(entityName: "ReadingItem")
        onlyItems.includesSubentities = false
        #expect(try container.viewContext.performAndWait { try container.viewContext.count(for: onlyItems) } == 0)
    }

    @Test func keysAreSharedAcrossTheHierarchy() throws {
        let container = try InheritanceModel.container()
        let (_, items) = try stocked(container)
        let keys = items.compactMap(\.objectID.primaryKey)
        #expect(Set(keys).count == 4)
        let rows = try container.store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT Z_ENT FROM Item ORDER BY Z_PK").map { $0[0] as String }
        }
        #expect(rows == ["Article", "Article", "Podcast", "Video"])
    }

    @Test func classesMustSubclassTheParentsClass() throws {
        var entities = InheritanceModel.entities()
        let i = entities.firstIndex { $0.name == "Video" }!
        entities[i].managedClass = InhArticle.self
        let model = try ManagedObjectModel(name: "Library", version: 1, entities: entities)
        #expect {
            try model.checkClassesMatch()
        } throws: { error in
            "\(error)".contains("entity Video inherits from Podcast, but its class does not subclass InhPodcast")
        }
        try InheritanceModel.model.checkClassesMatch()
        // A wrapper of the parent's class checked against the sub-entity too.
        var wrong = InheritanceModel.entities()
        let item = wrong.firstIndex { $0.name == "Item" }!
        wrong[item].attributes[2] = .string("rank")
        let mismatched = try ManagedObjectModel(name: "Library", version: 1, entities: wrong)
        #expect {
            try mismatched.checkClassesMatch()
        } throws: { error in
            "\(error)".contains("InhVideo.rank: Video.rank is string in the model, declared as Int64")
        }
    }

    /// An entity in no hierarchy gains a sub-entity: its table gets `Z_ENT`, its rows stay its own.
    @Test func migrationTurnsAPlainEntityIntoARoot() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("inherit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("plain.sqlite")
        let note = EntityDescription("Note", attributes: [.string("text")])
        let v1 = try ManagedObjectModel(name: "Plain", version: 1, entities: [note])
        let v2 = try ManagedObjectModel(
            name: "Plain", version: 2,
            entities: [note, EntityDescription("Todo", parent: "Note", attributes: [.bool("done", defaultValue: false)])])
        do {
            let container = try PersistentContainer(model: v1, store: .file(url))
            try container.viewContext.performAndWait { () throws in
                try container.viewContext.insertObject(entityName: "Note")["text"] = .string("old")
                try container.viewContext.save()
            }
        }
        let container = try PersistentContainer(model: v2, store: .file(url), migrator: try MigrationPlan(versions: [v1, v2]))
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let todo = try ctx.insertObject(entityName: "Todo")
            todo["text"] = .string("new")
            todo["done"] = .bool(true)
            try ctx.save()
            let all = try ctx.fetch(
                FetchRequest<ManagedObject>(entityName: "Note", sortDescriptors: [ObjectSortDescriptor("text")]))
            #expect(all.map { $0.entity.name } == ["Todo", "Note"])
            var own = FetchRequest<ManagedObject>(entityName: "Note")
            own.includesSubentities = false
            #expect(try ctx.fetch(own).map { $0["text"] } == [.string("old")])
            #expect(all.map(\.objectID.primaryKey) == [2, 1])
        }
    }

    @Test func migrationAddsASubentityAndItsAttributes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("inherit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("lib.sqlite")
        let v1 = try ManagedObjectModel(name: "Library", version: 1, entities: InheritanceModel.entities(withVideo: false))
        let v2 = try ManagedObjectModel(name: "Library", version: 2, entities: InheritanceModel.entities())
        let v3 = try ManagedObjectModel(
            name: "Library", version: 3,
            entities: InheritanceModel.entities(videoAttributes: [
                .integer("resolution", optional: true), .string("codec", optional: false, defaultValue: "h264"),
            ]))
        do {
            let container = try PersistentContainer(model: v1, store: .file(url))
            _ = try container.viewContext.performAndWait { () throws in
                let shelf = container.viewContext.insert(InhShelf.self)
                shelf.name = "S"
                let p = container.viewContext.insert(InhPodcast.self)
                p.title = "old"
                p.shelf = shelf
                try container.viewContext.save()
            }
        }
        do {
            let container = try PersistentContainer(
                model: v2, store: .file(url), migrator: try MigrationPlan(versions: [v1, v2]))
            let ctx = container.viewContext
            try ctx.performAndWait { () throws in
                #expect(try ctx.fetch(FetchRequest<InhItem>()).map(\.title) == ["old"])
                let v = ctx.insert(InhVideo.self)
                v.title = "new"
                v.resolution = 720
                v.shelf = try ctx.fetch(FetchRequest<InhShelf>()).first
                try ctx.save()
                #expect(try ctx.fetch(FetchRequest<InhShelf>()).first?.itemCount == 2)
            }
        }
        let container = try PersistentContainer(
            model: v3, store: .file(url), migrator: try MigrationPlan(versions: [v1, v2, v3]))
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let items = try ctx.fetch(
                FetchRequest<InhItem>(sortDescriptors: [ObjectSortDescriptor(ObjectSortDescriptor.storeOrderKey)]))
            #expect(items.map { String(describing: type(of: $0)) } == ["InhPodcast", "InhVideo"])
            #expect((items[1] as? InhVideo)?.resolution == 720)
            #expect(try items[1].value(forKey: "codec") == .string("h264"))
            #expect(try ctx.fetch(FetchRequest<InhShelf>()).first?.itemCount == 2)
        }
    }
}

extension Error {
    fileprivate var message: String { (self as? ModelError)?.message ?? "\(self)" }
}
