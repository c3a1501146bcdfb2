import Synchronization

/// A ``ManagedObject`` subclass that names the model key behind each of its properties
/// itself, instead of having the names found by reading the properties of a recording
/// instance (what ``KeyPathPredicate`` does for classes declared with ``Managed``,
/// ``ToOne`` and ``ToMany``). Code generated from a class declaration can supply it.
///
/// ```swift
/// final class Memo: ManagedObject, ManagedPropertyKeys {
///     @Managed("body_text") var text: String?
///     static func managedKey(for keyPath: AnyKeyPath) -> String? { keyPath == \Memo.text ? "body_text" : nil }
/// }
/// ```
public protocol ManagedPropertyKeys: ManagedObject {
    /// The model key of the one property `keyPath` reads (`"title"` for `\Note.title`), or
    /// nil to have it found by recording.
    static func managedKey(for keyPath: AnyKeyPath) -> String?
}

/// Finds the model key path behind a Swift key path by reading it through a recording
/// instance: an object of the class whose placeholder entity (index -1) makes the property
/// wrappers report their keys instead of reading values. Reading costs one small object per
/// relationship crossed; nothing is cached by key path, since key paths are not `Sendable`.
@usableFromInline
enum KeyPathRecorder {
    /// What kind of property a recorded key is.
    @usableFromInline
    enum Kind: Sendable { case attribute, toOne, toMany }

    /// The keys read, in order, during one recording.
    final class Log: Sendable {
        let keys = Mutex<[(key: String, kind: Kind)]>([])
    }

    @TaskLocal static var log: Log?

    /// Called by the property wrappers when read on a recording instance.
    @usableFromInline
    static func record(_ key: String, _ kind: Kind) {
        log?.keys.withLock { $0.append((key, kind)) }
    }

    /// A recording instance of `type`.
    @usableFromInline
    static func recorder<T: ManagedObject>(of type: T.Type) -> T {
        let entity = placeholderEntity(for: type)
        return T(ManagedObject.Construction(entity: entity, objectID: ObjectID(entity: entity, rawValue: -1)))
    }

    private static let placeholders = Mutex<[ObjectIdentifier: Entity]>([:])

    /// One entity per class, with no properties and index -1 (never a model's index).
    private static func placeholderEntity(for type: ManagedObject.Type) -> Entity {
        placeholders.withLock { cache in
            if let entity = cache[ObjectIdentifier(type)] { return entity }
            let entity = Entity(
                description: EntityDescription("\(type)", managedClass: type), index: -1, destinationIndex: [],
                inverseIndex: [], inverseIsToMany: [], storesForeignKey: [], counters: [], counterDependencies: [])
            cache[ObjectIdentifier(type)] = entity
            return entity
        }
    }

    /// The dotted model key path `keyPath` reads: `"feed.title"` for `\Item.feed?.title`,
    /// `"items.@count"` for `\Feed.items.count`. A key path through anything but managed
    /// properties gives a key no entity has, which the fetch reports naming it.
    static func keyPath<Root: ManagedObject>(_ keyPath: PartialKeyPath<Root>) -> String {
        if let named = Root.self as? any ManagedPropertyKeys.Type, let key = named.managedKey(for: keyPath) {
            return key
        }
        let log = Log()
        let value = $log.withValue(log) { recorder(of: Root.self)[keyPath: keyPath] }
        let keys = log.keys.withLock { $0 }
        return dotted(keys, valueIsCount: value is Int) ?? "<\(keyPath) is not a managed property>"
    }

    /// Joins recorded keys into a key path when they make one: to-one relationships, then
    /// one property; a to-many last stands for its count when the key path's value is an Int.
    private static func dotted(_ keys: [(key: String, kind: Kind)], valueIsCount: Bool) -> String? {
        guard let last = keys.last, keys.dropLast().allSatisfy({ $0.kind == .toOne }) else { return nil }
        let path = keys.map(\.key).joined(separator: ".")
        return last.kind == .toMany && valueIsCount ? path + ".@count" : path
    }
}

extension ManagedObject {
    /// Whether this is a recording instance (see ``KeyPathRecorder``): its entity is a
    /// placeholder no model holds.
    @usableFromInline
    var isKeyRecorder: Bool { entity.index < 0 }
}
