import Foundation
import ObjectGraph

/// Smart feeds: saved predicates over FeedItem in the ObjectGraph format language, listed
/// with the feeds with live counts. One implementation for `zeader add --smart` and the
/// reader's feed list (stored smart feeds and those of the config file). Call on
/// `context`'s queue.
///
/// ```swift
/// try SmartFeeds.add(title: "Swift", predicate: "read == NO AND title CONTAINS[cd] \"swift\"", in: context)
/// let (unread, total) = try SmartFeeds.counts(of: "title CONTAINS[cd] \"swift\"", in: context)
/// ```
public enum SmartFeeds {
    /// Checks a smart feed's predicate against FeedItem: syntax, keys and types.
    ///
    /// ```swift
    /// try SmartFeeds.validate("read == NO")
    /// ```
    public static func validate(_ format: String) throws(ZeaderError) {
        do {
            let predicate = try ZeaderModel.itemPredicate(format: format)
            try predicate.validate(for: try ZeaderModel.current.entity(named: "FeedItem"), in: ZeaderModel.current)
        } catch {
            throw ZeaderError.invalidSmartPredicate(String(describing: error))
        }
    }

    /// Saves a smart feed, last in the list; the predicate is checked first and the title
    /// must be new. The caller saves.
    ///
    /// ```swift
    /// try SmartFeeds.add(title: "Unread", predicate: "read == NO", in: context)
    /// ```
    @discardableResult
    public static func add(title: String, predicate format: String, in context: ManagedObjectContext) throws -> SmartFeed {
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw ZeaderError.smartFeedNeedsTitle }
        try validate(format)
        if try SmartFeed.findFirst(byAttribute: "title", value: .string(title), in: context) != nil {
            throw ZeaderError.smartFeedExists(title)
        }
        let smart = context.insert(SmartFeed.self)
        smart.title = title
        smart.predicateFormat = format
        let last = try SmartFeed.findFirst(where: .true, sortedBy: "displayOrder", ascending: false, in: context)
        smart.displayOrder = (last?.displayOrder ?? -1) + 1
        return smart
    }

    /// The stored smart feeds in their order.
    ///
    /// ```swift
    /// for smart in try SmartFeeds.stored(in: context) { print(smart.title) }
    /// ```
    public static func stored(in context: ManagedObjectContext) throws -> [SmartFeed] {
        try context.fetch(FetchRequest<SmartFeed>(sortDescriptors: [ObjectSortDescriptor("displayOrder")]))
    }

    /// How many items match `format`, and how many of those are unread, from counts the
    /// store keeps (``counts(of:in:forgettingOthers:)``).
    ///
    /// ```swift
    /// let (unread, total) = try SmartFeeds.counts(of: "flagged == YES", in: context)
    /// ```
    public static func counts(of format: String, in context: ManagedObjectContext) throws -> (unread: Int, total: Int) {
        try counts(of: [format], in: context)[0].get()
    }

    /// For each smart feed's predicate, how many items match it and how many of those are
    /// unread (or why it could not be counted). The counts are kept in the store and brought
    /// up to date by the items changed since the last call (``ObjectGraph/ManagedObjectContext/keptCounts(of:matching:timeLimit:forgettingOthers:)``),
    /// so the reader's start and each change cost the changed items, not a count over every
    /// item; a new smart feed is counted once. Each count stops past
    /// ``UserPredicate/timeLimit``. `forgettingOthers` stops keeping the counts of predicates
    /// not in `formats` (the reader passes its whole list).
    ///
    /// ```swift
    /// for result in try SmartFeeds.counts(of: ["flagged == YES", "read == NO"], in: context) {
    ///     if case .success(let (unread, total)) = result { print(unread, total) }
    /// }
    /// ```
    public static func counts(of formats: [String], in context: ManagedObjectContext, forgettingOthers: Bool = false)
        throws -> [Result<(unread: Int, total: Int), any Error>]
    {
        var results: [Result<(unread: Int, total: Int), any Error>?] = []
        var predicates: [ObjectPredicate] = []
        var positions: [Int] = []
        let unread = ObjectPredicate.comparison(.keyPath("read"), .equalTo, .constant(.bool(false)))
        for format in formats {
            do {
                let predicate = try ZeaderModel.itemPredicate(format: format)
                positions.append(results.count)
                results.append(nil)
                predicates += [predicate, predicate && unread]
            } catch {
                results.append(.failure(error))
            }
        }
        let kept = try context.keptCounts(
            of: "FeedItem", matching: predicates, timeLimit: UserPredicate.timeLimit, forgettingOthers: forgettingOthers)
        for (n, position) in positions.enumerated() {
            switch (kept.counts[2 * n], kept.counts[2 * n + 1]) {
            case (.success(let total), .success(let unread)): results[position] = .success((unread, total))
            case (.failure(let error), _), (_, .failure(let error)): results[position] = .failure(error)
            }
        }
        return results.map { $0! }
    }
}

/// Queries built from a predicate the user wrote (`--where`, a smart feed) get a time limit:
/// a costly pattern (`title MATCHES "(a|aa)+…"`) is stopped instead of holding the store or
/// the reader for minutes. Every other query runs to its end (ObjectGraph sets no limit by
/// default, so that `items --json` of a million items is never cut short).
///
/// ```swift
/// let ids = try ItemOrder.itemIDs(matching: smart, timeLimit: UserPredicate.timeLimit, in: context)
/// ```
public enum UserPredicate {
    /// How long a query with a user-written predicate may run.
    public static let timeLimit: Duration = .seconds(10)
}
