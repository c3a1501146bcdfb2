import Synchronization

/// Identifies a managed object across contexts and queues. Temporary until the object's
/// first save, permanent afterwards. Safe to pass between queues; objects are not.
///
/// ```swift
/// let id = item.objectID
/// background.perform { ctx in let same = try ctx.existingObject(with: id) }
/// ```
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    // unowned(unsafe): entities belong to a model, and every model lives until the process
    // ends (ManagedObjectModel keeps itself in `ManagedObjectModel.all`), so the reference
    // never dangles; not counting references makes IDs free to copy, hash and store.
    public unowned(unsafe) let entity: Entity
    /// The row's primary key when permanent; a negative process-unique number when temporary.
    public let rawValue: Int64

    init(entity: Entity, rawValue: Int64) {
        self.entity = entity
        self.rawValue = rawValue
    }

    /// The ID of the row with primary key `primaryKey` of `entity` (for keys read from SQL
    /// run beside ObjectGraph, e.g. a full-text index). Look the object up with
    /// ``ManagedObjectContext/existingObject(with:)`` to check that it exists.
    ///
    /// ```swift
    /// let id = ObjectID(entity: try model.entity(named: "FeedItem"), primaryKey: 42)
    /// ```
    public init(entity: Entity, primaryKey: Int64) {
        precondition(primaryKey > 0, "primary keys are positive")
        self.init(entity: entity, rawValue: primaryKey)
    }

    /// True before the object's first successful save.
    public var isTemporary: Bool { rawValue < 0 }

    /// The primary key of the row, for permanent IDs.
    public var primaryKey: Int64? { rawValue > 0 ? rawValue : nil }

    public static func == (a: ObjectID, b: ObjectID) -> Bool {
        a.rawValue == b.rawValue && a.entity === b.entity
    }

    public func hash(into hasher: inout Hasher) {
        // The key alone: IDs of different entities with the same key are rare in one
        // table and are told apart by ==.
        hasher.combine(rawValue)
    }

    /// `Server/12`, or `Server/t5` for a temporary ID.
    public var description: String {
        isTemporary ? "\(entity.name)/t\(-rawValue)" : "\(entity.name)/\(rawValue)"
    }

    private static let temporaryCounter = Atomic<Int64>(0)

    static func temporary(for entity: Entity) -> ObjectID {
        let n = temporaryCounter.add(1, ordering: .relaxed).newValue
        return ObjectID(entity: entity, rawValue: -n)
    }
}
