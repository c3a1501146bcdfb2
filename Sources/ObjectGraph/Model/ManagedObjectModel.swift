import Foundation
import Synchronization

/// A problem found in a model definition.
public struct ModelError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public var description: String { "invalid model: \(message)" }
}

/// A versioned set of entities: the schema of an ObjectGraph store.
///
/// ```swift
/// let note = EntityDescription("Note", managedClass: Note.self, attributes: [.string("title")],
///     relationships: [.toOne("folder", destination: "Folder", inverse: "notes")])
/// let folder = EntityDescription("Folder", managedClass: Folder.self, attributes: [.string("name", optional: false)],
///     relationships: [.toMany("notes", destination: "Note", inverse: "folder")])
/// let model = try ManagedObjectModel(name: "Notes", version: 1, entities: [note, folder])
/// let container = try PersistentContainer(model: model, store: .inMemory)
/// ```
public final class ManagedObjectModel: Sendable, CustomStringConvertible {
    /// Identifies the model family: a store made for another model name is refused.
    public let name: String
    /// Increases with each schema change; older stores are migrated.
    public let version: Int
    public let entities: [Entity]
    private let entityIndexByName: [String: Int]
    /// One entity per table: an inheritance hierarchy's whole table is one (see ``Inheritance``).
    let tableEntities: [Entity]

