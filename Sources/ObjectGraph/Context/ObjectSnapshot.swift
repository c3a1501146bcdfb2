import Foundation

/// A managed object's ID and values at one moment, as a `Sendable` value: what crosses from a
/// context's queue to a task, an actor or another thread, where the object itself may not go.
///
/// ```swift
/// let snapshot = await context.perform { context.object(with: noteID).sendableSnapshot }
/// print(snapshot.objectID, snapshot["title"])
/// ```
public struct ObjectSnapshot: Sendable, Hashable {
    /// The object's identity (temporary while it is unsaved).
    public let objectID: ObjectID
    /// The entity's name.
    public let entityName: String
    /// Every attribute's value, by name.
    public let values: [String: Value]
    /// Every to-one relationship's destination, by name (nil: none).
    public let toOne: [String: ObjectID?]

    /// The value of attribute `key` (`.null` when the entity has none of that name).
    ///
    /// ```swift
    /// let title = context.object(with: noteID).sendableSnapshot["title"]   // .string("…") or .null
    /// ```
    public subscript(key: String) -> Value { values[key] ?? .null }
}

extension ManagedObject {
    /// The object's ID and current values (unsaved changes included) as a ``ObjectSnapshot``;
    /// read it on the context's queue.
    ///
    /// ```swift
    /// let snapshots = try context.fetch(FetchRequest<Note>()).map(\.sendableSnapshot)
    /// ```
    public var sendableSnapshot: ObjectSnapshot {
        fireFaultIfNeeded()
        var values: [String: Value] = [:]
        for (i, attribute) in entity.attributes.enumerated() { values[attribute.name] = attributeValue(at: i) }
        var toOne: [String: ObjectID?] = [:]
        for (r, relationship) in entity.relationships.enumerated() where !relationship.isToMany {
            toOne[relationship.name] = (try? object(relationshipIndex: r))?.objectID
        }
        return ObjectSnapshot(objectID: objectID, entityName: entity.name, values: values, toOne: toOne)
    }
}

extension PersistentContainer {
    /// Runs `block` in a new background context on a queue of its own and returns its value to
    /// the awaiting task, rethrowing what it throws (Core Data's `performBackgroundTask`).
    /// Return IDs or ``ObjectSnapshot``s, not objects: the context goes when the block ends.
    ///
    /// ```swift
    /// let count = try await container.performBackgroundTask { context in try context.count(for: FetchRequest<Note>()) }
    /// ```
    public func performBackgroundTask<T: Sendable, Failure: Error>(
        _ block: @escaping @Sendable (ManagedObjectContext) throws(Failure) -> T
    ) async throws(Failure) -> T {
        let context = newBackgroundContext(name: "backgroundTask")
        return try await context.perform(schedule: .enqueued) { () throws(Failure) -> T in try block(context) }
    }
}
