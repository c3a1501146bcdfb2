import Foundation

extension ManagedObjectContext {
    // MARK: - Running batch requests

    /// Runs a batch update in the store (one transaction, set-based SQL), then refreshes
    /// this context's registered objects, announces the change on the bus (DidSave with
    /// the changed IDs; other contexts merge it) and records it as one undo step.
    ///
    /// ```swift
    /// let request = BatchUpdateRequest(entityName: "FeedItem", predicate: try ObjectPredicate(format: "read == NO"), propertiesToUpdate: ["read": .bool(true)])
    /// let marked = try context.execute(request).changedCount
    /// ```
    @discardableResult
    public func execute(_ request: BatchUpdateRequest) throws(ObjectGraphError) -> BatchResult {
        assertOnQueue()
        processPendingChanges()
        let entity = try model.entity(named: request.entityName)
        var attributes: [Int] = []
        var values: [Value] = []
        for (key, value) in request.propertiesToUpdate.sorted(by: { $0.key < $1.key }) {
            guard let i = entity.attributeIndexByName[key] else { throw .unknownKey(entity: entity.name, key: key) }
            let attribute = entity.attributes[i]
            if attribute.isTransient || attribute.isDerivedCounter {
                throw .notBatchUpdatable(
                    entity: entity.name, key: key, reason: attribute.isTransient ? "it is transient" : "it is a derived count")
            }
            if value.isNull {
                guard attribute.isOptional else { throw .missingValue(entity: entity.name, key: key) }
                values.append(.null)
            } else {
                guard let coerced = value.coerced(to: attribute.type) else {
                    throw .typeMismatch(entity: entity.name, key: key, expected: attribute.type.rawValue, got: "\(value)")
                }
                values.append(coerced)
            }
            attributes.append(i)
        }
        guard !attributes.isEmpty else { return BatchResult(changedObjectIDs: []) }
        let target = try batchTarget(entity: entity, predicate: request.predicate)
        let keys = Set(attributes.map { entity.attributes[$0].name })
        if let size = request.batchSize, undoManager == nil, entity.inheritance == nil {
            return try executeInBatches(
                entity, attributes: attributes, values: values, target: target, size: max(1, size), keys: keys,
                resultType: request.resultType)
        }
        let (previous, counts) = try store.batchUpdate(
            entity, attributes: attributes, groups: [(values, target)], author: transactionAuthor)
        let changed = previous.groups.flatMap(\.keys).map { ObjectID(entity: entity, rawValue: $0) }
        guard !changed.isEmpty else { return BatchResult(changedObjectIDs: []) }  // nothing to announce or undo
        recordBatchStep(.revertBatchUpdate(previous))
        announceBatch(updated: changed, keys: keys, counts: counts)
        return request.resultType == .count ? BatchResult(changedCount: changed.count) : BatchResult(changedObjectIDs: changed)
    }

    /// A batch update as transactions of at most `size` rows (``BatchUpdateRequest/batchSize``),
    /// each announced when it is committed, until a batch comes back short.
    private func executeInBatches(
        _ entity: Entity, attributes: [Int], values: [Value], target: BatchTarget, size: Int, keys: Set<String>,
        resultType: BatchResultType
    ) throws(ObjectGraphError) -> BatchResult {
        var changedCount = 0
        var changedIDs: [ObjectID] = []
        while true {
            // Each batch's rows stop matching (their values no longer differ), so the same
            // query finds the next ones; a short batch was the last.
            let (previous, counts) = try store.batchUpdate(
                entity, attributes: attributes, groups: [(values, target)], limit: size, author: transactionAuthor)
            let changed = previous.groups.flatMap(\.keys).map { ObjectID(entity: entity, rawValue: $0) }
            if changed.isEmpty { break }
            announceBatch(updated: changed, keys: keys, counts: counts)
            changedCount += changed.count
            if resultType == .objectIDs { changedIDs += changed }
            if changed.count < size { break }
        }
        return resultType == .count ? BatchResult(changedCount: changedCount) : BatchResult(changedObjectIDs: changedIDs)
    }

    /// Runs a batch delete in the store (one transaction, set-based SQL, delete rules
    /// applied), then removes the deleted objects from this context, announces the change
    /// on the bus and records it as one undo step.
    ///
    /// ```swift
    /// let request = BatchDeleteRequest(entityName: "FeedItem", predicate: try ObjectPredicate(format: "read == YES"))
    /// let deleted = try context.execute(request).changedObjectIDs
    /// ```
    @discardableResult
    public func execute(_ request: BatchDeleteRequest) throws(ObjectGraphError) -> BatchResult {
        assertOnQueue()
        processPendingChanges()
        let entity = try model.entity(named: request.entityName)
        let target = try batchTarget(entity: entity, predicate: request.predicate)
        let (removed, counts) = try store.batchDelete(entity, target: target, author: transactionAuthor)
        guard !removed.requestedKeys.isEmpty else { return BatchResult(changedObjectIDs: []) }  // nothing to announce or undo
        recordBatchStep(.restoreBatchDelete(removed))
        announceBatch(removed, counts: counts)
        return BatchResult(changedObjectIDs: removed.requestedKeys.map { ObjectID(entity: entity, rawValue: $0) })
    }