    /// Checks the descriptions (names, types, defaults, inverses, constraints) and resolves them.
    public init(name: String, version: Int, entities declared: [EntityDescription]) throws(ModelError) {
        self.name = name
        self.version = version
        var byName: [String: Int] = [:]
        for (i, e) in declared.enumerated() {
            guard Self.isValidName(e.name) else { throw ModelError(message: "entity name '\(e.name)' is not an identifier") }
            guard byName[e.name] == nil else { throw ModelError(message: "entity '\(e.name)' is defined twice") }
            byName[e.name] = i
        }
        // Sub-entities with their inherited properties in front of their own.
        let descriptions = try Inheritance.flatten(declared, byName: byName)
        func isSelfOrAncestor(_ name: String, of entity: String) -> Bool {
            var current: String? = entity
            while let c = current {
                if c == name { return true }
                current = byName[c].flatMap { declared[$0].parentEntityName }
            }
            return false
        }
        func declarer(_ relationship: String, in entity: Int) -> String {
            Inheritance.declaringEntity(of: relationship, in: entity, declared: declared, byName: byName)
        }
        var resolved: [Entity] = []
        var parts: [(destinations: [Int], inverses: [Int], inverseToMany: [Bool], storesFK: [Bool], counters: [CounterInfo])] = []
        for (i, e) in descriptions.enumerated() {
            var seen = Set<String>()
            for a in e.attributes {
                guard Self.isValidName(a.name), !a.name.hasPrefix("Z_") else {
                    throw ModelError(message: "\(e.name).\(a.name): not a valid attribute name")
                }
                guard seen.insert(a.name).inserted else { throw ModelError(message: "\(e.name).\(a.name) is defined twice") }
                if !a.defaultValue.isNull {
                    guard let c = a.defaultValue.coerced(to: a.type), c == a.defaultValue else {
                        throw ModelError(message: "\(e.name).\(a.name): default \(a.defaultValue) is not \(a.type.withArticle)")
                    }
                }
            }
            var destinations: [Int] = []
            var storesFK: [Bool] = []
            var inverses: [Int] = []
            var inverseToMany: [Bool] = []
            for r in e.relationships {
                guard Self.isValidName(r.name), !r.name.hasPrefix("Z_") else {
                    throw ModelError(message: "\(e.name).\(r.name): not a valid relationship name")
                }
                guard seen.insert(r.name).inserted else { throw ModelError(message: "\(e.name).\(r.name) is defined twice") }
                guard let d = byName[r.destinationEntityName] else {
                    throw ModelError(
                        message: "\(e.name).\(r.name): destination entity '\(r.destinationEntityName)' does not exist")
                }
                guard let inverseIndex = descriptions[d].relationships.firstIndex(where: { $0.name == r.inverseName }) else {
                    throw ModelError(
                        message: "\(e.name).\(r.name): inverse '\(r.destinationEntityName).\(r.inverseName)' does not exist")
                }
                let inverse = descriptions[d].relationships[inverseIndex]
                inverses.append(inverseIndex)
                inverseToMany.append(inverse.isToMany)
                guard isSelfOrAncestor(inverse.destinationEntityName, of: e.name), inverse.inverseName == r.name else {
                    throw ModelError(
                        message:
                            "\(e.name).\(r.name) and \(r.destinationEntityName).\(r.inverseName) are not each other's inverse")
                }
                if r.isToMany && inverse.isToMany { try JoinTable.validate(e.name, r) }
                if r.isOrdered { try JoinTable.validateOrdered(e.name, r, inverse: inverse) }
                destinations.append(d)
                if r.isToMany {
                    storesFK.append(false)
                } else if inverse.isToMany {
                    storesFK.append(true)
                } else {
                    // One-to-one: the side that sorts first owns the column.
                    // (In a hierarchy, the entities that declared the two sides decide.)
                    storesFK.append((declarer(r.name, in: i), r.name) < (declarer(inverse.name, in: d), inverse.name))
                }
            }
            for keys in e.indexes + e.uniquenessConstraints {
                guard !keys.isEmpty else { throw ModelError(message: "\(e.name): an index or constraint has no keys") }
                for k in keys {
                    let isStoredAttribute = e.attributes.contains { $0.name == k && !$0.isTransient }
                    let isToOne = e.relationships.contains { $0.name == k && !$0.isToMany }
                    guard isStoredAttribute || isToOne else {
                        throw ModelError(
                            message: "\(e.name): index or constraint key '\(k)' is not a stored attribute or to-one relationship")
                    }
                }
            }
            for index in e.partialIndexes {
                guard !index.keys.isEmpty else { throw ModelError(message: "\(e.name): a partial index has no keys") }
                for k in index.keys {
                    let isStoredAttribute = e.attributes.contains { $0.name == k && !$0.isTransient }
                    let isToOne = e.relationships.contains { $0.name == k && !$0.isToMany }
                    guard isStoredAttribute || isToOne else {
                        throw ModelError(
                            message: "\(e.name): partial index key '\(k)' is not a stored attribute or to-one relationship")
                    }
                }
                _ = try index.conditionSQL(for: e)
            }
            if let index = e.fullTextIndex {
                guard !index.attributes.isEmpty else {
                    throw ModelError(message: "\(e.name): a full-text index has no attributes")
                }
                for key in index.attributes {
                    if let dot = key.firstIndex(of: ".") {
                        try Self.validateRelatedFullTextKey(
                            key, relationship: String(key[..<dot]), attribute: String(key[key.index(after: dot)...]),
                            of: e, storesForeignKey: storesFK, destinations: destinations, descriptions: descriptions)
                        continue
                    }
                    guard e.attributes.contains(where: { $0.name == key && !$0.isTransient && $0.type == .string }) else {
                        throw ModelError(message: "\(e.name): full-text index key '\(key)' is not a stored string attribute")
                    }
                }
                for (key, length) in index.extractLengths {
                    guard index.attributes.contains(key), length > 0 else {
                        throw ModelError(
                            message:
                                "\(e.name): full-text extract of '\(key)' must be of an indexed attribute and at least 1 character"
                        )
                    }
                }
                if let table = index.tableName, !Self.isValidName(table) {
                    throw ModelError(message: "\(e.name): full-text index table name '\(table)' is not an identifier")
                }
            }
            var counters: [CounterInfo] = []
            for (ai, a) in e.attributes.enumerated() {
                guard let derived = a.derivedCount else { continue }
                guard a.type == .integer, !a.isTransient else {
                    throw ModelError(message: "\(e.name).\(a.name): a derived count must be a stored integer")
                }
                guard let r = e.relationships.firstIndex(where: { $0.name == derived.relationship }), e.relationships[r].isToMany
                else {
                    throw ModelError(message: "\(e.name).\(a.name): '\(derived.relationship)' is not a to-many relationship")
                }
                let childIndex = destinations[r]
                let child = descriptions[childIndex]
                guard let inverse = child.relationships.firstIndex(where: { $0.name == e.relationships[r].inverseName }) else {
                    throw ModelError(message: "\(e.name).\(a.name): no inverse for '\(derived.relationship)'")
                }
                var predicate: ObjectPredicate?
                if let format = derived.predicateFormat {
                    do {
                        predicate = try ObjectPredicate(format: format)
                    } catch {
                        throw ModelError(message: "\(e.name).\(a.name): \(error)")
                    }
                    for key in predicate!.referencedKeyPaths {
                        guard !key.contains("."), child.attributes.contains(where: { $0.name == key && !$0.isTransient }) else {
                            throw ModelError(
                                message:
                                    "\(e.name).\(a.name): the predicate may use only \(child.name)'s own stored attributes, not '\(key)'"
                            )
                        }
                    }
                }
                var counter = CounterInfo(
                    parentEntityIndex: i, attributeIndex: ai, childEntityIndex: childIndex, childToOneIndex: inverse,
                    predicate: predicate, child: child)
                if inverseToMany[r] { counter.manyToManyRelationshipIndex = r }
                counters.append(counter)
            }
            parts.append((destinations, inverses, inverseToMany, storesFK, counters))
        }
        // Each child entity learns the counts that depend on it before it is built, so
        // entities stay immutable (and lock-free) afterwards.
        let inheritance = Inheritance.resolve(
            declared: declared, flat: descriptions, byName: byName, storesForeignKey: parts.map(\.storesFK))
        var dependencies = [[CounterInfo]](repeating: [], count: descriptions.count)
        for (i, part) in parts.enumerated() {
            // A count a sub-entity inherits is kept once, by the entity that declared it.
            let inheritedCount = inheritance[i]?.ancestorIndexes.first.map { descriptions[$0].attributes.count } ?? 0
            for counter in part.counters where counter.attributeIndex >= inheritedCount {
                // Objects of the child's sub-entities count too.
                for kind in inheritance[counter.childEntityIndex]?.kindIndexes ?? [counter.childEntityIndex] {
                    dependencies[kind].append(counter)
                }
            }
        }
        for (i, e) in descriptions.enumerated() {
            // The tables a full-text index reads through to-one relationships (validated above).
            var relatedTables: [String: String] = [:]
            for key in e.fullTextIndex?.attributes ?? [] {
                guard let dot = key.firstIndex(of: "."),
                    let r = e.relationships.firstIndex(where: { $0.name == key[..<dot] })
                else { continue }
                let destination = parts[i].destinations[r]
                relatedTables[e.relationships[r].name] = inheritance[destination]?.rootName ?? descriptions[destination].name
            }
            resolved.append(
                Entity(
                    description: e, index: i, destinationIndex: parts[i].destinations, inverseIndex: parts[i].inverses,
                    inverseIsToMany: parts[i].inverseToMany, storesForeignKey: parts[i].storesFK,
                    counters: parts[i].counters, counterDependencies: dependencies[i], inheritance: inheritance[i],
                    inverseIsOrdered: zip(parts[i].destinations, parts[i].inverses).map {
                        descriptions[$0].relationships[$1].isOrdered
                    }, fullTextRelatedTables: relatedTables))
        }
        self.entities = resolved
        self.tableEntities = Inheritance.tableEntities(
            model: resolved, flat: descriptions, destinations: parts.map(\.destinations), inverses: parts.map(\.inverses),
            inverseToMany: parts.map(\.inverseToMany), storesForeignKey: parts.map(\.storesFK))
        self.entityIndexByName = byName
        Self.all.withLock { $0.append(self) }
    }

