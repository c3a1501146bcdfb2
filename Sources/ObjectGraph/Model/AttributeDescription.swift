import Foundation

/// The type of an attribute, which decides its SQLite column and how predicates compare it.
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    case string, integer, double, bool, date, data

    /// The SQLite column type used for this attribute.
    var sqlType: String {
        switch self {
        case .string: return "TEXT"
        case .integer, .bool: return "INTEGER"
        case .double, .date: return "REAL"
        case .data: return "BLOB"
        }
    }
}

/// Describes one attribute of an entity.
///
/// ```swift
/// let title = AttributeDescription.string("title", optional: true)
/// let count = AttributeDescription.integer("unreadCount", defaultValue: 0)
/// ```
public struct AttributeDescription: Sendable, Hashable {
    public var name: String
    public var type: AttributeType
    /// Whether `nil` is allowed. A non-optional attribute without a default must be set before save.
    public var isOptional: Bool
    /// The value a newly inserted object starts with (`.null` means none).
    public var defaultValue: Value
    /// Transient attributes live in memory only and are never stored.
    public var isTransient: Bool
    /// Whether the store keeps an index on this attribute.
    public var isIndexed: Bool
    /// The name this attribute had in an earlier model version, for inferred migration.
    public var renamingIdentifier: String?
    /// When set, the attribute is a stored count kept by ObjectGraph (see ``DerivedCount``);
    /// values set by code are ignored at save.
    public var derivedCount: DerivedCount?
    /// Rules a non-nil value must meet when its object is saved (see ``validated(_:)``);
    /// not part of the schema.
    public var validationRules: [ValidationRule] = []

    /// True for counts kept by ObjectGraph.
    public var isDerivedCounter: Bool { derivedCount != nil }

    public init(
        name: String, type: AttributeType, isOptional: Bool = true, defaultValue: Value = .null,
        isTransient: Bool = false, isIndexed: Bool = false, renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.isTransient = isTransient
        self.isIndexed = isIndexed
        self.renamingIdentifier = renamingIdentifier
    }

    /// A string attribute. `AttributeDescription.string("title")`
    public static func string(
        _ name: String, optional: Bool = true, defaultValue: String? = nil, indexed: Bool = false,
        transient: Bool = false, renamedFrom: String? = nil
    ) -> AttributeDescription {
        AttributeDescription(
            name: name, type: .string, isOptional: optional, defaultValue: defaultValue.map(Value.string) ?? .null,
            isTransient: transient, isIndexed: indexed, renamingIdentifier: renamedFrom)
    }

    /// An integer attribute (64-bit). `AttributeDescription.integer("count", defaultValue: 0)`
    public static func integer(
        _ name: String, optional: Bool = false, defaultValue: Int64? = nil, indexed: Bool = false,
        transient: Bool = false, renamedFrom: String? = nil
    ) -> AttributeDescription {
        AttributeDescription(
            name: name, type: .integer, isOptional: optional, defaultValue: defaultValue.map(Value.integer) ?? .null,
            isTransient: transient, isIndexed: indexed, renamingIdentifier: renamedFrom)
    }

    /// A double attribute. `AttributeDescription.double("score", defaultValue: 0)`
    public static func double(
        _ name: String, optional: Bool = false, defaultValue: Double? = nil, indexed: Bool = false,
        transient: Bool = false, renamedFrom: String? = nil
    ) -> AttributeDescription {
        AttributeDescription(
            name: name, type: .double, isOptional: optional, defaultValue: defaultValue.map(Value.double) ?? .null,
            isTransient: transient, isIndexed: indexed, renamingIdentifier: renamedFrom)
    }

    /// A boolean attribute. `AttributeDescription.bool("read", defaultValue: false)`
    public static func bool(
        _ name: String, optional: Bool = false, defaultValue: Bool? = nil, indexed: Bool = false,
        transient: Bool = false, renamedFrom: String? = nil
    ) -> AttributeDescription {
        AttributeDescription(
            name: name, type: .bool, isOptional: optional, defaultValue: defaultValue.map(Value.bool) ?? .null,
            isTransient: transient, isIndexed: indexed, renamingIdentifier: renamedFrom)
    }

    /// A date attribute. `AttributeDescription.date("published")`
    public static func date(
        _ name: String, optional: Bool = true, defaultValue: Date? = nil, indexed: Bool = false,
        transient: Bool = false, renamedFrom: String? = nil
    ) -> AttributeDescription {
        AttributeDescription(
            name: name, type: .date, isOptional: optional, defaultValue: defaultValue.map(Value.date) ?? .null,
            isTransient: transient, isIndexed: indexed, renamingIdentifier: renamedFrom)
    }

    /// An integer kept equal to the number of objects in to-many `relationship` that match
    /// `predicate` ("parent watching its child"), updated from each change, not by counting.
    ///
    /// ```swift
    /// let unread = AttributeDescription.derivedCount("unreadCount", of: "feedItems", where: "read == NO")
    /// ```
    public static func derivedCount(_ name: String, of relationship: String, where predicate: String? = nil)
        -> AttributeDescription
    {
        var a = AttributeDescription(name: name, type: .integer, isOptional: false, defaultValue: .integer(0))
        a.derivedCount = DerivedCount(relationship: relationship, predicateFormat: predicate)
        return a
    }

    /// A derived count whose predicate is written with key paths on the members' class; it
    /// is kept as the format string that predicate prints, so the model is the one the
    /// string form makes from that string.
    ///
    /// ```swift
    /// let unread = AttributeDescription.derivedCount("unreadCount", of: "feedItems", where: \FeedItem.read == false)
    /// ```
    public static func derivedCount<Member: ManagedObject>(
        _ name: String, of relationship: String, where predicate: KeyPathPredicate<Member>
    ) -> AttributeDescription {
        derivedCount(name, of: relationship, where: predicate.predicate.predicateFormat)
    }

    /// A binary attribute. `AttributeDescription.data("icon")`
    public static func data(
        _ name: String, optional: Bool = true, transient: Bool = false, renamedFrom: String? = nil
    ) -> AttributeDescription {
        AttributeDescription(
            name: name, type: .data, isOptional: optional, isTransient: transient, renamingIdentifier: renamedFrom)
    }
}

/// The definition of a derived count: how many members of a to-many relationship match a
/// predicate over the members' own attributes.
///
/// ```swift
/// let unread = DerivedCount(relationship: "feedItems", predicateFormat: "read == NO")
/// ```
public struct DerivedCount: Sendable, Hashable {
    public var relationship: String
    public var predicateFormat: String?

    public init(relationship: String, predicateFormat: String? = nil) {
        self.relationship = relationship
        self.predicateFormat = predicateFormat
    }
}
