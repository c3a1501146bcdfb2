import Foundation
import Synchronization

// MARK: - Public API

extension EntityDescription {
    /// An entity that inherits from `parent` (Core Data's `superentity`), or an abstract root.
    ///
    /// A sub-entity has every attribute, relationship, index, uniqueness constraint,
    /// validation rule and derived count of its parent, then its own; its class subclasses the
    /// parent's class. The whole hierarchy lives in the root's table (single-table
    /// inheritance) with a discriminator column `Z_ENT` naming each row's entity; attributes
    /// only a sub-entity has are columns there that other rows leave NULL. A fetch of the
    /// parent returns objects of every sub-entity, each of its own class, unless
    /// ``FetchRequest/includesSubentities`` is false. An abstract entity (`isAbstract: true`)
    /// has no objects of its own: inserting one stops with a message
    /// (``ManagedObjectContext/insertObject(entityName:)`` throws
    /// ``ObjectGraphError/abstractEntity(_:)``).
    ///
    /// ```swift
    /// class ReadingItem: ManagedObject {
    ///     @Managed("title") var title: String?
    /// }
    /// final class Essay: ReadingItem {
    ///     @Managed("body") var body: String?
    /// }
    /// final class Episode: ReadingItem {
    ///     @Managed("duration") var duration: Double?
    /// }
    /// let item = EntityDescription("ReadingItem", parent: nil, isAbstract: true, managedClass: ReadingItem.self,
    ///     attributes: [.string("title")])
    /// let essay = EntityDescription("Essay", parent: "ReadingItem", managedClass: Essay.self,
    ///     attributes: [.string("body")])
    /// let episode = EntityDescription("Episode", parent: "ReadingItem", managedClass: Episode.self,
    ///     attributes: [.double("duration", optional: true)])
    /// let model = try ManagedObjectModel(name: "Reading", version: 1, entities: [item, essay, episode])
    /// let container = try PersistentContainer(model: model, store: .inMemory)
    /// try container.viewContext.performAndWait {
    ///     let context = container.viewContext
    ///     context.insert(Essay.self).title = "On trees"
    ///     context.insert(Episode.self).duration = 1800
    ///     try context.save()
    ///     let all = try context.fetch(FetchRequest<ReadingItem>())   // an Essay and an Episode
    ///     print(all.map { type(of: $0) }, try context.count(for: FetchRequest<Episode>()))   // [Essay, Episode] 1
    /// }
    /// ```
    public init(
        _ name: String, parent: String?, isAbstract: Bool = false, managedClass: ManagedObject.Type = ManagedObject.self,
        attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
        indexes: [[String]] = [], uniquenessConstraints: [[String]] = [], renamingIdentifier: String? = nil
    ) {
        self.init(
            name, managedClass: managedClass, attributes: attributes, relationships: relationships, indexes: indexes,
            uniquenessConstraints: uniquenessConstraints, renamingIdentifier: renamingIdentifier)
        self.parentEntityName = parent
        self.isAbstract = isAbstract
    }
}

extension Entity {
    /// Whether the entity is abstract: only its sub-entities have objects.
    public var isAbstract: Bool { inheritance?.isAbstract ?? false }
    /// The entity this one inherits from (Core Data's `superentity`), by name.
    public var parentEntityName: String? { inheritance?.parentName }
    /// The entities inheriting directly from this one (Core Data's `subentities`), by name.
    public var subentityNames: [String] { inheritance?.subentityNames ?? [] }
    /// Whether this entity is `other` or inherits from it (directly or not).
    ///
    /// ```swift
    /// // With the model of EntityDescription.init(_:parent:isAbstract:…)'s example:
    /// let isItem = try model.entity(named: "Essay").isKind(of: try model.entity(named: "ReadingItem"))   // true
    /// ```
    public func isKind(of other: Entity) -> Bool {
        if self === other { return true }
        guard hierarchyToken != 0, hierarchyToken == other.hierarchyToken, let info = other.inheritance else { return false }
        return info.kindIndexes.contains(index)
    }

    /// Whether this entity, or an entity it inherits from, is named in `names`.
    func isNamed(in names: Set<String>) -> Bool {
        names.contains(name) || (inheritance?.ancestorNames.contains(where: names.contains) ?? false)
    }

    /// Whether this entity is the model's entity number `i` or inherits from it.
    func isKind(ofEntityAt i: Int) -> Bool {
        index == i || (inheritance?.ancestorIndexes.contains(i) ?? false)
    }

