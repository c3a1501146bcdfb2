import Dispatch
import Foundation
import GRDB

/// A scratch pad of managed objects over a store: insert, fetch, change, delete, then
/// save or roll back.
///
/// ## Concurrency
/// A context is confined to its serial `queue`. Use it, and every object it returns, only
/// inside ``perform(_:)`` / ``performAndWait(_:)`` (or directly when already running on
/// that queue, as the view context's owner does). Objects never cross queues: pass
/// ``ObjectID``s, which are `Sendable`, and look them up with ``object(with:)`` in the
/// other context. Saves are announced on the container's ``ChangeBus``; another context
/// catches up with ``mergeChanges(fromDidSave:)``.
///
/// ```swift
/// let context = container.newBackgroundContext()
/// context.perform {
///     let note = context.insert(Note.self)
///     note.text = "Hello"
///     try? context.save()
/// }
/// ```
// Unchecked sendability is sound: every mutable property is touched only on `queue` (a serial
// queue); `perform`/`performAndWait` are the only entry points from other threads, and
// `assertOnQueue()` checks the rule (in release builds too).
public final class ManagedObjectContext: @unchecked Sendable, CustomStringConvertible {
    /// The container this context belongs to. A background, scratch or child context keeps
    /// its container alive, as a Core Data context keeps its coordinator; only the view
    /// context, which the container itself holds, can outlive it (see ``owningContainer()``).
    // A property cannot throw: reaching here means the program dropped the container that
    // owns this view context and still asks for it, a mistake to name, not to paper over.
    public var container: PersistentContainer {
        guard let c = containerBox.container else {
            preconditionFailure("\(ObjectGraphError.containerReleased(context: description))")
        }
        return c
    }

    /// The container, or ``ObjectGraphError/containerReleased(context:)`` when this is the
    /// view context of a container that was released.
    ///
    /// ```swift
    /// let container = try context.owningContainer()
    /// ```
    public func owningContainer() throws(ObjectGraphError) -> PersistentContainer {
        guard let c = containerBox.container else { throw .containerReleased(context: description) }
        return c
    }

    /// The container while it lives (always, for all but the view context).
    var containerIfAlive: PersistentContainer? { containerBox.container }
    private let containerBox: ContextBox
    // Strong for every context but the view context: the container holds its view context, so
    // a strong reference back would be a cycle keeping the whole stack (and its file) open.
    private let retainedContainer: PersistentContainer?
    /// The container's bus, held by the context itself so that its notifications, live
    /// results and `changes` keep working when only the view context outlives its container.
    private(set) var bus: ChangeBus?
    public let queue: DispatchQueue
    /// A name for debugging and for filtering notifications.
    public var name: String?
    /// Who this context's saves are by, in the persistent history (``HistoryTransaction/author``):
    /// a reader of the history can leave out its own changes.
    public var transactionAuthor: String?
    /// How conflicts with changes saved elsewhere are resolved when this context saves.
    public var mergePolicy: MergePolicy = .error
    /// Records changes for undo/redo; nil (off) unless set.
    public var undoManager: ContextUndoManager? {
        didSet { link.hasUndoManager = undoManager != nil }
    }
    /// Shared by every object this context manages (see ``ContextLink``); replaced by
    /// ``reset()``, which detaches all objects at once.
    private(set) var link = ContextLink()
    /// Whether ObjectsDidChange is posted and derived values are kept (on by default).
    var model: ManagedObjectModel { _model! }
    var store: PersistentStore { _store! }
    private var _model: ManagedObjectModel?
    private var _store: PersistentStore?

    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// Registered objects with a permanent ID, not retained (objects with changes are also
    /// held strongly, in `updatedByID` etc.). An object removes its entry when it is
    /// deallocated, so entries never dangle; every place that detaches an object also
    /// removes its entry.
    var registered: [ObjectID: UnretainedObject] = [:]
    /// Objects inserted and not saved yet, held strongly, in insertion order.
    var newObjects = InsertedObjects()
    var updatedByID: [ObjectID: ManagedObject] = [:]
    var deletedByID: [ObjectID: ManagedObject] = [:]
    /// The objects whose ``ManagedObject/prepareForDeletion()`` is running (a delete of one of
    /// them from inside the hook is the delete already under way).
    var preparingForDeletion: Set<ObjectID> = []
    /// Unsaved many-to-many membership changes (see ``JoinTable``).
    var joinChanges = JoinChanges()
    /// Temporary IDs of objects saved by this context, for late look-ups.
    var permanentIDForTemporary: [ObjectID: ObjectID] = [:]

