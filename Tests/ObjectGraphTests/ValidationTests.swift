import Foundation
import Testing

@testable import ObjectGraph

struct ChoreRefused: Error, CustomStringConvertible {
    var description: String { "chores named 'forbidden' are refused" }
}

final class Chore: ManagedObject {
    @Managed("title") var title: String?  // required, but read before validation (willSave)
    @Managed("priority") var priority: Int64
    @Managed("saves") var saves: Int64

    override func validateForInsert() throws {
        if title == "forbidden" { throw ChoreRefused() }
    }

    override func validateForDelete() throws {
        if priority == 5 {
            throw ObjectGraphError.invalidValue(
                entity: "Chore", key: "priority", rule: "not urgent", message: "is 5: urgent chores cannot be deleted")
        }
    }

    override func willSave() throws {
        if title == "boom" { throw ChoreRefused() }
        if !isDeleted { saves += 1 }
    }
}

enum ChoreModel {
    static let model = try! ManagedObjectModel(
        name: "Chores", version: 1,
        entities: [
            EntityDescription(
                "Chore", managedClass: Chore.self,
                attributes: [
                    .string("title", optional: false).validated(.minLength(1), .maxLength(10), .pattern("[a-z ]+")),
                    .integer("priority", defaultValue: 0).validated(.minimum(0), .maximum(5)),
                    .integer("saves", defaultValue: 0),
                ])
        ])
}

@Suite struct ValidationTests {
    @Test func oneBrokenRuleNamesEntityKeyAndRule() throws {
        let container = try PersistentContainer(model: ChoreModel.model, store: .inMemory)
        let ctx = container.viewContext
        ctx.performAndWait {
            let chore = ctx.insert(Chore.self)
            chore.title = "much too long"
            let expected = ObjectGraphError.invalidValue(
                entity: "Chore", key: "title", rule: "maxLength 10", message: "has 13 characters, more than 10")
            _ = #expect(throws: expected) { try ctx.save() }
            #expect(expected.description == "Chore.title has 13 characters, more than 10 (rule: maxLength 10)")
            #expect(ctx.hasChanges)
            chore.title = "short"
            #expect(throws: Never.self) { try ctx.save() }
        }
    }

    @Test func everyErrorIsCollectedIntoOne() throws {
        let container = try PersistentContainer(model: ChoreModel.model, store: .inMemory)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let a = ctx.insert(Chore.self)
            a.title = "Bad1"
            a.priority = 9
            _ = ctx.insert(Chore.self)  // no title
            let c = ctx.insert(Chore.self)
            c.title = "forbidden"
            do {
                try ctx.save()
                Issue.record("saved invalid chores")
            } catch {
                guard case ObjectGraphError.validationFailed(let errors) = error else {
                    Issue.record("expected validationFailed, got \(error)")
                    return
                }
                #expect(
                    errors.map(\.description) == [
                        "Chore.title \"Bad1\" does not match [a-z ]+ (rule: pattern [a-z ]+)",
                        "Chore.priority is 9, more than 5 (rule: maximum 5)",
                        "Chore.title is required but has no value",
                        "Chore: chores named 'forbidden' are refused (validateForInsert)",
                    ])
                #expect("\(error)".hasPrefix("4 validation errors: Chore.title \"Bad1\""))
            }
            #expect(try ctx.count(for: FetchRequest<Chore>(includesPendingChanges: false)) == 0)
        }
    }

    @Test func validateForDeleteAndAThrowingWillSaveStopTheSave() throws {
        let container = try PersistentContainer(model: ChoreModel.model, store: .inMemory)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let chore = ctx.insert(Chore.self)
            chore.title = "urgent"
            chore.priority = 5
            try ctx.save()
            ctx.delete(chore)
            #expect(throws: ObjectGraphError.self) { try ctx.save() }
            ctx.rollback()
            chore.title = "boom"
            #expect(
                throws: ObjectGraphError.invalidValue(
                    entity: "Chore", key: "", rule: "willSave", message: "chores named 'forbidden' are refused")
            ) {
                try ctx.save()
            }
            ctx.rollback()
            #expect(try ctx.fetch(FetchRequest<Chore>()).map(\.title) == ["urgent"])
        }
    }

    @Test func willSaveChangesArePartOfTheUndoStepBeingSaved() throws {
        let container = try PersistentContainer(model: ChoreModel.model, store: .inMemory)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            ctx.undoManager = ContextUndoManager()
            let chore = ctx.insert(Chore.self)
            chore.title = "dishes"
            try ctx.save()
            #expect(chore.saves == 1)
            chore.title = "laundry"
            try ctx.save()
            #expect(chore.saves == 2)
            #expect(ctx.undo())  // one step: the rename and willSave's count
            #expect(chore.title == "dishes")
            #expect(chore.saves == 1)
        }
    }
}
