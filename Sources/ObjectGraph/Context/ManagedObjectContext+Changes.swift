import Foundation
import GRDB

extension ManagedObjectContext {
    /// Updates derived counts and posts ObjectsDidChange for the changes made since the
    /// last call. `perform`, `performAndWait`, `save` and merges call it for you.
    ///
    /// ```swift
    /// item.read = true
    /// context.processPendingChanges()   // server.unreadCount is up to date, observers told
    /// ```
    public func processPendingChanges() {
        processPendingChanges(isMerge: false)
    }

    func processPendingChanges(isMerge: Bool, forceCounters: Bool = false) {
        assertOnQueue()
        guard !isProcessingPendingChanges else { return }
        guard !pending.isEmpty || forceCounters else { return }
        isProcessingPendingChanges = true
        defer { isProcessingPendingChanges = false }
        updateDerivedCounters(force: forceCounters)
        undoManager?.closeImplicitGroup()
        let p = pending
        pending = PendingChanges()
        batchNumber += 1
        guard !p.isEmpty else { return }
        var inserted: [ManagedObject] = []
        var updated: [ManagedObject] = []
        var deleted: [ManagedObject] = []
        var insertedIDs: [ObjectID] = []
        inserted.reserveCapacity(p.newObjects.count + p.inserted.count)
        insertedIDs.reserveCapacity(p.newObjects.count + p.inserted.count)
        for object in p.newObjects where object.isInsertedFlag {
            inserted.append(object)
            insertedIDs.append(object.objectID)
        }
        for id in p.inserted {
            if let o = p.objects[id] ?? registeredObject(for: id) {
                inserted.append(o)
                insertedIDs.append(id)
            }
        }
        for (id, _) in p.updated where !p.inserted.contains(id) && !p.deleted.contains(id) {
            if let o = p.objects[id] ?? registeredObject(for: id) { updated.append(o) }
        }
        for id in p.deleted.union(p.deletedInserted) { if let o = p.objects[id] { deleted.append(o) } }
        bus?.postObjectsDidChange(
            ObjectsDidChangeNotification(
                context: self, inserted: inserted, insertedObjectIDs: p.mergedInserted, ownInsertedIDs: insertedIDs,
                updated: updated, updatedIDsFromMerges: p.mergedUpdated,
                deleted: deleted, changedKeysByID: p.updated, isMerge: isMerge))
    }

    // MARK: Derived counts ("parent watching its child")

    /// Sets every affected parent's count to its stored value plus the effect of this
    /// context's unsaved child changes. Cost: the number of changed children, never the
    /// number of children.
    func updateDerivedCounters(force: Bool) {
        var entitiesToCheck: [Entity] = []
        if force {
            entitiesToCheck = model.entities.filter { !$0.counterDependencies.isEmpty }
        } else {
            // A handful of entities at most: a linear scan beats hashing every ID.
            func note(_ entity: Entity) {
                if !entity.counterDependencies.isEmpty, !entitiesToCheck.contains(where: { $0 === entity }) {
                    entitiesToCheck.append(entity)
                    // A sub-entity's objects count where its parent's do (see `countedChildren`).
                    for a in entity.inheritance?.ancestorIndexes ?? [] { note(model.entities[a]) }
                }
            }
            for (id, _) in pending.objects { note(id.entity) }
            for object in pending.newObjects { note(object.entity) }
            for id in pending.inserted { note(id.entity) }
            for id in pending.deleted { note(id.entity) }
        }
        guard !entitiesToCheck.isEmpty else { return }
        for childEntity in entitiesToCheck {
            // Each count once, over its child entity's objects of every kind.
            for counter in childEntity.counterDependencies where counter.childEntityIndex == childEntity.index {
                var delta: [ObjectID: Int64] = [:]
                func account(_ object: ManagedObject) {
                    let isDeleted = !deletedByID.isEmpty && deletedByID[object.objectID] != nil
                    let local =
                        isDeleted ? nil : counter.contribution(of: childEntity, values: object.values, toOne: object.toOne)
                    let stored = object.snapshot.flatMap {
                        counter.contribution(of: childEntity, values: $0.values, toOne: $0.toOne)
                    }
                    if local == stored { return }
                    if let local { delta[local, default: 0] += 1 }
                    if let stored { delta[stored, default: 0] -= 1 }
                }
                if counter.manyToManyRelationshipIndex != nil {
                    delta = manyToManyCounterDelta(counter, childEntity: childEntity)
                } else {
                    for object in newObjects where object.entity.isKind(of: childEntity) { account(object) }
                    for object in updatedByID.values where object.entity.isKind(of: childEntity) && !object.isFault {
                        account(object)
                    }
                    for object in deletedByID.values where object.entity.isKind(of: childEntity) { account(object) }
                }
                let key = CounterKey(counter)
                var parents = Set(delta.keys)
                parents.formUnion(touchedCounterParents[key] ?? [])
                touchedCounterParents[key] = Set(delta.filter { $0.value != 0 }.keys)
                for parentID in parents {
                    let parent = object(with: parentID)
                    if deletedByID[parent.objectID] != nil { continue }
                    parent.fireFaultIfNeeded()
                    guard parent.managedObjectContext === self, counter.attributeIndex < parent.values.count else { continue }
                    // A parent whose row is gone (deleted elsewhere) has nothing to count.
                    guard parent.snapshot != nil || newObjects.contains(parent) else { continue }
                    let base = parent.snapshot.flatMap { Int64(fromValue: $0.values[counter.attributeIndex]) } ?? 0
                    let value = Value.integer(base + (delta[parent.objectID] ?? 0))
                    if parent.values[counter.attributeIndex] != value {
                        parent.values[counter.attributeIndex] = value
                        parent.observationDidChange(attribute: counter.attributeIndex)
                        let name = parent.entity.attributes[counter.attributeIndex].name
                        if parent.snapshot.map({ $0.values[counter.attributeIndex] == value }) == true {
                            parent.changedKeys.remove(name)
                            if parent.changedKeys.isEmpty, !newObjects.contains(parent) {
                                updatedByID.removeValue(forKey: parent.objectID)
                            }
                            if !isPendingInsert(parent) {
                                pending.updated[parent.objectID, default: []].insert(name)
                            }
                            pending.objects[parent.objectID] = parent
                        } else {
                            parent.changedKeys.insert(name)
                            let wasMerging = isMerging
                            isMerging = true  // derived values are not undo steps of their own
                            objectDidChange(parent, key: name, undo: .attribute(index: counter.attributeIndex, oldValue: .null))
                            isMerging = wasMerging
                        }
                    }
                }
            }
        }
    }

