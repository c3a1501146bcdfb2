import Foundation
import ObjectGraph
import Testing

// A model declared only by its classes: every attribute kind, relationships both ways
// (one inverse named, one found), a derived count, and properties the entity leaves out.
@ManagedEntity(unique: [["title", "list"]])
final class MacroTask: ManagedObject {
    @Attribute(.indexed, .validated(.minLength(1))) var title: String
    var done = false
    var priority: Int = 1
    var notes: String?
    var due: Date?
    var uid: UUID?
    var score: Double = 0.5
    var blob: Data?
    var big: Int64 = -3
    @Attribute(.transient) var scratch: String?
    @Attribute(.encoded) var tags: [String]?
    @Attribute(.named("legacy_code"), .renamed(from: "code")) var code: Int64 = 0
    @Relationship(inverse: \MacroList.tasks) var list: MacroList?
    @Ignored var isExpanded = false
    var summary: String { "\(title) (\(priority))" }
    static let kind = "task"
}

@ManagedEntity("TaskList")
final class MacroList: ManagedObject {
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .cascade, ordered: true) var tasks: [MacroTask]
    @Attribute(.derivedCount(of: "tasks", where: "done == NO")) var openCount: Int
}

/// The same types spelled other ways: qualified, `Optional<…>`, access-limited, backticked.
@ManagedEntity final class MacroSpellings: ManagedObject {
    var a: Optional<String>
    var b: Swift.Int = 2
    var c: Foundation.Date?
    private(set) var d: Bool = true
    public var e: Swift.Double?
    var `default`: Int = 0
    @Relationship var others: [MacroSpellings]
    @Relationship(inverse: \MacroSpellings.others) var owner: Optional<MacroSpellings>
}

/// An explicit entity beside macro-declared ones, related both ways.
final class MixFolder: ManagedObject {
    @Managed("name") var name: String
    @ToMany("notes") var notes: [MixNote]
}

@ManagedEntity final class MixNote: ManagedObject {
    var text: String?
    @Relationship var folder: MixFolder?
}

/// Single-table inheritance from the classes alone.
@ManagedEntity(abstract: true)
class MacroItem: ManagedObject {
    var title: String
}

@ManagedEntity final class MacroEssay: MacroItem {
    var words: Int = 0
}

@Suite struct MacroModelTests {
    static func model(version: Int = 1) throws -> ManagedObjectModel {
        try ManagedObjectModel(name: "Macro", version: version, classes: [MacroTask.self, MacroList.self])
    }

    static func temporaryStore() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("macro-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("store.sqlite")
    }

    @Test func attributesComeFromTypesOptionalityAndDefaults() throws {
        let entity = try Self.model().entity(named: "MacroTask")
        func attribute(_ name: String) throws -> AttributeDescription { try #require(entity.attribute(named: name)) }
        #expect(
            entity.attributes.map(\.name) == [
                "title", "done", "priority", "notes", "due", "uid", "score", "blob", "big", "scratch", "tags", "legacy_code",
            ])
        #expect(try attribute("title").type == .string)
        #expect(try attribute("title").isOptional == false)
        #expect(try attribute("title").isIndexed)
        #expect(try attribute("title").validationRules == [.minLength(1)])
        #expect(try attribute("done").type == .bool)
        #expect(try attribute("done").defaultValue == .bool(false))
        #expect(try attribute("priority").type == .integer)
        #expect(try attribute("priority").defaultValue == .integer(1))
        #expect(try attribute("notes").isOptional)
        #expect(try attribute("notes").defaultValue == .null)
        #expect(try attribute("due").type == .date)
        #expect(try attribute("uid").type == .string)
        #expect(try attribute("score").defaultValue == .double(0.5))
        #expect(try attribute("blob").type == .data)
        #expect(try attribute("big").defaultValue == .integer(-3))
        #expect(try attribute("scratch").isTransient)
        #expect(try attribute("tags").type == .string)
        #expect(try attribute("legacy_code").renamingIdentifier == "code")
        #expect(entity.attribute(named: "isExpanded") == nil)
        #expect(entity.attribute(named: "summary") == nil)
        #expect(entity.attribute(named: "kind") == nil)
        #expect(entity.uniquenessConstraints == [["title", "list"]])
    }

