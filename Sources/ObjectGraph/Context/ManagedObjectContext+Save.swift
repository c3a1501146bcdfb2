import Foundation

extension ManagedObjectContext {
    /// What every save does first, into the store or into a parent: pending changes
    /// processed, `willSave` run (its changes join the undo step of the changes being saved),
    /// validation, and the will-save notice. False when there is nothing to save.
    func prepareToSave() throws(ObjectGraphError) -> Bool {
        processPendingChanges()
        guard hasChanges else { return false }
        let undoMark = undoManager?.groupCount
        try runWillSave()
        processPendingChanges()
        if let undoMark { undoManager?.foldGroups(after: undoMark) }
        try validateForSave()
        bus?.postWillSave(WillSaveNotification(context: self))
        return true
    }

    /// Writes every unsaved change to the store in one transaction, then announces it with
    /// DidSave on the container's bus.
    ///
    /// A child context (``newChildContext(name:queue:)``) saves into its parent instead: its
    /// changes become the parent's unsaved changes, and nothing is written to the store.
    ///
    /// On failure (a required value missing, a uniqueness or deny-rule violation, a merge
    /// conflict under ``MergePolicy/error``) nothing is written, and the context still holds
    /// all its changes, ready to be fixed and saved again.
    ///
    /// ```swift
    /// do { try context.save() } catch { print(error) }   // e.g. "FeedItem.guid: uniqueness violated by "a""
    /// ```
    public func save() throws(ObjectGraphError) {
        assertOnQueue()
        if let parentContext { return try saveIntoParent(parentContext) }
        guard try prepareToSave() else { return }

        let (plan, outcome) = try writeResolvingUniqueness()
        let notification = announcingJoinWrites(plan, outcome: outcome, in: apply(outcome, plan: plan))
        try? advanceReadGeneration()  // a pinned context sees its own save
        bus?.postDidSave(notification)
    }

    // MARK: Plan

    /// What this save asks of the store (see ``SavePlan``).
    func makeSavePlan() -> SavePlan {
        var plan = SavePlan()
        plan.author = transactionAuthor
        plan.contextName = name
        plan.deletedIDs = Set(deletedByID.keys)
        plan.joinWrites = joinWritesForSave()
        plan.orderWrites = orderWritesForSave()
        // Deterministic primary keys: insertion order.
        plan.inserts.reserveCapacity(newObjects.count)
        for object in newObjects {
            plan.inserts.append(.init(object: object, entity: object.entity, temporaryID: object.objectID))
        }
        for (id, object) in updatedByID {
            guard let pk = id.primaryKey, let snapshot = object.snapshot else { continue }
            let entity = object.entity
            var attributes: [Int] = []
            var relationships: [Int] = []
            for key in object.changedKeys {
                if let i = entity.attributeIndexByName[key], !entity.attributes[i].isTransient {
                    // Derived counts are written as deltas computed in the transaction.
                    if !entity.attributes[i].isDerivedCounter { attributes.append(i) }
                } else if let r = entity.relationshipIndexByName[key], entity.storesForeignKey[r] {
                    relationships.append(r)
                }
            }
            guard !attributes.isEmpty || !relationships.isEmpty else {
                if object.changedKeys.contains(where: { entity.attribute(named: $0)?.isDerivedCounter == true }) {
                    plan.counterOnly.append(object)
                }
                continue
            }
            plan.updates.append(
                .init(
                    object: object, entity: entity, pk: pk, expectedVersion: snapshot.version, values: object.values,
                    toOne: object.toOne, snapshot: snapshot, changedAttributes: attributes.sorted(),
                    changedRelationships: relationships.sorted(), changedKeys: object.changedKeys))
        }
        for (id, object) in deletedByID {
            guard let pk = id.primaryKey else { continue }
            plan.deletes.append(.init(object: object, entity: object.entity, pk: pk, expectedVersion: object.snapshot?.version))
        }
        return plan
    }

    // MARK: After the commit

