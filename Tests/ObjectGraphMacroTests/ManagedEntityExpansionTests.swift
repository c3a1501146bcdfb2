import ObjectGraphMacroSupport
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

/// What `@ManagedEntity` writes for each kind of property.
final class ManagedEntityExpansionTests: XCTestCase {
    let macros: [String: Macro.Type] = [
        "ManagedEntity": ManagedEntityMacro.self, "_ManagedProperty": ManagedPropertyMacro.self,
        "Attribute": MarkerMacro.self, "Relationship": MarkerMacro.self, "Ignored": MarkerMacro.self,
    ]

    func testAttributes() {
        assertMacroExpansion(
            """
            @ManagedEntity
            final class Task: ManagedObject {
                var title: String
                var done = false
                var notes: String?
                @Attribute(.unique, .indexed, .named("uid_text"), .renamed(from: "id")) var uid: UUID
                @Attribute(.transient, .validated(.minimum(0), .maximum(3))) var rank: Int64 = 1
                @Attribute(.encoded) var layout: Layout?
                @Attribute(.derivedCount(of: "items", where: "done == NO")) var open: Int
                @Attribute var level: Level?
                @Ignored var isExpanded = false
                var summary: String { title }
                static let kind = "task"
            }
            """,
            expandedSource: """
                final class Task: ManagedObject {
                    var title: String {
                        get {
                            Managed<String> [_enclosingInstance: self, wrapped: \\Self.title, storage: \\Self._title]
                        }
                        set {
                            Managed<String> [_enclosingInstance: self, wrapped: \\Self.title, storage: \\Self._title] = newValue
                        }
                    }

                    private var _title = Managed<String>("title")
                    var done {
                        @storageRestrictions(accesses: _done)
                        init(initialValue) {
                        }
                        get {
                            Managed<Bool> [_enclosingInstance: self, wrapped: \\Self.done, storage: \\Self._done]
                        }
                        set {
                            Managed<Bool> [_enclosingInstance: self, wrapped: \\Self.done, storage: \\Self._done] = newValue
                        }
                    }

                    private var _done = Managed<Bool>("done")
                    var notes: String? {
                        get {
                            Managed<String?> [_enclosingInstance: self, wrapped: \\Self.notes, storage: \\Self._notes]
                        }
                        set {
                            Managed<String?> [_enclosingInstance: self, wrapped: \\Self.notes, storage: \\Self._notes] = newValue
                        }
                    }

                    private var _notes = Managed<String?>("notes")
                    var uid: UUID {
                        get {
                            Managed<UUID> [_enclosingInstance: self, wrapped: \\Self.uid, storage: \\Self._uid]
                        }
                        set {
                            Managed<UUID> [_enclosingInstance: self, wrapped: \\Self.uid, storage: \\Self._uid] = newValue
                        }
                    }

                    private var _uid = Managed<UUID>("uid_text")
                    var rank: Int64 {
                        @storageRestrictions(accesses: _rank)
                        init(initialValue) {
                        }
                        get {
                            Managed<Int64> [_enclosingInstance: self, wrapped: \\Self.rank, storage: \\Self._rank]
                        }
                        set {
                            Managed<Int64> [_enclosingInstance: self, wrapped: \\Self.rank, storage: \\Self._rank] = newValue
                        }
                    }

                    private var _rank = Managed<Int64>("rank")
                    var layout: Layout? {
                        get {
                            Encoded<Layout> [_enclosingInstance: self, wrapped: \\Self.layout, storage: \\Self._layout]
                        }
                        set {
                            Encoded<Layout> [_enclosingInstance: self, wrapped: \\Self.layout, storage: \\Self._layout] = newValue
                        }
                    }

                    private var _layout = Encoded<Layout>("layout")
                    var open: Int {
                        get {
                            Managed<Int> [_enclosingInstance: self, wrapped: \\Self.open, storage: \\Self._open]
                        }
                        set {
                            Managed<Int> [_enclosingInstance: self, wrapped: \\Self.open, storage: \\Self._open] = newValue
                        }
                    }

                    private var _open = Managed<Int>("open")
                    var level: Level? {
                        get {
                            Managed<Level?> [_enclosingInstance: self, wrapped: \\Self.level, storage: \\Self._level]
                        }
                        set {
                            Managed<Level?> [_enclosingInstance: self, wrapped: \\Self.level, storage: \\Self._level] = newValue
                        }
                    }

                    private var _level = Managed<Level?>("level")
                    var isExpanded = false
                    var summary: String { title }
                    static let kind = "task"

                    override class var entityDescription: EntityDescription? {
                        var entity = EntityDescription(
                            "Task", managedClass: Task.self,
                            attributes: [
                                AttributeDescription(name: "title", type: String.attributeType, isOptional: false, defaultValue: .null, isTransient: false, isIndexed: false, renamingIdentifier: nil),
                                AttributeDescription(name: "done", type: Bool.attributeType, isOptional: false, defaultValue: (false as Bool).valueRepresentation, isTransient: false, isIndexed: false, renamingIdentifier: nil),
                                AttributeDescription(name: "notes", type: String.attributeType, isOptional: true, defaultValue: .null, isTransient: false, isIndexed: false, renamingIdentifier: nil),
                                AttributeDescription(name: "uid_text", type: UUID.attributeType, isOptional: false, defaultValue: .null, isTransient: false, isIndexed: true, renamingIdentifier: "id"),
                                AttributeDescription(name: "rank", type: Int64.attributeType, isOptional: false, defaultValue: (1 as Int64).valueRepresentation, isTransient: true, isIndexed: false, renamingIdentifier: nil).validated(.minimum(0), .maximum(3)),
                                AttributeDescription(name: "layout", type: .string, isOptional: true, isTransient: false, isIndexed: false, renamingIdentifier: nil),
                                AttributeDescription.derivedCount("open", of: "items", where: "done == NO"),
                                AttributeDescription(name: "level", type: Level.attributeType, isOptional: true, defaultValue: .null, isTransient: false, isIndexed: false, renamingIdentifier: nil),
                            ],
                            relationships: [],
                            indexes: [], uniquenessConstraints: [["uid_text"]],
                            renamingIdentifier: nil)
                        entity.parentEntityName = super.entityDescription?.name
                        entity.isAbstract = false
                        return entity
                    }

                    override class func _managedKey(for keyPath: AnyKeyPath) -> String? {
                        if keyPath == \\Task.`title` {
                            return "title"
                        }
                        if keyPath == \\Task.`done` {
                            return "done"
                        }
                        if keyPath == \\Task.`notes` {
                            return "notes"
                        }
                        if keyPath == \\Task.`uid` {
                            return "uid_text"
                        }
                        if keyPath == \\Task.`rank` {
                            return "rank"
                        }
                        if keyPath == \\Task.`layout` {
                            return "layout"
                        }
                        if keyPath == \\Task.`open` {
                            return "open"
                        }
                        if keyPath == \\Task.`level` {
                            return "level"
                        }
                        return super._managedKey(for: keyPath)
                    }
                }
                """,
            macros: macros)
    }

