import Foundation
import GRDB
import Testing

@testable import ObjectGraph

final class Label: ManagedObject {
    @Managed("name") var name: String
    @Managed("unreadCount") var unreadCount: Int64
    @ToMany("articles") var articles: [LabeledArticle]
}

final class LabeledArticle: ManagedObject {
    @Managed("title") var title: String?
    @Managed("read") var read: Bool
    @ToMany("labels") var labels: [Label]
}

/// A count over a many-to-many relationship: each label counts its unread articles.
enum LabelModel {
    static let model = try! ManagedObjectModel(
        name: "Labels", version: 1,
        entities: [
            EntityDescription(
                "Label", managedClass: Label.self,
                attributes: [
                    .string("name", optional: false), .derivedCount("unreadCount", of: "articles", where: "read == NO"),
                ],
                relationships: [.toMany("articles", destination: "Article", inverse: "labels")]),
            EntityDescription(
                "Article", managedClass: LabeledArticle.self,
                attributes: [.string("title"), .bool("read", defaultValue: false)],
                relationships: [.toMany("labels", destination: "Label", inverse: "articles")]),
        ])
}

extension DerivedCountTests {
    /// Every label's count equals its unread articles, as `context` shows them.
    func checkLabels(_ context: ManagedObjectContext, _ step: String) throws {
        try context.performAndWait { () throws in
            for label in try context.fetch(FetchRequest<Label>()) {
                let unread = label.articles.filter { !$0.read }.count
                #expect(label.unreadCount == Int64(unread), "\(step): \(context.name ?? "") label \(label.name)")
                if label.unreadCount != Int64(unread) { throw CancellationError() }
            }
        }
    }

