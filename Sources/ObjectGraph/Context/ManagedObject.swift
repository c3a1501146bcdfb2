import Foundation
import Observation

/// The base class of every object an ObjectGraph context manages.
///
/// Subclass it once per entity and expose attributes with ``Managed`` and relationships
/// with ``ToOne`` and ``ToMany``; the object is created by its context, never directly.
/// A managed object belongs to one context and must be used only on that context's queue
/// (see <doc:Concurrency> in `ManagedObjectContext`); pass its ``objectID`` between queues.
///
/// ```swift
/// final class Note: ManagedObject {
///     @Managed("text") var text: String?
///     @ToOne("folder") var folder: Folder?
/// }
/// let note = context.insert(Note.self); note.text = "Hello"
/// ```
open class ManagedObject: CustomStringConvertible {
    /// The entity this object is an instance of.
    public let entity: Entity
    /// The object's identity; temporary until its first save.
    public internal(set) var objectID: ObjectID
    /// The context that manages this object, while it does.
    public internal(set) var managedObjectContext: ManagedObjectContext? {
        get { link?.context }
        set { link = newValue?.link }
    }
    /// The managing context's link, shared by all its objects.
    var link: ContextLink?

    /// Current attribute values, one per attribute of ``entity`` (empty while a fault).
    var values: [Value] = []
    /// Current to-one destinations, one slot per relationship (nil for to-many slots
    /// and for one-to-one relationships stored on the other side).
    var toOne: [ObjectID?] = []
    /// Values as last read from (or written to) the store; nil for inserted objects.
    var snapshot: Snapshot?
    /// True until the object's row has been read.
    public internal(set) var isFault: Bool = false
    /// Keys changed since the last save (attribute and relationship names).
    var changedKeys: Set<String> = []
    /// True while inserted and not yet saved.
    var isInsertedFlag = false
    /// The context's batch number when this object was inserted: changes made in that
    /// same batch need no bookkeeping (the object is announced as inserted anyway).
    var insertedInBatch = -1
    /// Position in the context's list of inserted objects (see ``InsertedObjects``).
    var insertedSlot = -1
    /// True once an object of this context has pointed a one-to-one relationship at this one
    /// (set by `setForeignKey`, never cleared). Until then nothing points at a new object, so
    /// reading its side of a one-to-one needs no pass over the context's changed objects: that
    /// pass made inserting N items with a one-to-one body cost N²/2 checks.
    var isOneToOneTarget = false
    /// Cached stored members of relationships and prefetched objects (see ``RelationshipCache``).
    var relationshipCache: RelationshipCache?
    /// The faults fetched together with this one, fired with it (see ``FaultBatch``).
    var faultBatch: FaultBatch?
    /// Observers of this object's properties; made by the first tracked read (see ``observationAccess(forKey:)``).
    var observationRegistrar: ObservationRegistrar?

    /// Opaque token: only a context creates managed objects.
    public struct Construction {
        let entity: Entity
        let objectID: ObjectID
    }

    /// Called by the context when it creates the object; subclasses must not add stored
    /// properties that need initialisation (declare them with ``Managed`` instead).
    public required init(_ construction: Construction) {
        entity = construction.entity
        objectID = construction.objectID
    }

    /// The entity this class declares with ``ManagedEntity()`` (which overrides it), or nil
    /// for a class described by an explicit ``EntityDescription``.
    ///
    /// ```swift
    /// @ManagedEntity final class Tag: ManagedObject { var name: String }
    /// print(Tag.entityDescription?.attributes.map(\.name) ?? [])   // ["name"]
    /// ```
    open class var entityDescription: EntityDescription? { nil }

