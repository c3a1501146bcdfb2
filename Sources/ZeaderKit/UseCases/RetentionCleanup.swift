import Foundation
import ObjectGraph

/// Removing old items by a ``RetentionPolicy``: the one implementation `zeader cleanup`
/// and the reader's cleanup on quit share.
///
/// For each feed with a limit, the items beyond its `max-items` newest (by `sortDate`) or
/// older than its `keep-days` are removed — except unread and flagged ones, unless the
/// policy says otherwise. Each removed item leaves a ``RemovedItem`` tombstone (its guid),
/// saved in the same transaction as the removal, so a refresh never stores it again.
/// Items go `batchSize` at a time (one save each, the context reset between), so memory
/// stays bounded however many there are. Tombstones whose feed has not carried them for
/// ``RetentionPolicy/tombstoneDays`` are dropped.
///
/// ```swift
/// let report = try RetentionCleanup.run(policy, in: store.container.newBackgroundContext(name: "cleanup"))
/// print(report.removedItems)
/// ```
public enum RetentionCleanup {
    /// Runs the cleanup in `context` (a background context; call on its queue).
    public static func run(
        _ policy: RetentionPolicy, in context: ManagedObjectContext, now: Date = Date(), batchSize: Int = 5_000,
        progress: ((CleanupReport) -> Void)? = nil
    ) throws -> CleanupReport {
        var report = CleanupReport()
        let feeds = try Server.findAll(sortedBy: "displayOrder", in: context).map { ($0.objectID, $0.url, $0.tags) }
        context.reset()
        for (serverID, url, tags) in feeds {
            let (maxItems, keepDays) = policy.limits(url: url, tags: tags)
            guard maxItems != nil || keepDays != nil else { continue }
            var cutoff = keepDays.map { now.addingTimeInterval(-Double($0) * 86_400) }
            if let maxItems {
                // The oldest item kept by max-items: everything older goes.
                let oldestKept = try context.fetch(
                    FetchRequest<FeedItem>(
                        predicate: try ObjectGraph.Predicate(format: "server == %@", serverID),
                        sortDescriptors: [SortDescriptor("sortDate", ascending: false)], fetchLimit: 1,
                        fetchOffset: maxItems - 1)
                ).first?.sortDate
                if let oldestKept { cutoff = max(cutoff ?? oldestKept, oldestKept) }
            }
            guard let cutoff else { continue }
            var format = "server == %@ AND sortDate < %@"
            if policy.keepsUnread { format += " AND read == YES" }
            if policy.keepsFlagged { format += " AND flagged == NO" }
            let removable = try ObjectGraph.Predicate(format: format, serverID, cutoff)
            var removedHere = 0
            while true {
                let items = try context.fetch(
                    FetchRequest<FeedItem>(
                        predicate: removable, sortDescriptors: [SortDescriptor("sortDate")], fetchLimit: max(1, batchSize)))
                guard !items.isEmpty, let server = context.object(with: serverID) as? Server else { break }
                let guids = items.map(\.guid)
                let known = Set(
                    try context.fetch(
                        FetchRequest<RemovedItem>(
                            predicate: try ObjectGraph.Predicate(format: "server == %@ AND guid IN %@", serverID, guids))
                    ).map(\.guid))
                for item in items {
                    if !known.contains(item.guid) {
                        let tombstone = context.insert(RemovedItem.self)
                        tombstone.guid = item.guid
                        tombstone.reason = RemovedItem.Reason.cleanup.rawValue
                        tombstone.removed = now
                        tombstone.server = server
                    }
                    context.delete(item)
                }
                try context.save()
                context.reset()
                removedHere += items.count
                report.removedItems += items.count
                progress?(report)
                if items.count < batchSize { break }
            }
            if removedHere > 0 { report.feeds += 1 }
        }
        let stale = now.addingTimeInterval(-Double(RetentionPolicy.tombstoneDays) * 86_400)
        report.droppedTombstones = try context.execute(
            BatchDeleteRequest(
                entityName: "RemovedItem",
                predicate: try Predicate(
                    format: "(lastSeen != nil AND lastSeen < %@) OR (lastSeen == nil AND removed < %@)", stale, stale))
        ).changedCount
        return report
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
