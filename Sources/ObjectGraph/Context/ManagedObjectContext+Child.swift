import Foundation

/// Child (nested) contexts: a scratch pad over another context rather than over the store.
///
/// A child sees its parent's objects as the parent has them, unsaved changes included
/// (objects are copied from the parent when first used, fetches run through the parent);
/// its ``ManagedObjectContext/save()`` pushes its changes into the parent, as one batch of
/// unsaved changes there (one undo step, one ObjectsDidChange), and writes nothing to the
/// store: the parent's save does. Dropping the child, or calling `rollback()`, discards its
/// edits: the edit sheet a user may cancel.
///
/// Limits: aggregates and to-many relationships read the store's rows (plus the child's own
/// changes), not the parent's unsaved membership changes; a child does not hear of changes
/// made in the parent after it copied an object (make a new child, or `refresh` it).
///
/// ```swift
/// let sheet = viewContext.newChildContext()
/// let note = try sheet.existingObject(with: noteID) as! Note
/// note.title = "Edited"
/// try sheet.save()          // viewContext now has the edit, unsaved
/// try viewContext.save()    // and now the store does
/// ```
extension ManagedObjectContext {
    /// A new child context of this one. It runs on `queue` (by default this context's queue,
    /// the usual choice for an edit sheet); talking to the parent goes through the parent's
    /// `performAndWait`.
    ///
    /// ```swift
    /// let sheet = container.viewContext.newChildContext(name: "edit")
    /// ```
    public func newChildContext(name: String? = nil, queue: DispatchQueue? = nil) -> ManagedObjectContext {
        let queue = queue ?? self.queue
        let name = name ?? "child of \(self.name ?? "context")"
        let child =
            containerIfAlive?.newContext(queue: queue, name: name)
            ?? ManagedObjectContext(sharingStackOf: self, queue: queue, name: name)
        child.parentContext = self
        return child
    }

    /// The context this one saves into, for a child context (nil: it saves to the store).
    ///
    /// ```swift
    /// if let parent = sheet.parent { print("saves into", parent) }
    /// ```
    public var parent: ManagedObjectContext? { parentContext }

    // MARK: - Reading through the parent

    /// Loads `object`'s state from the parent (its unsaved changes included). False when the
    /// parent has no such object (deleted there, or its row is gone).
    func loadFromParent(_ object: ManagedObject, parent: ManagedObjectContext) -> Bool {
        let id = object.objectID
        let state = parent.performAndWait { () -> (values: [Value], toOne: [ObjectID?], version: Int64)? in
            if !parent.deletedByID.isEmpty, parent.deletedByID[id] != nil { return nil }
            let source: ManagedObject
            if let registered = parent.registeredObject(for: id) {
                source = registered
                if source.isFault, (try? parent.loadRow(into: source)) != true { return nil }
            } else {
                guard id.primaryKey != nil else { return nil }
                source = parent.object(with: id)
                guard (try? parent.loadRow(into: source)) == true else { return nil }
            }
            guard source.managedObjectContext === parent else { return nil }
            return (source.values, source.toOne, source.snapshot?.version ?? 0)
        }
        object.isFault = false
        guard let state else {
            object.values = object.entity.defaultValues
            object.toOne = object.entity.emptyToOne
            return false
        }
        object.values = state.values
        object.toOne = state.toOne
        // The parent's current state is this context's "stored" state: unsaved changes here
        // are measured against it.
        object.snapshot = Snapshot(values: state.values, toOne: state.toOne, version: state.version)
        object.awakeFromFetch()
        return true
    }