    /// Whether objects of this entity may be of a sub-entity (a read must look at `Z_ENT`).
    var hasSubentities: Bool { inheritance?.polymorphic != nil }
}

extension ManagedObjectModel {
    /// The sub-entities of `entity`, direct or not, in model order.
    ///
    /// ```swift
    /// // With the model of EntityDescription.init(_:parent:isAbstract:…)'s example:
    /// let kinds = model.subentities(of: try model.entity(named: "ReadingItem")).map(\.name)   // ["Essay", "Episode"]
    /// ```
    public func subentities(of entity: Entity) -> [Entity] {
        (entity.inheritance?.kindIndexes ?? []).filter { $0 != entity.index }.map { entities[$0] }
    }
}

// MARK: - Resolved hierarchy

/// Where one entity stands in an inheritance hierarchy.
struct EntityInheritance: Sendable {
    /// The hierarchy's root, whose table holds every row of the hierarchy.
    let rootName: String
    /// Identifies the hierarchy in this process (see ``Entity/hierarchyToken``).
    let token: Int
    let isAbstract: Bool
    let parentName: String?
    let subentityNames: [String]
    /// This entity and every entity inheriting from it, by model index, and their names as
    /// stored in `Z_ENT`.
    let kindIndexes: [Int]
    let kindNames: [String]
    /// The parent, the parent's parent… by model index, and by name.
    let ancestorIndexes: [Int]
    let ancestorNames: [String]
    /// For each relationship (flattened order), the entity that declared it: a relationship's
    /// storage (one-to-one side, join table name) follows its declaring entity.
    let declaringEntityNames: [String]
    /// How rows are read when they may be of a sub-entity (nil: the entity has none).
    let polymorphic: PolymorphicLayout?
    /// True for the table entities of ``ManagedObjectModel/tableEntities``: the whole table.
    var isTable = false
    /// For a table entity: uniqueness constraints declared below the root, with the
    /// entities they hold among (their index is partial).
    var constraintKinds: [[String]: [String]] = [:]
}

/// The columns read for an entity with sub-entities, and where each kind finds its values.
struct PolymorphicLayout: Sendable {
    /// After `Z_PK` and `Z_OPT`: the stored attributes and foreign keys of every kind, each
    /// once (the entity's own first, in its order), then `Z_ENT`.
    let columns: [String]
    let kinds: [String: Kind]

    struct Kind: Sendable {
        let entityIndex: Int
        /// Column positions (from 0, after Z_PK and Z_OPT) of the kind's stored attributes
        /// (in `storedAttributeIndexes` order) and foreign keys (in `foreignKeyIndexes` order).
        let attributeColumns: [Int]
        let foreignKeyColumns: [Int]
    }
}

enum Inheritance {
    /// The column naming each row's entity in a hierarchy's table.
    static let discriminatorColumn = "Z_ENT"

    private static let tokens = Atomic<Int>(0)

