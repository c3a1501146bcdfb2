import Foundation

// A save's part of the persistent history: the tombstones of the rows it deletes are read
// before they go, and the transaction is written last, inside the save's own transaction.

extension SaveExecution {
    /// Reads the tombstones of the rows this save deletes (before it deletes them).
    mutating func recordDeletionsInHistory() throws {
        guard history != nil, !plan.deletes.isEmpty else { return }
        var byEntity: [ObjectIdentifier: (entity: Entity, keys: [Int64])] = [:]
        for delete in plan.deletes {
            byEntity[ObjectIdentifier(delete.entity), default: (delete.entity, [])].keys.append(delete.pk)
        }
        for (entity, keys) in byEntity.values { try history?.recordDeletions(of: entity, keys: keys, in: db) }
    }

    /// Writes this save's transaction: its inserts, its updates with the keys they changed,
    /// then its deletions.
    mutating func writeHistory() throws {
        guard var history else { return }
        let deletions = history.changes
        history.changes = []
        history.changes.reserveCapacity(plan.inserts.count + plan.updates.count + deletions.count)
        for (index, insert) in plan.inserts.enumerated() {
            guard index < outcome.insertedIDs.count, let key = outcome.insertedIDs[index].primaryKey else { continue }
            history.changes.append(.init(entity: insert.entity.name, kind: .insert, primaryKey: key))
        }
        for update in plan.updates {
            let keys =
                update.changedAttributes.map { update.entity.attributes[$0].name }
                + update.changedRelationships.map { update.entity.relationships[$0].name }
            history.changes.append(.init(entity: update.entity.name, kind: .update, primaryKey: update.pk, keys: Set(keys)))
        }
        history.changes += deletions
        try history.write(in: db)
        self.history = history
    }
}