    /// Checks a full-text index key `relationship.attribute`: a to-one relationship stored in
    /// `entity`'s table (its triggers find the indexed objects by that column) to a stored
    /// string attribute of the destination.
    private static func validateRelatedFullTextKey(
        _ key: String, relationship: String, attribute: String, of entity: EntityDescription, storesForeignKey: [Bool],
        destinations: [Int], descriptions: [EntityDescription]
    ) throws(ModelError) {
        guard let r = entity.relationships.firstIndex(where: { $0.name == relationship }),
            !entity.relationships[r].isToMany, storesForeignKey[r]
        else {
            throw ModelError(
                message:
                    "\(entity.name): full-text index key '\(key)' does not start with a to-one relationship stored in \(entity.name)'s table"
            )
        }
        let destination = descriptions[destinations[r]]
        guard !attribute.contains("."),
            destination.attributes.contains(where: { $0.name == attribute && !$0.isTransient && $0.type == .string })
        else {
            throw ModelError(
                message:
                    "\(entity.name): full-text index key '\(key)' does not end with a stored string attribute of \(destination.name)"
            )
        }
    }

    /// Every model ever created: models live until the process ends (a program has a
    /// handful), which lets object IDs refer to their entity without counting references.
    static let all = Mutex<[ManagedObjectModel]>([])
    /// Models a ``MigrationPlan`` lists before its last version (see `isSuperseded`).
    static let superseded = Mutex<Set<ObjectIdentifier>>([])

