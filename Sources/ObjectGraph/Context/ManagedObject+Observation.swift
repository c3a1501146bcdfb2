import Foundation
import Observation

// MARK: - Observation

// Managed objects are observable with the Observation framework: reading a property inside
// `withObservationTracking` (or SwiftUI's body, or an `Observations` sequence) tracks it, and the
// next change of it calls `onChange`, whether made in the object's own context, merged from
// another context's save or another process's commit, or a derived count or inverse kept in
// step (docs/ObjectGraph.md, "Concurrency", has the example the doc tests run). Changes are
// reported per model key, on the context's queue, as they happen. An object nothing has read
// keeps no registrar, so inserts and imports pay nothing; the first read of an object makes it.
extension ManagedObject: Observable {}

extension ManagedObject {
    /// Declares a read of `key` (an attribute or relationship of ``entity``) to the
    /// Observation framework. The `@Managed`, `@ToOne` and `@ToMany` wrappers and the
    /// key-based accessors call it; a property written by hand (or by a macro) calls it too.
    ///
    /// ```swift
    /// note.observationAccess(forKey: "title")   // in the getter of a property derived from title
    /// ```
    public func observationAccess(forKey key: String) {
        if let slot = ObservedKeys.slot(of: key, in: entity) { observationAccess(slot: slot) }
    }

    /// Tells observers of `key` that it changed (what ObjectGraph does itself for every
    /// change it makes; for a computed property derived from stored ones).
    ///
    /// ```swift
    /// note.observationDidChange(forKey: "title")
    /// ```
    public func observationDidChange(forKey key: String) {
        if let slot = ObservedKeys.slot(of: key, in: entity) { observationDidChange(slot: slot) }
    }

    /// A read of attribute `index`.
    @usableFromInline
    func observationAccess(attribute index: Int) { observationAccess(slot: ObservedKeys.attributeSlot(index)) }

    /// A read of relationship `index`.
    @usableFromInline
    func observationAccess(relationship index: Int) { observationAccess(slot: ObservedKeys.relationshipSlot(index)) }

    /// A change of attribute `index`.
    func observationDidChange(attribute index: Int) { observationDidChange(slot: ObservedKeys.attributeSlot(index)) }

    /// A change of relationship `index`.
    func observationDidChange(relationship index: Int) {
        observationDidChange(slot: ObservedKeys.relationshipSlot(index))
    }

    /// A change of every key named in `keys`.
    func observationDidChange(keys: Set<String>) {
        guard observationRegistrar != nil else { return }
        for key in keys { observationDidChange(forKey: key) }
    }

    /// A change of every attribute and relationship: the object was turned back into a fault
    /// or re-read, so any value read before may differ at the next read.
    func observationDidChangeAll() {
        guard observationRegistrar != nil else { return }
        for index in entity.attributes.indices { observationDidChange(attribute: index) }
        for index in entity.relationships.indices { observationDidChange(relationship: index) }
    }

    private func observationAccess(slot: Int) {
        if observationRegistrar == nil { observationRegistrar = ObservationRegistrar() }
        observationRegistrar!.access(self, keyPath: ObservedKeys.keyPath(slot))
    }

    private func observationDidChange(slot: Int) {
        // Nothing read this object, so nothing can be observing it.
        guard let registrar = observationRegistrar else { return }
        let keyPath = ObservedKeys.keyPath(slot)
        registrar.willSet(self, keyPath: keyPath)
        registrar.didSet(self, keyPath: keyPath)
    }

    /// The key path observers of model key slot `slot` are registered under (see ``ObservedKeys``).
    subscript(observedSlot slot: Int) -> Int { slot }
}

extension ManagedObjectContext {
    /// After to-one `r` of `object` changed from `old` to `new`: its observers, and those of
    /// the inverse on both destinations (a one-to-many's members, a one-to-one's other side).
    /// `target`: the object `new` names, when the caller has it (an unsaved object is not
    /// looked up by its temporary ID: that look-up builds an index every later insert keeps).
    func observationDidChangeToOne(
        _ object: ManagedObject, relationshipIndex r: Int, from old: ObjectID?, to new: ObjectID?, target: ManagedObject?
    ) {
        object.observationDidChange(relationship: r)
        let inverse = object.entity.inverseIndex[r]
        guard inverse >= 0 else { return }
        if let old, !old.isTemporary, let previous = registered[old]?.object {
            previous.observationDidChange(relationship: inverse)
        }
        if let destination = target ?? new.flatMap({ $0.isTemporary ? nil : registered[$0]?.object }) {
            destination.observationDidChange(relationship: inverse)
        }
    }

    /// After a merge re-read `object`: observers of its changed keys, and of the inverse of
    /// each changed to-one on the destinations it left and joined.
    func observationDidMerge(_ object: ManagedObject, oldToOne: [ObjectID?], changedKeys: Set<String>) {
        guard !changedKeys.isEmpty else { return }
        object.observationDidChange(keys: changedKeys)
        let entity = object.entity
        for r in entity.relationships.indices where r < oldToOne.count && oldToOne[r] != object.toOne[r] {
            let inverse = entity.inverseIndex[r]
            guard inverse >= 0 else { continue }
            for id in [oldToOne[r], object.toOne[r]] {
                if let id, let destination = registered[id]?.object { destination.observationDidChange(relationship: inverse) }
            }
        }
    }
}

/// Observation tracks key paths; a managed object's properties are model keys that merges
/// and the key-based accessors know by index, not by Swift property. Each attribute and
/// relationship gets a slot and one key path `\ManagedObject.[observedSlot: n]`, made once.
enum ObservedKeys {
    /// Relationship slots start here; attribute slots are the attribute's index.
    static let relationshipBase = 1 << 16

    static func attributeSlot(_ index: Int) -> Int { index }
    static func relationshipSlot(_ index: Int) -> Int { relationshipBase + index }

    static func slot(of key: String, in entity: Entity) -> Int? {
        if let i = entity.attributeIndexByName[key] { return attributeSlot(i) }
        if let r = entity.relationshipIndexByName[key] { return relationshipSlot(r) }
        return nil
    }

    private static let cachedCount = 128
    // Key paths made once: a subscript key path over an `Int` is `Sendable`, so the tables may
    // be shared between threads as they are.
    private static let attributeKeyPaths: [KeyPath<ManagedObject, Int> & Sendable] = (0..<cachedCount).map {
        \ManagedObject.[observedSlot: $0]
    }
    private static let relationshipKeyPaths: [KeyPath<ManagedObject, Int> & Sendable] = (0..<cachedCount).map {
        \ManagedObject.[observedSlot: relationshipBase + $0]
    }

    static func keyPath(_ slot: Int) -> KeyPath<ManagedObject, Int> {
        if slot < cachedCount { return attributeKeyPaths[slot] }
        let r = slot - relationshipBase
        if r >= 0 && r < cachedCount { return relationshipKeyPaths[r] }
        return \ManagedObject.[observedSlot: slot]
    }
}