    /// Parents whose derived counts differ from their stored value because of this
    /// context's unsaved changes.
    var touchedCounterParents: [CounterKey: Set<ObjectID>] = [:]
    /// The objects this context's unsaved changes point a counted to-one at, held until the
    /// save or rollback: the save updates their counts, and a parent no one else holds would
    /// otherwise be read again from the store to do it.
    var heldCounterParents: [ManagedObject] = []
    /// Changes not yet announced by ObjectsDidChange.
    var pending = PendingChanges()
    var isProcessingPendingChanges = false
    /// Counts ObjectsDidChange batches (kept in the link, where objects read it).
    var batchNumber: Int {
        get { link.batchNumber }
        set { link.batchNumber = newValue }
    }
    var isMerging = false
    /// For a child context: the context its saves go into (see ``newChildContext(name:queue:)``).
    var parentContext: ManagedObjectContext?
    /// The store snapshot reads come from while a generation is pinned (see ``pinReadGeneration()``).
    var pinnedGeneration: DatabaseSnapshot?
    /// The open ``changes`` streams, finished when the context goes.
    let changeStreams = ChangeStreams()
    /// How many times an ordered one-to-many's order was rebuilt from its members on a change
    /// (tests check that appends reuse the unsaved order instead).
    var orderRebuilds = 0
    /// The to-one destinations of the latest prefetch, kept in memory (see ``prefetch(_:for:)``).
    var prefetchedDestinations: [ManagedObject] = []

