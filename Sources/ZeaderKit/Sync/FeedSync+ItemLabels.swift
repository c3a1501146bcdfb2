import Foundation
import ObjectGraph

// Items' own tags as the service's labels on items (``ItemLabels``): pushed with the other
// item states, pulled with new items.
extension FeedSync {
    // MARK: Push

    /// Pushes the tags added to and removed from synced items since the last sync left their
    /// labels (``ItemLabels/keptKey``): one request per label and direction, `chunkSize * 4`
    /// items each; the kept labels follow each accepted request, so a change made meanwhile
    /// is pushed next time. A service without item labels is said once in the report and the
    /// tags stay on this device (not asked again until they change).
    func pushItemLabels(_ client: any SyncService, report: inout Report) async throws {
        let scope = try self.scope()
        var kept = try Self.keptItemLabels(scope, in: store.container.store)
        let changes = try withContext { context in try Self.itemLabelChanges(scope, kept: kept, in: context) }
        if changes.gone.isEmpty && changes.add.isEmpty && changes.remove.isEmpty { return }
        for id in changes.gone { kept[id] = nil }
        let groups = changes.add.map { ($0.key, true, $0.value) } + changes.remove.map { ($0.key, false, $0.value) }
        var pushedItems = Set<String>()
        push: for (label, on, ids) in groups.sorted(by: { ($0.0, $0.1 ? 1 : 0) < ($1.0, $1.1 ? 1 : 0) }) {
            var start = 0
            while start < ids.count {
                let chunk = Array(ids[start..<min(start + chunkSize * 4, ids.count)])
                start += chunk.count
                do throws(SyncError) {
                    try await client.setLabel(label, on, ids: chunk.compactMap { UInt64($0) })
                } catch {
                    guard case .unsupported(let service, _) = error else { throw error }
                    // Said once: the tags are this device's own until they change again.
                    let items = Set(changes.add.values.joined()).union(changes.remove.values.joined())
                    report.refused.append(Messages.syncItemTagsUnsupported(service, items: items.count))
                    for id in items { kept[id] = FeedTags.list(changes.tags[id]) }
                    break push
                }
                for id in chunk {
                    var labels = kept[id] ?? []
                    labels.removeAll { $0.lowercased() == label.lowercased() }
                    if on { labels.append(label) }
                    kept[id] = labels
                    pushedItems.insert(id)
                }
                try Self.keepItemLabels(kept, scope, in: store.container.store)
            }
        }
        try Self.keepItemLabels(kept, scope, in: store.container.store)
        report.pushed += pushedItems.count
    }

    /// The labels to add and to remove (each with its items' server ids) among the items of
    /// `scope`'s feeds, the current tags of the items looked at, and the kept items no longer
    /// stored there.
    static func itemLabelChanges(_ scope: AccountScope, kept: [String: [String]], in context: ManagedObjectContext) throws -> (
        add: [String: [String]], remove: [String: [String]], tags: [String: String], gone: [String]
    ) {
        var tags: [String: String] = [:]
        for item in try context.fetch(
            FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "syncID != nil AND tags != nil") && scope.items))
        {
            if let id = item.syncID, let itemTags = item.tags { tags[id] = itemTags }
        }
        // A kept item with no tags now has them all removed, unless it is gone.
        let untagged = kept.keys.filter { tags[$0] == nil }
        var stored = Set<String>()
        for start in stride(from: 0, to: untagged.count, by: 500) {
            let chunk = untagged[start..<min(start + 500, untagged.count)]
            let request = FetchRequest<FeedItem>(
                predicate: .comparison(.keyPath("syncID"), .in, .aggregate(chunk.map { .constant(.string($0)) }))
                    && scope.items)
            for item in try context.fetch(request) { if let id = item.syncID { stored.insert(id) } }
        }
        var add: [String: [String]] = [:]
        var remove: [String: [String]] = [:]
        for id in Set(tags.keys).union(stored) {
            let (added, removed) = ItemLabels.changes(tags: tags[id], kept: kept[id] ?? [])
            for label in added { add[label, default: []].append(id) }
            for label in removed { remove[label, default: []].append(id) }
        }
        return (add, remove, tags, untagged.filter { !stored.contains($0) })
    }

    /// How many items of `scope`'s feeds have tags its server has not got yet (counted with
    /// the queued changes in ``status()``).
    static func pendingItemLabels(_ scope: AccountScope, in context: ManagedObjectContext, store: ZeaderStore) throws -> Int {
        let kept = try keptItemLabels(scope, in: store.container.store)
        let changes = try itemLabelChanges(scope, kept: kept, in: context)
        return Set(changes.add.values.joined()).union(changes.remove.values.joined()).count
    }

    // MARK: Pull

    /// The labels of a pulled item (``ItemLabels/labels(inCategories:folders:)``, less its
    /// feed's folders, given lowercased once for all its items) and its tags with them: the
    /// item's `local` ones (a feed's history joining the account) and every label.
    ///
    /// ```swift
    /// FeedSync.pulledTags(item, lowercasedFolders: ["tech"], local: nil)   // ("later", ["later"])
    /// ```
    static func pulledTags(_ item: SyncItem, lowercasedFolders folders: Set<String>, local: String?) -> (
        tags: String?, labels: [String]
    ) {
        let labels = ItemLabels.labels(inCategories: item.categories, lowercasedFolders: folders)
        return (labels.isEmpty ? local : FeedTags.normalized(FeedTags.list(local) + labels), labels)
    }

    /// Adds the labels `pulled` (by item server id) to the kept ones, once their items are saved.
    func keepPulledItemLabels(_ pulled: [String: [String]]) throws {
        guard !pulled.isEmpty else { return }
        let scope = try self.scope()
        var kept = try Self.keptItemLabels(scope, in: store.container.store)
        for (id, labels) in pulled { kept[id] = labels.isEmpty ? nil : labels }
        try Self.keepItemLabels(kept, scope, in: store.container.store)
    }

    // MARK: Kept labels

    /// The labels each item of `scope`'s account had when its last sync ended, by server id
    /// (ids are the account's own: two servers may use the same).
    static func keptItemLabels(_ scope: AccountScope, in store: PersistentStore) throws -> [String: [String]] {
        try store.metadata(forKey: scope.key(ItemLabels.keptKey)).flatMap(SyncLabels.decode) ?? [:]
    }

    static func keepItemLabels(_ kept: [String: [String]], _ scope: AccountScope, in store: PersistentStore) throws {
        let labelled = kept.filter { !$0.value.isEmpty }
        let text = labelled.isEmpty ? nil : SyncLabels.encode(labelled)
        let key = scope.key(ItemLabels.keptKey)
        if text != (try store.metadata(forKey: key)) { try store.setMetadata(text, forKey: key) }
    }
}