    /// The entity named `name`.
    public func entity(named name: String) throws(ObjectGraphError) -> Entity {
        guard let i = entityIndexByName[name] else { throw .unknownEntity(name) }
        return entities[i]
    }

    /// The entity named `name`, or nil.
    public func entityIfPresent(named name: String) -> Entity? {
        entityIndexByName[name].map { entities[$0] }
    }

    /// The entity whose objects are instances of `type` (the first declared with it).
    public func entity(for type: ManagedObject.Type) throws(ObjectGraphError) -> Entity {
        if let e = entities.first(where: { $0.managedClass == type }) { return e }
        throw .unknownEntity(String(describing: type))
    }

    /// The destination entity of `relationship` in `entity`.
    func destination(of entity: Entity, relationshipIndex: Int) -> Entity {
        entities[entity.destinationIndex[relationshipIndex]]
    }

    /// A stable text describing the stored schema; its hash identifies a model version.
    public var schemaDescription: String {
        var lines: [String] = []
        for e in entities {
            lines.append("entity \(e.name)")
            if let parent = e.parentEntityName { lines.append("  parent \(parent)") }
            if e.isAbstract { lines.append("  abstract") }
            for a in e.attributes where !a.isTransient {
                lines.append(
                    "  attr \(a.name) \(a.type.rawValue) \(a.isOptional ? "optional" : "required") default=\(a.defaultValue)")
            }
            for (i, r) in e.relationships.enumerated() where e.storesForeignKey[i] {
                lines.append("  fk \(r.name) -> \(r.destinationEntityName)")
            }
            for join in e.joinTables where join?.isOwner == true { lines.append("  \(join!.schemaLine)") }
            for column in e.orderColumns.compactMap({ $0 }) { lines.append("  order \(column)") }
            for idx in e.indexes { lines.append("  index \(idx.joined(separator: ","))") }
            for (idx, condition) in zip(e.partialIndexes, e.partialIndexConditions) {
                lines.append("  index \(idx.keys.joined(separator: ",")) where \(condition)")
            }
            for u in e.uniquenessConstraints { lines.append("  unique \(u.joined(separator: ","))") }
        }
        return lines.joined(separator: "\n")
    }

    /// A hash of ``schemaDescription`` (FNV-1a, hex), stored in the store's metadata.
    public var schemaHash: String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in schemaDescription.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return String(h, radix: 16)
    }

    public var description: String { "ManagedObjectModel(\(name) v\(version))" }

    static func isValidName(_ s: String) -> Bool {
        guard let f = s.unicodeScalars.first, f == "_" || (f.isASCII && f.properties.isAlphabetic) else { return false }
        return s.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        }
    }
}
