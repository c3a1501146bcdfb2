import Foundation
import Synchronization

/// A ``ManagedObject`` subclass that names the model key behind each of its properties
/// itself, instead of having the names found by reading the properties of a recording
/// instance (what ``KeyPathPredicate`` does for classes declared with ``Managed``,
/// ``ToOne`` and ``ToMany``; a ``ManagedEntity()`` class names its keys by itself).
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
/// wrappers report their keys and hand out probe values instead of reading the store.
///
/// A key path is accepted only when its value is the very probe the last property handed
/// out, in every round (nil, then two different values): a computed property that changes
/// the value (`!read`, `title ?? ""`, `title.uppercased()`) would otherwise be taken for
/// the stored property it reads. Nothing is cached by key path, since key paths are not
/// `Sendable`.
@usableFromInline
enum KeyPathRecorder {
    /// What kind of property a recorded key is.
    @usableFromInline
    enum Kind: Sendable { case attribute, toOne, toMany }

    /// What the last property read handed out, to compare with the key path's value.
    enum Probe: Sendable {
        /// An attribute's value.
        case value(Value)
        /// A value of a type the probes cannot make (a custom ``ValueConvertible``): not checked.
        case unchecked
        /// A to-one's recording instance.
        case object(ObjectIdentifier)
        /// A to-many's recording members.
        case members([ObjectIdentifier])
    }

    /// One recording: the round (which probe values to hand out), the keys read in order
    /// and the probe handed out by the last property read.
    final class Log: Sendable {
        struct State {
            var keys: [(key: String, kind: Kind)] = []
            var probe: Probe?
        }
        let round: Int
        let state = Mutex(State())
        init(round: Int) { self.round = round }
    }

    @TaskLocal static var log: Log?

    /// Called by the property wrappers when read on a recording instance.
    @usableFromInline
    static func record(_ key: String, _ kind: Kind) {
        log?.state.withLock { $0.keys.append((key, kind)) }
    }

    /// The value a recording instance's attribute of type `V` reads as in this round:
    /// nil in the first round when `V` is optional, then two different values.
    @usableFromInline
    static func probeValue<V: ValueConvertible>(_ type: V.Type) -> V {
        let round = log?.round ?? 0
        var candidates = [Value.null, sample(V.attributeType, 0), sample(V.attributeType, 1)]
        if V(fromValue: .null) == nil { candidates[0] = sample(V.attributeType, 1) }
        if let v = V(fromValue: candidates[round % candidates.count]) {
            log?.state.withLock { $0.probe = .value(v.valueRepresentation) }
            return v
        }
        log?.state.withLock { $0.probe = .unchecked }
        return V(fromValue: zeroValue(V.attributeType)) ?? V(fromValue: .null)!
    }

    /// The recording instance a to-one relationship of a recording instance reads as.
    @usableFromInline
    static func probeObject<T: ManagedObject>(_ type: T.Type) -> T {
        let object = recorder(of: type)
        log?.state.withLock { $0.probe = .object(ObjectIdentifier(object)) }
        return object
    }

    /// The members a to-many relationship of a recording instance reads as: one more
    /// recording instance each round, so that a count is checked too.
    @usableFromInline
    static func probeMembers<T: ManagedObject>(_ type: T.Type) -> [T] {
        let members = (0...(log?.round ?? 0)).map { _ in recorder(of: type) }
        log?.state.withLock { $0.probe = .members(members.map(ObjectIdentifier.init)) }
        return members
    }

    /// Distinct values of each type, unlikely to survive a computed property unchanged.
    private static func sample(_ type: AttributeType, _ which: Int) -> Value {
        switch type {
        case .string: return .string(which == 0 ? "\u{1}probe-a" : "\u{1}probe-B")
        case .integer: return .integer(which == 0 ? 7 : -3)
        case .double: return .double(which == 0 ? 2.75 : -3.25)
        case .bool: return .bool(which == 0)
        case .date: return .date(Date(timeIntervalSince1970: which == 0 ? 1_000_003.25 : -7_000_001.5))
        case .data: return .data(Data(which == 0 ? [7] : [3, 1]))
        }
    }

    /// A recording instance of `type`.
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
    /// `"items.@count"` for `\Feed.items.count`. A key path that is not managed properties
    /// alone (a computed property that changes the value, a plain stored property) gives a
    /// key no entity has, naming the key path, which a fetch or an evaluation reports.
    static func keyPath<Root: ManagedObject>(_ keyPath: PartialKeyPath<Root>) -> String {
        if let named = Root.self as? any ManagedPropertyKeys.Type, let key = named.managedKey(for: keyPath) {
            return key
        }
        if let key = Root._managedKey(for: keyPath) { return key }
        var found: String?
        var read: [String] = []
        for round in 0..<3 {
            let log = Log(round: round)
            let value = $log.withValue(log) { recorder(of: Root.self)[keyPath: keyPath] }
            let (keys, probe) = log.state.withLock { ($0.keys, $0.probe) }
            read = keys.map(\.key)
            guard let path = dotted(keys, value: value, probe: probe), found == nil || found == path else {
                return notManaged(read: read)
            }
            found = path
        }
        return found ?? notManaged(read: read)
    }

    /// The key standing for a key path that is not managed properties alone. It reaches the
    /// developer in ``ObjectGraphError/unknownKey(entity:key:)`` (with the entity's name) from a
    /// fetch or an evaluation, so it says what the key path read, by the properties' keys
    /// (Linux prints a key path's properties as addresses), first, since long keys are cut in
    /// messages; and it holds no dot, which would split it as a key path.
    static func notManaged(read: [String]) -> String {
        let text =
            read.isEmpty
            ? "a key path reading no @Managed, @ToOne or @ToMany property"
            : "a computed property changing \(read.joined(separator: "→"))"
        return text.replacingOccurrences(of: ".", with: "_")
    }

    /// Joins recorded keys into a key path when they make one: to-one relationships, then
    /// one property, whose probe the key path's value must be; a to-many last stands for
    /// its count when the value is the number of members it handed out.
    private static func dotted(_ keys: [(key: String, kind: Kind)], value: Any, probe: Probe?) -> String? {
        guard let last = keys.last, keys.dropLast().allSatisfy({ $0.kind == .toOne }), let probe else { return nil }
        let path = keys.map(\.key).joined(separator: ".")
        switch (last.kind, probe) {
        case (.attribute, .unchecked):
            return path
        case (.attribute, .value(let handedOut)):
            return (value as? any ValueConvertible)?.valueRepresentation == handedOut ? path : nil
        case (.toOne, .object(let handedOut)):
            return (value as? ManagedObject).map(ObjectIdentifier.init) == handedOut ? path : nil
        case (.toMany, .members(let handedOut)):
            if let count = value as? Int { return count == handedOut.count ? path + ".@count" : nil }
            return (value as? [ManagedObject])?.map(ObjectIdentifier.init) == handedOut ? path : nil
        default:
            return nil
        }
    }
}

extension ManagedObject {
    /// Whether this is a recording instance (see ``KeyPathRecorder``): its entity is a
    /// placeholder no model holds.
    @usableFromInline
    var isKeyRecorder: Bool { entity.index < 0 }
}