    /// The model key of the one managed property `keyPath` reads, as ``ManagedEntity()`` names
    /// it (which overrides this), so that a typed query needs no recording instance; nil to have
    /// it found by recording. A class written by hand names its keys with ``ManagedPropertyKeys``.
    ///
    /// ```swift
    /// @ManagedEntity final class Tag: ManagedObject { @Attribute(.named("tag_name")) var name: String }
    /// print(Tag._managedKey(for: \Tag.name) ?? "")   // tag_name
    /// ```
    // A method the macro overrides, not a `ManagedPropertyKeys` conformance: an extension macro
    // cannot be attached to a local type, and examples and tests declare entities in functions.
    open class func _managedKey(for keyPath: AnyKeyPath) -> String? { nil }

    deinit {
        managedObjectContext?.objectDidDeallocate(objectID, ObjectIdentifier(self))
    }

    // MARK: State

    /// True between insertion and the first successful save.
    public var isInserted: Bool { managedObjectContext?.newObjects.contains(self) ?? false }
    /// True when the object has unsaved changes to a stored object.
    public var isUpdated: Bool { managedObjectContext?.updatedByID[objectID] != nil }
    /// True when the object was deleted (until the deletion is saved).
    public var isDeleted: Bool { managedObjectContext?.deletedByID[objectID] != nil }
    /// True when the object has unsaved changes of any kind.
    public var hasChanges: Bool { isInserted || isUpdated || isDeleted }

    /// The changed keys and their new values (relationships as the destination's ID).
    ///
    /// ```swift
    /// item.read = true; print(item.changedValues())   // ["read": YES]
    /// ```
    public func changedValues() -> [String: Value] {
        var result: [String: Value] = [:]
        for key in changedKeys {
            if let i = entity.attributeIndexByName[key] {
                result[key] = values[i]
            } else if let r = entity.relationshipIndexByName[key], r < toOne.count, !entity.isToMany[r] {
                result[key] = toOne[r].map { .integer($0.rawValue) } ?? .null
            }
        }
        return result
    }

    /// The stored (last saved or fetched) value of each attribute in `keys`.
    ///
    /// ```swift
    /// let before = item.committedValues(forKeys: ["title"])["title"]
    /// ```
    public func committedValues(forKeys keys: [String]) -> [String: Value] {
        var result: [String: Value] = [:]
        guard let snapshot else { return result }
        for key in keys {
            if let i = entity.attributeIndexByName[key] { result[key] = snapshot.values[i] }
        }
        return result
    }

    // MARK: Attribute access

    /// The value of attribute `key`.
    ///
    /// ```swift
    /// let title = try item.value(forKey: "title")   // .string("…") or .null
    /// ```
    public func value(forKey key: String) throws(ObjectGraphError) -> Value {
        guard let i = entity.attributeIndexByName[key] else {
            throw .unknownKey(entity: entity.name, key: key)
        }
        observationAccess(attribute: i)
        return attributeValue(at: i)
    }

    /// Sets attribute `key`, checking the value's type (integers and doubles, 0/1 and
    /// bools are converted as the attribute needs).
    ///
    /// ```swift
    /// try item.setValue(.bool(true), forKey: "read")
    /// ```
    public func setValue(_ value: Value, forKey key: String) throws(ObjectGraphError) {
        guard let i = entity.attributeIndexByName[key] else {
            throw .unknownKey(entity: entity.name, key: key)
        }
        if let message = detachedMessage { throw .objectInaccessible(message) }
        let attribute = entity.attributes[i]
        guard let coerced = value.coerced(to: attribute.type) else {
            throw .typeMismatch(
                entity: entity.name, key: key, expected: attribute.type.rawValue, got: value.typeName)
        }
        setAttributeValue(coerced, at: i)
    }

    /// The attribute value at `key`, or `.null` for unknown keys (use ``value(forKey:)``
    /// to have them reported). Setting an unknown key or a value of the wrong type stops the
    /// program, as Core Data's `setValue(_:forKey:)` does; ``setValue(_:forKey:)`` throws instead.
    ///
    /// ```swift
    /// item["title"] = "Hello"   // try item.setValue("Hello", forKey: "title") for a key from input
    /// ```
    public subscript(key: String) -> Value {
        get { (try? value(forKey: key)) ?? .null }
        set {
            do { try setValue(newValue, forKey: key) } catch {
                preconditionFailure("\(error)")
            }
        }
    }

