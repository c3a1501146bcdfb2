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
/// let markAllRead = BatchUpdateRequest(entityName: "FeedItem", predicate: try ObjectPredicate(format: "read == NO"), propertiesToUpdate: ["read": .bool(true)])
/// let result = try context.execute(markAllRead)   // result.changedCount items marked read
/// ```
public struct BatchUpdateRequest: Sendable {
    /// The entity whose rows are updated.
    public var entityName: String
    /// Which rows; nil: all of them.
    public var predicate: ObjectPredicate?
    /// The stored (not transient, not derived) attributes to set, and their new values.
    public var propertiesToUpdate: [String: Value]
    /// At most this many rows per transaction, when the context has no undo manager: the
    /// update runs as a series of transactions (each taking the next rows that match and
    /// still differ, each announced on its own), so that memory is bounded by the batch,
    /// not by how many rows match. Rows are taken in the order the query plan yields them
    /// (no sort): with a predicate an index answers, each batch costs O(log n + batch). A
    /// failure leaves the batches before it written. Ignored with an undo manager (undo
    /// must remember every changed row anyway, so the update stays one step) and for
    /// entities in an inheritance hierarchy. nil (the default): one transaction.
    ///
    /// ```swift
    /// var request = BatchUpdateRequest(entityName: "FeedItem", predicate: try ObjectPredicate(format: "read == NO"), propertiesToUpdate: ["read": .bool(true)])
    /// request.batchSize = 10_000
    /// let marked = try context.execute(request).changedCount
    /// ```
    public var batchSize: Int?
    /// What the result lists: the changed objects' IDs (the default), or only how many.
    ///
    /// ```swift
    /// var request = BatchUpdateRequest(entityName: "FeedItem", propertiesToUpdate: ["read": .bool(true)])
    /// request.resultType = .count   // with batchSize: memory flat in the number of rows
    /// let marked = try context.execute(request).changedCount
    /// ```
    public var resultType: BatchResultType = .objectIDs

    /// A request setting `propertiesToUpdate` on every `entityName` row matching `predicate`.
    ///
    /// ```swift
    /// let request = BatchUpdateRequest(entityName: "FeedItem", predicate: nil, propertiesToUpdate: ["read": .bool(true)])
    /// try context.execute(request)
    /// ```
    public init(entityName: String, predicate: ObjectPredicate? = nil, propertiesToUpdate: [String: Value]) {
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
/// let purge = BatchDeleteRequest(entityName: "FeedItem", predicate: try ObjectPredicate(format: "read == YES"))
/// let result = try context.execute(purge)   // result.changedObjectIDs were deleted
/// ```
public struct BatchDeleteRequest: Sendable {
    /// The entity whose rows are deleted.
    public var entityName: String
    /// Which rows; nil: all of them.
    public var predicate: ObjectPredicate?

    /// A request deleting every `entityName` row matching `predicate`.
    ///
    /// ```swift
    /// let request = BatchDeleteRequest(entityName: "FeedItem", predicate: try ObjectPredicate(format: "server == nil"))
    /// try context.execute(request)
    /// ```
    public init(entityName: String, predicate: ObjectPredicate? = nil) {
        self.entityName = entityName
        self.predicate = predicate
    }
}

/// What a ``BatchResult`` of a ``BatchUpdateRequest`` holds (Core Data's
/// `NSBatchUpdateRequestResultType`).
///
/// ```swift
/// var request = BatchUpdateRequest(entityName: "FeedItem", propertiesToUpdate: ["flagged": .bool(false)])
/// request.resultType = .count
/// ```
public enum BatchResultType: Sendable {
    /// The changed objects' IDs (and their count).
    case objectIDs
    /// Only the count; ``BatchResult/changedObjectIDs`` is empty.
    case count
}

/// What a batch request changed.
///
/// ```swift
/// let result = try context.execute(BatchUpdateRequest(entityName: "FeedItem", propertiesToUpdate: ["read": .bool(true)]))
/// print(result.changedCount, result.changedObjectIDs.first as Any)
/// ```
public struct BatchResult: Sendable {
    /// The objects of the request's entity that were changed (for an update: whose values
    /// differed) or deleted. Objects deleted by cascade rules are not listed. Empty when
    /// the request asked for ``BatchResultType/count`` only.
    public let changedObjectIDs: [ObjectID]
    /// How many objects of the request's entity were changed or deleted.
    public let changedCount: Int

    init(changedObjectIDs: [ObjectID]) {
        self.changedObjectIDs = changedObjectIDs
        self.changedCount = changedObjectIDs.count
    }

    init(changedCount: Int) {
        self.changedObjectIDs = []
        self.changedCount = changedCount
    }
}
