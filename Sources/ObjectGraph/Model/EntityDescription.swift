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
    /// Indexes over only the rows that satisfy a condition (``IndexDescription``): the
    /// flagged ones, say. Rows outside the condition cost them nothing.
    public var partialIndexes: [IndexDescription] = []
    /// The name this entity had in an earlier model version, for inferred migration.
    public var renamingIdentifier: String?
    /// A full-text index over some of the entity's string attributes (see
    /// ``FullTextIndexDescription``), searched with ``FetchRequest/searchText``.
    public var fullTextIndex: FullTextIndexDescription?
    /// The entity this one inherits from (single-table inheritance; see ``parentEntityName``).
    public var parentEntityName: String?
    /// Whether objects of exactly this entity cannot be inserted (see ``isAbstract``).
    public var isAbstract = false

    public init(
        _ name: String, managedClass: ManagedObject.Type = ManagedObject.self,
        attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
        indexes: [[String]] = [], uniquenessConstraints: [[String]] = [], renamingIdentifier: String? = nil,
        fullTextIndex: FullTextIndexDescription? = nil
    ) {
        self.fullTextIndex = fullTextIndex
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
    /// The entity's partial indexes (``EntityDescription/partialIndexes``).
    public let partialIndexes: [IndexDescription]
    /// Each partial index's condition as SQL (``IndexDescription/conditionSQL(for:)``), in order.
    let partialIndexConditions: [String]

    /// The SQLite name of one of ``partialIndexes`` (what `EXPLAIN QUERY PLAN` shows), nil
    /// when the entity has no such index.
    ///
    /// ```swift
    /// let flagged = IndexDescription(["sortDate"], where: .comparison("flagged", .equalTo, true))
    /// print(entity.name(of: flagged) ?? "no such index")   // "Z_FeedItem_sortDate_where_…" when it has one
    /// ```
    public func name(of index: IndexDescription) -> String? {
        guard let i = partialIndexes.firstIndex(of: index) else { return nil }
        return index.name(entity: name, conditionSQL: partialIndexConditions[i])
    }
    public let renamingIdentifier: String?
    /// The SQLite table holding this entity's rows.
    public let tableName: String
    /// The entity's full-text index, if it has one.
    public let fullTextIndex: FullTextIndexDescription?
    /// The destination tables of the to-one relationships the full-text index reads through
    /// (its `relationship.attribute` keys), by relationship name.
    let fullTextRelatedTables: [String: String]

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
    /// Each attribute's type, and each relationship's to-many flag, for quick checks.
    let attributeTypes: [AttributeType]
    let isToMany: [Bool]
    /// Attribute and relationship names, for the property wrappers' first look-up.
    let attributeNames: NameTable
    let relationshipNames: NameTable
    /// Stored attributes that must have a value to be saved.
    let requiredAttributeIndexes: [Int]
    /// Relationships stored as a column here (to-one), and those of them that are required.
    let foreignKeyIndexes: [Int]
    let requiredForeignKeyIndexes: [Int]
    /// Every attribute's default value, in order: a new object's starting values.
    let defaultValues: [Value]
    /// An empty to-one slot per relationship.
    let emptyToOne: [ObjectID?]
    /// For each many-to-many relationship, the join table holding it (nil for the others).
    let joinTables: [JoinTable?]
    /// For each to-one stored here whose inverse is an ordered to-many, the column holding
    /// this row's position among its destination's members (nil for the others).
    let orderColumns: [String?]
    /// Derived counts this entity keeps (this entity is the parent).
    let counters: [CounterInfo]
    /// Derived counts of other entities that this entity's objects contribute to.
    let counterDependencies: [CounterInfo]
    /// Where the entity stands in an inheritance hierarchy (nil: it is in none).
    let inheritance: EntityInheritance?
    /// Shared by every entity of one hierarchy (0: in none): IDs of its entities compare equal by key.
    let hierarchyToken: Int

    init(
        description d: EntityDescription, index: Int, destinationIndex: [Int], inverseIndex: [Int], inverseIsToMany: [Bool],
        storesForeignKey: [Bool],
        counters: [CounterInfo], counterDependencies: [CounterInfo], inheritance: EntityInheritance? = nil,
        inverseIsOrdered: [Bool] = [], fullTextRelatedTables: [String: String] = [:]
    ) {
        self.fullTextRelatedTables = fullTextRelatedTables
        self.inheritance = inheritance
        hierarchyToken = inheritance?.token ?? 0
        self.counters = counters
        self.counterDependencies = counterDependencies
        name = d.name
        self.index = index
        managedClass = d.managedClass
        attributes = d.attributes
        relationships = d.relationships
        indexes = d.indexes
        uniquenessConstraints = d.uniquenessConstraints
        partialIndexes = d.partialIndexes
        // Checked when the model was made (ManagedObjectModel.init), so it cannot fail here.
        partialIndexConditions = d.partialIndexes.map { (try? $0.conditionSQL(for: d)) ?? "0" }
        renamingIdentifier = d.renamingIdentifier
        tableName = inheritance?.rootName ?? d.name
        fullTextIndex = d.fullTextIndex
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
        attributeTypes = d.attributes.map(\.type)
        isToMany = d.relationships.map(\.isToMany)
        attributeNames = NameTable(d.attributes.map(\.name))
        relationshipNames = NameTable(d.relationships.map(\.name))
        requiredAttributeIndexes = storedAttributeIndexes.filter { !d.attributes[$0].isOptional }
        foreignKeyIndexes = d.relationships.indices.filter { storesForeignKey[$0] }
        requiredForeignKeyIndexes = foreignKeyIndexes.filter { !d.relationships[$0].isOptional }
        defaultValues = d.attributes.map(\.defaultValue)
        emptyToOne = [ObjectID?](repeating: nil, count: d.relationships.count)
        orderColumns = OrderedOneToMany.orderColumns(d, storesForeignKey: storesForeignKey, inverseIsOrdered: inverseIsOrdered)
        joinTables = d.relationships.indices.map {
            inverseIsToMany[$0] && d.relationships[$0].isToMany
                ? JoinTable(inheritance?.declaringEntityNames[$0] ?? d.name, d.relationships[$0]) : nil
        }
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
    /// For a count over a many-to-many relationship: the parent's relationship (the
    /// child's inverse, a to-many, is at `childToOneIndex`); see `ManyToManyCounts`.
    var manyToManyRelationshipIndex: Int? = nil
    let predicate: ObjectPredicate?
    /// For the common `attribute == constant` predicate: the attribute's index and the
    /// constant, compared directly instead of through the evaluator.
    let simpleEquality: (index: Int, value: Value)?

    init(
        parentEntityIndex: Int, attributeIndex: Int, childEntityIndex: Int, childToOneIndex: Int, predicate: ObjectPredicate?,
        child: EntityDescription
    ) {
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

/// Finds a name's position by the identity of its `String` representation.
///
/// Each new object resolves its property wrappers' keys once (`@Managed("title")`), which
/// with a dictionary means hashing the string every time. The key is nearly always a short
/// literal: Swift stores strings of up to 15 UTF-8 bytes inline, so two equal short strings
/// have the same 16 bytes, and a long literal is a pointer to its bytes. Comparing those 16
/// bytes finds the name without hashing; a miss (a long name spelled by another literal)
/// only means the caller falls back to the dictionary. Equal bytes always mean equal
/// strings: the bytes are either the characters themselves or a pointer to storage the
/// (immortal) model keeps alive.
struct NameTable: Sendable {
    private let bits: [UInt64]

    init(_ names: [String]) {
        var bits: [UInt64] = []
        if MemoryLayout<String>.size == 16 {
            for name in names {
                let (a, b) = Self.representation(of: name)
                bits.append(a)
                bits.append(b)
            }
        }
        self.bits = bits
    }

    private static func representation(of string: String) -> (UInt64, UInt64) {
        withUnsafeBytes(of: string) { raw in
            (raw.load(fromByteOffset: 0, as: UInt64.self), raw.load(fromByteOffset: 8, as: UInt64.self))
        }
    }

    /// The position of `name`, or nil when its representation is not one of the table's.
    func index(of name: String) -> Int? {
        guard !bits.isEmpty else { return nil }
        let (a, b) = Self.representation(of: name)
        var i = 0
        while i < bits.count {
            if bits[i] == a && bits[i + 1] == b { return i / 2 }
            i += 2
        }
        return nil
    }
}
