import Foundation
import ObjectGraph

/// The one order of item lists, in the reader and on the command line: **newest first** by
/// `sortDate` (published, else updated, else first seen), undated items last, and among
/// items of the same date the one stored later first (the higher primary key).
///
/// Two implementations keep this one definition: ``precedes(_:_:)`` in memory (a feed's
/// items, reached through its relationship), and ``itemIDs(matching:limit:in:)`` and
/// ``items(matching:limit:in:)`` in SQL (an ascending fetch, whose ties the store breaks by
/// ascending key, read backwards), which ``ItemSearch`` uses too, with its search text.
/// `ItemOrderTests` checks that all of them agree, ties and undated items included.
///
/// ```swift
/// let ids = try ItemOrder.itemIDs(matching: try Predicate(format: "read == NO"), limit: 20, in: context)
/// let sorted = server.feedItems.sorted(by: ItemOrder.precedes)
/// ```
public enum ItemOrder {
    /// Whether `a` comes before `b` newest first.
    ///
    /// ```swift
    /// let newest = items.sorted(by: ItemOrder.precedes).first
    /// ```
    public static func precedes(_ a: FeedItem, _ b: FeedItem) -> Bool {
        switch (a.sortDate, b.sortDate) {
        case (let x?, let y?) where x != y: return x > y
        case (nil, _?): return false
        case (_?, nil): return true
        default: return (a.objectID.primaryKey ?? Int64.max) > (b.objectID.primaryKey ?? Int64.max)
        }
    }

    /// The oldest-first fetch that, read backwards, is newest first: SQLite sorts NULL
    /// dates first and the store breaks ties by ascending key. With `searchText`, only the
    /// items the full-text index matches (``ItemSearch``); `timeLimit` bounds the fetch and
    /// its count (give one for predicates a user wrote: ``UserPredicate/timeLimit``).
    static func oldestFirst(
        _ predicate: ObjectGraph.Predicate?, searchText: String? = nil, limit: Int?, timeLimit: Duration? = nil,
        in context: ManagedObjectContext
    ) throws(ObjectGraphError) -> FetchRequest<FeedItem> {
        var request = FetchRequest<FeedItem>(
            predicate: predicate, sortDescriptors: [SortDescriptor("sortDate", ascending: true)], timeLimit: timeLimit)
        request.searchText = searchText
        if let limit, limit > 0 {
            // The newest `limit` are the last `limit` of the ascending order.
            var counting = FetchRequest<FeedItem>(predicate: predicate, timeLimit: timeLimit)
            counting.searchText = searchText
            let total = try context.count(for: counting)
            request.fetchOffset = max(0, total - limit)
            request.fetchLimit = limit
        }
        return request
    }

    /// The IDs of the items matching `predicate` (all when nil), newest first, at most
    /// `limit` (nil: all). Reads IDs only. Call on `context`'s queue. A `timeLimit` (give
    /// one for a predicate the user wrote: ``UserPredicate/timeLimit``) stops the queries
    /// past it with ``ObjectGraphError/timeLimitExceeded(entity:seconds:)``.
    ///
    /// ```swift
    /// let ids = try ItemOrder.itemIDs(matching: smartFeedPredicate, in: viewContext)
    /// ```
    public static func itemIDs(
        matching predicate: ObjectGraph.Predicate? = nil, limit: Int? = nil, timeLimit: Duration? = nil,
        in context: ManagedObjectContext
    ) throws(ObjectGraphError) -> [ObjectID] {
        try context.fetchObjectIDs(oldestFirst(predicate, limit: limit, timeLimit: timeLimit, in: context)).reversed()
    }

    /// The items matching `predicate`, newest first, at most `limit`, read in one query.
    ///
    /// ```swift
    /// let latest = try ItemOrder.items(matching: nil, limit: 10, in: context)
    /// ```
    public static func items(
        matching predicate: ObjectGraph.Predicate? = nil, limit: Int? = nil, timeLimit: Duration? = nil,
        in context: ManagedObjectContext
    ) throws(ObjectGraphError) -> [FeedItem] {
        try context.fetch(oldestFirst(predicate, limit: limit, timeLimit: timeLimit, in: context)).reversed()
    }

    /// The IDs of one feed's items, newest first, through its relationship (the
    /// foreign-key index): the cost follows the feed's size, not the store's.
    ///
    /// ```swift
    /// let ids = try ItemOrder.itemIDs(ofServer: serverID, in: viewContext)
    /// ```
    public static func itemIDs(ofServer id: ObjectID, in context: ManagedObjectContext) throws(ObjectGraphError) -> [ObjectID] {
        guard let server = try context.existingObject(with: id) as? Server else {
            throw ObjectGraphError.objectInaccessible("\(id) is not a Server")
        }
        return server.feedItems.sorted(by: precedes).map(\.objectID)
    }
}
