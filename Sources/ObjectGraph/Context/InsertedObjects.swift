/// The objects a context inserted since its last save, in insertion order.
///
/// A save walks its new objects several times (derived counts, notifications, validation,
/// the SQL inserts, the switch to permanent IDs). Kept in an array, they are walked in the
/// order they were created, which is also roughly their order in memory; a dictionary keyed
/// by ID visits them in hash order, a cache miss each. An object knows its slot, so
/// membership and removal need no look-up; finding one by temporary ID (rare: undo, or
/// `object(with:)` on an unsaved object's ID) builds an index on first use.
struct InsertedObjects: Sequence {
    private var slots: [ManagedObject?] = []
    /// Temporary ID → slot, built by the first look-up by ID and kept up to date after.
    private var index: [ObjectID: Int]?
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ object: ManagedObject) {
        object.insertedSlot = slots.count
        index?[object.objectID] = slots.count
        slots.append(object)
        count += 1
    }

    func contains(_ object: ManagedObject) -> Bool {
        let slot = object.insertedSlot
        return slot >= 0 && slot < slots.count && slots[slot] === object
    }

    /// Removes `object`; false when it was not there.
    @discardableResult
    mutating func remove(_ object: ManagedObject) -> Bool {
        guard contains(object) else { return false }
        slots[object.insertedSlot] = nil
        index?.removeValue(forKey: object.objectID)
        object.insertedSlot = -1
        count -= 1
        if count == 0 {
            removeAll()
        } else if slots.count > 64 && count < slots.count / 2 {
            // Mostly holes: close them up, keeping the order.
            var kept: [ManagedObject?] = []
            kept.reserveCapacity(count)
            for case let object? in slots {
                object.insertedSlot = kept.count
                kept.append(object)
            }
            slots = kept
            index = nil
        }
        return true
    }

    /// Forgets every object. Their slot numbers go stale, which `contains` detects: a slot
    /// counts only while it holds that very object.
    mutating func removeAll() {
        slots = []
        index = nil
        count = 0
    }

    /// The inserted object with temporary ID `id`.
    mutating func object(for id: ObjectID) -> ManagedObject? {
        guard id.isTemporary, count > 0 else { return nil }
        if index == nil {
            var built: [ObjectID: Int] = [:]
            built.reserveCapacity(count)
            for (slot, object) in slots.enumerated() {
                if let object { built[object.objectID] = slot }
            }
            index = built
        }
        return index?[id].flatMap { slots[$0] }
    }

    struct Iterator: IteratorProtocol {
        var base: IndexingIterator<[ManagedObject?]>
        mutating func next() -> ManagedObject? {
            while let slot = base.next() {
                if let object = slot { return object }
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(base: slots.makeIterator()) }

    var underestimatedCount: Int { count }
}