    func apply(_ outcome: SaveOutcome, plan: SavePlan) -> DidSaveNotification {
        var inserted = Set<ObjectID>()
        var updated: [ObjectID: Set<String>] = [:]
        var deleted = Set<ObjectID>()
        let remap: (ObjectID?) -> ObjectID? = { id in id.flatMap { outcome.permanentIDs[$0] ?? $0 } }
        // Only arrays that point at a just-inserted object need rewriting.
        func remapped(_ toOne: [ObjectID?]) -> [ObjectID?] {
            toOne.contains(where: { $0?.isTemporary == true }) ? toOne.map(remap) : toOne
        }

        inserted.reserveCapacity(plan.inserts.count)
        registered.reserveCapacity(registered.count + plan.inserts.count)
        for (n, insert) in plan.inserts.enumerated() {
            let object = insert.object
            let permanent = outcome.insertedIDs[n]
            object.objectID = permanent
            register(object)
            object.isInsertedFlag = false
            // Temporary IDs stay usable for undo; without an undo manager they lapse, as in Core Data.
            if undoManager != nil { permanentIDForTemporary[insert.temporaryID] = permanent }
            inserted.insert(permanent)
        }
        // Relationship columns that pointed at temporary IDs now point at permanent ones
        // (rewritten in place: the object's array is its own).
        var lastTemporary: ObjectID?
        var lastPermanent: ObjectID?
        for insert in plan.inserts {
            let object = insert.object
            for r in object.toOne.indices {
                guard let id = object.toOne[r], id.isTemporary else { continue }
                if id != lastTemporary {
                    lastTemporary = id
                    lastPermanent = outcome.permanentIDs[id] ?? id
                }
                object.toOne[r] = lastPermanent
            }
            object.snapshot = Snapshot(values: object.values, toOne: object.toOne, version: 1)
            if !object.changedKeys.isEmpty { object.changedKeys = [] }
        }
        for update in plan.updates {
            let object = update.object
            let id = object.objectID
            if outcome.deletedInStore.contains(id) {
                registered.removeValue(forKey: id)
                object.managedObjectContext = nil
                deleted.insert(id)
                continue
            }
            if let (values, toOne) = outcome.resolvedValues[id] {
                object.values = values
                object.toOne = toOne
            } else {
                object.toOne = remapped(object.toOne)
            }
            if let snapshot = outcome.resolved[id] { object.snapshot = snapshot }
            object.changedKeys = []
            updated[id] = outcome.updatedKeys[id] ?? update.changedKeys
        }
        // Objects in updatedByID with only transient changes.
        for (_, object) in updatedByID where !object.changedKeys.isEmpty {
            object.changedKeys = []
        }
        // Stored derived counts, as the transaction left them.
        for (id, counts) in outcome.counterValues {
            // Every parent whose count the transaction touched is announced, registered
            // here or not, so other contexts refresh their copies.
            if !inserted.contains(id) {
                updated[id, default: []].formUnion(counts.keys.map { id.entity.attributes[$0].name })
            }
            guard let object = registered[id]?.object, !object.isFault else { continue }
            var changed = Set<String>()
            for (i, count) in counts {
                if object.values[i] != .integer(count) || object.snapshot?.values[i] != .integer(count) {
                    changed.insert(object.entity.attributes[i].name)
                }
                object.values[i] = .integer(count)
                object.snapshot?.values[i] = .integer(count)
                object.changedKeys.remove(object.entity.attributes[i].name)
            }
            if !inserted.contains(id) { updated[id, default: []].formUnion(changed) }
            if !changed.isEmpty && !inserted.contains(id) {
                pending.updated[id, default: []].formUnion(changed)
                pending.objects[id] = object
            }
        }
        for object in plan.counterOnly { object.changedKeys = [] }
        touchedCounterParents = [:]
        heldCounterParents = []
        for delete in plan.deletes {
            registered.removeValue(forKey: delete.object.objectID)
            delete.object.managedObjectContext = nil
            deleted.insert(delete.object.objectID)
        }
        newObjects.removeAll()
        updatedByID = [:]
        deletedByID = [:]
        return DidSaveNotification(
            contextID: ObjectIdentifier(self), contextName: name, inserted: inserted, updated: updated, deleted: deleted)
    }
}