    /// The objects matching `plan`, as the parent has them, with this context's own unsaved
    /// changes applied.
    func executeThroughParent(_ plan: FetchPlan, parent: ManagedObjectContext) throws(ObjectGraphError) -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(
            entityName: plan.entity.name, predicate: plan.request.predicate, sortDescriptors: plan.request.sortDescriptors,
            timeLimit: nil)
        request.searchText = plan.request.searchText
        request.searchWindow = plan.request.searchWindow
        let ids: [ObjectID]
        do {
            ids = try parent.performAndWait { try parent.fetchObjectIDs(request) }
        } catch {
            throw ObjectGraphError.wrapping(error)
        }
        var objects: [ManagedObject] = []
        objects.reserveCapacity(ids.count)
        for id in ids {
            let object = self.object(with: id)
            if object.isFault, !loadFromParent(object, parent: parent) { continue }
            // Objects changed here are judged below, on their values here.
            if object.isDeleted || updatedByID[object.objectID] != nil { continue }
            objects.append(object)
        }
        var pending = try plan.pendingCandidates()
        if plan.sortsByRelevance {
            try sortInMemory(&pending, by: plan.request.sortDescriptors.filter { $0.key != ObjectSortDescriptor.relevanceKey })
            objects += pending
        } else {
            objects += pending
            try sortInMemory(&objects, by: plan.request.sortDescriptors)
        }
        let start = min(plan.request.fetchOffset, objects.count)
        let end = plan.request.fetchLimit > 0 ? min(objects.count, start + plan.request.fetchLimit) : objects.count
        return Array(objects[start..<end])
    }

    // MARK: - Saving into the parent

    /// Pushes every unsaved change into the parent (see ``newChildContext(name:queue:)``).
    func saveIntoParent(_ parent: ManagedObjectContext) throws(ObjectGraphError) {
        guard try prepareToSave() else { return }

        struct Change {
            let id: ObjectID
            let entity: Entity
            let attributes: [(Int, Value)]
            let relationships: [(Int, ObjectID?)]
        }
        func changes(of object: ManagedObject, keys: Set<String>?) -> Change {
            let entity = object.entity
            var attributes: [(Int, Value)] = []
            var relationships: [(Int, ObjectID?)] = []
            for (i, a) in entity.attributes.enumerated() where !a.isDerivedCounter {
                if keys?.contains(a.name) ?? true { attributes.append((i, object.values[i])) }
            }
            for r in entity.relationships.indices where entity.storesForeignKey[r] {
                if keys?.contains(entity.relationships[r].name) ?? true { relationships.append((r, object.toOne[r])) }
            }
            return Change(id: object.objectID, entity: entity, attributes: attributes, relationships: relationships)
        }
        let inserts = newObjects.map { changes(of: $0, keys: nil) }
        let updates = updatedByID.values.map { changes(of: $0, keys: $0.changedKeys) }
        let deletes = Array(deletedByID.keys)
        let joinWrites = joinChanges.pairs.map { ($0.key, $0.value) }
        let joinOrders = joinChanges.orders.map { ($0.key, $0.value) }

        let idMap = parent.performAndWait { () -> [ObjectID: ObjectID] in
            var idMap: [ObjectID: ObjectID] = [:]
            var targets: [(ManagedObject, Change)] = []
            for insert in inserts {
                let object = parent.insertObject(of: insert.entity)
                idMap[insert.id] = object.objectID
                targets.append((object, insert))
            }
            for update in updates {
                let object = parent.object(with: update.id)
                guard object.managedObjectContext === parent, !object.isDeleted else { continue }
                targets.append((object, update))
            }
            for (object, change) in targets {
                for (i, value) in change.attributes { object.setAttributeValue(value, at: i) }
                for (r, target) in change.relationships {
                    parent.setForeignKey(object, relationshipIndex: r, to: target.map { idMap[$0] ?? $0 })
                }
            }
            parent.adoptJoinChanges(joinWrites, orders: joinOrders, idMap: idMap)
            for id in deletes {
                let object = parent.object(with: id)
                if object.managedObjectContext === parent, !object.isDeleted { parent.delete(object) }
            }
            return idMap
        }
        adoptPushedState(idMap: idMap)
    }

    /// After a push: this context's state is the parent's, with no unsaved changes; objects
    /// inserted here take the IDs their copies have in the parent.
    private func adoptPushedState(idMap: [ObjectID: ObjectID]) {
        for object in newObjects {
            if let id = idMap[object.objectID] { object.objectID = id }
            object.isInsertedFlag = false
        }
        let remap: (ObjectID?) -> ObjectID? = { id in id.flatMap { idMap[$0] ?? $0 } }
        for object in Array(newObjects) + Array(updatedByID.values) {
            if object.toOne.contains(where: { $0?.isTemporary == true }) { object.toOne = object.toOne.map(remap) }
            object.snapshot = Snapshot(values: object.values, toOne: object.toOne, version: object.snapshot?.version ?? 0)
            object.changedKeys = []
            register(object)
        }
        for (id, object) in deletedByID {
            registered.removeValue(forKey: id)
            object.managedObjectContext = nil
        }
        newObjects.removeAll()
        updatedByID = [:]
        deletedByID = [:]
        joinChanges.removeAll()
        touchedCounterParents = [:]
        heldCounterParents = []
        // Undo steps named this context's temporary IDs; the parent holds the changes now.
        undoManager?.removeAllActions()
    }
}