    init(containerBox: ContextBox, queue: DispatchQueue, name: String?, retaining container: PersistentContainer? = nil) {
        self.containerBox = containerBox
        self.retainedContainer = container
        self.queue = queue
        self.name = name
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(queue))
        link.context = self
    }

    func bindContainer() {
        _model = containerBox.container?.model
        _store = containerBox.container?.store
        bus = containerBox.container?.bus
    }

    /// A context over the same model, store and bus as `other`, for a child of a view context
    /// whose container is gone (it has no container either).
    init(sharingStackOf other: ManagedObjectContext, queue: DispatchQueue, name: String?) {
        self.containerBox = ContextBox()
        self.retainedContainer = nil
        self.queue = queue
        self.name = name
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(queue))
        link.context = self
        _model = other._model
        _store = other._store
        bus = other.bus
    }

    public var description: String { "ManagedObjectContext(\(name ?? "unnamed"))" }

    // MARK: Queue confinement

    /// Runs `block` asynchronously on the context's queue, then posts ObjectsDidChange for
    /// the changes it made.
    ///
    /// ```swift
    /// let id = item.objectID   // objects stay on their context's queue; IDs travel
    /// context.perform { (context.object(with: id) as! FeedItem).read = true }
    /// ```
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async {
            block()
            self.processPendingChanges()
        }
    }

    /// Runs `block` on the context's queue and waits for it (runs it at once when already
    /// on the queue), then posts ObjectsDidChange.
    ///
    /// ```swift
    /// let count = try context.performAndWait { try context.count(for: FetchRequest<Note>()) }
    /// ```
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue {
            let result = try block()
            processPendingChanges()
            return result
        }
        return try queue.sync {
            let result = try block()
            processPendingChanges()
            return result
        }
    }

    /// True when the caller runs on the context's queue.
    public var isOnQueue: Bool {
        DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(queue)
    }

    /// Stops the program, naming the context and the call, when used off its queue — in
    /// release builds too (one queue-specific look-up per call; property access on objects
    /// is not checked).
    @inline(__always) func assertOnQueue(_ function: StaticString = #function) {
        if !isOnQueue { offQueue(function) }
    }

    private func offQueue(_ function: StaticString) -> Never {
        fatalError("\(self).\(function) called off its queue; use perform { } or performAndWait { }")
    }

    // MARK: State

    /// True when there are unsaved insertions, updates or deletions.
    public var hasChanges: Bool { !newObjects.isEmpty || !updatedByID.isEmpty || !deletedByID.isEmpty }
    /// Objects inserted since the last save.
    public var insertedObjects: Set<ManagedObjectBox> { Set(newObjects.map(ManagedObjectBox.init)) }
    /// Objects changed since the last save.
    public var updatedObjects: Set<ManagedObjectBox> { Set(updatedByID.values.map(ManagedObjectBox.init)) }
    /// Objects deleted since the last save.
    public var deletedObjects: Set<ManagedObjectBox> { Set(deletedByID.values.map(ManagedObjectBox.init)) }
    /// All objects the context currently holds in memory.
    public var registeredObjects: [ManagedObject] { registered.values.compactMap(\.object) + Array(newObjects) }

    // MARK: Creating objects

    /// Inserts a new object of the entity whose class is `type`; stops the program when no
    /// entity has that class, or its entity is abstract, as Core Data's `init(context:)` does
    /// (``insertObject(_:)`` throws instead).
    ///
    /// ```swift
    /// let server = context.insert(Server.self)
    /// ```
    public func insert<T: ManagedObject>(_ type: T.Type) -> T {
        do {
            return try insertObject(type)
        } catch {
            preconditionFailure("\(error): \(type) is not the class of an entity in \(model)")
        }
    }

    /// Inserts a new object of the entity named `entityName`.
    ///
    /// ```swift
    /// let note = try context.insertObject(entityName: "Note")
    /// ```
    public func insertObject(entityName: String) throws(ObjectGraphError) -> ManagedObject {
        let entity = try model.entity(named: entityName)
        if entity.isAbstract { throw .abstractEntity(entity.name) }
        return insertObject(of: entity)
    }

    func insertObject(of entity: Entity) -> ManagedObject {
        assertOnQueue()
        let id = ObjectID.temporary(for: entity)
        let object = entity.managedClass.init(ManagedObject.Construction(entity: entity, objectID: id))
        object.link = link
        object.values = entity.defaultValues
        object.toOne = entity.emptyToOne
        // Not in `registered` until it has a permanent ID: `newObjects` holds it, and
        // look-ups by temporary ID go there.
        newObjects.append(object)
        object.isInsertedFlag = true
        object.insertedInBatch = batchNumber
        pending.newObjects.append(object)
        undoManager?.registerUndo(.insert(object.objectID), in: self)
        object.awakeFromInsert()
        return object
    }

    func register(_ object: ManagedObject) {
        registered[object.objectID] = UnretainedObject(object)
    }

    /// Called from a registered object's deinit.
    func objectDidDeallocate(_ id: ObjectID, _ object: ObjectIdentifier) {
        // One hash look-up, not two (a save's inserted objects all come through here).
        if let i = registered.index(forKey: id), registered.values[i].refers(to: object) { registered.remove(at: i) }
    }

    /// The registered object for `id`, if it is still in memory.
    public func registeredObject(for id: ObjectID) -> ManagedObject? {
        let id = permanentIDForTemporary[id] ?? id
        if let object = registered[id]?.object { return object }
        return id.isTemporary ? newObjects.object(for: id) : nil
    }

    /// The object for `id`, as a fault if it is not in memory yet (its row is read on first
    /// access). Does not check that the row exists; see ``existingObject(with:)``.
    ///
    /// ```swift
    /// let item = context.object(with: id) as! FeedItem
    /// ```
    public func object(with id: ObjectID) -> ManagedObject {
        assertOnQueue()
        let id = currentID(of: id)
        if let object = registered[id]?.object { return object }
        if id.isTemporary, let object = newObjects.object(for: id) { return object }
        // An ID may name the parent entity of the object's own (a to-one's declared destination).
        let resolved = id.entity.hasSubentities ? concreteID(id) : id
        let object = resolved.entity.managedClass.init(
            ManagedObject.Construction(entity: resolved.entity, objectID: resolved))
        object.link = link
        object.isFault = true
        register(object)
        return object
    }

    /// The object for `id`, loaded now; throws when it no longer exists.
    ///
    /// ```swift
    /// let item = try context.existingObject(with: id)
    /// ```
    public func existingObject(with id: ObjectID) throws(ObjectGraphError) -> ManagedObject {
        let object = self.object(with: id)
        if deletedByID[object.objectID] != nil {
            throw .objectInaccessible("\(id) was deleted")
        }
        if object.isFault {
            guard try loadRow(into: object) else {
                throw .objectInaccessible("\(id) does not exist in the store")
            }
        }
        return object
    }

    /// Reads a fault's row. A missing row leaves default values (the object was deleted
    /// elsewhere; ``existingObject(with:)`` reports that as an error).
    func fulfillFault(_ object: ManagedObject) {
        if object.faultBatch != nil, fulfillFaultInBatch(object) { return }
        _ = try? loadRow(into: object)
    }

    @discardableResult
    func loadRow(into object: ManagedObject) throws(ObjectGraphError) -> Bool {
        if let parentContext { return loadFromParent(object, parent: parentContext) }
        let entity = object.entity
        object.isFault = false
        guard let pk = object.objectID.primaryKey else { return true }
        let layout = RowLayout(entity: entity, alias: "t0")
        let row = try readStore { db in
            // One text per entity: kept prepared (a refresh reads each feed's row by key).
            try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT \(layout.columnsSQL) FROM \(SchemaGenerator.quote(entity.tableName)) t0 WHERE t0.\"Z_PK\" = ?"),
                arguments: [pk])
        }
        guard let row else {
            object.values = entity.defaultValues
            object.toOne = entity.emptyToOne
            return false
        }
        let decoded = layout.decode(row, model: model)
        object.values = decoded.snapshot.values
        object.toOne = decoded.snapshot.toOne
        object.snapshot = decoded.snapshot
        object.awakeFromFetch()
        return true
    }

    /// Registers (or refreshes) the object for a row just read from the store.
    func materialize(entity: Entity, pk: Int64, snapshot: consuming Snapshot) -> ManagedObject {
        let entity = snapshot.entityIndex < 0 ? entity : model.entities[snapshot.entityIndex]
        let id = ObjectID(entity: entity, rawValue: pk)
        if let parentContext, registered[id]?.object == nil {
            // A child context's objects are as its parent has them, not as stored.
            let object = self.object(with: id)
            _ = loadFromParent(object, parent: parentContext)
            return object
        }
        if let object = registered[id]?.object {
            if object.isFault {
                object.isFault = false
                object.values = snapshot.values
                object.toOne = snapshot.toOne
                object.snapshot = snapshot
                object.awakeFromFetch()
            } else if object.changedKeys.isEmpty && !newObjects.contains(object) && deletedByID[id] == nil,
                (object.snapshot?.version ?? 0) < snapshot.version
            {
                // The row changed elsewhere since this copy was read: take the newer one.
                object.values = snapshot.values
                object.toOne = snapshot.toOne
                object.snapshot = snapshot
            }
            return object
        }
        let object = entity.managedClass.init(ManagedObject.Construction(entity: entity, objectID: id))
        object.link = link
        object.values = snapshot.values
        object.toOne = snapshot.toOne
        object.snapshot = snapshot
        register(object)
        object.awakeFromFetch()
        return object
    }

    // MARK: Change tracking

    /// True when `object` will be announced as inserted by the next ObjectsDidChange.
    func isPendingInsert(_ object: ManagedObject) -> Bool {
        (object.isInsertedFlag && object.insertedInBatch == batchNumber) || pending.inserted.contains(object.objectID)
    }

    /// Records that `object` changed `key`.
    func objectDidChange(_ object: ManagedObject, key: String, undo: UndoRecord.Change) {
        let id = object.objectID
        if !newObjects.contains(object) && deletedByID[id] == nil {
            updatedByID[id] = object
        }
        if !isPendingInsert(object) {
            pending.updated[id, default: []].insert(key)
        }
        pending.objects[id] = object
        if let undoManager, !isMerging {
            undoManager.registerUndo(.change(id, undo), in: self)
        }
    }

    // MARK: Deleting

    /// Marks `object` deleted (saved on the next ``save()``), applying delete rules:
    /// cascade deletes related objects, nullify clears their inverse; deny is checked at save.
    ///
    /// ```swift
    /// context.delete(server)   // its feed items go too (cascade)
    /// ```
    public func delete(_ object: ManagedObject) {
        assertOnQueue()
        precondition(
            object.managedObjectContext === self, object.detachedMessage ?? "\(object) belongs to another context")
        guard deletedByID[object.objectID] == nil, !preparingForDeletion.contains(object.objectID) else { return }
        // Every hook first, across the cascade, while the graph is still whole.
        var prepared: [ObjectID] = []
        prepareForDeletion(object, cascade: &prepared)
        deleteApplyingRules(object)
        for id in prepared { preparingForDeletion.remove(id) }
    }

    /// Calls ``ManagedObject/prepareForDeletion()`` on `object` and on everything a cascade
    /// rule will delete with it, each once.
    private func prepareForDeletion(_ object: ManagedObject, cascade prepared: inout [ObjectID]) {
        let id = object.objectID
        guard deletedByID[id] == nil, object.managedObjectContext === self, preparingForDeletion.insert(id).inserted else {
            return
        }
        prepared.append(id)
        object.fireFaultIfNeeded()
        object.prepareForDeletion()
        for (r, relationship) in object.entity.relationships.enumerated() where relationship.deleteRule == .cascade {
            for related in (try? relatedObjects(of: object, relationshipIndex: r)) ?? [] {
                prepareForDeletion(related, cascade: &prepared)
            }
        }
    }

    private func deleteApplyingRules(_ object: ManagedObject) {
        let id = object.objectID
        guard deletedByID[id] == nil, object.managedObjectContext === self else { return }
        object.fireFaultIfNeeded()
        let manyToManyCascade = applyManyToManyDeleteRules(object)
        recordOrdersBeforeDeletion(of: object)
        if newObjects.remove(object) {
            object.isInsertedFlag = false
            pending.inserted.remove(id)
            pending.deletedInserted.insert(id)
        } else {
            deletedByID[id] = object
            updatedByID.removeValue(forKey: id)
            pending.deleted.insert(id)
        }
        pending.objects[id] = object
        pending.updated.removeValue(forKey: id)
        undoManager?.registerUndo(.delete(id, object.values, object.toOne, object.snapshot, object.changedKeys), in: self)
        // Delete rules.
        for (r, relationship) in object.entity.relationships.enumerated() where object.entity.joinTables[r] == nil {
            switch relationship.deleteRule {
            case .deny:
                continue
            case .cascade:
                for related in (try? relatedObjects(of: object, relationshipIndex: r)) ?? [] {
                    deleteApplyingRules(related)
                }
            case .nullify:
                for related in (try? relatedObjects(of: object, relationshipIndex: r)) ?? [] {
                    guard deletedByID[related.objectID] == nil else { continue }
                    let destination = model.destination(of: object.entity, relationshipIndex: r)
                    if let inverse = destination.relationshipIndexByName[relationship.inverseName],
                        destination.storesForeignKey[inverse]
                    {
                        setForeignKey(related, relationshipIndex: inverse, to: nil)
                    }
                }
            }
        }
        for related in manyToManyCascade { deleteApplyingRules(related) }
        if pending.deletedInserted.contains(id) {
            // Never saved: it simply leaves the context.
            registered.removeValue(forKey: id)
            object.managedObjectContext = nil
        }
    }

    /// The objects related through relationship `r` (whatever its kind).
    func relatedObjects(of object: ManagedObject, relationshipIndex r: Int) throws(ObjectGraphError) -> [ManagedObject] {
        if object.entity.relationships[r].isToMany {
            return try membersOfToMany(object, relationshipIndex: r)
        }
        return try destinationOfToOne(object, relationshipIndex: r).map { [$0] } ?? []
    }

    // MARK: Rollback and reset

    /// Discards every unsaved change: inserted objects vanish, updated ones get their stored
    /// values back, deleted ones return.
    ///
    /// ```swift
    /// item.read = true; context.rollback()   // item.read is false again
    /// ```
    public func rollback() {
        assertOnQueue()
        for object in newObjects {
            let id = object.objectID
            object.isInsertedFlag = false
            pending.deletedInserted.insert(id)
            pending.inserted.remove(id)
            pending.objects[id] = object
            registered.removeValue(forKey: id)
            object.managedObjectContext = nil
        }
        for (id, object) in updatedByID.merging(deletedByID, uniquingKeysWith: { a, _ in a }) {
            if let snapshot = object.snapshot {
                let changed = object.changedKeys
                object.values = snapshot.values
                object.toOne = snapshot.toOne
                if !changed.isEmpty { pending.updated[id, default: []].formUnion(changed) }
            }
            object.changedKeys = []
            if deletedByID[id] != nil { pending.inserted.insert(id) }
            pending.deleted.remove(id)
            pending.objects[id] = object
        }
        newObjects.removeAll()
        updatedByID = [:]
        deletedByID = [:]
        joinChanges.removeAll()
        touchedCounterParents = [:]
        heldCounterParents = []
        undoManager?.removeAllActions()
        processPendingChanges()
    }

    /// Forgets every object (unsaved changes are discarded). Objects obtained before must
    /// not be used afterwards: changing one stops the program (a throwing setter such as
    /// `setValue(_:forKey:)` throws ``ObjectGraphError/objectInaccessible(_:)``), with a
    /// message naming the reset. Use it to bound memory in long imports.
    ///
    /// Observers hear of it as Core Data's do: an ObjectsDidChange with
    /// ``ObjectsDidChangeNotification/invalidatedAll`` (and the same in ``changes``), an
    /// Observation change for every property of each object the context held, and a refetch
    /// of its live results controllers.
    ///
    /// ```swift
    /// for (i, record) in records.enumerated() {
    ///     try context.insertObject(entityName: "FeedItem").importValues(from: record)
    ///     if i % 1000 == 999 { try context.save(); context.reset() }
    /// }
    /// ```
    public func reset() {
        reset(cause: .reset)
    }

    /// ``reset()``, remembering `cause` for the message when an object is used afterwards.
    func reset(cause: DetachCause) {
        assertOnQueue()
        let held = registeredObjects
        // Observers learn before the objects leave, as Observation's `willSet` promises.
        for object in held { object.observationDidChangeAll() }
        // Every object obtained before leaves the context at once: they share the old link.
        let old = link
        old.context = nil
        old.detachCause = cause
        link = ContextLink()
        link.context = self
        link.batchNumber = old.batchNumber
        link.hasUndoManager = old.hasUndoManager
        // No inserted object's batch matches the old link's: a change takes the checked path.
        old.batchNumber = -2
        registered = [:]
        newObjects.removeAll()
        updatedByID = [:]
        deletedByID = [:]
        permanentIDForTemporary = [:]
        joinChanges.removeAll()
        touchedCounterParents = [:]
        heldCounterParents = []
        pending = PendingChanges()
        prefetchedDestinations = []
        undoManager?.removeAllActions()
        bus?.postObjectsDidChange(
            ObjectsDidChangeNotification(
                context: self, inserted: [], updated: [], deleted: [], changedKeysByID: [:], isMerge: false,
                invalidatedAll: true, invalidatedObjectIDs: Set(held.map(\.objectID))))
    }

    /// Re-reads `object` from the store. With `mergeChanges` its unsaved changes are kept
    /// on top of the new values; without, they are discarded and it becomes a fault.
    ///
    /// ```swift
    /// context.refresh(server, mergeChanges: true)
    /// ```
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        assertOnQueue()
        guard object.objectID.primaryKey != nil else { return }
        if !mergeChanges || object.changedKeys.isEmpty {
            if updatedByID.removeValue(forKey: object.objectID) != nil {
                object.changedKeys = []
            }
            if !mergeChanges { discardJoinChanges(of: object.objectID) }
            object.isFault = true
            object.snapshot = nil
            forgetRelationshipCache(of: object)
            // Its next read gives the stored values, which may not be those observers saw.
            object.observationDidChangeAll()
            return
        }
        let local = object.changedValuesByIndex()
        guard (try? loadRow(into: object)) == true else { return }
        object.reapply(local)
        object.observationDidChangeAll()
    }
}