    /// The descriptions with every sub-entity's inherited properties in front of its own (so
    /// an inherited attribute or relationship has the same position in parent and child),
    /// after checking the hierarchy: known parents, no cycles, no property redeclared as
    /// something else.
    static func flatten(_ declared: [EntityDescription], byName: [String: Int]) throws(ModelError) -> [EntityDescription] {
        guard declared.contains(where: { $0.parentEntityName != nil }) else {
            for e in declared where e.isAbstract {
                throw ModelError(message: "entity '\(e.name)' is abstract but has no sub-entities")
            }
            return declared
        }
        var flat: [EntityDescription?] = Array(repeating: nil, count: declared.count)
        func resolve(_ i: Int, chain: [String]) throws(ModelError) -> EntityDescription {
            if let done = flat[i] { return done }
            let e = declared[i]
            guard let parentName = e.parentEntityName else {
                flat[i] = e
                return e
            }
            guard let p = byName[parentName] else {
                throw ModelError(message: "entity '\(e.name)': parent entity '\(parentName)' does not exist")
            }
            if chain.contains(parentName) || parentName == e.name {
                throw ModelError(
                    message: "entity '\(e.name)': inheritance cycle \((chain + [e.name, parentName]).joined(separator: " → "))")
            }
            let parent = try resolve(p, chain: chain + [e.name])
            if parent.fullTextIndex != nil || e.fullTextIndex != nil {
                throw ModelError(
                    message: "entity '\(e.name)': a full-text index is not supported in an inheritance hierarchy")
            }
            var result = e
            result.attributes = parent.attributes
            result.relationships = parent.relationships
            for a in e.attributes {
                if let j = result.attributes.firstIndex(where: { $0.name == a.name }) {
                    let inherited = result.attributes[j]
                    guard inherited.type == a.type, inherited.isTransient == a.isTransient else {
                        throw ModelError(
                            message:
                                "\(e.name).\(a.name) redeclares \(parent.name).\(a.name) as \(a.type.withArticle)\(a.isTransient ? " (transient)" : ""); it is \(inherited.type.withArticle)\(inherited.isTransient ? " (transient)" : "") in \(parent.name)"
                        )
                    }
                    guard inherited.derivedCount == a.derivedCount else {
                        throw ModelError(
                            message: "\(e.name).\(a.name) redeclares \(parent.name).\(a.name) with another derived count")
                    }
                    // Same type: the sub-entity's default and validation rules replace the
                    // parent's, in the parent's position (the column stays the root's).
                    result.attributes[j] = a
                } else if parent.relationships.contains(where: { $0.name == a.name }) {
                    throw ModelError(
                        message: "\(e.name).\(a.name) redeclares relationship \(parent.name).\(a.name) as an attribute")
                } else {
                    result.attributes.append(a)
                }
            }
            for r in e.relationships {
                if parent.attributes.contains(where: { $0.name == r.name }) {
                    throw ModelError(
                        message: "\(e.name).\(r.name) redeclares attribute \(parent.name).\(r.name) as a relationship")
                }
                if parent.relationships.contains(where: { $0.name == r.name }) {
                    throw ModelError(
                        message:
                            "\(e.name).\(r.name) redeclares relationship \(parent.name).\(r.name); a sub-entity inherits it as it is"
                    )
                }
                result.relationships.append(r)
            }
            result.indexes = parent.indexes + e.indexes.filter { !parent.indexes.contains($0) }
            result.partialIndexes = parent.partialIndexes + e.partialIndexes.filter { !parent.partialIndexes.contains($0) }
            result.uniquenessConstraints =
                parent.uniquenessConstraints + e.uniquenessConstraints.filter { !parent.uniquenessConstraints.contains($0) }
            flat[i] = result
            return result
        }
        var result: [EntityDescription] = []
        for i in declared.indices { result.append(try resolve(i, chain: [])) }
        for e in declared where e.isAbstract && !declared.contains(where: { $0.parentEntityName == e.name }) {
            throw ModelError(message: "entity '\(e.name)' is abstract but has no sub-entities")
        }
        return result
    }

    /// The entity (name) that declared relationship `name`: the topmost ancestor of entity
    /// `i` that has it.
    static func declaringEntity(of name: String, in i: Int, declared: [EntityDescription], byName: [String: Int]) -> String {
        var current = i
        var declarer = declared[i].name
        while true {
            if declared[current].relationships.contains(where: { $0.name == name }) { declarer = declared[current].name }
            guard let parent = declared[current].parentEntityName, let p = byName[parent] else { return declarer }
            current = p
        }
    }

    /// Each entity's place in its hierarchy (nil for entities in none), once the flattened
    /// descriptions and their foreign keys are known.
    static func resolve(
        declared: [EntityDescription], flat: [EntityDescription], byName: [String: Int], storesForeignKey: [[Bool]]
    ) -> [EntityInheritance?] {
        guard declared.contains(where: { $0.parentEntityName != nil }) else {
            return Array(repeating: nil, count: declared.count)
        }
        func parentIndex(_ i: Int) -> Int? { declared[i].parentEntityName.flatMap { byName[$0] } }
        var children = [[Int]](repeating: [], count: declared.count)
        for i in declared.indices { if let p = parentIndex(i) { children[p].append(i) } }
        func root(_ i: Int) -> Int { parentIndex(i).map(root) ?? i }
        var tokenOfRoot: [Int: Int] = [:]
        for i in declared.indices where parentIndex(i) != nil || !children[i].isEmpty {
            let r = root(i)
            if tokenOfRoot[r] == nil { tokenOfRoot[r] = tokens.add(1, ordering: .relaxed).newValue }
        }
        func kinds(_ i: Int) -> [Int] { [i] + children[i].flatMap(kinds) }
        var result: [EntityInheritance?] = []
        for i in declared.indices {
            guard let token = tokenOfRoot[root(i)] else {
                result.append(nil)
                continue
            }
            var ancestors: [Int] = []
            var current = parentIndex(i)
            while let p = current {
                ancestors.append(p)
                current = parentIndex(p)
            }
            let kindIndexes = kinds(i)
            let declarers = flat[i].relationships.map {
                declaringEntity(of: $0.name, in: i, declared: declared, byName: byName)
            }
            result.append(
                EntityInheritance(
                    rootName: declared[root(i)].name, token: token, isAbstract: declared[i].isAbstract,
                    parentName: declared[i].parentEntityName, subentityNames: children[i].map { declared[$0].name },
                    kindIndexes: kindIndexes, kindNames: kindIndexes.map { declared[$0].name }, ancestorIndexes: ancestors,
                    ancestorNames: ancestors.map { declared[$0].name },
                    declaringEntityNames: declarers,
                    polymorphic: children[i].isEmpty
                        ? nil : polymorphicLayout(kindIndexes, flat: flat, storesForeignKey: storesForeignKey)))
        }
        return result
    }

