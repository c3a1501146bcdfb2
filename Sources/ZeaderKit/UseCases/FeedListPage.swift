import ObjectGraph

/// The first screen of the feed list without the rest: the subscriptions one screen shows, in
/// an order SQL can give, with the whole list's size, unread total and largest item count from
/// the stored counts (three aggregates), so that a long list opens as fast as a short one.
///
/// ```swift
/// if let page = try FeedListPage.first(rows: 22, showRead: true, order: FeedEditing.order, in: context) {
///     print(page.servers.count, page.count, page.unread)
/// }
/// ```
public enum FeedListPage {
    /// One screen of subscriptions and the figures of the whole list.
    public struct Page {
        /// The first subscriptions in the order asked for, at most the rows asked for.
        public var servers: [Server]
        /// Subscriptions in the whole list (read ones only when shown).
        public var count: Int
        /// Unread items over those subscriptions.
        public var unread: Int
        /// Their largest item count.
        public var maxTotal: Int
    }

    /// The first `rows` subscriptions in `order` (read ones left out unless `showRead`, hidden
    /// ones always: ``FeedTags/isHidden(_:)``) and the
    /// whole list's figures; nil when the list fits in `rows`, so that the caller reads it
    /// whole. On `context`'s queue.
    ///
    /// ```swift
    /// let page = try FeedListPage.first(rows: 40, showRead: false, order: FeedEditing.order, in: context)
    /// ```
    public static func first(
        rows: Int, showRead: Bool, order: [ObjectSortDescriptor], in context: ManagedObjectContext
    ) throws -> Page? {
        let visible = FeedTags.visiblePredicate
        let shown = showRead ? visible : visible && ObjectPredicate.comparison("unreadCount", .greaterThan, 0)
        let count = try context.count(for: FetchRequest<Server>(predicate: shown))
        guard count > rows else { return nil }
        var request = FetchRequest<Server>(predicate: shown, sortDescriptors: order)
        request.fetchLimit = rows
        let all = FetchRequest<Server>(predicate: shown)
        return Page(
            servers: try context.fetch(request), count: count,
            unread: int(try context.aggregate(.sum, of: "unreadCount", for: all)),
            maxTotal: int(try context.aggregate(.max, of: "totalCount", for: all)))
    }

    private static func int(_ value: Value) -> Int { value.numericValue.map { Int($0) } ?? 0 }
}