/// Hashable wrapper so sets of objects can be returned (objects compare by identity).
public struct ManagedObjectBox: Hashable {
    public let object: ManagedObject
    init(_ object: ManagedObject) { self.object = object }
    public static func == (a: Self, b: Self) -> Bool { a.object === b.object }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(object)) }
}

/// A registry entry that does not keep its object alive.
struct UnretainedObject {
    // Unmanaged (not retained): the object's deinit removes this entry before the memory
    // is freed (ManagedObject.deinit → objectDidDeallocate), so the reference never
    // dangles. One word per entry, and identity checks without touching the object.
    let reference: Unmanaged<ManagedObject>
    init(_ object: ManagedObject) {
        reference = .passUnretained(object)
    }
    var object: ManagedObject? { reference.takeUnretainedValue() }
    /// Whether this entry is the object with identifier `identifier`.
    func refers(to identifier: ObjectIdentifier) -> Bool {
        UInt(bitPattern: reference.toOpaque()) == UInt(bitPattern: identifier)
    }
}

/// Changes since the last ObjectsDidChange.
struct PendingChanges {
    /// Objects inserted in this batch (those deleted again have `isInsertedFlag` false).
    var newObjects: [ManagedObject] = []
    /// Objects announced as inserted again: a rolled-back or undone deletion.
    var inserted: Set<ObjectID> = []
    var updated: [ObjectID: Set<String>] = [:]
    var deleted: Set<ObjectID> = []
    /// Inserted objects that were deleted (or rolled back) before being saved.
    var deletedInserted: Set<ObjectID> = []
    /// Rows other contexts inserted, learnt from a merge.
    var mergedInserted: Set<ObjectID> = []
    /// Rows other contexts changed, of which no object is registered here, learnt from a merge.
    var mergedUpdated: Set<ObjectID> = []
    /// The objects involved, kept alive until they are announced.
    var objects: [ObjectID: ManagedObject] = [:]
    /// Post ObjectsDidChange even with nothing above to list (a batch request changed rows
    /// of which no object is registered).
    var announceEvenIfEmpty = false

    var isEmpty: Bool {
        newObjects.isEmpty && inserted.isEmpty && updated.isEmpty && deleted.isEmpty && deletedInserted.isEmpty
            && mergedInserted.isEmpty && mergedUpdated.isEmpty
            && !announceEvenIfEmpty
    }
}

/// Local unsaved values of an object, by attribute/relationship index.
struct LocalChanges {
    var attributes: [(Int, Value)]
    var relationships: [(Int, ObjectID?)]
    var keys: Set<String>
}

extension ManagedObject {
    func changedValuesByIndex() -> LocalChanges {
        var attributes: [(Int, Value)] = []
        var relationships: [(Int, ObjectID?)] = []
        for key in changedKeys {
            if let i = entity.attributeIndexByName[key] {
                attributes.append((i, values[i]))
            } else if let r = entity.relationshipIndexByName[key], entity.storesForeignKey[r] {
                relationships.append((r, toOne[r]))
            }
        }
        return LocalChanges(attributes: attributes, relationships: relationships, keys: changedKeys)
    }

    func reapply(_ local: LocalChanges) {
        for (i, v) in local.attributes { values[i] = v }
        for (r, id) in local.relationships { toOne[r] = id }
        changedKeys = local.keys
    }
}
