import Foundation
import GRDB

/// Faults fetched together (``FetchRequest/returnsObjectsAsFaults`` with a
/// ``FetchRequest/fetchBatchSize``): the first of them to fire loads the rows of all that
/// are still faults, in one query.
final class FaultBatch {
    let ids: [ObjectID]
    init(ids: [ObjectID]) { self.ids = ids }
}

extension ManagedObjectContext {
    /// Loads every fault among `objects` with one query per entity, instead of one query
    /// per object as each is first used. Objects that are not faults are left as they are.
    /// Returns how many faults were loaded.
    ///
    /// ```swift
    /// var request = FetchRequest<FeedItem>()
    /// request.returnsObjectsAsFaults = true
    /// let items = try context.fetch(request)
    /// try context.fireFaults(Array(items.prefix(50)))   // one query for the first screenful
    /// ```
    @discardableResult
    public func fireFaults(_ objects: [ManagedObject]) throws(ObjectGraphError) -> Int {
        assertOnQueue()
        let faults = objects.filter { $0.isFault && $0.managedObjectContext === self }
        try loadRows(of: faults)
        return faults.count
    }

    /// Reads the rows of `faults` (all faults of this context), an entity at a time; a
    /// fault whose row is gone gets default values, as a single fault does.
    func loadRows(of faults: [ManagedObject]) throws(ObjectGraphError) {
        if faults.isEmpty { return }
        if parentContext != nil || faults.count == 1 {
            for fault in faults where fault.isFault {
                fault.isFault = false
                try loadRow(into: fault)
            }
            return
        }
        var byEntity: [ObjectIdentifier: (Entity, [ManagedObject])] = [:]
        for fault in faults where fault.objectID.primaryKey != nil {
            byEntity[ObjectIdentifier(fault.entity), default: (fault.entity, [])].1.append(fault)
        }
        for (_, (entity, group)) in byEntity {
            let rows = try storedRowsThrowing(of: entity, primaryKeys: group.compactMap(\.objectID.primaryKey))
            var found = Set<Int64>()
            for row in rows {
                found.insert(row.pk)
                _ = materialize(entity: entity, pk: row.pk, snapshot: row.snapshot)
            }
            for fault in group where fault.isFault {
                // No row: deleted elsewhere.
                fault.isFault = false
                fault.values = entity.defaultValues
                fault.toOne = entity.emptyToOne
            }
        }
    }

    /// Fires `object` (a fault being used for the first time) together with the other
    /// faults of its batch. False when it has no batch.
    func fulfillFaultInBatch(_ object: ManagedObject) -> Bool {
        guard let batch = object.faultBatch else { return false }
        object.faultBatch = nil
        // `object` has already left the fault state (its first use is under way): put it
        // back so that it is loaded with the others.
        object.isFault = true
        var faults: [ManagedObject] = []
        for id in batch.ids {
            guard let other = registeredObject(for: id), other.isFault else { continue }
            other.faultBatch = nil
            faults.append(other)
        }
        if !faults.contains(where: { $0 === object }) { faults.append(object) }
        do {
            try loadRows(of: faults)
        } catch {
            // The store could not be read: the object is left with default values, as a
            // single fault is (``existingObject(with:)`` reports the error).
            for fault in faults where fault.isFault {
                fault.isFault = false
                fault.values = fault.entity.defaultValues
                fault.toOne = fault.entity.emptyToOne
            }
        }
        return true
    }
}

extension ManagedObjectContext {
    /// The stored rows of `entity` whose primary keys are `pks`, decoded, in one query.
    func storedRowsThrowing(of entity: Entity, primaryKeys pks: [Int64]) throws(ObjectGraphError) -> [(
        pk: Int64, snapshot: Snapshot
    )] {
        if pks.isEmpty { return [] }
        let layout = RowLayout(entity: entity, alias: "t0")
        let model = self.model
        let rows = try readStore { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql:
                        "SELECT \(layout.columnsSQL) FROM \(SchemaGenerator.quote(entity.tableName)) t0 WHERE t0.\"Z_PK\" IN (SELECT value FROM json_each(?))"
                ),
                arguments: [jsonArray(pks)])
        }
        return rows.map { layout.decode($0, model: model) }
    }
}
