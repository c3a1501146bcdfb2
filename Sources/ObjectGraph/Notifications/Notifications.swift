import Foundation

/// Posted on a context's queue after each batch of changes (the end of a `perform` block,
/// an explicit ``ManagedObjectContext/processPendingChanges()``, a save or a merge).
/// Carries the objects themselves: use it on the context's queue only.
///
/// ```swift
/// let token = container.bus.observeObjectsDidChange(in: viewContext) { note in
///     for object in note.updated where note.changedKeys(for: object).contains("unreadCount") { print("redraw", object) }
/// }
/// ```
public struct ObjectsDidChangeNotification {
    public let context: ManagedObjectContext
    public let inserted: [ManagedObject]
    /// Objects another context or process inserted, announced by merges as IDs only (so a
    /// large import does not load every new object into this context): fetch what you show.
    /// Includes the IDs of ``inserted``, as they were when the notification was posted.
    public var insertedObjectIDs: Set<ObjectID> { insertedIDsFromMerges.union(ownInsertedIDs) }
    let insertedIDsFromMerges: Set<ObjectID>
    /// IDs of ``inserted`` (kept as a list: a set of them is built only if asked for).
    let ownInsertedIDs: [ObjectID]
    public let updated: [ManagedObject]
    /// Objects another context changed that are not registered in this context (so not in
    /// ``updated``), announced by merges as IDs only: results fetched before may gain them.
    public let updatedObjectIDsFromMerges: Set<ObjectID>
    public let deleted: [ManagedObject]
    /// Changed keys per updated object.
    public let changedKeysByID: [ObjectID: Set<String>]
    /// True when the change came from merging another context's or process's save.
    public let isMerge: Bool
    /// True when the context was reset (``ManagedObjectContext/reset()``): every object it
    /// held left it, and results fetched before are stale (Core Data's `NSInvalidatedAllObjectsKey`).
    public let invalidatedAll: Bool
    /// With ``invalidatedAll``: the IDs of the objects the context held before the reset.
    public let invalidatedObjectIDs: Set<ObjectID>

    /// The keys that changed on `object` (empty for inserted and deleted objects).
    public func changedKeys(for object: ManagedObject) -> Set<String> {
        changedKeysByID[object.objectID] ?? []
    }

    /// All objects involved, of the entity named `entityName`.
    public func objects(ofEntity entityName: String) -> [ManagedObject] {
        (inserted + updated + deleted).filter { $0.entity.name == entityName }
    }

    init(
        context: ManagedObjectContext, inserted: [ManagedObject], insertedObjectIDs: Set<ObjectID> = [],
        ownInsertedIDs: [ObjectID] = [],
        updated: [ManagedObject], updatedIDsFromMerges: Set<ObjectID> = [], deleted: [ManagedObject],
        changedKeysByID: [ObjectID: Set<String>], isMerge: Bool, invalidatedAll: Bool = false,
        invalidatedObjectIDs: Set<ObjectID> = []
    ) {
        self.invalidatedAll = invalidatedAll
        self.invalidatedObjectIDs = invalidatedObjectIDs
        self.updatedObjectIDsFromMerges = updatedIDsFromMerges
        self.context = context
        self.inserted = inserted
        self.insertedIDsFromMerges = insertedObjectIDs
        self.ownInsertedIDs = ownInsertedIDs
        self.updated = updated
        self.deleted = deleted
        self.changedKeysByID = changedKeysByID
        self.isMerge = isMerge
    }
}

/// Posted on the saving context's queue just before it writes.
///
/// ```swift
/// let token = container.bus.observeWillSave { note in print("saving", note.context) }
/// ```
public struct WillSaveNotification {
    public let context: ManagedObjectContext
}

/// Posted after a context's changes are committed, or when a commit by another process is
/// noticed. Holds only object IDs and key names, so it may cross queues; hand it to
/// ``ManagedObjectContext/mergeChanges(fromDidSave:)`` of other contexts.
///
/// ```swift
/// let token = container.bus.observeDidSave { note in
///     viewContext.perform { viewContext.mergeChanges(fromDidSave: note) }
/// }
/// ```
public struct DidSaveNotification: Sendable {
    /// Identifies the context that saved (nil for another process's commit).
    public let contextID: ObjectIdentifier?
    public let contextName: String?
    public let inserted: Set<ObjectID>
    /// Updated objects with the keys that changed.
    public let updated: [ObjectID: Set<String>]
    public let deleted: Set<ObjectID>
    /// True for a commit made by another process (the IDs are then unknown: every
    /// registered object is refreshed).
    public let isFromOtherProcess: Bool

    init(
        contextID: ObjectIdentifier?, contextName: String?, inserted: Set<ObjectID>, updated: [ObjectID: Set<String>],
        deleted: Set<ObjectID>, isFromOtherProcess: Bool = false
    ) {
        self.contextID = contextID
        self.contextName = contextName
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.isFromOtherProcess = isFromOtherProcess
    }

    /// Whether any object of `entityName` (or of one of its sub-entities) is involved.
    public func involves(entity entityName: String) -> Bool {
        let names: Set<String> = [entityName]
        return isFromOtherProcess || inserted.contains { $0.entity.isNamed(in: names) }
            || updated.keys.contains { $0.entity.isNamed(in: names) } || deleted.contains { $0.entity.isNamed(in: names) }
    }
}