    @usableFromInline
    func attributeValue(at index: Int) -> Value {
        fireFaultIfNeeded()
        return index < values.count ? values[index] : entity.attributes[index].defaultValue
    }

    @usableFromInline
    func setAttributeValue(_ value: Value, at index: Int) {
        // Set in the batch that inserted it, with no undo: nothing to record (the object
        // is announced as inserted anyway). Decided from the link, without loading the context.
        if isInsertedFlag, let link, link.batchNumber == insertedInBatch, !link.hasUndoManager {
            values[index] = value
            observationDidChange(attribute: index)
            return
        }
        if let message = detachedMessage { usedAfterDetach(message, key: entity.attributes[index].name) }
        fireFaultIfNeeded()
        guard index < values.count else { return }
        let old = values[index]
        if old == value { return }
        values[index] = value
        observationDidChange(attribute: index)
        let key = entity.attributes[index].name
        changedKeys.insert(key)
        managedObjectContext?.objectDidChange(self, key: key, undo: .attribute(index: index, oldValue: old))
    }

    /// Loads the row of a fault.
    func fireFaultIfNeeded() {
        guard isFault else { return }
        isFault = false
        managedObjectContext?.fulfillFault(self)
    }

    // MARK: Relationship access

    /// The destination of to-one relationship `key`.
    ///
    /// ```swift
    /// let server = try item.object(forKey: "server")
    /// ```
    public func object(forKey key: String) throws(ObjectGraphError) -> ManagedObject? {
        guard let r = entity.relationshipIndexByName[key] else {
            throw .unknownKey(entity: entity.name, key: key)
        }
        guard !entity.relationships[r].isToMany else {
            throw .typeMismatch(entity: entity.name, key: key, expected: "to-one relationship", got: "to-many relationship")
        }
        observationAccess(relationship: r)
        return try object(relationshipIndex: r)
    }

    /// The destination of to-one relationship number `r` (an index into `entity.relationships`).
    @usableFromInline
    func object(relationshipIndex r: Int) throws(ObjectGraphError) -> ManagedObject? {
        guard let context = managedObjectContext else { return nil }
        return try context.destinationOfToOne(self, relationshipIndex: r)
    }

    /// Sets to-one relationship `key`, keeping the inverse relationship in step.
    ///
    /// ```swift
    /// try item.setObject(server, forKey: "server")
    /// ```
    public func setObject(_ object: ManagedObject?, forKey key: String) throws(ObjectGraphError) {
        guard let r = entity.relationshipIndexByName[key] else {
            throw .unknownKey(entity: entity.name, key: key)
        }
        try setObject(object, relationshipIndex: r)
    }

    /// Sets to-one relationship number `r` (an index into `entity.relationships`).
    @usableFromInline
    func setObject(_ object: ManagedObject?, relationshipIndex r: Int) throws(ObjectGraphError) {
        let toMany = entity.relationships[r].isToMany
        guard !toMany else {
            throw .typeMismatch(
                entity: entity.name, key: entity.relationships[r].name, expected: "to-one relationship",
                got: "to-many relationship")
        }
        let context = managedObjectContext
        if let object {
            guard object.entity.isKind(ofEntityAt: entity.destinationIndex[r]) else {
                let relationship = entity.relationships[r]
                throw .typeMismatch(
                    entity: entity.name, key: relationship.name, expected: relationship.destinationEntityName,
                    got: object.entity.name)
            }
            guard object.managedObjectContext === context else { throw .objectInaccessible(otherContextMessage(object)) }
        }
        if let message = detachedMessage { throw .objectInaccessible(message) }
        guard let context else { return }
        try context.setToOne(self, relationshipIndex: r, to: object)
    }