    private static func polymorphicLayout(_ kindIndexes: [Int], flat: [EntityDescription], storesForeignKey: [[Bool]])
        -> PolymorphicLayout
    {
        var columns: [String] = []
        var position: [String: Int] = [:]
        func add(_ name: String) -> Int {
            if let p = position[name] { return p }
            position[name] = columns.count
            columns.append(name)
            return columns.count - 1
        }
        // The entity's own attributes first, then its foreign keys, as a plain layout has them.
        let own = flat[kindIndexes[0]]
        for a in own.attributes where !a.isTransient { _ = add(a.name) }
        for (r, rel) in own.relationships.enumerated() where storesForeignKey[kindIndexes[0]][r] { _ = add(rel.name) }
        var kinds: [String: PolymorphicLayout.Kind] = [:]
        for k in kindIndexes {
            let e = flat[k]
            let attributeColumns = e.attributes.filter { !$0.isTransient }.map { add($0.name) }
            let foreignKeyColumns = e.relationships.indices.filter { storesForeignKey[k][$0] }.map {
                add(e.relationships[$0].name)
            }
            kinds[e.name] = PolymorphicLayout.Kind(
                entityIndex: k, attributeColumns: attributeColumns, foreignKeyColumns: foreignKeyColumns)
        }
        return PolymorphicLayout(columns: columns, kinds: kinds)
    }

    /// One entity per table: the entity itself when it is in no hierarchy, and for each
    /// hierarchy an entity describing the root's whole table (every kind's stored attributes
    /// and foreign keys, those below the root optional; every kind's indexes and
    /// constraints), which schema creation, comparison and migration work on.
    static func tableEntities(
        model entities: [Entity], flat: [EntityDescription], destinations: [[Int]], inverses: [[Int]],
        inverseToMany: [[Bool]], storesForeignKey: [[Bool]]
    ) -> [Entity] {
        var result: [Entity] = []
        for entity in entities {
            guard let info = entity.inheritance else {
                result.append(entity)
                continue
            }
            guard info.parentName == nil else { continue }
            var d = flat[entity.index]
            d.parentEntityName = nil
            d.isAbstract = false
            var relationshipDestinations = destinations[entity.index]
            var relationshipInverses = inverses[entity.index]
            var relationshipInverseToMany = inverseToMany[entity.index]
            var stores = storesForeignKey[entity.index]
            var tableInfo = info
            tableInfo.isTable = true
            for k in info.kindIndexes.dropFirst() {
                let kind = flat[k]
                for a in kind.attributes where !a.isTransient && !d.attributes.contains(where: { $0.name == a.name }) {
                    var column = a
                    column.isOptional = true
                    column.validationRules = []
                    d.attributes.append(column)
                }
                for (r, rel) in kind.relationships.enumerated()
                where storesForeignKey[k][r] && !d.relationships.contains(where: { $0.name == rel.name }) {
                    var column = rel
                    column.isOptional = true
                    d.relationships.append(column)
                    relationshipDestinations.append(destinations[k][r])
                    relationshipInverses.append(inverses[k][r])
                    relationshipInverseToMany.append(inverseToMany[k][r])
                    stores.append(true)
                }
                for keys in kind.indexes where !d.indexes.contains(keys) { d.indexes.append(keys) }
                for index in kind.partialIndexes where !d.partialIndexes.contains(index) { d.partialIndexes.append(index) }
                for keys in kind.uniquenessConstraints where !d.uniquenessConstraints.contains(keys) {
                    d.uniquenessConstraints.append(keys)
                    tableInfo.constraintKinds[keys] = entities[k].inheritance?.kindNames
                }
            }
            // Many-to-many relationships are kept by the entities that declare them.
            let plain = d.relationships.indices.filter { !(d.relationships[$0].isToMany && relationshipInverseToMany[$0]) }
            d.relationships = plain.map { d.relationships[$0] }
            result.append(
                Entity(
                    description: d, index: entity.index, destinationIndex: plain.map { relationshipDestinations[$0] },
                    inverseIndex: plain.map { relationshipInverses[$0] },
                    inverseIsToMany: plain.map { relationshipInverseToMany[$0] },
                    storesForeignKey: plain.map { stores[$0] }, counters: [], counterDependencies: [],
                    inheritance: tableInfo))
        }
        return result
    }

