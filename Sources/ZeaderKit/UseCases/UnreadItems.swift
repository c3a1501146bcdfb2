import ObjectGraph

/// Unread items across the whole store: the reader's random-unread.
///
/// ```swift
/// if let id = try UnreadItems.random(in: context) { … }
/// ```
public enum UnreadItems {
    /// A random unread item, nil when everything is read: one count and one fetch at a random
    /// offset (the read index), never a pass over the items. On `context`'s queue.
    ///
    /// ```swift
    /// let next = try UnreadItems.random(in: context)
    /// ```
    public static func random(in context: ManagedObjectContext) throws -> ObjectID? {
        let unread = ObjectPredicate.comparison(.keyPath("read"), .equalTo, .constant(.bool(false)))
        let count = try context.count(for: FetchRequest<FeedItem>(predicate: unread))
        guard count > 0 else { return nil }
        var request = FetchRequest<FeedItem>(predicate: unread)
        request.fetchOffset = Int.random(in: 0..<count)
        request.fetchLimit = 1
        return try context.fetchObjectIDs(request).first
    }
}