    /// The index of to-one relationship `key`; stops the program with a message when the
    /// entity has no such to-one.
    @usableFromInline
    func toOneIndex(forManagedKey key: String) -> Int {
        guard let r = entity.relationshipNames.index(of: key) ?? entity.relationshipIndexByName[key], !entity.isToMany[r] else {
            fatalError("\(entity.name) has no to-one relationship '\(key)'")
        }
        return r
    }

    /// The objects of to-many relationship `key`, in primary-key order (new objects last, or
    /// for a many-to-many relationship, members added since the last save last).
    ///
    /// ```swift
    /// let items = try server.objects(forKey: "feedItems")
    /// ```
    public func objects(forKey key: String) throws(ObjectGraphError) -> [ManagedObject] {
        guard let r = entity.relationshipIndexByName[key] else {
            throw .unknownKey(entity: entity.name, key: key)
        }
        guard entity.relationships[r].isToMany else {
            throw .typeMismatch(entity: entity.name, key: key, expected: "to-many relationship", got: "to-one relationship")
        }
        observationAccess(relationship: r)
        guard let context = managedObjectContext else { return [] }
        return try context.membersOfToMany(self, relationshipIndex: r)
    }

    /// Adds `object` to to-many relationship `key` (sets its inverse to-one to `self`; for a
    /// many-to-many relationship, adds the pair, which both sides then show).
    ///
    /// ```swift
    /// try server.add(item, toRelationship: "feedItems")
    /// try post.add(tag, toRelationship: "tags")   // many-to-many: tag.posts has post too
    /// ```
    public func add(_ object: ManagedObject, toRelationship key: String) throws(ObjectGraphError) {
        guard let r = entity.relationshipIndexByName[key], entity.relationships[r].isToMany else {
            throw .unknownKey(entity: entity.name, key: key)
        }
        if entity.joinTables[r] != nil {
            try managedObjectContext?.setMembership(self, relationshipIndex: r, member: object, isMember: true)
            return
        }
        try object.setObject(self, forKey: entity.relationships[r].inverseName)
    }

    /// Removes `object` from to-many relationship `key` (sets its inverse to-one to nil; for a
    /// many-to-many relationship, removes the pair).
    ///
    /// ```swift
    /// try server.remove(item, fromRelationship: "feedItems")
    /// ```
    public func remove(_ object: ManagedObject, fromRelationship key: String) throws(ObjectGraphError) {
        guard let r = entity.relationshipIndexByName[key], entity.relationships[r].isToMany else {
            throw .unknownKey(entity: entity.name, key: key)
        }
        if entity.joinTables[r] != nil {
            try managedObjectContext?.setMembership(self, relationshipIndex: r, member: object, isMember: false)
            return
        }
        let inverse = entity.relationships[r].inverseName
        if try object.object(forKey: inverse) === self {
            try object.setObject(nil, forKey: inverse)
        }
    }

    /// The value at a dotted key path through to-one relationships (`server.title`).
    ///
    /// ```swift
    /// let feedTitle = try item.value(forKeyPath: "server.title")
    /// ```
    public func value(forKeyPath keyPath: String) throws(ObjectGraphError) -> Value {
        var object: ManagedObject = self
        let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for part in parts.dropLast() {
            guard let next = try object.object(forKey: part) else { return .null }
            object = next
        }
        return try object.value(forKey: parts.last ?? keyPath)
    }

    public var description: String {
        let state = isFault ? " fault" : ""
        return "<\(entity.name) \(objectID)\(state)>"
    }

    // MARK: Lifecycle hooks

    /// Called after insertion into a context; set up default relationships here.
    open func awakeFromInsert() {}
    /// Called after the object's values are loaded from the store.
    open func awakeFromFetch() {}
    /// Called before the object is saved; changes made here are saved too, and are part of
    /// the undo step of the changes being saved. Throw to stop the save (nothing is written).
    ///
    /// ```swift
    /// final class Note: ManagedObject {
    ///     @Managed("created") var created: Date?
    ///     override func willSave() throws { if isInserted { created = Date() } }
    /// }
    /// ```
    open func willSave() throws {}

