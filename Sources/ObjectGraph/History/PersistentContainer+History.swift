import Foundation

extension PersistentContainer {
    /// What another process's commit changed. With persistent history, the objects its
    /// transactions name, so contexts and live results refresh only those; without it (or
    /// when history was deleted past what this process had seen, or the commit recorded
    /// none), a notice that anything may have changed.
    func otherProcessNotification() -> DidSaveNotification {
        let unknown = DidSaveNotification(
            contextID: nil, contextName: "other process", inserted: [], updated: [:], deleted: [], isFromOtherProcess: true)
        guard store.isRecordingHistory else { return unknown }
        let seen = lastSeenHistory.withLock { $0 } ?? HistoryToken(transactionNumber: 0)
        guard let transactions = try? store.history(HistoryFetchRequest(after: seen)), let last = transactions.last else {
            return unknown
        }
        lastSeenHistory.withLock { $0 = last.token }
        if let oldest = try? store.oldestHistoryToken(), oldest.transactionNumber > seen.transactionNumber + 1 { return unknown }
        var inserted = Set<ObjectID>()
        var updated: [ObjectID: Set<String>] = [:]
        var deleted = Set<ObjectID>()
        let foreign = transactions.filter { !$0.isFromThisStack }
        guard !foreign.isEmpty else { return unknown }
        for change in foreign.flatMap(\.changes) {
            switch change.kind {
            case .insert:
                inserted.insert(change.objectID)
                deleted.remove(change.objectID)
            case .update:
                // An update with no keys named (a batch insert's upsert) may have changed any.
                let keys = change.changedKeys.isEmpty ? Set(change.objectID.entity.attributes.map(\.name)) : change.changedKeys
                if !inserted.contains(change.objectID) { updated[change.objectID, default: []].formUnion(keys) }
            case .delete:
                inserted.remove(change.objectID)
                updated[change.objectID] = nil
                deleted.insert(change.objectID)
            }
        }
        return DidSaveNotification(
            contextID: nil, contextName: "other process", inserted: inserted, updated: updated, deleted: deleted)
    }
}
