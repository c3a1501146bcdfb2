import Foundation

/// Exposes an attribute of a ``ManagedObject`` subclass as an ordinary Swift property.
///
/// ```swift
/// final class FeedItem: ManagedObject {
///     @Managed("title") var title: String?
///     @Managed("read") var read: Bool
/// }
/// ```
///
/// Reading a required attribute that has no value yet (an inserted object before it is
/// set) yields the type's zero value (`""`, `0`, `false`, the 1970 epoch, empty data).
@propertyWrapper
public struct Managed<V: ValueConvertible> {
    public let key: String

    public init(_ key: String) {
        self.key = key
    }

    @available(*, unavailable, message: "@Managed is only available on ManagedObject subclasses")
    public var wrappedValue: V {
        get { fatalError("unreachable") }
        set { fatalError("unreachable") }
    }

    @inlinable
    public static subscript<O: ManagedObject>(
        _enclosingInstance object: O,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<O, V>,
        storage storageKeyPath: ReferenceWritableKeyPath<O, Managed<V>>
    ) -> V {
        get {
            let i = resolveIndex(object, storageKeyPath)
            if i < 0 { return KeyPathRecorder.probeValue(V.self) }  // a recording instance
            object.observationAccess(attribute: i)
            let value = object.attributeValue(at: i)
            if let v = V(fromValue: value) { return v }
            if value.isNull { missingValue(object, at: i) }
            return coercedOrZero(value)
        }
        set {
            let i = resolveIndex(object, storageKeyPath)
            object.setAttributeValue(newValue.valueRepresentation, at: i)
        }
    }

    /// A non-optional property with no value (a required attribute not set yet, or an object
    /// whose row was deleted): stop with a message rather than make a value up.
    @usableFromInline
    static func missingValue(_ object: ManagedObject, at i: Int) -> Never {
        let name = object.entity.attributes[i].name
        fatalError(
            "\(object.entity.name).\(name) has no value (\(object.isInserted ? "not set yet" : "its row was deleted"), read as non-optional \(V.self)); set it first, or declare it \(V.self)?"
        )
    }

    @usableFromInline
    static func coercedOrZero(_ value: Value) -> V {
        if let v = V(fromValue: value.coerced(to: V.attributeType) ?? .null) { return v }
        return V(fromValue: zeroValue(V.attributeType))!
    }

    /// The attribute's index in the object's entity. The storage is reached through a key path
    /// the runtime projects, so it is read once, for its key; the index is the entity's, the
    /// same for all its objects, and its table of names finds it without a per-object cache.
    @inlinable
    static func resolveIndex<O: ManagedObject>(
        _ object: O, _ storageKeyPath: ReferenceWritableKeyPath<O, Managed<V>>
    ) -> Int {
        let key = object[keyPath: storageKeyPath].key
        if object.isKeyRecorder {
            KeyPathRecorder.record(key, .attribute)
            return -1
        }
        return object.entity.attributeIndex(forManagedKey: key, type: V.attributeType)
    }
}

extension Entity {
    /// The index of attribute `key` for a ``Managed`` property of Swift type `type`; stops
    /// the program with a clear message when the declaration does not match the model. Keys
    /// written as literals match the table of names by their bits, without hashing.
    @usableFromInline
    func attributeIndex(forManagedKey key: String, type: AttributeType) -> Int {
        let i = wrappedAttributeIndex(forKey: key)
        let declared = attributeTypes[i]
        if declared != type && !(declared == .integer && type == .bool) {
            fatalError("\(name).\(key) is \(declared.rawValue), declared as a Swift \(type.rawValue)")
        }
        return i
    }

    /// The index of attribute `key` for a property wrapper: by the key's bits in the table of
    /// names, else by hashing it; stops the program with a message when there is none.
    func wrappedAttributeIndex(forKey key: String) -> Int {
        guard let i = attributeNames.index(of: key) ?? attributeIndexByName[key] else {
            fatalError("\(name) has no attribute '\(key)'")
        }
        return i
    }
}

func zeroValue(_ type: AttributeType) -> Value {
    switch type {
    case .string: return .string("")
    case .integer: return .integer(0)
    case .double: return .double(0)
    case .bool: return .bool(false)
    case .date: return .date(Date(timeIntervalSince1970: 0))
    case .data: return .data(Data())
    }
}

