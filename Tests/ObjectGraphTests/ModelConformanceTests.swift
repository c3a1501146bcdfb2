import Foundation
import Testing

@testable import ObjectGraph

final class Misfit: ManagedObject {
    @Managed("count") var count: String
    @Managed("note") var note: String
    @ToOne("children") var children: Misfit?
    @ToOne("parent") var parent: Misfit?
    @Managed("legacy") var legacy: String?  // absent from the model (and no newer version has it): refused
}

@Suite struct ModelConformanceTests {
    @Test func theContainerNamesEveryMismatchBetweenClassAndModel() throws {
        let model = try ManagedObjectModel(
            name: "Misfits", version: 1,
            entities: [
                EntityDescription(
                    "Misfit", managedClass: Misfit.self,
                    attributes: [.integer("count", defaultValue: 0), .string("note")],
                    relationships: [
                        .toMany("children", destination: "Misfit", inverse: "parent"),
                        .toOne("parent", destination: "Misfit", inverse: "children"),
                    ])
            ])
        do {
            _ = try PersistentContainer(model: model, store: .inMemory)
            Issue.record("a container opened with classes that do not match the model")
        } catch {
            #expect(
                error
                    == .modelMismatch([
                        "Misfit.count: Misfit.count is integer in the model, declared as String",
                        "Misfit.note: Misfit.note is optional in the model with no default, declared as non-optional String (declare String? or give it a default)",
                        "Misfit.children: Misfit.children is a to-many relationship, declared with @ToOne",
                        "Misfit.legacy: @Managed(\"legacy\"): Misfit has no key 'legacy'",
                    ]))
        }
    }

    @Test func theTestModelsMatchTheirClasses() throws {
        try TestModel.model.checkClassesMatch()
        try ChoreModel.model.checkClassesMatch()
    }
}

@Suite struct QueueConfinementTests {
    /// A context used off its queue stops the program with a message (not only in debug builds).
    @Test func usingAContextOffItsQueueStopsWithAMessage() async {
        await #expect(processExitsWith: .failure) {
            let container = try TestModel.container()
            let background = container.newBackgroundContext(name: "elsewhere")
            _ = try background.fetch(FetchRequest<Note>())  // not inside perform
        }
    }
}
