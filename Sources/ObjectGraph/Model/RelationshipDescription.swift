/// What happens to related objects when an object is deleted.
public enum DeleteRule: String, Sendable, Hashable {
    /// Related objects stay; their inverse relationship is set to nil.
    case nullify
    /// Related objects are deleted too.
    case cascade
    /// Saving fails while related objects remain.
    case deny
}

/// Describes a relationship from one entity to another.
///
/// Every relationship has an inverse. A to-one whose inverse is to-many (or to-one) is stored
/// as a column holding the destination's primary key; the to-many side is the set of rows
/// pointing back. Two to-many relationships that are each other's inverse make a
/// many-to-many relationship, stored in a join table the framework keeps (see `JoinTable`).
///
/// ```swift
/// let items = RelationshipDescription.toMany("feedItems", destination: "FeedItem", inverse: "server", deleteRule: .cascade)
/// let server = RelationshipDescription.toOne("server", destination: "Server", inverse: "feedItems")
/// // Many-to-many: both sides to-many.
/// let tags = RelationshipDescription.toMany("tags", destination: "Tag", inverse: "posts")
/// let posts = RelationshipDescription.toMany("posts", destination: "Post", inverse: "tags")
/// ```
public struct RelationshipDescription: Sendable, Hashable {
    public var name: String
    public var destinationEntityName: String
    public var inverseName: String
    public var isToMany: Bool
    public var deleteRule: DeleteRule
    /// Whether a to-one may be nil at save time.
    public var isOptional: Bool
    public var renamingIdentifier: String?
    /// Whether a to-many keeps its members in an order of its own (a one-to-many relationship,
    /// or one side of a many-to-many): see ``ManagedObject/insert(_:at:inRelationship:)``.
    public var isOrdered: Bool

    public init(
        name: String, destinationEntityName: String, inverseName: String, isToMany: Bool,
        deleteRule: DeleteRule = .nullify, isOptional: Bool = true, renamingIdentifier: String? = nil,
        isOrdered: Bool = false
    ) {
        self.isOrdered = isOrdered
        self.name = name
        self.destinationEntityName = destinationEntityName
        self.inverseName = inverseName
        self.isToMany = isToMany
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.renamingIdentifier = renamingIdentifier
    }

    /// A to-one relationship. `RelationshipDescription.toOne("server", destination: "Server", inverse: "feedItems")`
    public static func toOne(
        _ name: String, destination: String, inverse: String, deleteRule: DeleteRule = .nullify,
        optional: Bool = true
    ) -> RelationshipDescription {
        RelationshipDescription(
            name: name, destinationEntityName: destination, inverseName: inverse, isToMany: false,
            deleteRule: deleteRule, isOptional: optional)
    }

    /// A to-many relationship. `RelationshipDescription.toMany("feedItems", destination: "FeedItem", inverse: "server")`;
    /// `ordered: true` keeps its members in order (one-to-many, or one side of a many-to-many).
    public static func toMany(
        _ name: String, destination: String, inverse: String, deleteRule: DeleteRule = .nullify, ordered: Bool = false
    ) -> RelationshipDescription {
        RelationshipDescription(
            name: name, destinationEntityName: destination, inverseName: inverse, isToMany: true,
            deleteRule: deleteRule, isOrdered: ordered)
    }
}