    func checkLabelStore(_ container: PersistentContainer, _ step: String) throws {
        let rows = try container.store.database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT l.name, l.unreadCount, (SELECT COUNT(*) FROM Z_JOIN_Article_labels j JOIN Article a ON a.Z_PK = j.Z_SOURCE \
                    WHERE j.Z_TARGET = l.Z_PK AND a.read = 0) FROM Label l
                    """)
        }
        for row in rows {
            let (name, stored, actual): (String, Int64, Int64) = (row[0], row[1], row[2])
            #expect(stored == actual, "\(step): stored count of \(name)")
            if stored != actual { throw CancellationError() }
        }
    }

    @Test func aCountOverManyToManyFollowsMembershipFromEitherSide() throws {
        let container = try PersistentContainer(model: LabelModel.model, store: .inMemory)
        let context = container.viewContext
        context.undoManager = ContextUndoManager()
        try context.performAndWait { () throws in
            let work = context.insert(Label.self)
            work.name = "work"
            let home = context.insert(Label.self)
            home.name = "home"
            let articles = (0..<4).map { n -> LabeledArticle in
                let article = context.insert(LabeledArticle.self)
                article.title = "a\(n)"
                return article
            }
            try work.add(articles[0], toRelationship: "articles")
            try articles[1].add(work, toRelationship: "labels")  // from the other side
            articles[2].labels = [work, home]
            context.processPendingChanges()
            #expect(work.unreadCount == 3 && home.unreadCount == 1)
            try context.save()
            #expect(work.unreadCount == 3 && home.unreadCount == 1)
            articles[2].read = true
            context.processPendingChanges()
            #expect(work.unreadCount == 2 && home.unreadCount == 0)
            try work.remove(articles[0], fromRelationship: "articles")
            context.processPendingChanges()
            #expect(work.unreadCount == 1)
            context.undo()
            #expect(work.unreadCount == 2)
            context.redo()
            #expect(work.unreadCount == 1)
            try home.add(articles[3], toRelationship: "articles")
            context.delete(articles[1])
            context.processPendingChanges()
            #expect(work.unreadCount == 0 && home.unreadCount == 1)
            try context.save()
            #expect(work.unreadCount == 0 && home.unreadCount == 1)
            context.undo()  // the deletion and the new pair come back (unsaved)
            #expect(work.unreadCount == 1 && home.unreadCount == 0)
            try context.save()
        }
        try checkLabels(context, "end")
        try checkLabelStore(container, "end")
    }

    /// Random inserts, read toggles, pairings and unpairings from either side, deletions of
    /// articles and labels, saves, rollbacks and undo/redo in two contexts with late merges;
    /// the store's counts are exact after every step, a context's whenever it has merged
    /// every save.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomManyToManySequencesKeepCountsExact(seed: UInt64) throws {
        var rng = PredicateRandomGenerator(seed: seed)
        let container = try PersistentContainer(model: LabelModel.model, store: .inMemory)
        let a = container.newContext(queue: DispatchQueue(label: "A"), name: "A")
        a.undoManager = ContextUndoManager()
        a.mergePolicy = .storeTrumps
        let b = container.newContext(queue: DispatchQueue(label: "B"), name: "B")
        b.mergePolicy = .objectTrumps
        let saves = Recorder<DidSaveNotification>()
        let token = container.bus.observeDidSave { saves.append($0) }
        try a.performAndWait { () throws in
            for name in ["L0", "L1", "L2"] { a.insert(Label.self).name = name }
            try a.save()
        }
        var delivered = 0
        for step in 0..<300 {
            let context = Bool.random(using: &rng) ? a : b
            let op = Int.random(in: 0..<100, using: &rng)
            var description = "seed \(seed) step \(step) \(context.name!) op \(op)"
            try context.performAndWait { () throws in
                let labels = try context.fetch(FetchRequest<Label>(sortDescriptors: [ObjectSortDescriptor("name")]))
                let articles = try context.fetch(FetchRequest<LabeledArticle>())
                switch op {
                case 0..<20:
                    let article = context.insert(LabeledArticle.self)
                    article.read = Bool.random(using: &rng)
                    if let label = labels.randomElement(using: &rng) { try article.add(label, toRelationship: "labels") }
                    description += " insert"
                case 20..<40:
                    guard let article = articles.randomElement(using: &rng) else { return }
                    article.read.toggle()
                    description += " toggle"
                case 40..<52:
                    guard let article = articles.randomElement(using: &rng), let label = labels.randomElement(using: &rng)
                    else { return }
                    if Bool.random(using: &rng) {
                        try label.add(article, toRelationship: "articles")
                    } else {
                        try article.add(label, toRelationship: "labels")
                    }
                    description += " pair"
                case 52..<60:
                    guard let article = articles.randomElement(using: &rng), let label = article.labels.randomElement(using: &rng)
                    else { return }
                    if Bool.random(using: &rng) {
                        try label.remove(article, fromRelationship: "articles")
                    } else {
                        try article.remove(label, fromRelationship: "labels")
                    }
                    description += " unpair"
                case 60..<66:
                    guard let article = articles.randomElement(using: &rng) else { return }
                    context.delete(article)
                    description += " delete"
                case 66..<82:
                    description += TwoContextSteps.save(context)
                case 82..<86:
                    context.rollback()
                    description += " rollback"
                case 86..<93:
                    description += TwoContextSteps.undo(context, undoing: a)
                case 93..<97:
                    description += TwoContextSteps.redo(context, undoing: a)
                default:
                    if labels.count > 1, Int.random(in: 0..<4, using: &rng) == 0 {
                        context.delete(labels.last!)
                        description += " delete label"
                    }
                }
            }
            TwoContextSteps.deliverLate(saves, delivered: &delivered, to: [a, b], using: &rng)
            try checkLabelStore(container, description)
            if delivered == saves.all.count {
                try checkLabels(a, description)
                try checkLabels(b, description)
            }
        }
        withExtendedLifetime(token) {}
    }

    @Test func aBatchDeleteCountsOverManyToMany() throws {
        let container = try PersistentContainer(model: LabelModel.model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            let label = context.insert(Label.self)
            label.name = "L"
            for n in 0..<5 {
                let article = context.insert(LabeledArticle.self)
                article.title = "a\(n)"
                try article.add(label, toRelationship: "labels")
            }
            try context.save()
            #expect(label.unreadCount == 5)
            _ = try context.execute(
                BatchDeleteRequest(entityName: "Article", predicate: try ObjectPredicate(format: "title IN %@", ["a0", "a1"])))
            #expect(label.unreadCount == 3)
        }
        try checkLabelStore(container, "after batch delete")
    }

    @Test func aNewCountOverManyToManyIsFilledByTheMigration() throws {
        let v1 = try ManagedObjectModel(
            name: "Labels", version: 1,
            entities: LabelModel.model.entities.map {
                EntityDescription(
                    $0.name, managedClass: $0.managedClass, attributes: $0.attributes.filter { !$0.isDerivedCounter },
                    relationships: $0.relationships)
            })
        let v2 = try ManagedObjectModel(
            name: "Labels", version: 2,
            entities: LabelModel.model.entities.map {
                EntityDescription(
                    $0.name, managedClass: $0.managedClass, attributes: $0.attributes, relationships: $0.relationships)
            })
        let tmp = TemporaryDirectory()
        let url = tmp.file("labels.sqlite")
        do {
            let container = try PersistentContainer(model: v1, store: .file(url))
            try container.viewContext.performAndWait { () throws in
                let context = container.viewContext
                let label = context.insert(Label.self)
                label.name = "L"
                for read in [false, true, false] {
                    let article = context.insert(LabeledArticle.self)
                    article.read = read
                    try article.add(label, toRelationship: "labels")
                }
                try context.save()
            }
            try container.store.close()
        }
        let plan = try MigrationPlan(versions: [v1, v2], backupRetention: .remove)
        let container = try PersistentContainer(model: v2, store: .file(url), migrator: plan)
        try checkLabelStore(container, "migrated")
        try container.viewContext.performAndWait { () throws in
            #expect(try container.viewContext.fetch(FetchRequest<Label>())[0].unreadCount == 2)
        }
    }
}
