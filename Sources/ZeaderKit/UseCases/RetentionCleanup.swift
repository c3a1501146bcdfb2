import Foundation
import ObjectGraph

/// Removing old items by a ``RetentionPolicy``: the one implementation `zeader cleanup`
/// and the reader's cleanup on quit share.
///
/// For each feed with a limit, the items beyond its `max-items` newest (by `sortDate`) or
/// older than its `keep-days` are removed — except unread and flagged ones, unless the
/// policy says otherwise. Each removed item leaves a ``RemovedItem`` tombstone (its guid),
/// saved just before the removal, so a refresh never stores it again. Items go `batchSize`
/// at a time: their guids are read (not their text), the tombstones saved, the items
/// deleted by one set-based delete; so memory stays bounded however many there are. Tombstones whose feed has not carried them for
/// ``RetentionPolicy/tombstoneDays`` are dropped.
///
/// ```swift
/// let report = try RetentionCleanup.run(policy, in: store.container.newBackgroundContext(name: "cleanup"))
/// print(report.removedItems)
/// ```
public enum RetentionCleanup {
    /// Runs the cleanup in `context` (a background context; call on its queue).
    public static func run(
        _ policy: RetentionPolicy, in context: ManagedObjectContext, now: Date = Date(), batchSize: Int = 1_000,
        progress: ((CleanupReport) -> Void)? = nil
    ) throws -> CleanupReport {
        try run(policy, feeds: nil, in: context, now: now, batchSize: batchSize, progress: progress)
    }

    /// Trims the feeds `servers` by `policy` after a refresh stored their new items (as
    /// newsboat applies `max-items` and `keep-articles-days` on reload), with the same rules
    /// and tombstones as a cleanup; tombstones are not dropped here. Call on the context's queue.
    ///
    /// ```swift
    /// let report = try RetentionCleanup.trim(refreshedServerIDs, by: policy, in: importContext)
    /// ```
    public static func trim(
        _ servers: [ObjectID], by policy: RetentionPolicy, in context: ManagedObjectContext, now: Date = Date(),
        batchSize: Int = 1_000
    ) throws -> CleanupReport {
        guard !policy.isEmpty, !servers.isEmpty else { return CleanupReport() }
        return try run(policy, feeds: Set(servers), in: context, now: now, batchSize: batchSize, progress: nil)
    }

    private static func run(
        _ policy: RetentionPolicy, feeds: Set<ObjectID>?, in context: ManagedObjectContext, now: Date, batchSize: Int,
        progress: ((CleanupReport) -> Void)?
    ) throws -> CleanupReport {
        // Each batch is a few statements over `batchSize` rows: statement journals in memory
        // (of bounded size) instead of temporary files. A journal holds every page its delete
        // touches, scattered over a large store, so smaller batches bound the memory at no cost
        // in time (Tests/e2e/cleanup_bench.sh; docs/PERFORMANCE.md, "Tuning in the code").
        try context.container.store.withBulkWrites {
            try removeItems(policy, feeds: feeds, in: context, now: now, batchSize: batchSize, progress: progress)
        }
    }

    private static func removeItems(
        _ policy: RetentionPolicy, feeds only: Set<ObjectID>?, in context: ManagedObjectContext, now: Date, batchSize: Int,
        progress: ((CleanupReport) -> Void)?
    ) throws -> CleanupReport {
        var report = CleanupReport()
        // A refresh's trim reads only the feeds it grew; a cleanup reads them all.
        let servers =
            try only.map { ids in ids.compactMap { try? context.existingObject(with: $0) as? Server } }
            ?? Server.findAll(sortedBy: "displayOrder", in: context)
        let feeds = servers.map { ($0.objectID, $0.url, $0.tags) }
        context.reset()
        for (serverID, url, tags) in feeds {
            let (maxItems, keepDays) = policy.limits(url: url, tags: tags)
            guard maxItems != nil || keepDays != nil else { continue }
            var cutoff = keepDays.map { now.addingTimeInterval(-Double($0) * 86_400) }
            if let maxItems {
                // The oldest item kept by max-items: everything older goes.
                let oldestKept = try context.fetchValues(
                    FetchRequest<FeedItem>(
                        predicate: try ObjectPredicate(format: "server == %@", serverID),
                        sortDescriptors: [ObjectSortDescriptor("sortDate", ascending: false)], fetchLimit: 1,
                        fetchOffset: maxItems - 1),
                    keys: ["sortDate"]
                ).first.flatMap { Date(fromValue: $0.values[0]) }
                if let oldestKept { cutoff = max(cutoff ?? oldestKept, oldestKept) }
            }
            guard let cutoff else { continue }
            var format = "server == %@ AND sortDate < %@"
            if policy.keepsUnread { format += " AND read == YES" }
            if policy.keepsFlagged { format += " AND flagged == NO" }
            let removable = try ObjectPredicate(format: format, serverID, cutoff)
            var removedHere = 0
            while true {
                let found = try context.fetchValues(
                    FetchRequest<FeedItem>(
                        predicate: removable, sortDescriptors: [ObjectSortDescriptor("sortDate")], fetchLimit: max(1, batchSize)),
                    keys: ["guid"])
                guard !found.isEmpty else { break }
                let removed = try removeBatch(
                    found.compactMap { String(fromValue: $0.values[0]) }, of: serverID, matching: removable, now: now,
                    in: context)
                removedHere += removed
                report.removedItems += removed
                progress?(report)
                if found.count < batchSize { break }
            }
            if removedHere > 0 { report.feeds += 1 }
        }
        guard only == nil else { return report }
        let stale = now.addingTimeInterval(-Double(RetentionPolicy.tombstoneDays) * 86_400)
        report.droppedTombstones = try context.execute(
            BatchDeleteRequest(
                entityName: "RemovedItem",
                predicate: try ObjectPredicate(
                    format: "(lastSeen != nil AND lastSeen < %@) OR (lastSeen == nil AND removed < %@)", stale, stale))
        ).changedCount
        return report
    }

