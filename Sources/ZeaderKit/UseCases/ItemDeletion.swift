import Foundation
import ObjectGraph

/// Deleting items on purpose (newsboat's `delete-article`, `D`, and `delete-all-articles`,
/// `^D`): each item goes at once and leaves a ``RemovedItem`` tombstone with reason
/// `deleted`, in the same save, so a refresh never stores it again while its feed still
/// carries it. newsboat marks an item deleted and removes it later (`purge-deleted`, or on
/// quit); Zeader has no "marked deleted" state: the deletion is the purge, and it is one
/// named undo step when the context has an undo manager (the reader's undo, `z`, brings the items
/// back and drops their tombstones). Call on `context`'s queue.
///
/// ```swift
/// let deleted = try ItemDeletion.delete([id], in: viewContext)   // "Delete Item"; undo restores it
/// ```
public enum ItemDeletion {
    /// Deletes the items `ids` (those already gone are skipped), leaving a tombstone for
    /// each; returns how many it deleted. On failure the context is rolled back.
    @discardableResult
    public static func delete(_ ids: [ObjectID], in context: ManagedObjectContext, now: Date = Date()) throws -> Int {
        let items = ids.compactMap { (try? context.existingObject(with: $0)) as? FeedItem }
        guard !items.isEmpty else { return 0 }
        let name = items.count == 1 ? "Delete Item" : "Delete \(items.count) Items"
        return try ItemMarking.undoable(name, in: context) {
            var known: [ObjectID: Set<String>] = [:]
            for (serverID, guids) in Dictionary(grouping: items.compactMap(Self.key), by: \.0) {
                let request = FetchRequest<RemovedItem>(
                    predicate: try ObjectPredicate(
                        format: "server == %@ AND guid IN %@", serverID, guids.map(\.1)))
                known[serverID] = Set(try context.fetch(request).map(\.guid))
            }
            for item in items {
                if let server = item.server, known[server.objectID]?.contains(item.guid) != true {
                    let tombstone = context.insert(RemovedItem.self)
                    tombstone.guid = item.guid
                    tombstone.reason = RemovedItem.Reason.deleted.rawValue
                    tombstone.removed = now
                    tombstone.server = server
                    known[server.objectID, default: []].insert(item.guid)
                }
                context.delete(item)
            }
            return items.count
        }
    }

    private static func key(_ item: FeedItem) -> (ObjectID, String)? {
        item.server.map { ($0.objectID, item.guid) }
    }
}
