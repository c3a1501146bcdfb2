import Feeds
import Foundation

// Item ids: `stream/items/ids`, bounded, each id checked where it enters.
extension GReaderClient {
    /// How far a paginated list may go: a server that repeats a continuation, or never ends,
    /// gets a ``SyncError/pagination(request:_:)`` error, never a loop or memory without bound.
    ///
    /// ```swift
    /// client.pagination = .init(maxPages: 100, maxIDs: 50_000)
    /// ```
    public struct PaginationLimits: Sendable, Equatable {
        /// Pages of one list.
        public var maxPages = 10_000
        /// Item ids in one list (8 bytes each, twice: the list and the set that de-duplicates it).
        public var maxIDs = 2_000_000
        /// Bytes of one continuation token (every token of a list is kept to find a cycle).
        public var maxContinuationBytes = 1024

        /// The limits; the defaults hold any real account's lists.
        public init(maxPages: Int = 10_000, maxIDs: Int = 2_000_000, maxContinuationBytes: Int = 1024) {
            self.maxPages = maxPages
            self.maxIDs = maxIDs
            self.maxContinuationBytes = maxContinuationBytes
        }
    }

    /// `stream/items/ids` of `stream`, following continuations: every item id once, as a
    /// number (8 bytes each, where a decimal string of 16 digits costs a heap allocation; an
    /// id in neither the decimal nor the long hex form, or out of ``isPlausibleItemID(_:now:)``'s
    /// range, is left out). `newerThan` (seconds) keeps items the server got since then;
    /// `excludeRead` only unread ones. The pages are bounded by `limits`: a repeated
    /// continuation, too many pages or ids end it with ``SyncError/pagination(request:_:)``.
    ///
    /// ```swift
    /// let unread = try await client.itemIDs(stream: "user/-/state/com.google/reading-list", excludeRead: true)
    /// ```
    public func itemIDs(
        stream: String, newerThan: Int64? = nil, excludeRead: Bool = false, pageSize: Int = 10_000,
        limits: PaginationLimits = PaginationLimits()
    )
        async throws(SyncError) -> [UInt64]
    {
        let request = "stream/items/ids"
        let ceiling = Self.itemIDCeiling(now: Date())
        var ids: [UInt64] = []
        var seen = Set<UInt64>()
        var tokens = Set<String>()
        var continuation: String?
        var pages = 0
        repeat {
            pages += 1
            guard pages <= limits.maxPages else { throw .pagination(request: request, .tooManyPages(limit: limits.maxPages)) }
            var query = [("s", stream), ("n", String(pageSize))]
            if let newerThan { query.append(("ot", String(newerThan))) }
            if excludeRead { query.append(("xt", State.read.rawValue)) }
            if let continuation { query.append(("c", continuation)) }
            let data = try await get("reader/api/0/stream/items/ids", query)
            // One more than the ids left to take: enough to know the list goes past the cap.
            let room = limits.maxIDs - seen.count + 1
            guard let page = ItemRefScanner.scan(data, keepingAtMost: room, ceiling: ceiling) else {
                throw .badResponse(request: request, reason: "not a JSON list of item ids")
            }
            let count = ids.count
            for id in page.ids where seen.insert(id).inserted { ids.append(id) }
            if seen.count > limits.maxIDs || page.overflowed {
                throw .pagination(request: request, .tooManyIDs(limit: limits.maxIDs))
            }
            let next = page.continuation.flatMap { $0.isEmpty ? nil : $0 }
            if let next {
                guard next.utf8.count <= limits.maxContinuationBytes else {
                    throw .pagination(request: request, .continuationTooLong(limit: limits.maxContinuationBytes))
                }
                guard tokens.insert(next).inserted else { throw .pagination(request: request, .repeatedContinuation(next)) }
            }
            // A page that adds nothing new ends the list, whatever continuation it gives.
            continuation = ids.count == count ? nil : next
        } while continuation != nil
        return ids
    }

    /// The ids of `stream`'s newest `count` items, one page (no continuation followed), as
    /// ``itemIDs(stream:newerThan:excludeRead:pageSize:limits:)`` checks them.
    ///
    /// ```swift
    /// let newest = try await client.newestItemIDs(stream: "feed/12", count: 100)
    /// ```
    public func newestItemIDs(stream: String, count: Int) async throws(SyncError) -> [UInt64] {
        let data = try await get("reader/api/0/stream/items/ids", [("s", stream), ("n", String(count))])
        guard let page = ItemRefScanner.scan(data, keepingAtMost: count, ceiling: Self.itemIDCeiling(now: Date())) else {
            throw .badResponse(request: "stream/items/ids", reason: "not a JSON list of item ids")
        }
        return page.ids
    }

    /// The largest item id a real server gives at `now`: FreshRSS's ids are the microsecond
    /// time an item arrived, other servers' (Miniflux, Inoreader) counters far below that.
    /// A day's slack covers clocks that disagree.
    static func itemIDCeiling(now: Date) -> UInt64 {
        UInt64(max(0, now.timeIntervalSince1970 + 86_400) * 1_000_000)
    }

    /// Whether `id` is in the range real servers use at `now` (1 up to ``itemIDCeiling(now:)``):
    /// an id beyond it would stand as the newest item pulled and hide every later one.
    ///
    /// ```swift
    /// GReaderClient.isPlausibleItemID(1_733_000_000_000_000, now: Date())   // true
    /// GReaderClient.isPlausibleItemID(UInt64.max, now: Date())              // false
    /// ```
    public static func isPlausibleItemID(_ id: UInt64, now: Date) -> Bool {
        id >= 1 && id <= itemIDCeiling(now: now)
    }
}