/// Exposes a to-one relationship of a ``ManagedObject`` subclass as a Swift property.
///
/// ```swift
/// final class FeedItem: ManagedObject {
///     @ToOne("server") var server: Server?
/// }
/// item.server = someServer   // also adds item to someServer.feedItems
/// ```
@propertyWrapper
public struct ToOne<Destination: ManagedObject> {
    public let key: String

    public init(_ key: String) {
        self.key = key
    }

    @available(*, unavailable, message: "@ToOne is only available on ManagedObject subclasses")
    public var wrappedValue: Destination? {
        get { fatalError("unreachable") }
        set { fatalError("unreachable") }
    }

    @inlinable
    public static subscript<O: ManagedObject>(
        _enclosingInstance object: O,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<O, Destination?>,
        storage storageKeyPath: ReferenceWritableKeyPath<O, ToOne<Destination>>
    ) -> Destination? {
        get {
            let r = resolveIndex(object, storageKeyPath)
            if r < 0 { return KeyPathRecorder.probeObject(Destination.self) }  // a recording instance
            object.observationAccess(relationship: r)
            do {
                return try object.object(relationshipIndex: r) as? Destination
            } catch {
                preconditionFailure("\(error)")
            }
        }
        set {
            let r = resolveIndex(object, storageKeyPath)
            do {
                try object.setObject(newValue, relationshipIndex: r)
            } catch {
                preconditionFailure("\(error)")
            }
        }
    }

    /// The relationship's index in the object's entity, found as ``Managed`` finds an
    /// attribute's: one read of the storage for its key, then the entity's table of names.
    @inlinable
    static func resolveIndex<O: ManagedObject>(
        _ object: O, _ storageKeyPath: ReferenceWritableKeyPath<O, ToOne<Destination>>
    ) -> Int {
        let key = object[keyPath: storageKeyPath].key
        if object.isKeyRecorder {
            KeyPathRecorder.record(key, .toOne)
            return -1
        }
        return object.toOneIndex(forManagedKey: key)
    }
}

/// Exposes a to-many relationship of a ``ManagedObject`` subclass as an array, loaded
/// lazily on access. Change membership by assigning the array, with
/// ``ManagedObject/add(_:toRelationship:)`` and ``ManagedObject/remove(_:fromRelationship:)``,
/// or (one-to-many) by setting the inverse to-one; a many-to-many relationship changes from
/// either side.
///
/// ```swift
/// final class Server: ManagedObject {
///     @ToMany("feedItems") var feedItems: [FeedItem]
/// }
/// print(server.feedItems.count)
/// ```
@propertyWrapper
public struct ToMany<Destination: ManagedObject> {
    public let key: String

    public init(_ key: String) {
        self.key = key
    }

    @available(*, unavailable, message: "@ToMany is only available on ManagedObject subclasses")
    public var wrappedValue: [Destination] {
        get { fatalError("unreachable") }
        set { fatalError("unreachable") }
    }

    public static subscript<O: ManagedObject>(
        _enclosingInstance object: O,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<O, [Destination]>,
        storage storageKeyPath: ReferenceWritableKeyPath<O, ToMany<Destination>>
    ) -> [Destination] {
        get {
            let key = object[keyPath: storageKeyPath].key
            if object.isKeyRecorder {
                KeyPathRecorder.record(key, .toMany)
                return KeyPathRecorder.probeMembers(Destination.self)
            }
            do {
                return try object.objects(forKey: key).compactMap { $0 as? Destination }
            } catch {
                preconditionFailure("\(error)")
            }
        }
        set {
            let key = object[keyPath: storageKeyPath].key
            do {
                if try object.replaceOrderedMembers(newValue, forKey: key) { return }
                let current = try object.objects(forKey: key)
                let keep = Set(newValue.map { ObjectIdentifier($0) })
                for old in current where !keep.contains(ObjectIdentifier(old)) {
                    try object.remove(old, fromRelationship: key)
                }
                for new in newValue { try object.add(new, toRelationship: key) }
            } catch {
                preconditionFailure("\(error)")
            }
        }
    }
}