    /// Called when the object is about to be deleted from its context — by
    /// ``ManagedObjectContext/delete(_:)``, and for each object a cascade delete rule
    /// removes — before its delete rules run, while its relationships still hold. Tidy up
    /// here (update a related object, remember a file to remove). Changes it makes are saved
    /// with the delete and undone with it. Batch delete requests, which bypass objects, do
    /// not call it.
    ///
    /// ```swift
    /// final class Note: ManagedObject {
    ///     @ToOne("folder") var folder: Folder?
    ///     override func prepareForDeletion() { folder?.noteCount -= 1 }
    /// }
    /// ```
    open func prepareForDeletion() {}

    // MARK: Validation hooks

    /// Checks an inserted object before it is saved, after its attributes' rules
    /// (``AttributeDescription/validationRules``) passed. Throw
    /// ``ObjectGraphError/invalidValue(entity:key:rule:message:)`` (or any error) to refuse it;
    /// every object's errors are collected into one thrown error.
    ///
    /// ```swift
    /// final class Note: ManagedObject {
    ///     @Managed("title") var title: String?
    ///     override func validateForInsert() throws {
    ///         if title == "" { throw ObjectGraphError.invalidValue(entity: "Note", key: "title", rule: "not empty", message: "is empty") }
    ///     }
    /// }
    /// ```
    open func validateForInsert() throws {}
    /// Checks a changed object before it is saved (see ``validateForInsert()``).
    ///
    /// ```swift
    /// final class Note: ManagedObject {
    ///     override func validateForUpdate() throws { try validateForInsert() }   // the insert's rules
    /// }
    /// ```
    open func validateForUpdate() throws {}
    /// Checks an object about to be deleted (see ``validateForInsert()``).
    ///
    /// ```swift
    /// final class Note: ManagedObject {
    ///     @Managed("isPinned") var isPinned: Bool
    ///     override func validateForDelete() throws {
    ///         if isPinned { throw ObjectGraphError.invalidValue(entity: "Note", key: "isPinned", rule: "unpinned", message: "is pinned") }
    ///     }
    /// }
    /// ```
    open func validateForDelete() throws {}
}

/// What objects need of their context on every access, shared by all of one context's
/// objects: each object holds this link strongly, and only the link holds the context
/// (weakly). Attaching an object is a plain retain instead of a weak reference per object,
/// the hot paths read the batch number without loading the context, and a reset detaches
/// every object at once by clearing the old link. Confined to the context's queue, like
/// the objects.
final class ContextLink {
    weak var context: ManagedObjectContext?
    /// Why the context let go of this link's objects (see ``DetachCause``); nil while they are its.
    var detachCause: DetachCause?
    var batchNumber = 0
    var hasUndoManager = false
}

/// The stored state of an object: what the store held when it was last read or written.
struct Snapshot {
    var values: [Value]
    var toOne: [ObjectID?]
    var version: Int64
    /// For a row read as one of an entity with sub-entities: the model index of the row's
    /// own entity (-1: the entity read).
    var entityIndex = -1
}

extension Value {
    /// A short type name for error messages.
    var typeName: String {
        switch self {
        case .null: return "nil"
        case .integer: return "integer"
        case .double: return "double"
        case .string: return "string"
        case .bool: return "bool"
        case .date: return "date"
        case .data: return "data"
        }
    }
}

extension ManagedObjectFinders where Self: ManagedObject {
    /// Removes `object` from the to-many relationship `relationship` names, as
    /// ``ManagedObject/remove(_:fromRelationship:)`` with that name does.
    ///
    /// ```swift
    /// try server.remove(item, from: \.feedItems)
    /// ```
    public func remove<Member: ManagedObject>(_ object: Member, from relationship: KeyPath<Self, [Member]>)
        throws(ObjectGraphError)
    {
        try remove(object, fromRelationship: KeyPathRecorder.keyPath(relationship as PartialKeyPath<Self>))
    }
}