    // MARK: - Undo and redo of batch steps

    /// Applies the reverse of a batch step (writing to the store at once) and records its
    /// own reverse. A failure leaves the store as it was and is kept in
    /// ``ContextUndoManager/lastError``.
    func revertBatch(_ step: UndoRecord.BatchStep) {
        do {
            switch step {
            case .revertBatchUpdate(let change):
                let (previous, counts) = try store.batchUpdate(
                    change.entity, attributes: change.attributes, groups: change.groups.map { ($0.values, .keys($0.keys)) },
                    author: transactionAuthor)
                undoManager?.registerUndo(.batch(.revertBatchUpdate(previous)), in: self)
                announceBatch(
                    updated: previous.groups.flatMap(\.keys).map { ObjectID(entity: change.entity, rawValue: $0) },
                    keys: Set(change.attributes.map { change.entity.attributes[$0].name }), counts: counts)
            case .restoreBatchDelete(let removed):
                guard let entity = removed.deleted.first?.entity else { return }
                let counts = try store.restore(removed, author: transactionAuthor)
                undoManager?.registerUndo(.batch(.repeatBatchDelete(entity, removed.requestedKeys)), in: self)
                announceRestore(removed, counts: counts)
            case .repeatBatchDelete(let entity, let keys):
                let (removed, counts) = try store.batchDelete(entity, target: .keys(keys), author: transactionAuthor)
                undoManager?.registerUndo(.batch(.restoreBatchDelete(removed)), in: self)
                announceBatch(removed, counts: counts)
            }
        } catch {
            undoManager?.lastError = error
        }
    }

    // MARK: - Non public

    private func batchTarget(entity: Entity, predicate: ObjectPredicate?) throws(ObjectGraphError) -> BatchTarget {
        guard let predicate else { return .matching(nil) }
        try predicate.validate(for: entity, in: model)
        return .matching(try predicate.sqlExpression(for: entity, in: model, alias: "t0"))
    }

    /// Records `step` as an undo step of its own (or as part of an explicit group).
    private func recordBatchStep(_ step: UndoRecord.BatchStep) {
        guard let undoManager else { return }
        undoManager.closeImplicitGroup()
        undoManager.registerUndo(.batch(step), in: self)
        undoManager.closeImplicitGroup()
    }

    private func announceBatch(updated: [ObjectID], keys: Set<String>, counts: StoredCounts) {
        var changes: [ObjectID: Set<String>] = [:]
        changes.reserveCapacity(updated.count + counts.count)
        for id in updated { changes[id] = keys }
        announce(inserted: [], updated: changes, deleted: [], counts: counts)
    }

    private func announceBatch(_ removed: BatchDeleteChange, counts: StoredCounts) {
        var deleted = Set<ObjectID>()
        for part in removed.deleted { for key in part.keys { deleted.insert(ObjectID(entity: part.entity, rawValue: key)) } }
        announce(inserted: [], updated: nullifiedChanges(removed), deleted: deleted, counts: counts)
    }

    private func announceRestore(_ removed: BatchDeleteChange, counts: StoredCounts) {
        var inserted = Set<ObjectID>()
        for part in removed.deleted { for key in part.keys { inserted.insert(ObjectID(entity: part.entity, rawValue: key)) } }
        announce(inserted: inserted, updated: nullifiedChanges(removed), deleted: [], counts: counts)
    }

    private func nullifiedChanges(_ removed: BatchDeleteChange) -> [ObjectID: Set<String>] {
        var changes: [ObjectID: Set<String>] = [:]
        for part in removed.nullified {
            let name = part.entity.relationships[part.relationship].name
            for link in part.links { changes[ObjectID(entity: part.entity, rawValue: link.key), default: []].insert(name) }
        }
        return changes
    }

    /// Brings this context up to date with what a batch step wrote (as a merge would),
    /// then posts DidSave so that every other context does the same.
    private func announce(inserted: Set<ObjectID>, updated: [ObjectID: Set<String>], deleted: Set<ObjectID>, counts: StoredCounts)
    {
        var updated = updated
        for (id, values) in counts where !deleted.contains(id) {
            updated[id, default: []].formUnion(values.keys.map { id.entity.attributes[$0].name })
        }
        let note = DidSaveNotification(
            contextID: ObjectIdentifier(self), contextName: name, inserted: inserted, updated: updated, deleted: deleted)
        mergeStoreChanges(note, alwaysAnnounce: true)
        bus?.postDidSave(note)
    }
}