    /// Removes the items `guids` of the feed `serverID` that still match `removable`, leaving
    /// tombstones; returns how many were removed.
    ///
    /// Only the guids are read (never the items' text), and the items go by one set-based
    /// delete. The tombstones are saved first, then the items deleted: killed in between, a
    /// feed keeps an item beside its tombstone (a refresh matches stored items first, and the
    /// next cleanup removes it), never an item removed without one — that one would come back
    /// unread. An item changed meanwhile (marked unread, flagged) no longer matches and stays;
    /// its new tombstone is taken back.
    static func removeBatch(
        _ guids: [String], of serverID: ObjectID, matching removable: ObjectPredicate, now: Date,
        in context: ManagedObjectContext
    ) throws -> Int {
        let inFeed = try ObjectPredicate(format: "server == %@ AND guid IN %@", serverID, guids)
        let known = Set(
            try context.fetchValues(FetchRequest<RemovedItem>(predicate: inFeed), keys: ["guid"]).compactMap {
                String(fromValue: $0.values[0])
            })
        guard let server = context.object(with: serverID) as? Server else { return 0 }
        var added: [String] = []
        for guid in guids where !known.contains(guid) {
            let tombstone = context.insert(RemovedItem.self)
            tombstone.guid = guid
            tombstone.reason = RemovedItem.Reason.cleanup.rawValue
            tombstone.removed = now
            tombstone.server = server
            added.append(guid)
        }
        try context.save()
        context.reset()
        let deleted = try context.execute(
            BatchDeleteRequest(entityName: "FeedItem", predicate: removable && inFeed)
        ).changedCount
        if deleted < guids.count {
            // Some changed since they were read: their items stay, so their new tombstones go.
            let stillThere = try context.fetchValues(FetchRequest<FeedItem>(predicate: inFeed), keys: ["guid"]).compactMap {
                String(fromValue: $0.values[0])
            }
            let taken = Set(stillThere).intersection(added)
            if !taken.isEmpty {
                try context.execute(
                    BatchDeleteRequest(
                        entityName: "RemovedItem",
                        predicate: try ObjectPredicate(format: "server == %@ AND guid IN %@", serverID, Array(taken))))
            }
        }
        return deleted
    }

    /// A refresh found `tombstone`'s guid in its feed again: remembered (at most once a day)
    /// so that the tombstone is kept while the feed carries the item.
    static func sawTombstone(_ tombstone: RemovedItem, now: Date) {
        if let seen = tombstone.lastSeen, now.timeIntervalSince(seen) < 86_400 { return }
        tombstone.lastSeen = now
    }
}

/// What a cleanup did.
///
/// ```swift
/// print("removed \(report.removedItems) items from \(report.feeds) feeds")
/// ```
public struct CleanupReport: Sendable, Equatable {
    /// Items removed (each left a tombstone).
    public var removedItems = 0
    /// Feeds that lost items.
    public var feeds = 0
    /// Tombstones dropped because their feed no longer carries them.
    public var droppedTombstones = 0
    /// Bytes the store's file shrank by, when vacuumed.
    public var reclaimedBytes: Int64?

    public init() {}
}
