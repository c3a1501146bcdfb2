/// Derives a ``ManagedObject`` subclass's entity from its stored properties: each `var`
/// becomes an attribute (its type, optionality and initial value give the attribute's
/// type, `optional:` and default) or, marked ``Relationship(deleteRule:inverse:ordered:required:renamedFrom:named:)``,
/// a relationship; ``Attribute(_:)`` says what a type cannot (unique, indexed, transient,
/// encoded, a derived count, a rule, another key or an earlier name). The class then
/// overrides ``ManagedObject/entityDescription`` (and ``ManagedObject/_managedKey(for:)``, which
/// names each property's key to typed queries), and a model is a list of classes:
/// ``ManagedObjectModel/init(name:version:classes:entities:)``.
///
/// ```swift
/// @ManagedEntity(unique: [["title"]])
/// final class Chore: ManagedObject {
///     var title: String
///     var done = false
///     var notes: String?
///     @Relationship(inverse: \Room.chores) var room: Room?
/// }
/// @ManagedEntity final class Room: ManagedObject {
///     var name: String
///     @Relationship(deleteRule: .cascade) var chores: [Chore]
/// }
/// let model = try ManagedObjectModel(name: "Chores", version: 1, classes: [Chore.self, Room.self])
/// ```
///
/// - Parameters:
///   - name: The entity's name; the class's name when nil.
///   - renamedFrom: The entity's name in an earlier model version, for inferred migration.
///   - unique: Sets of keys whose combined values must be unique (one key: ``AttributeOption/unique``).
///   - indexes: Compound indexes, by key (one attribute: ``AttributeOption/indexed``).
///   - abstract: Whether objects of exactly this entity cannot be inserted (its subclasses' can).
@attached(member, names: named(entityDescription), named(_managedKey))
@attached(memberAttribute)
public macro ManagedEntity(
    _ name: String? = nil, renamedFrom: String? = nil, unique: [[String]] = [], indexes: [[String]] = [],
    abstract: Bool = false
) = #externalMacro(module: "ObjectGraphMacros", type: "ManagedEntityMacro")

/// Says what a ``ManagedEntity(_:renamedFrom:unique:indexes:abstract:)`` property's type
/// cannot: `@Attribute(.unique, .renamed(from: "name"))`. Bare `@Attribute` marks a property
/// of a type of your own that is ``ValueConvertible``.
///
/// ```swift
/// struct Layout: Codable { var columns: Int }
/// @ManagedEntity final class Board: ManagedObject {
///     @Attribute(.indexed, .validated(.minLength(1))) var title: String
///     @Attribute(.encoded) var layout: Layout?   // Codable, as JSON text
///     @Attribute(.named("rank_v2"), .renamed(from: "rank")) var rank: Int = 0
/// }
/// print(Board.entityDescription?.attributes.map(\.name) ?? [])   // ["title", "layout", "rank_v2"]
/// ```
@attached(peer)
public macro Attribute(_ options: AttributeOption...) =
    #externalMacro(module: "ObjectGraphMacros", type: "MarkerMacro")

/// Marks a ``ManagedEntity(_:renamedFrom:unique:indexes:abstract:)`` property as a
/// relationship: `Destination?` is a to-one, `[Destination]` a to-many. The inverse may be
/// named on either side (it must be where a class has two relationships to one destination)
/// and is found on the other side otherwise.
///
/// ```swift
/// @ManagedEntity final class Person: ManagedObject {
///     var name: String
///     @Relationship(deleteRule: .cascade, inverse: \Pet.owner, ordered: true) var pets: [Pet]
/// }
/// @ManagedEntity final class Pet: ManagedObject {
///     @Relationship(required: true) var owner: Person?
/// }
/// let model = try ManagedObjectModel(name: "Pets", version: 1, classes: [Person.self, Pet.self])
/// ```
///
/// - Parameters:
///   - deleteRule: What deleting this object does to the related ones.
///   - inverse: The destination's property that points back (`\Task.project`).
///   - ordered: Whether a to-many keeps its members in an order of its own.
///   - required: Whether a to-one must be set for its object to be saved.
///   - renamedFrom: The relationship's name in an earlier model version.
///   - named: The model key, when it differs from the property's name.
@attached(peer)
public macro Relationship(
    deleteRule: DeleteRule = .nullify, inverse: AnyKeyPath? = nil, ordered: Bool = false, required: Bool = false,
    renamedFrom: String? = nil, named: String? = nil
) = #externalMacro(module: "ObjectGraphMacros", type: "MarkerMacro")

/// Leaves a stored property of a ``ManagedEntity(_:renamedFrom:unique:indexes:abstract:)``
/// class out of the entity: an ordinary Swift property, not saved, with an initial value.
///
/// ```swift
/// @ManagedEntity final class Section: ManagedObject {
///     var title: String
///     @Ignored var isExpanded = false
/// }
/// ```
@attached(peer)
public macro Ignored() = #externalMacro(module: "ObjectGraphMacros", type: "MarkerMacro")

/// Expands a stored property of a ``ManagedEntity(_:renamedFrom:unique:indexes:abstract:)``
/// class into accessors over property-wrapper storage; `@ManagedEntity` applies it, code
/// does not.
///
/// ```swift
/// @ManagedEntity final class Tag: ManagedObject { var name: String }   // name gets @_ManagedProperty
/// ```
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _ManagedProperty() = #externalMacro(module: "ObjectGraphMacros", type: "ManagedPropertyMacro")

/// What ``Attribute(_:)`` can say of a property. The macro reads these from the source;
/// they have no other use.
///
/// ```swift
/// @ManagedEntity final class Entry: ManagedObject {
///     @Attribute(.unique, .named("guid")) var identifier: String
///     @Attribute(.derivedCount(of: "replies", where: "read == NO")) var unreadReplies: Int
///     @Relationship var replies: [Reply]
/// }
/// @ManagedEntity final class Reply: ManagedObject {
///     var read = false
///     @Relationship var entry: Entry?
/// }
/// ```
public enum AttributeOption: Sendable {
    /// No two objects have the same value (a uniqueness constraint).
    case unique
    /// The store keeps an index on it.
    case indexed
    /// Kept in memory, never saved.
    case transient
    /// A `Codable` value stored as JSON text (``Encoded``); the property is optional.
    case encoded
    /// The model key, when it differs from the property's name.
    case named(String)
    /// The attribute's name in an earlier model version, for inferred migration.
    case renamed(from: String)
    /// Rules a value must meet when its object is saved (see ``ValidationRule``).
    case rules([ValidationRule])
    /// A count kept by ObjectGraph of the to-many `relationship`'s members matching `predicate`
    /// (see ``AttributeDescription/derivedCount(_:of:where:)``).
    case derivedCount(of: String, where: String? = nil)

    /// Rules a value must meet when its object is saved: `.validated(.minLength(1))`.
    public static func validated(_ rules: ValidationRule...) -> AttributeOption { .rules(rules) }
}