    @Test func otherSpellingsOfATypeMeanTheSame() throws {
        let model = try ManagedObjectModel(name: "Spellings", version: 1, classes: [MacroSpellings.self])
        let entity = try model.entity(named: "MacroSpellings")
        let described = entity.attributes.map { "\($0.name) \($0.type) \($0.isOptional) \($0.defaultValue)" }
        #expect(
            described == [
                "a string true \(Value.null)", "b integer false \(Value.integer(2))", "c date true \(Value.null)",
                "d bool false \(Value.bool(true))", "e double true \(Value.null)", "default integer false \(Value.integer(0))",
            ])
        #expect(entity.relationship(named: "others")?.isToMany == true)
        #expect(entity.relationship(named: "others")?.inverseName == "owner")
        #expect(entity.relationship(named: "owner")?.isToMany == false)
        let container = try PersistentContainer(model: model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            let parent = context.insert(MacroSpellings.self)
            let child = context.insert(MacroSpellings.self)
            child.owner = parent
            child.e = 1.5
            child.default = 4
            try context.save()
            #expect(parent.others.count == 1 && parent.d && child.b == 2 && child.e == 1.5 && child.default == 4)
        }
    }

    @Test func relationshipsGetTheirInverseDeleteRuleAndOrder() throws {
        let model = try Self.model()
        let list = try model.entity(named: "TaskList")
        let tasks = try #require(list.relationship(named: "tasks"))
        #expect(tasks.destinationEntityName == "MacroTask")
        #expect(tasks.inverseName == "list")
        #expect(tasks.isToMany && tasks.isOrdered)
        #expect(tasks.deleteRule == .cascade)
        #expect(list.uniquenessConstraints == [["name"]])
        #expect(
            list.attribute(named: "openCount")?.derivedCount == DerivedCount(relationship: "tasks", predicateFormat: "done == NO")
        )
        let back = try #require(try model.entity(named: "MacroTask").relationship(named: "list"))
        #expect(back.destinationEntityName == "TaskList")
        #expect(back.inverseName == "tasks")
        #expect(!back.isToMany && back.isOptional)
    }

    @Test func aMacroModelSavesFetchesAndReopens() throws {
        let url = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let uid = UUID()
        do {
            let container = try PersistentContainer(model: try Self.model(), store: .file(url))
            let context = container.viewContext
            try context.performAndWait { () throws in
                let list = context.insert(MacroList.self)
                list.name = "Home"
                for (i, title) in ["Milk", "Bread", "Eggs"].enumerated() {
                    let task = context.insert(MacroTask.self)
                    #expect(task.done == false && task.priority == 1 && task.score == 0.5 && task.big == -3)
                    task.title = title
                    task.done = i == 1
                    task.list = list
                }
                let milk = list.tasks[0]
                milk.notes = "semi-skimmed"
                milk.uid = uid
                milk.tags = ["dairy", "cold"]
                milk.code = 7
                milk.due = Date(timeIntervalSince1970: 1000)
                milk.blob = Data([1, 2])
                milk.scratch = "not saved"
                milk.isExpanded = true
                try context.save()
                #expect(list.openCount == 2)
            }
            try container.store.close()
        }
        let container = try PersistentContainer(model: try Self.model(), store: .file(url))
        let context = container.viewContext
        try context.performAndWait { () throws in
            let list = try #require(try context.fetch(FetchRequest<MacroList>()).first)
            #expect(list.tasks.map(\.title) == ["Milk", "Bread", "Eggs"])
            #expect(list.openCount == 2)
            let milk = list.tasks[0]
            #expect(milk.notes == "semi-skimmed")
            #expect(milk.uid == uid)
            #expect(milk.tags == ["dairy", "cold"])
            #expect(milk.code == 7)
            #expect(milk.due == Date(timeIntervalSince1970: 1000))
            #expect(milk.blob == Data([1, 2]))
            #expect(milk.scratch == nil)
            #expect(milk.isExpanded == false)
            #expect(milk.summary == "Milk (1)")
            let found = try context.fetch(FetchRequest<MacroTask>(predicate: try ObjectPredicate(format: "legacy_code == 7")))
            #expect(found.map(\.title) == ["Milk"])
            // The rule from @Attribute(.validated(…)) and the constraint from @Attribute(.unique).
            context.insert(MacroTask.self).title = ""
            #expect(throws: ObjectGraphError.self) { try context.save() }
            context.rollback()
            context.insert(MacroList.self).name = "Home"
            #expect(throws: ObjectGraphError.self) { try context.save() }
            context.rollback()
            context.delete(list)
            try context.save()
            #expect(try context.count(for: FetchRequest<MacroTask>()) == 0)
        }
    }

    @Test func anExplicitVersionMigratesToAMacroVersion() throws {
        let url = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        // The newer version exists first: the older one shares its classes (see checkClassesMatch).
        let v2 = try Self.model(version: 2)
        let v1 = try ManagedObjectModel(
            name: "Macro", version: 1,
            entities: [
                EntityDescription(
                    "MacroTask", managedClass: MacroTask.self,
                    attributes: [.string("title", optional: false), .bool("done", defaultValue: false), .integer("code")])
            ])
        do {
            let old = try PersistentContainer(model: v1, store: .file(url))
            let context = old.viewContext
            try context.performAndWait { () throws in
                let task = context.insert(MacroTask.self)
                task.title = "Old"
                task.done = true
                try task.setValue(.integer(42), forKey: "code")
                try context.save()
            }
            try old.store.close()
        }
        let container = try PersistentContainer(model: v2, store: .file(url), migrator: try MigrationPlan(versions: [v1, v2]))
        let context = container.viewContext
        try context.performAndWait { () throws in
            let task = try #require(try context.fetch(FetchRequest<MacroTask>()).first)
            #expect(task.title == "Old" && task.done)
            #expect(task.priority == 1)
            #expect(task.code == 42)  // renamed from "code" to "legacy_code"
            #expect(task.list == nil)
        }
    }

    @Test func macroAndExplicitEntitiesMixInOneModel() throws {
        let folder = EntityDescription(
            "MixFolder", managedClass: MixFolder.self, attributes: [.string("name", optional: false)],
            relationships: [.toMany("notes", destination: "MixNote", inverse: "folder", deleteRule: .cascade)])
        let model = try ManagedObjectModel(name: "Mix", version: 1, classes: [MixNote.self], entities: [folder])
        #expect(try model.entity(named: "MixNote").relationship(named: "folder")?.inverseName == "notes")
        let container = try PersistentContainer(model: model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            let f = context.insert(MixFolder.self)
            f.name = "Inbox"
            let note = context.insert(MixNote.self)
            note.text = "hello"
            note.folder = f
            try context.save()
            #expect(f.notes.map(\.text) == ["hello"])
        }
    }

    @Test func subclassesInheritTheirParentsEntity() throws {
        let model = try ManagedObjectModel(name: "Reading", version: 1, classes: [MacroItem.self, MacroEssay.self])
        #expect(try model.entity(named: "MacroEssay").parentEntityName == "MacroItem")
        #expect(try model.entity(named: "MacroItem").isAbstract)
        #expect(try model.entity(named: "MacroEssay").attributes.map(\.name) == ["title", "words"])
        let container = try PersistentContainer(model: model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            let essay = context.insert(MacroEssay.self)
            essay.title = "On trees"
            essay.words = 1200
            try context.save()
            let all = try context.fetch(FetchRequest<MacroItem>())
            #expect(all.map(\.title) == ["On trees"])
            #expect((all.first as? MacroEssay)?.words == 1200)
        }
    }

    @Test func theMacroNamesEachPropertysKeyToTypedQueries() throws {
        #expect(MacroTask._managedKey(for: \MacroTask.title) == "title")
        #expect(MacroTask._managedKey(for: \MacroTask.code) == "legacy_code")
        #expect(MacroTask._managedKey(for: \MacroTask.list) == "list")
        #expect(MacroList._managedKey(for: \MacroList.tasks) == "tasks")
        #expect(MacroSpellings._managedKey(for: \MacroSpellings.default) == "default")
        // What is not a managed property of the class itself is left to recording.
        #expect(MacroTask._managedKey(for: \MacroTask.summary) == nil)
        #expect(MacroTask._managedKey(for: \MacroTask.isExpanded) == nil)
        #expect(MacroTask._managedKey(for: \MacroTask.list?.name) == nil)
        #expect(MacroEssay._managedKey(for: \MacroEssay.words) == "words")
        #expect(MacroEssay._managedKey(for: \MacroEssay.title) == nil)
        let request = FetchRequest<MacroTask>(where: \.code == 3 && \.list?.name == "Home")
        #expect(request.predicate?.predicateFormat == #"legacy_code == 3 AND list.name == "Home""#)
        #expect(FetchRequest<MacroEssay>(where: \.title == "On trees").predicate?.predicateFormat == #"title == "On trees""#)
    }

    @Test func aModelOfClassesSaysWhatIsMissing() throws {
        let notDeclared = #expect(throws: ModelError.self) {
            _ = try ManagedObjectModel(name: "Mix", version: 1, classes: [MixNote.self, MixFolder.self])
        }
        #expect(
            notDeclared?.message == "class MixFolder is not declared with @ManagedEntity; describe it with an EntityDescription")
        let folder = EntityDescription("MixFolder", managedClass: MixFolder.self, attributes: [.string("name", optional: false)])
        let noInverse = #expect(throws: ModelError.self) {
            _ = try ManagedObjectModel(name: "Mix", version: 1, classes: [MixNote.self], entities: [folder])
        }
        #expect(
            noInverse?.message
                == "MixNote.folder has no inverse: MixFolder has no relationship back to MixNote; name it with @Relationship(inverse:)"
        )
        #expect(throws: ModelError.self) {
            _ = try ManagedObjectModel(name: "Mix", version: 1, classes: [MixNote.self])
        }
    }
}
