import Foundation
import ObjectGraph

/// The one order of item lists, in the reader and on the command line: **newest first** by
/// `sortDate` (published, else updated, else first seen), undated items last, and among
/// items of the same date the one stored later first (the higher primary key).
///
/// Two implementations keep this one definition: ``precedes(_:_:)`` in memory (a feed's
/// items, reached through its relationship), and ``newestFirst(_:searchText:limit:timeLimit:searchWindow:)``
/// in SQL (`sortDate` descending, then ObjectGraph's store order descending), which
/// ``ItemSearch`` uses too, with its search text. That SQL order is what the model's list
/// indexes hold read backwards (``ZeaderModel/itemListIndexes``): a page of the unread, the
/// flagged or one feed's items costs its length, whatever the store's size. ``forEachPage(matching:searchText:limit:pageSize:timeLimit:searchWindow:in:_:)``
/// walks a long list a page at a time. `ItemOrderTests` checks that all of them agree,
/// ties and undated items included.
///
/// ```swift
/// let ids = try ItemOrder.itemIDs(matching: try ObjectPredicate(format: "read == NO"), limit: 20, in: context)
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

    /// The sort descriptors of the order: SQLite sorts NULL dates last when descending.
    public static let sortDescriptors = [
        ObjectSortDescriptor("sortDate", ascending: false),
        ObjectSortDescriptor(ObjectSortDescriptor.storeOrderKey, ascending: false),
    ]

    /// The newest-first fetch of the items matching `predicate` (all when nil), at most
    /// `limit`. With `searchText`, only the items the full-text index matches
    /// (``ItemSearch``); `timeLimit` bounds the fetch (give one for predicates a user wrote:
    /// ``UserPredicate/timeLimit``).
    static func newestFirst(
        _ predicate: ObjectPredicate?, searchText: String? = nil, limit: Int?, timeLimit: Duration? = nil,
        searchWindow: Int? = nil
    ) -> FetchRequest<FeedItem> {
        var request = FetchRequest<FeedItem>(predicate: predicate, sortDescriptors: sortDescriptors, timeLimit: timeLimit)
        request.searchText = searchText
        request.searchWindow = searchText == nil ? nil : searchWindow
        if let limit, limit > 0 { request.fetchLimit = limit }
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
        matching predicate: ObjectPredicate? = nil, limit: Int? = nil, timeLimit: Duration? = nil,
        in context: ManagedObjectContext
    ) throws(ObjectGraphError) -> [ObjectID] {
        try context.fetchObjectIDs(newestFirst(predicate, limit: limit, timeLimit: timeLimit))
    }

    /// The items matching `predicate`, newest first, at most `limit`, read in one query.
    ///
    /// ```swift
    /// let latest = try ItemOrder.items(matching: nil, limit: 10, in: context)
    /// ```
    public static func items(
        matching predicate: ObjectPredicate? = nil, limit: Int? = nil, timeLimit: Duration? = nil,
        in context: ManagedObjectContext
    ) throws(ObjectGraphError) -> [FeedItem] {
        try context.fetch(newestFirst(predicate, limit: limit, timeLimit: timeLimit))
    }

    /// Calls `body` with the items matching `predicate` (and `searchText`, as ``ItemSearch``
    /// matches it), newest first, at most `limit` in all, `pageSize` at a time; the context
    /// is reset after each page, so the pages' objects must not be kept (their object IDs
    /// may be). Each page is a query that starts where the last one ended (its last date,
    /// and how many items of that date were given), not an offset: a walk over a million
    /// items holds one page and reads each row once. A search gathers the matches' IDs
    /// once (8 bytes a match) and reads the items a page at a time; `searchWindow` bounds it to
    /// the most recently stored matches (``ObjectGraph/FetchRequest/searchWindow``). The
    /// context must have no unsaved changes. Call on `context`'s queue.
    ///
    /// ```swift
    /// try ItemOrder.forEachPage(matching: unread, in: context) { page in for item in page { print(item.title ?? "") } }
    /// ```
    public static func forEachPage(
        matching predicate: ObjectPredicate? = nil, searchText: String? = nil, limit: Int? = nil, pageSize: Int = 500,
        timeLimit: Duration? = nil, searchWindow: Int? = nil, in context: ManagedObjectContext,
        _ body: ([FeedItem]) throws -> Void
    ) throws {
        func matching(_ condition: ObjectPredicate) -> ObjectPredicate {
            predicate.map { $0 && condition } ?? condition
        }
        func fetch(_ condition: ObjectPredicate, offset: Int = 0, limit: Int) throws -> [FeedItem] {
            var request = newestFirst(matching(condition), searchText: searchText, limit: limit, timeLimit: timeLimit)
            request.fetchOffset = offset
            return try context.fetch(request)
        }
        if searchText != nil {
            // Every page's query would gather the full-text matches again: gather their IDs
            // once (8 bytes each), newest first, and read the items a page at a time.
            var request = newestFirst(
                predicate, searchText: searchText, limit: limit, timeLimit: timeLimit, searchWindow: searchWindow)
            request.fetchBatchSize = max(1, pageSize)
            let results = try context.fetchBatched(request)
            var start = 0
            while start < results.count {
                let end = min(results.count, start + max(1, pageSize))
                try body((start..<end).map { results[$0] })
                context.reset()
                start = end
            }
            return
        }
        let sortDate = PredicateOperand.keyPath("sortDate")
        var remaining = limit ?? Int.max
        var position = DatedPosition()
        var undatedGiven = 0
        var datedDone = false
        while remaining > 0 {
            let want = min(max(1, pageSize), remaining)
            var page: [FeedItem] = []
            if !datedDone {
                page = try position.nextPage(want, beyond: .lessThan) { try fetch($0, offset: $1, limit: $2) }
                if page.count < want { datedDone = true }
            }
            if datedDone && page.count < want {
                let undated = try fetch(
                    .comparison(sortDate, .equalTo, .constant(.null)), offset: undatedGiven, limit: want - page.count)
                undatedGiven += undated.count
                page += undated
                if page.isEmpty { break }
            }
            remaining -= page.count
            try body(page)
            context.reset()
            if page.count < want { break }
        }
    }

    /// Calls `body` with every item, oldest first — the order of the lists read backwards:
    /// undated items first, then by `sortDate`, and among items of the same date the one
    /// stored earlier first — `pageSize` at a time, each page's `prefetching` relationships
    /// read with it. What a backup writes: a restore stores the items in the file's order,
    /// so items that share a date keep their order in the lists. Pages start where the last
    /// one ended, as ``forEachPage(matching:searchText:limit:pageSize:timeLimit:searchWindow:in:_:)``'s
    /// do; the context is reset after each page. Call on `context`'s queue.
    ///
    /// ```swift
    /// try ItemOrder.forEachPageOldestFirst(prefetching: ["body"], in: context) { page in write(page) }
    /// ```
    public static func forEachPageOldestFirst(
        pageSize: Int = 500, prefetching: [String] = [], in context: ManagedObjectContext,
        _ body: ([FeedItem]) throws -> Void
    ) throws {
        let want = max(1, pageSize)
        let sortDate = PredicateOperand.keyPath("sortDate")
        func fetch(_ condition: ObjectPredicate, offset: Int = 0, limit: Int) throws -> [FeedItem] {
            var request = FetchRequest<FeedItem>(
                predicate: condition,
                sortDescriptors: [ObjectSortDescriptor("sortDate"), ObjectSortDescriptor(ObjectSortDescriptor.storeOrderKey)],
                fetchLimit: limit)
            request.fetchOffset = offset
            request.relationshipKeyPathsForPrefetching = prefetching
            return try context.fetch(request)
        }
        func deliver(_ page: [FeedItem]) throws {
            guard !page.isEmpty else { return }
            try body(page)
            context.reset()
        }
        var undatedGiven = 0
        while true {
            let page = try fetch(.comparison(sortDate, .equalTo, .constant(.null)), offset: undatedGiven, limit: want)
            undatedGiven += page.count
            try deliver(page)
            if page.count < want { break }
        }
        var position = DatedPosition()
        while true {
            let page = try position.nextPage(want, beyond: .greaterThan) { try fetch($0, offset: $1, limit: $2) }
            let complete = page.count == want
            try deliver(page)
            if !complete { break }
        }
    }

    /// Where a page-by-page walk through the dated items stands: the last date given and how
    /// many items of that date were, so the next page starts there without an offset that
    /// grows with the walk. The walk's direction is the fetch's sort and `beyond`.
    struct DatedPosition {
        private var last: (date: Date, given: Int)?

        /// The next `want` dated items: the rest of the last date's, then those `beyond` it
        /// (`.lessThan` walking newest first, `.greaterThan` oldest first).
        mutating func nextPage(
            _ want: Int, beyond: ComparisonOperator,
            fetch: (_ condition: ObjectPredicate, _ offset: Int, _ limit: Int) throws -> [FeedItem]
        ) throws -> [FeedItem] {
            let sortDate = PredicateOperand.keyPath("sortDate")
            var page: [FeedItem]
            if let last {
                page = try fetch(.comparison(sortDate, .equalTo, .constant(.date(last.date))), last.given, want)
                if page.count < want {
                    page += try fetch(.comparison(sortDate, beyond, .constant(.date(last.date))), 0, want - page.count)
                }
            } else {
                page = try fetch(.comparison(sortDate, .notEqualTo, .constant(.null)), 0, want)
            }
            if let date = page.last?.sortDate {
                let sameDate = page.reversed().prefix { $0.sortDate == date }.count
                let before = last.map { $0.date == date ? $0.given : 0 } ?? 0
                last = (date, before + sameDate)
            }
            return page
        }
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
