import Foundation

/// Fetches written with key paths (see ``KeyPathPredicate``); like the other finders, each
/// uses ``PersistentContainer/default``'s view context when no context is given.
///
/// ```swift
/// let unread = try FeedItem.fetch(where: \.read == false, sortedBy: \.published, ascending: false, in: context)
/// ```
extension ManagedObjectFinders where Self: ManagedObject {
    /// The objects matching `predicate`, in the order of `sortDescriptors`, at most `limit` of
    /// them (0: all).
    ///
    /// ```swift
    /// let items = try FeedItem.fetch(where: \.server?.title == "Swift", sortedBy: [ObjectSortDescriptor(\FeedItem.title)], in: context)
    /// ```
    public static func fetch(
        where predicate: KeyPathPredicate<Self> = .true, sortedBy sortDescriptors: [ObjectSortDescriptor] = [], limit: Int = 0,
        in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> [Self] {
        try resolveContext(context).fetch(
            FetchRequest<Self>(where: predicate, sortDescriptors: sortDescriptors, fetchLimit: limit))
    }

    /// The objects matching `predicate`, sorted by one property.
    ///
    /// ```swift
    /// let newest = try FeedItem.fetch(where: \.read == false, sortedBy: \.published, ascending: false, limit: 20, in: context)
    /// ```
    public static func fetch<V>(
        where predicate: KeyPathPredicate<Self> = .true, sortedBy keyPath: KeyPath<Self, V>, ascending: Bool = true,
        limit: Int = 0, in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> [Self] {
        try fetch(where: predicate, sortedBy: [ObjectSortDescriptor(keyPath, ascending: ascending)], limit: limit, in: context)
    }

    /// The first object matching `predicate` in the given order, or nil.
    ///
    /// ```swift
    /// let oldestUnread = try FeedItem.fetchFirst(where: \.read == false, sortedBy: [ObjectSortDescriptor(\FeedItem.published)], in: context)
    /// ```
    public static func fetchFirst(
        where predicate: KeyPathPredicate<Self> = .true, sortedBy sortDescriptors: [ObjectSortDescriptor] = [],
        in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> Self? {
        try fetch(where: predicate, sortedBy: sortDescriptors, limit: 1, in: context).first
    }

    /// How many objects match `predicate`.
    ///
    /// ```swift
    /// let unread = try FeedItem.count(where: \.read == false, in: context)
    /// ```
    public static func count(where predicate: KeyPathPredicate<Self>, in context: ManagedObjectContext? = nil)
        throws(ObjectGraphError) -> Int
    {
        try resolveContext(context).count(for: FetchRequest<Self>(where: predicate))
    }
}
