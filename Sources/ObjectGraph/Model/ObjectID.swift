import Synchronization

/// Identifies a managed object across contexts and queues. Temporary until the object's
/// first save, permanent afterwards. Safe to pass between queues; objects are not.
///
/// ```swift
/// let id = item.objectID
/// background.perform { if let same = try? background.existingObject(with: id) { print(same) } }
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
        // Entities of one inheritance hierarchy share a table and its keys: an ID naming the
        // declared (parent) entity of a relationship is the object's, whatever its sub-entity.
        a.rawValue == b.rawValue
            && (a.entity === b.entity || (a.entity.hierarchyToken != 0 && a.entity.hierarchyToken == b.entity.hierarchyToken))
    }

    public func hash(into hasher: inout Hasher) {
        // The key alone: IDs of different entities with the same key are rare in one
        // table and are told apart by ==.
        hasher.combine(rawValue)
    }

    /// The hash Set and Dictionary use. Contexts keep several tables keyed by ObjectID and
    /// touch each of them once or more per object saved, so this replaces the default
    /// (a full SipHash round through `Hasher`) with splitmix64's finalizer over the key and
    /// the per-table seed: a bijection of the key, so distinct keys never collide before
    /// bucketing, and every bit of the key reaches the low bits the tables index with.
    /// Keys are row numbers and counters chosen by this process, not by outside input, so
    /// the flooding resistance SipHash buys is not needed here.
    public func _rawHashValue(seed: Int) -> Int {
        var x = UInt64(bitPattern: rawValue) &+ UInt64(bitPattern: Int64(seed)) &* 0x9E37_79B9_7F4A_7C15
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(bitPattern: UInt(truncatingIfNeeded: x ^ (x >> 31)))
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
