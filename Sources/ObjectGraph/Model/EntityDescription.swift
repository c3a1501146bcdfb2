import Synchronization

/// Describes an entity: its attributes, relationships, indexes and uniqueness constraints,
/// and the Swift class that represents its objects.
///
/// ```swift
/// let server = EntityDescription("Server", managedClass: Server.self,
///     attributes: [.string("url", optional: false), .integer("unreadCount", defaultValue: 0)],
///     relationships: [.toMany("feedItems", destination: "FeedItem", inverse: "server", deleteRule: .cascade)],
///     uniquenessConstraints: [["url"]])
/// ```
public struct EntityDescription: Sendable {
    public var name: String
    public var managedClass: ManagedObject.Type
    public var attributes: [AttributeDescription]
    public var relationships: [RelationshipDescription]
    /// Each inner array is one (possibly compound) index, by attribute or to-one relationship name.
    public var indexes: [[String]]
    /// Each inner array is one set of keys whose combined values must be unique.
    public var uniquenessConstraints: [[String]]
    /// The name this entity had in an earlier model version, for inferred migration.
    public var renamingIdentifier: String?

    public init(
        _ name: String, managedClass: ManagedObject.Type = ManagedObject.self,
        attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
        indexes: [[String]] = [], uniquenessConstraints: [[String]] = [], renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.managedClass = managedClass
        self.attributes = attributes
        self.relationships = relationships
        self.indexes = indexes
        self.uniquenessConstraints = uniquenessConstraints
        self.renamingIdentifier = renamingIdentifier
    }
}

/// An entity of a ``ManagedObjectModel``, resolved and immutable: the model's view of an
/// ``EntityDescription`` with lookups by name and the SQL layout of its table.
///
/// ```swift
/// let entity = try model.entity(named: "Server")
/// print(entity.attributes.map(\.name), entity.tableName)
/// ```
public final class Entity: Sendable, CustomStringConvertible {
    public let name: String
    /// Position in ``ManagedObjectModel/entities``.
    public let index: Int
    public let managedClass: ManagedObject.Type
    public let attributes: [AttributeDescription]
    public let relationships: [RelationshipDescription]
    public let indexes: [[String]]
    public let uniquenessConstraints: [[String]]
    public let renamingIdentifier: String?
    /// The SQLite table holding this entity's rows.
    public let tableName: String

    @usableFromInline let attributeIndexByName: [String: Int]
    let relationshipIndexByName: [String: Int]
    /// Index (in `relationships`) of each relationship's destination entity in the model.
    let destinationIndex: [Int]
    /// Index of each relationship's inverse among the destination entity's relationships.
    let inverseIndex: [Int]
    /// Whether each relationship's inverse is to-many.
    let inverseIsToMany: [Bool]
    /// Whether relationship `i` is stored as a column in this table (a to-one whose
    /// inverse is to-many, or the owning side of a one-to-one).
    let storesForeignKey: [Bool]
    /// Indexes of the attributes that are stored (not transient), in column order.
    let storedAttributeIndexes: [Int]
    /// Stored attributes that must have a value to be saved.
    let requiredAttributeIndexes: [Int]
    /// Relationships stored as a column here (to-one), and those of them that are required.
    let foreignKeyIndexes: [Int]
    let requiredForeignKeyIndexes: [Int]
    /// Every attribute's default value, in order: a new object's starting values.
    let defaultValues: [Value]
    /// An empty to-one slot per relationship.
    let emptyToOne: [ObjectID?]
    /// Derived counts this entity keeps (this entity is the parent).
    let counters: [CounterInfo]
    /// Derived counts of other entities that this entity's objects contribute to.
    let counterDependencies: [CounterInfo]

    init(
        description d: EntityDescription, index: Int, destinationIndex: [Int], inverseIndex: [Int], inverseIsToMany: [Bool],
        storesForeignKey: [Bool],
        counters: [CounterInfo], counterDependencies: [CounterInfo]
    ) {
        self.counters = counters
        self.counterDependencies = counterDependencies
        name = d.name
        self.index = index
        managedClass = d.managedClass
        attributes = d.attributes
        relationships = d.relationships
        indexes = d.indexes
        uniquenessConstraints = d.uniquenessConstraints
        renamingIdentifier = d.renamingIdentifier
        tableName = d.name
        var a: [String: Int] = [:]
        for (i, attr) in d.attributes.enumerated() { a[attr.name] = i }
        attributeIndexByName = a
        var r: [String: Int] = [:]
        for (i, rel) in d.relationships.enumerated() { r[rel.name] = i }
        relationshipIndexByName = r
        self.destinationIndex = destinationIndex
        self.inverseIndex = inverseIndex
        self.inverseIsToMany = inverseIsToMany
        self.storesForeignKey = storesForeignKey
        storedAttributeIndexes = d.attributes.indices.filter { !d.attributes[$0].isTransient }
        requiredAttributeIndexes = storedAttributeIndexes.filter { !d.attributes[$0].isOptional }
        foreignKeyIndexes = d.relationships.indices.filter { storesForeignKey[$0] }
        requiredForeignKeyIndexes = foreignKeyIndexes.filter { !d.relationships[$0].isOptional }
        defaultValues = d.attributes.map(\.defaultValue)
        emptyToOne = [ObjectID?](repeating: nil, count: d.relationships.count)
    }

    /// The attribute named `name`, if any.
    public func attribute(named name: String) -> AttributeDescription? {
        attributeIndexByName[name].map { attributes[$0] }
    }

    /// The relationship named `name`, if any.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationshipIndexByName[name].map { relationships[$0] }
    }

    /// The column name storing relationship `name` when it is stored in this table.
    public func foreignKeyColumn(forRelationship name: String) -> String? {
        guard let i = relationshipIndexByName[name], storesForeignKey[i] else { return nil }
        return relationships[i].name
    }

    public var description: String { "Entity(\(name))" }
}

/// A derived count resolved by the model.
struct CounterInfo: Sendable {
    /// The parent entity and the attribute holding the count.
    let parentEntityIndex: Int
    let attributeIndex: Int
    /// The child entity and its to-one relationship (the inverse) pointing at the parent.
    let childEntityIndex: Int
    let childToOneIndex: Int
    let predicate: Predicate?
    /// For the common `attribute == constant` predicate: the attribute's index and the
    /// constant, compared directly instead of through the evaluator.
    let simpleEquality: (index: Int, value: Value)?

    init(parentEntityIndex: Int, attributeIndex: Int, childEntityIndex: Int, childToOneIndex: Int, predicate: Predicate?, child: EntityDescription) {
        self.parentEntityIndex = parentEntityIndex
        self.attributeIndex = attributeIndex
        self.childEntityIndex = childEntityIndex
        self.childToOneIndex = childToOneIndex
        self.predicate = predicate
        var simple: (Int, Value)?
        if let predicate, case .comparison(let c) = predicate.node, c.modifier == .direct, c.op == .equalTo, c.options.isEmpty,
            case .keyPath(let key) = c.left, case .constant(let constant) = c.right,
            let i = child.attributes.firstIndex(where: { $0.name == key }),
            !constant.isNull, let coerced = constant.coerced(to: child.attributes[i].type)
        {
            simple = (i, coerced)
        }
        simpleEquality = simple
    }
}

