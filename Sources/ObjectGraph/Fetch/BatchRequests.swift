import Foundation

/// Sets attributes of every stored object matching a predicate with set-based SQL, without
/// loading the objects (Core Data's `NSBatchUpdateRequest`). Run it with
/// ``ManagedObjectContext/execute(_:)-(BatchUpdateRequest)``: derived counts stay exact, the
/// change is announced on the bus by object ID (other contexts merge it; the context that
/// ran it posts ObjectsDidChange, with `isMerge` set, even when it has none of the changed
/// objects registered), and the context's undo manager can undo it as one step.
///
/// It works on the store as committed: the context's unsaved changes are neither saved
/// nor matched, and stay on top of the new stored values.
///
/// ```swift
/// let markAllRead = BatchUpdateRequest(entityName: "FeedItem", predicate: try Predicate(format: "read == NO"), propertiesToUpdate: ["read": .bool(true)])
/// let result = try context.execute(markAllRead)   // result.changedCount items marked read
/// ```
public struct BatchUpdateRequest: Sendable {
    /// The entity whose rows are updated.
    public var entityName: String
    /// Which rows; nil: all of them.
    public var predicate: Predicate?
    /// The stored (not transient, not derived) attributes to set, and their new values.
    public var propertiesToUpdate: [String: Value]

    /// A request setting `propertiesToUpdate` on every `entityName` row matching `predicate`.
    ///
    /// ```swift
    /// let request = BatchUpdateRequest(entityName: "FeedItem", predicate: nil, propertiesToUpdate: ["read": .bool(true)])
    /// try context.execute(request)
    /// ```
    public init(entityName: String, predicate: Predicate? = nil, propertiesToUpdate: [String: Value]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }
}

/// Deletes every stored object matching a predicate with set-based SQL, without loading
/// the objects (Core Data's `NSBatchDeleteRequest`), applying the delete rules of the
/// entity's relationships (deny refuses, cascade deletes, nullify clears). Run it with
/// ``ManagedObjectContext/execute(_:)-(BatchDeleteRequest)``; announced, counted and
/// undoable like ``BatchUpdateRequest``.
///
/// ```swift
/// let purge = BatchDeleteRequest(entityName: "FeedItem", predicate: try Predicate(format: "read == YES"))
/// let result = try context.execute(purge)   // result.changedObjectIDs were deleted
/// ```
public struct BatchDeleteRequest: Sendable {
    /// The entity whose rows are deleted.
    public var entityName: String
    /// Which rows; nil: all of them.
    public var predicate: Predicate?

    /// A request deleting every `entityName` row matching `predicate`.
    ///
    /// ```swift
    /// let request = BatchDeleteRequest(entityName: "FeedItem", predicate: try Predicate(format: "server == nil"))
    /// try context.execute(request)
    /// ```
    public init(entityName: String, predicate: Predicate? = nil) {
        self.entityName = entityName
        self.predicate = predicate
    }
}

/// What a batch request changed.
///
/// ```swift
/// let result = try context.execute(BatchUpdateRequest(entityName: "FeedItem", propertiesToUpdate: ["read": .bool(true)]))
/// print(result.changedCount, result.changedObjectIDs.first as Any)
/// ```
public struct BatchResult: Sendable {
    /// The objects of the request's entity that were changed (for an update: whose values
    /// differed) or deleted. Objects deleted by cascade rules are not listed.
    public let changedObjectIDs: [ObjectID]
    /// `changedObjectIDs.count`.
    public var changedCount: Int { changedObjectIDs.count }
}
