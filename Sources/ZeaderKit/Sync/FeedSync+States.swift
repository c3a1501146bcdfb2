import Feeds
import Foundation
import ObjectGraph

extension FeedSync {

    /// Store metadata: the server's unread and starred id lists as the last sync saw them
    /// (``SyncIDList``), so that a sync looks up only the items whose state changed there.
    static let unreadListKey = "zeader.sync.unread"
    static let starredListKey = "zeader.sync.starred"

    /// The read and starred state of synced items from the server's unread and starred id
    /// lists; an item with a change not yet pushed keeps its own.
    ///
    /// Only the ids whose state changed on the server since the last sync (the lists' set
    /// differences from the ones kept in the store) are looked up, 500 at a time by the
    /// syncID index: a sync with nothing new reads no item, whatever the store's size. Every
    /// local read or flag change is pushed (a pending mark) before this, so the items not
    /// looked up already have the server's state. The items `pulled` by this sync are looked
    /// up where the lists disagree with their contents (changed on the server since). Without
    /// lists kept: after a pull from the first item (the first sync), the items that were
    /// already stored are looked up too; else every synced item is compared, a page at a
    /// time. The lists are kept after the states are saved: a sync stopped in between looks
    /// the same ids up again.
    ///
    /// A first sync into an empty account asks for no list: the items it pulled came with
    /// their states (``Pulled/unread``, ``Pulled/starred``), and those are kept as the lists the next sync
    /// compares with (a change on the server in between is a difference it then looks up).
    func pullStates(_ client: any SyncService, pulled: Pulled, report: inout Report) async throws {
        let unread: Set<UInt64>
        let starred: Set<UInt64>
        if let pulledUnread = pulled.unread {
            unread = pulledUnread
            starred = pulled.starred
        } else {
            unread = Set(try await client.itemIDs(.unread))
            starred = Set(try await client.itemIDs(.starred))
        }
        let scope = try self.scope()
        let metadata = store.container.store
        let keptUnread = try metadata.metadata(forKey: scope.key(Self.unreadListKey)).flatMap(SyncIDList.decode)
        let keptStarred = try metadata.metadata(forKey: scope.key(Self.starredListKey)).flatMap(SyncIDList.decode)
        let changed = try withContext { context in
            var changed = 0
            func apply(_ page: [FeedItem]) {
                for item in page {
                    guard let id = item.syncID.flatMap(UInt64.init) else { continue }
                    if !item.syncReadPending {
                        let read = !unread.contains(id)
                        if item.read != read {
                            item.read = read
                            changed += 1
                        }
                    }
                    if !item.syncFlagPending {
                        let flagged = starred.contains(id)
                        if item.flagged != flagged {
                            item.flagged = flagged
                            changed += 1
                        }
                    }
                }
            }
            var lookUp = Set<UInt64>()
            for id in pulled.ids
            where unread.contains(id) == pulled.read.contains(id) || starred.contains(id) != pulled.starred.contains(id) {
                lookUp.insert(id)
            }
            if let keptUnread, let keptStarred {
                lookUp.formUnion(unread.symmetricDifference(keptUnread))
                lookUp.formUnion(starred.symmetricDifference(keptStarred))
            } else if let known = pulled.known {
                lookUp.formUnion(known)
            }
            if (keptUnread != nil && keptStarred != nil) || pulled.known != nil {
                let moved = Array(lookUp)
                for start in stride(from: 0, to: moved.count, by: 500) {
                    let chunk = moved[start..<min(start + 500, moved.count)]
                    apply(
                        try context.fetch(
                            FetchRequest<FeedItem>(
                                predicate: .comparison(
                                    .keyPath("syncID"), .in, .aggregate(chunk.map { .constant(.string(String($0))) }))
                                    && scope.items)))
                    try context.save()
                    context.reset()
                }
            } else {
                // Page through the synced items (by their id, which a sync never changes),
                // each page one save and a context reset: memory stays bounded.
                var after = ""
                while true {
                    var request = FetchRequest<FeedItem>(
                        predicate: try ObjectPredicate(format: "syncID != nil AND syncID > %@", after) && scope.items,
                        sortDescriptors: [ObjectSortDescriptor("syncID")])
                    request.fetchLimit = 500
                    let page = try context.fetch(request)
                    guard let last = page.last?.syncID else { break }
                    after = last
                    apply(page)
                    try context.save()
                    context.reset()
                    if page.count < request.fetchLimit { break }
                }
            }
            if let account = try accountRow(scope, in: context) { account.lastSync = Date() }
            try context.save()
            return changed
        }
        if keptUnread != unread { try metadata.setMetadata(SyncIDList.encode(unread), forKey: scope.key(Self.unreadListKey)) }
        if keptStarred != starred {
            try metadata.setMetadata(SyncIDList.encode(starred), forKey: scope.key(Self.starredListKey))
        }
        report.stateChanges += changed
    }
}