    func testRelationshipsAndEntityOptions() {
        assertMacroExpansion(
            """
            @ManagedEntity("Box", renamedFrom: "Crate", unique: [["label", "shelf"]], indexes: [["label"]], abstract: true)
            public class Container: ManagedObject {
                var label: String
                @Relationship(inverse: \\Shelf.boxes, required: true, renamedFrom: "rack") var shelf: Shelf?
                @Relationship(deleteRule: .cascade, ordered: true, named: "contents") var items: [Item]
            }
            """,
            expandedSource: """
                public class Container: ManagedObject {
                    var label: String {
                        get {
                            Managed<String> [_enclosingInstance: self, wrapped: \\Self.label, storage: \\Self._label]
                        }
                        set {
                            Managed<String> [_enclosingInstance: self, wrapped: \\Self.label, storage: \\Self._label] = newValue
                        }
                    }

                    private var _label = Managed<String>("label")
                    var shelf: Shelf? {
                        get {
                            ToOne<Shelf> [_enclosingInstance: self, wrapped: \\Self.shelf, storage: \\Self._shelf]
                        }
                        set {
                            ToOne<Shelf> [_enclosingInstance: self, wrapped: \\Self.shelf, storage: \\Self._shelf] = newValue
                        }
                    }

                    private var _shelf = ToOne<Shelf>("shelf")
                    var items: [Item] {
                        get {
                            ToMany<Item> [_enclosingInstance: self, wrapped: \\Self.items, storage: \\Self._items]
                        }
                        set {
                            ToMany<Item> [_enclosingInstance: self, wrapped: \\Self.items, storage: \\Self._items] = newValue
                        }
                    }

                    private var _items = ToMany<Item>("contents")

                    override public class var entityDescription: EntityDescription? {
                        var entity = EntityDescription(
                            "Box", managedClass: Container.self,
                            attributes: [
                                AttributeDescription(name: "label", type: String.attributeType, isOptional: false, defaultValue: .null, isTransient: false, isIndexed: false, renamingIdentifier: nil),
                            ],
                            relationships: [
                                RelationshipDescription(name: "shelf", destinationEntityName: "Shelf", inverseName: "boxes", isToMany: false, deleteRule: .nullify, isOptional: false, renamingIdentifier: "rack", isOrdered: false),
                                RelationshipDescription(name: "contents", destinationEntityName: "Item", inverseName: "", isToMany: true, deleteRule: .cascade, isOptional: true, renamingIdentifier: nil, isOrdered: true),
                            ],
                            indexes: [["label"]], uniquenessConstraints: [["label", "shelf"]],
                            renamingIdentifier: "Crate")
                        entity.parentEntityName = super.entityDescription?.name
                        entity.isAbstract = true
                        return entity
                    }

                    override public class func _managedKey(for keyPath: AnyKeyPath) -> String? {
                        if keyPath == \\Container.`label` {
                            return "label"
                        }
                        if keyPath == \\Container.`shelf` {
                            return "shelf"
                        }
                        if keyPath == \\Container.`items` {
                            return "contents"
                        }
                        return super._managedKey(for: keyPath)
                    }
                }
                """,
            macros: macros)
    }
}
