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
        try context.fetch(FetchRequest<SmartFeed>(sortDescriptors: [SortDescriptor("displayOrder")]))
    }

    /// How many items match `format`, and how many of those are unread: two SQL counts
    /// (which may scan every item), each stopped past ``UserPredicate/timeLimit``.
    ///
    /// ```swift
    /// let (unread, total) = try SmartFeeds.counts(of: "flagged == YES", in: context)
    /// ```
    public static func counts(of format: String, in context: ManagedObjectContext) throws -> (unread: Int, total: Int) {
        let predicate = try ZeaderModel.itemPredicate(format: format)
        let total = try context.count(
            for: FetchRequest<FeedItem>(predicate: predicate, timeLimit: UserPredicate.timeLimit))
        let unread = try context.count(
            for: FetchRequest<FeedItem>(
                predicate: predicate && .comparison(.keyPath("read"), .equalTo, .constant(.bool(false))),
                timeLimit: UserPredicate.timeLimit))
        return (unread, total)
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
