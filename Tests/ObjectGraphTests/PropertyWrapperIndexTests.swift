import Foundation
import Testing

@testable import ObjectGraph

/// One class for two entities that keep its keys at different indexes: a property finds its
/// attribute or relationship in the object's own entity, whatever another object of the class
/// or another entity found.
final class Labelled: ManagedObject {
    @Managed("label") var label: String?
    @Managed("weight") var weight: Int64
    @Encoded("tags") var tags: [String]?
    @ToOne("owner") var owner: LabelOwner?
}

final class LabelOwner: ManagedObject {
    @Managed("name") var name: String?
    @ToMany("fronts") var fronts: [Labelled]
    @ToMany("backs") var backs: [Labelled]
}

/// Declarations the model does not match, read on a `Front` object: each stops the program.
final class MislabelledFront: ManagedObject {
    @Managed("lable") var misspelt: String?
    @Managed("label") var label: Int64
    @ToOne("ownr") var owner: LabelOwner?
}

enum LabelledModel {
    static let model = try! ManagedObjectModel(
        name: "Labels", version: 1,
        entities: [
            EntityDescription(
                "Front", managedClass: Labelled.self,
                attributes: [.string("label"), .integer("weight", defaultValue: 0), .string("tags")],
                relationships: [.toOne("owner", destination: "LabelOwner", inverse: "fronts")]),
            EntityDescription(
                "Back", managedClass: Labelled.self,
                attributes: [
                    .string("tags"), .string("note"), .integer("weight", defaultValue: 0), .string("label"),
                ],
                relationships: [
                    .toOne("previousOwner", destination: "LabelOwner", inverse: "formerBacks"),
                    .toOne("owner", destination: "LabelOwner", inverse: "backs"),
                ]),
            EntityDescription(
                "LabelOwner", managedClass: LabelOwner.self, attributes: [.string("name")],
                relationships: [
                    .toMany("fronts", destination: "Front", inverse: "owner"),
                    .toMany("backs", destination: "Back", inverse: "owner"),
                    .toMany("formerBacks", destination: "Back", inverse: "previousOwner"),
                ]),
        ])

    /// A `MislabelledFront` object on the `Front` entity, outside any context.
    static func mislabelled() throws -> MislabelledFront {
        let entity = try model.entity(named: "Front")
        return MislabelledFront(ManagedObject.Construction(entity: entity, objectID: ObjectID.temporary(for: entity)))
    }
}

@Suite struct PropertyWrapperIndexTests {
    /// What an exit test's process wrote to its standard error.
    func standardError(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    @Test func twoObjectsOfOneEntityKeepTheirOwnValues() throws {
        let container = try PersistentContainer(model: LabelledModel.model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            let first = try #require(try context.insertObject(entityName: "Front") as? Labelled)
            let second = try #require(try context.insertObject(entityName: "Front") as? Labelled)
            first.label = "first"
            second.weight = 2
            second.label = "second"
            first.weight = 1
            #expect((first.label, first.weight, second.label, second.weight) == ("first", 1, "second", 2))
            #expect(try first.value(forKey: "label") == .string("first"))
            #expect(try second.value(forKey: "weight") == .integer(2))
        }
    }

    @Test func oneClassOnTwoEntitiesReadsAndWritesEachEntitysIndexes() throws {
        let container = try PersistentContainer(model: LabelledModel.model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            let owner = context.insert(LabelOwner.self)
            owner.name = "owner"
            let front = try #require(try context.insertObject(entityName: "Front") as? Labelled)
            let back = try #require(try context.insertObject(entityName: "Back") as? Labelled)
            for (object, name) in [(front, "front"), (back, "back")] {
                object.label = name
                object.weight = Int64(name.count)
                object.tags = [name]
                object.owner = owner
            }
            #expect(try front.value(forKey: "label") == .string("front"))
            #expect(try back.value(forKey: "label") == .string("back"))
            #expect(try back.value(forKey: "weight") == .integer(4))
            #expect(try back.value(forKey: "tags") == .string(#"["back"]"#))
            #expect(try back.value(forKey: "note") == .null)
            #expect(try back.object(forKey: "previousOwner") == nil)
            #expect((front.label, back.label, front.weight, back.weight) == ("front", "back", 5, 4))
            #expect((front.tags, back.tags) == (["front"], ["back"]))
            #expect(front.owner === owner && back.owner === owner)
            #expect(owner.fronts.map(ObjectIdentifier.init) == [ObjectIdentifier(front)])
            #expect(owner.backs.map(ObjectIdentifier.init) == [ObjectIdentifier(back)])
            try context.save()
        }
        let reader = container.newBackgroundContext(name: "reader")
        try reader.performAndWait { () throws in
            let back = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Back")).first as? Labelled)
            #expect((back.label, back.weight, back.tags, back.owner?.name) == ("back", 4, ["back"], "owner"))
        }
    }

    @Test func keyPathsStillNameTheirKeys() {
        #expect(KeyPathRecorder.keyPath(\Labelled.label) == "label")
        #expect(KeyPathRecorder.keyPath(\Labelled.weight) == "weight")
        #expect(KeyPathRecorder.keyPath(\Labelled.owner?.name) == "owner.name")
        #expect(KeyPathRecorder.keyPath(\LabelOwner.fronts.count) == "fronts.@count")
    }

    @Test func aKeyTheEntityLacksStopsWithItsName() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try LabelledModel.mislabelled().misspelt
        }
        #expect(standardError(result).contains("Front has no attribute 'lable'"))
    }

    @Test func aPropertyOfTheWrongTypeStopsNamingBoth() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try LabelledModel.mislabelled().label = 3
        }
        #expect(standardError(result).contains("Front.label is string, declared as a Swift integer"))
    }

    @Test func aToOneTheEntityLacksStopsWithItsName() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try LabelledModel.mislabelled().owner
        }
        #expect(standardError(result).contains("Front has no to-one relationship 'ownr'"))
    }
}
