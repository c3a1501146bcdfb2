import Foundation
import Testing

@testable import ObjectGraph

// The first example of the guide (docs/ObjectGraph.md), with its printed values checked.
final class Topic: ManagedObject {
    @Managed("name") var name: String
    @Managed("unreadCount") var unreadCount: Int64
    @ToMany("memos") var memos: [Memo]
}

final class Memo: ManagedObject {
    @Managed("title") var title: String?
    @Managed("read") var read: Bool
    @ToOne("topic") var topic: Topic?
}

// The guide's many-to-many example.
final class Recipe: ManagedObject {
    @Managed("name") var name: String
    @ToMany("ingredients") var ingredients: [Ingredient]
}

final class Ingredient: ManagedObject {
    @Managed("name") var name: String
    @ToMany("recipes") var recipes: [Recipe]
}

@Suite struct ReadmeExampleTests {
    @Test func theReadmeManyToManyExampleWorks() throws {
        let kitchen = try ManagedObjectModel(
            name: "Kitchen", version: 1,
            entities: [
                EntityDescription(
                    "Recipe", managedClass: Recipe.self, attributes: [.string("name", optional: false)],
                    relationships: [.toMany("ingredients", destination: "Ingredient", inverse: "recipes")]),
                EntityDescription(
                    "Ingredient", managedClass: Ingredient.self, attributes: [.string("name", optional: false)],
                    relationships: [.toMany("recipes", destination: "Recipe", inverse: "ingredients")]),
            ])
        let pantry = try PersistentContainer(model: kitchen, store: .inMemory)
        let (recipes, count, found) = try pantry.viewContext.performAndWait { () throws in
            let ctx = pantry.viewContext
            let crepes = ctx.insert(Recipe.self)
            crepes.name = "Crêpes"
            let eggs = ctx.insert(Ingredient.self)
            eggs.name = "eggs"
            let milk = ctx.insert(Ingredient.self)
            milk.name = "milk"
            crepes.ingredients = [eggs, milk]
            try milk.remove(crepes, fromRelationship: "recipes")
            try ctx.save()
            return (
                eggs.recipes.map(\.name), crepes.ingredients.count,
                try Recipe.count(where: "ANY ingredients.name == %@", "eggs", in: ctx)
            )
        }
        #expect(recipes == ["Crêpes"] && count == 1 && found == 1)
        let tables = try pantry.store.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z_JOIN%'")
        }
        #expect(tables == ["Z_JOIN_Ingredient_recipes"])
    }

    @Test func theReadmeExampleWorks() throws {
        let tmp = TemporaryDirectory()
        let model = try ManagedObjectModel(
            name: "Memos", version: 1,
            entities: [
                EntityDescription(
                    "Topic", managedClass: Topic.self,
                    attributes: [
                        .string("name", optional: false),
                        .derivedCount("unreadCount", of: "memos", where: "read == NO"),
                    ],
                    relationships: [.toMany("memos", destination: "Memo", inverse: "topic", deleteRule: .cascade)],
                    uniquenessConstraints: [["name"]]),
                EntityDescription(
                    "Memo", managedClass: Memo.self,
                    attributes: [.string("title"), .bool("read", defaultValue: false)],
                    relationships: [.toOne("topic", destination: "Topic", inverse: "memos")]),
            ])
        let container = try PersistentContainer(model: model, store: .file(tmp.file("memos.sqlite")))
        let context = container.viewContext
        let (count, unread) = try context.performAndWait { () throws in
            let inbox = context.insert(Topic.self)
            inbox.name = "Inbox"
            let memo = context.insert(Memo.self)
            memo.title = "Café au lait"
            memo.topic = inbox
            try context.save()
            let hits = try Memo.findAll(where: "title CONTAINS[cd] %@", "cafe", in: context)
            return (hits.count, inbox.unreadCount)
        }
        #expect(count == 1 && unread == 1)

        // The README's live results and edit sheet, continuing the example.
        let remaining = try context.performAndWait { () throws in
            let unread = try FetchedResultsController(
                fetchRequest: FetchRequest<Memo>(
                    predicate: try ObjectPredicate(format: "read == NO"), sortDescriptors: [ObjectSortDescriptor("title")]),
                context: context)
            try unread.performFetch()
            let sheet = context.newChildContext()  // discard it by dropping it
            let memo = unread.object(at: ResultIndexPath(section: 0, item: 0))
            (try sheet.existingObject(with: memo.objectID) as! Memo).read = true
            try sheet.save()  // into the view context, not the store
            let remaining = unread.numberOfObjects(inSection: 0)  // 0: the change arrived as a delete
            try context.save()
            return remaining
        }
        #expect(remaining == 0)

        // The README's finders and object-ID URI, continuing the example.
        let url = try context.performAndWait { () throws in
            let title: String = "Café au lait"
            let memo = try #require(try Memo.findFirst(byAttribute: "title", value: title, in: context))
            let unread = try Memo.count(where: "read == %@", false, in: context)
            let inbox = try #require(try Topic.findSingle(where: "name == %@", "Inbox", in: context))
            let url = try #require(inbox.objectID.uriRepresentation(in: container))
            #expect(memo.read && unread == 0)
            #expect(url.absoluteString == "x-objectgraph://\(container.store.identifier)/Topic/1")
            return url
        }
        // Next launch, a new container on the same file (the README keeps the URL in UserDefaults).
        let reopened = try PersistentContainer(model: model, store: .file(tmp.file("memos.sqlite")))
        let savedURL = try #require(URL(string: url.absoluteString))
        let id = try #require(reopened.managedObjectID(forURIRepresentation: savedURL))
        let name = try reopened.viewContext.performAndWait { () throws in
            (try reopened.viewContext.existingObject(with: id) as! Topic).name
        }
        #expect(name == "Inbox")
    }
}
