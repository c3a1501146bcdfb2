import Foundation

extension ManagedObjectContext {
    // MARK: - Running batch inserts

    /// Runs a batch insert in the store (one transaction, multi-row INSERTs; conflicts on
    /// uniqueness constraints resolved by ``mergePolicy``, see ``BatchInsertRequest``), then
    /// announces the new and upserted rows on the bus (DidSave with their IDs; other contexts
    /// merge it, and this one posts ObjectsDidChange). Nothing is written when a row is
    /// refused: an unknown key, a value of the wrong type, a required attribute missing.
    ///
    /// ```swift
    /// let request = BatchInsertRequest(entityName: "Note", objects: [["title": "one"], ["title": "two"]])
    /// let inserted = try context.execute(request).changedCount   // 2
    /// ```
    @discardableResult
    public func execute(_ request: BatchInsertRequest) throws(ObjectGraphError) -> BatchResult {
        assertOnQueue()
        processPendingChanges()
        let entity = try model.entity(named: request.entityName)
        if entity.isAbstract { throw .abstractEntity(entity.name) }
        let conflict = try batchInsertConflict(for: entity)
        let outcome: BatchInsertOutcome
        switch request.source {
        case .dictionaries(let objects):
            var iterator = objects.makeIterator()
            outcome = try store.batchInsert(
                entity, conflict: conflict, rowsPerStatement: Self.rowsPerBatchInsert, author: transactionAuthor
            ) {
                (row) throws(ObjectGraphError) -> Bool in
                guard let object = iterator.next() else { return false }
                for (key, value) in object {
                    let i = try BatchInsertRow.index(of: key, in: entity)
                    row.values[i] = try BatchInsertRow.checked(value, for: i, in: entity)
                    row.given[i] = true
                }
                return true
            }
        case .filling(let fill):
            outcome = try store.batchInsert(
                entity, conflict: conflict, rowsPerStatement: Self.rowsPerBatchInsert, author: transactionAuthor
            ) {
                (row) throws(ObjectGraphError) -> Bool in fill(&row)
            }
        }
        let inserted = outcome.inserted.map { ObjectID(entity: entity, rawValue: $0) }
        let updated = outcome.updated.map { ObjectID(entity: entity, rawValue: $0) }
        announceBatchInsert(inserted: inserted, updated: updated, of: entity)
        let changed = inserted + updated
        return request.resultType == .count ? BatchResult(changedCount: changed.count) : BatchResult(changedObjectIDs: changed)
    }

    /// Rows per INSERT statement (fewer when SQLite's limit on bound parameters is lower).
    private static let rowsPerBatchInsert = 256

    /// What ``mergePolicy`` makes of a row whose constrained keys are taken. An upsert that
    /// updates rows whose values a derived count follows is refused: the count would not follow.
    private func batchInsertConflict(for entity: Entity) throws(ObjectGraphError) -> BatchInsertConflict {
        let conflict: BatchInsertConflict
        switch mergePolicy {
        case .error: conflict = .fail
        case .objectTrumps: conflict = .update(givenOnly: true)
        case .overwrite: conflict = .update(givenOnly: false)
        case .storeTrumps, .rollback: conflict = .keepStored
        }
        if case .update = conflict, !entity.uniquenessConstraints.isEmpty, let counter = entity.counterDependencies.first {
            let parent = model.entities[counter.parentEntityIndex]
            throw .notBatchInsertable(
                entity: parent.name, key: parent.attributes[counter.attributeIndex].name,
                reason: "it counts \(entity.name) rows, which an upsert would change behind it; upsert them with a context's save"
            )
        }
        return conflict
    }

    /// Brings this context up to date with a batch insert (as a merge would), then posts
    /// DidSave so that every other context does the same.
    private func announceBatchInsert(inserted: [ObjectID], updated: [ObjectID], of entity: Entity) {
        guard !inserted.isEmpty || !updated.isEmpty else { return }
        let keys = Set(entity.storedAttributeIndexes.map { entity.attributes[$0].name })
        var changes: [ObjectID: Set<String>] = [:]
        for id in updated { changes[id] = keys }
        let note = DidSaveNotification(
            contextID: ObjectIdentifier(self), contextName: name, inserted: Set(inserted), updated: changes, deleted: [])
        mergeStoreChanges(note, alwaysAnnounce: true)
        bus?.postDidSave(note)
    }
}