    // MARK: SQL

    /// `t0."Z_ENT" IN ('A', 'B')` restricting a read of `entity` to its own rows (and its
    /// sub-entities' with `includingSubentities`); nil when every row of the table qualifies.
    static func condition(for entity: Entity, alias: String, includingSubentities: Bool = true) -> String? {
        guard let info = entity.inheritance else { return nil }
        let names = includingSubentities ? info.kindNames : [entity.name]
        if info.parentName == nil && includingSubentities { return nil }
        let column = "\(alias).\(SchemaGenerator.quote(discriminatorColumn))"
        if names.count == 1 { return "\(column) = \(SchemaGenerator.sqlLiteral(.string(names[0])))" }
        return "\(column) IN (\(names.map { SchemaGenerator.sqlLiteral(.string($0)) }.joined(separator: ", ")))"
    }
}

extension Inheritance {
    /// The discriminator column of a hierarchy's table; rows default to the root.
    static func discriminatorColumnSQL(for table: Entity) -> String {
        "\(SchemaGenerator.quote(discriminatorColumn)) TEXT NOT NULL DEFAULT \(SchemaGenerator.sqlLiteral(.string(table.name)))"
    }

    static func discriminatorIndexSQL(for table: Entity) -> String {
        let q = SchemaGenerator.quote
        return "CREATE INDEX \(q("Z_\(table.name)_\(discriminatorColumn)")) ON \(q(table.tableName)) (\(q(discriminatorColumn)))"
    }

    /// ` WHERE "Z_ENT" IN (…)` for a uniqueness constraint a sub-entity declared: it holds
    /// among that entity's rows (and its sub-entities'), not the whole table.
    static func partialIndexCondition(for table: Entity, keys: [String]) -> String {
        guard let kinds = table.inheritance?.constraintKinds[keys] else { return "" }
        return
            " WHERE \(SchemaGenerator.quote(discriminatorColumn)) IN (\(kinds.map { SchemaGenerator.sqlLiteral(.string($0)) }.joined(separator: ", ")))"
    }
}

extension ManagedObjectContext {
    /// `id` naming the entity of its row: one look-up of the row's `Z_ENT` (the ID names a
    /// parent entity, e.g. a to-one's declared destination). `id` itself when the row is gone.
    func concreteID(_ id: ObjectID) -> ObjectID {
        guard let pk = id.primaryKey, let info = id.entity.inheritance else { return id }
        let name: String?? = try? readStore { db in
            try String.fetchOne(
                db,
                sql:
                    "SELECT \(SchemaGenerator.quote(Inheritance.discriminatorColumn)) FROM \(SchemaGenerator.quote(id.entity.tableName)) WHERE \"Z_PK\" = ?",
                arguments: [pk])
        }
        guard let name, let name, info.kindNames.contains(name), let entity = model.entityIfPresent(named: name) else {
            return id
        }
        return ObjectID(entity: entity, rawValue: pk)
    }
}

extension ManagedObjectModel {
    /// A sub-entity's class must subclass its parent's (so that a fetch of the parent can
    /// return it as the parent's class): one message per entity that does not.
    func subclassMismatches() -> [String] {
        var problems: [String] = []
        let generic = ObjectIdentifier(ManagedObject.self)
        for entity in entities {
            guard let parentName = entity.parentEntityName, let parent = entityIfPresent(named: parentName) else { continue }
            let parentClass = ObjectIdentifier(parent.managedClass)
            guard parentClass != generic else { continue }
            var current: AnyClass? = entity.managedClass
            var found = false
            while let c = current {
                if ObjectIdentifier(c) == parentClass {
                    found = true
                    break
                }
                current = _getSuperclass(c)
            }
            if !found {
                problems.append(
                    "\(entity.managedClass): entity \(entity.name) inherits from \(parent.name), but its class does not subclass \(parent.managedClass)"
                )
            }
        }
        return problems
    }
}