    // MARK: Merging

    /// Brings this context up to date with a save made by another context (or process):
    /// registered objects are refreshed (keeping this context's own unsaved changes on
    /// top), deleted objects leave, new rows become fetchable; then ObjectsDidChange is
    /// posted here.
    ///
    /// ```swift
    /// let token = bus.observeDidSave(excluding: viewContext) { note in
    ///     viewContext.perform { viewContext.mergeChanges(fromDidSave: note) }
    /// }
    /// ```
    public func mergeChanges(fromDidSave note: DidSaveNotification) {
        assertOnQueue()
        if note.contextID == ObjectIdentifier(self) { return }
        mergeStoreChanges(note)
    }

    /// Merges `note` whoever made it (a batch request merges its own changes this way).
    /// With `alwaysAnnounce`, ObjectsDidChange is posted even when none of the changed
    /// objects is registered here (a batch request's own context: its observers — a user
    /// interface showing counts and rows read from the store — must hear of the change).
    func mergeStoreChanges(_ note: DidSaveNotification, alwaysAnnounce: Bool = false) {
        processPendingChanges()
        // A merge brings a pinned generation up to the state it announces.
        try? advanceReadGeneration()
        isMerging = true
        defer { isMerging = false }

        var toRefresh: [ObjectID: Set<String>] = [:]
        if note.isFromOtherProcess {
            for (id, box) in registered {
                guard let object = box.object, !object.isFault, id.primaryKey != nil else { continue }
                toRefresh[id] = []
            }
        } else {
            for (id, keys) in note.updated where registered[id]?.object != nil { toRefresh[id] = keys }
        }
        for id in note.deleted { removeDeletedElsewhere(id) }
        noteMergedMembershipChanges(note)

        // Re-read the rows of registered objects, an entity at a time.
        var byEntity: [ObjectIdentifier: (Entity, [Int64])] = [:]
        for id in toRefresh.keys {
            guard let pk = id.primaryKey else { continue }
            byEntity[ObjectIdentifier(id.entity), default: (id.entity, [])].1.append(pk)
        }
        for (_, (entity, pks)) in byEntity {
            var found = Set<Int64>()
            for decoded in storedRows(of: entity, primaryKeys: pks) {
                found.insert(decoded.pk)
                let id = ObjectID(entity: entity, rawValue: decoded.pk)
                guard let object = registered[id]?.object, !object.isFault else { continue }
                refreshFromStore(object, snapshot: decoded.snapshot)
            }
            if note.isFromOtherProcess {
                for pk in pks where !found.contains(pk) { removeDeletedElsewhere(ObjectID(entity: entity, rawValue: pk)) }
            }
        }
        // New rows are announced by ID only; they are fetchable by anyone interested. So are
        // changed rows of which no object is registered here (live results may gain them).
        if pending.mergedInserted.isEmpty {
            // Shares the note's set: a batch insert announces every row it wrote, and copying
            // them one by one into an empty set would hash each again.
            pending.mergedInserted = note.inserted
        } else {
            pending.mergedInserted.formUnion(note.inserted)
        }
        for (id, _) in note.updated where registered[id]?.object == nil { pending.mergedUpdated.insert(id) }
        if alwaysAnnounce { pending.announceEvenIfEmpty = true }
        processPendingChanges(isMerge: true, forceCounters: true)
    }

