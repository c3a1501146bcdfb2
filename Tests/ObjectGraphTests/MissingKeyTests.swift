import Foundation
import Testing

@testable import ObjectGraph

final class CookingRecipe: ManagedObject {
    @Managed("title") var title: String?
    @Managed("servings") var servings: Int64
    @ToMany("steps") var steps: [CookingStep]
}

final class CookingStep: ManagedObject {
    @Managed("text") var text: String?
    @ToOne("recipe") var recipe: CookingRecipe?
}

final class MisspeltRecipe: ManagedObject {
    @Managed("titel") var title: String?
    @ToMany("stepz") var steps: [ManagedObject]
}

/// A wrapper whose key the model lacks: refused for the model a container loads, allowed in
/// older versions (which share the newest classes).
@Suite struct MissingKeyTests {
    static func entities(servings: Bool, steps: Bool) -> [EntityDescription] {
        [
            EntityDescription(
                "Recipe", managedClass: CookingRecipe.self,
                attributes: [.string("title")] + (servings ? [.integer("servings", defaultValue: 1)] : []),
                relationships: steps ? [.toMany("steps", destination: "RecipeStep", inverse: "recipe")] : []),
            EntityDescription(
                "RecipeStep", managedClass: CookingStep.self, attributes: [.string("text")],
                relationships: steps ? [.toOne("recipe", destination: "Recipe", inverse: "steps")] : []),
        ]
    }

    @Test func aMisspeltKeyIsRefusedNamingTheClosestKey() throws {
        let model = try ManagedObjectModel(
            name: "Misspelt", version: 1,
            entities: [
                EntityDescription(
                    "Recipe", managedClass: MisspeltRecipe.self, attributes: [.string("title"), .string("notes")],
                    relationships: [.toMany("steps", destination: "Step", inverse: "recipe")]),
                EntityDescription("Step", relationships: [.toOne("recipe", destination: "Recipe", inverse: "steps")]),
            ])
        #expect(
            throws: ObjectGraphError.modelMismatch([
                "MisspeltRecipe.title: @Managed(\"titel\"): Recipe has no key 'titel' (closest: 'title')",
                "MisspeltRecipe.steps: @ToMany(\"stepz\"): Recipe has no key 'stepz' (closest: 'steps')",
            ])
        ) { _ = try PersistentContainer(model: model, store: .inMemory) }
        #expect(
            "\(ObjectGraphError.modelMismatch(["MisspeltRecipe.title: @Managed(\"titel\"): Recipe has no key 'titel' (closest: 'title')"]))"
                == "the classes do not match the model: MisspeltRecipe.title: @Managed(\"titel\"): Recipe has no key 'titel' (closest: 'title')"
        )
    }

    @Test func olderVersionsMayLackTheNewestKeys() throws {
        // Version 1 lacks `servings` and the steps, which the classes declare.
        let v1 = try ManagedObjectModel(name: "Recipes", version: 1, entities: Self.entities(servings: false, steps: false))
        // Alone, as the newest version this process knows, it is refused…
        #expect(throws: ObjectGraphError.self) { _ = try PersistentContainer(model: v1, store: .inMemory) }
        // …and once a newer version exists (or a migration plan lists it first), it is an older
        // version: allowed, to make or read a version-1 store.
        let v2 = try ManagedObjectModel(name: "Recipes", version: 2, entities: Self.entities(servings: true, steps: true))
        let tmp = TemporaryDirectory()
        let url = tmp.file("recipes.sqlite")
        do {
            let old = try PersistentContainer(model: v1, store: .file(url))
            try old.viewContext.performAndWait { () throws in
                old.viewContext.insert(CookingRecipe.self).title = "soup"
                try old.viewContext.save()
            }
            try old.store.close()
        }
        let plan = try MigrationPlan(versions: [v1, v2], backupRetention: .remove)
        let container = try PersistentContainer(model: v2, store: .file(url), migrator: plan)
        try container.viewContext.performAndWait { () throws in
            let recipe = try container.viewContext.fetch(FetchRequest<CookingRecipe>())[0]
            #expect(recipe.title == "soup" && recipe.servings == 1 && recipe.steps.isEmpty)
        }
        // A plan marks its older versions even before a newer model is made elsewhere.
        let w1 = try ManagedObjectModel(name: "Recipes2", version: 1, entities: Self.entities(servings: false, steps: false))
        #expect(throws: ObjectGraphError.self) { try w1.checkClassesMatch() }
        let w2 = try ManagedObjectModel(name: "Recipes2", version: 2, entities: Self.entities(servings: true, steps: true))
        _ = try MigrationPlan(versions: [w1, w2])
        try w1.checkClassesMatch()
        try w2.checkClassesMatch()
        #expect(throws: ObjectGraphError.self) { try w1.checkClassesMatch(allowingMissingKeys: false) }
    }
}
