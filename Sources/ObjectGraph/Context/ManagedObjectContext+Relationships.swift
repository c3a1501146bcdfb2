import Foundation
import GRDB

extension ManagedObjectContext {
    /// The destination of to-one relationship `r` of `object`.
    func destinationOfToOne(_ object: ManagedObject, relationshipIndex r: Int) throws(ObjectGraphError) -> ManagedObject? {
        assertOnQueue()
        object.fireFaultIfNeeded()
        if object.entity.storesForeignKey[r] {
            guard let id = object.toOne[r] else { return nil }
            let destination = self.object(with: id)
            return deletedByID[destination.objectID] == nil ? destination : nil
        }
        // One-to-one stored on the other side: the destination row pointing back at us.
        return try pointingObjects(at: object, relationshipIndex: r).first
    }

    /// The members of to-many relationship `r` of `object`: the destination rows whose
    /// inverse points at `object`, with this context's unsaved changes applied.
    func membersOfToMany(_ object: ManagedObject, relationshipIndex r: Int) throws(ObjectGraphError) -> [ManagedObject] {
        assertOnQueue()
        if let join = object.entity.joinTables[r] { return try membersOfManyToMany(object, relationshipIndex: r, join: join) }
        return try pointingObjects(at: object, relationshipIndex: r)
    }

    private func pointingObjects(at object: ManagedObject, relationshipIndex r: Int) throws(ObjectGraphError) -> [ManagedObject] {
        let destination = model.destination(of: object.entity, relationshipIndex: r)
        guard let inverse = destination.relationshipIndexByName[object.entity.relationships[r].inverseName] else {
            return []
        }
        // A new object that nothing in this context has pointed a one-to-one at has nothing
        // pointing at it (a child context's objects may be pointed at from its parent: no shortcut).
        if object.objectID.isTemporary, !object.isOneToOneTarget, !object.entity.relationships[r].isToMany,
            parentContext == nil
        {
            return []
        }
        let inverseKey = destination.relationships[inverse].name
        var result: [ManagedObject] = []
        var seen = Set<ObjectID>()
        let isOrdered = object.entity.isOrderedOneToMany(r)
        if let pk = object.objectID.primaryKey {
            // The stored members, cached until a save changes the destination's membership.
            let stored =
                isOrdered
                ? try storedOrderedMembers(of: object, relationshipIndex: r, destination: destination, inverse: inverse, pk: pk)
                : try storedPointingObjects(
                    at: object, relationshipIndex: r, destination: destination, inverseKey: inverseKey, pk: pk)
            for member in stored {
                // Unsaved changes elsewhere in this context may have moved or deleted it.
                if deletedByID[member.objectID] != nil { continue }
                if member.changedKeys.contains(inverseKey), member.toOne[inverse] != object.objectID { continue }
                if seen.insert(member.objectID).inserted { result.append(member) }
            }
        }
        for candidate in changedObjects(of: destination) where !seen.contains(candidate.objectID) {
            guard deletedByID[candidate.objectID] == nil, !candidate.isFault else { continue }
            if candidate.toOne[inverse] == object.objectID {
                seen.insert(candidate.objectID)
                result.append(candidate)
            }
        }
        return isOrdered ? applyingUnsavedOrder(result, of: object.objectID, relationshipIndex: r) : result
    }

    /// Inserted and updated (not deleted) objects of `entity`.
    func changedObjects(of entity: Entity) -> [ManagedObject] {
        var result: [ManagedObject] = []
        for object in newObjects where object.entity.isKind(of: entity) { result.append(object) }
        for object in updatedByID.values where object.entity.isKind(of: entity) { result.append(object) }
        return result
    }

    /// Sets to-one relationship `r` of `object` to `destination`, keeping inverses in step.
    func setToOne(_ object: ManagedObject, relationshipIndex r: Int, to destination: ManagedObject?) throws(ObjectGraphError) {
        assertOnQueue()
        object.fireFaultIfNeeded()
        let entity = object.entity
        let inverse = entity.inverseIndex[r]
        let inverseIsToMany = entity.inverseIsToMany[r]
        if entity.storesForeignKey[r] {
            if object.toOne[r] == destination?.objectID { return }
            if let destination, !inverseIsToMany {
                // One-to-one: whoever pointed at `destination` before lets go.
                for previous in try pointingObjectsViaForeignKey(at: destination, sourceEntity: entity, relationshipIndex: r)
                where previous !== object {
                    setForeignKey(previous, relationshipIndex: r, to: nil)
                }
            }
            let previous = try orderedOwnerBeforeChange(of: object, relationshipIndex: r)
            setForeignKey(object, relationshipIndex: r, to: destination?.objectID, target: destination)
            try placeInOrderedInverse(object, relationshipIndex: r, previous: previous, owner: destination)
        } else {
            // One-to-one whose column lives in the destination's table.
            for previous in try pointingObjects(at: object, relationshipIndex: r) where previous !== destination {
                setForeignKey(previous, relationshipIndex: inverse, to: nil)
            }
            if let destination {
                destination.fireFaultIfNeeded()
                // Whoever `destination` pointed at before loses it: that side is computed.
                setForeignKey(destination, relationshipIndex: inverse, to: object.objectID, target: object)
            }
        }
    }

    private func pointingObjectsViaForeignKey(at destination: ManagedObject, sourceEntity: Entity, relationshipIndex r: Int)
        throws(ObjectGraphError) -> [ManagedObject]
    {
        guard let inverse = destination.entity.relationshipIndexByName[sourceEntity.relationships[r].inverseName] else {
            return []
        }
        return try pointingObjects(at: destination, relationshipIndex: inverse)
    }

    /// Sets the stored column of to-one `r` and records the change. `target`: the object `id`
    /// names, when the caller has it (saves looking it up by temporary ID, which builds an
    /// index of the inserted objects that every later insert then keeps up to date).
    func setForeignKey(_ object: ManagedObject, relationshipIndex r: Int, to id: ObjectID?, target: ManagedObject? = nil) {
        if let id, id.isTemporary, !object.entity.inverseIsToMany[r] {
            (target ?? registeredObject(for: id))?.isOneToOneTarget = true
        }
        // Only the to-one a count follows: a child's other to-ones (its body, say) would
        // interleave with its parent and defeat the comparison with the last one held, which
        // keeps the list about as short as the set of parents.
        if let target, heldCounterParents.last !== target,
            object.entity.counterDependencies.contains(where: { $0.childToOneIndex == r })
        {
            heldCounterParents.append(target)
        }
        if object.isInsertedFlag, object.insertedInBatch == batchNumber, undoManager == nil {
            let old = object.toOne[r]
            object.toOne[r] = id
            observationDidChangeToOne(object, relationshipIndex: r, from: old, to: id, target: target)
            return
        }
        object.fireFaultIfNeeded()
        let old = object.toOne[r]
        if old == id { return }
        object.toOne[r] = id
        observationDidChangeToOne(object, relationshipIndex: r, from: old, to: id, target: target)
        let key = object.entity.relationships[r].name
        object.changedKeys.insert(key)
        objectDidChange(object, key: key, undo: .relationship(index: r, oldValue: old))
    }
}