    /// Takes a newer stored state, keeping this context's unsaved changes on top.
    func refreshFromStore(_ object: ManagedObject, snapshot: Snapshot) {
        let entity = object.entity
        let old = object.values
        let oldToOne = object.toOne
        let local = object.changedValuesByIndex()
        object.values = snapshot.values
        object.toOne = snapshot.toOne
        // Transient values stay.
        for (i, a) in entity.attributes.enumerated() where a.isTransient && i < old.count { object.values[i] = old[i] }
        object.snapshot = snapshot
        if !local.keys.isEmpty {
            // Derived counts are recomputed from the new stored value afterwards.
            let kept = LocalChanges(
                attributes: local.attributes.filter { !entity.attributes[$0.0].isDerivedCounter },
                relationships: local.relationships,
                keys: local.keys.filter { entity.attribute(named: $0)?.isDerivedCounter != true })
            object.reapply(kept)
            if kept.keys.isEmpty, !newObjects.contains(object) { updatedByID.removeValue(forKey: object.objectID) }
        }
        var changed = Set<String>()
        for i in entity.attributes.indices where i < old.count && old[i] != object.values[i] {
            changed.insert(entity.attributes[i].name)
        }
        for r in entity.relationships.indices where r < oldToOne.count && oldToOne[r] != object.toOne[r] {
            changed.insert(entity.relationships[r].name)
        }
        observationDidMerge(object, oldToOne: oldToOne, changedKeys: changed)
        if !changed.isEmpty {
            pending.updated[object.objectID, default: []].formUnion(changed)
            pending.objects[object.objectID] = object
        }
    }

    /// Removes an object another context or process deleted.
    func removeDeletedElsewhere(_ id: ObjectID) {
        guard let object = registered[id]?.object else { return }
        registered.removeValue(forKey: id)
        updatedByID.removeValue(forKey: id)
        deletedByID.removeValue(forKey: id)
        pending.updated.removeValue(forKey: id)
        pending.deleted.insert(id)
        pending.objects[id] = object
        object.managedObjectContext = nil
    }
}

struct CounterKey: Hashable {
    let parentEntity: Int
    let attribute: Int
    init(_ c: CounterInfo) {
        parentEntity = c.parentEntityIndex
        attribute = c.attributeIndex
    }
}

extension CounterInfo {
    /// The parent a child with these values counts towards, or nil.
    func contribution(of childEntity: Entity, values: [Value], toOne: [ObjectID?]) -> ObjectID? {
        guard childToOneIndex < toOne.count, let parent = toOne[childToOneIndex] else { return nil }
        if let (index, constant) = simpleEquality {
            return index < values.count && values[index] == constant ? parent : nil
        }
        if let predicate {
            guard (try? predicate.evaluate(with: ValuesEvaluable(entity: childEntity, values: values))) == true else {
                return nil
            }
        }
        return parent
    }
}

/// Evaluates predicates against a plain array of attribute values (a snapshot).
struct ValuesEvaluable: PredicateEvaluable {
    let entity: Entity
    let values: [Value]
    func predicateValue(forKey key: String) throws -> PredicateKeyValue {
        guard let i = entity.attributeIndexByName[key], i < values.count else {
            throw ObjectGraphError.unknownKey(entity: entity.name, key: key)
        }
        return .value(values[i])
    }
}

extension ManagedObjectContext {
    /// The stored rows of `entity` whose primary keys are `pks`, decoded, in one query
    /// (none when the store cannot be read: the caller keeps what it has).
    func storedRows(of entity: Entity, primaryKeys pks: [Int64]) -> [(pk: Int64, snapshot: Snapshot)] {
        (try? storedRowsThrowing(of: entity, primaryKeys: pks)) ?? []
    }
}
