import ObjectGraph

/// The subscriptions a Server predicate the user wrote matches (`unreadCount > 10`,
/// `url CONTAINS "github"`, or newsboat's `unread_count > 10`): the reader's feed-list filter.
///
/// ```swift
/// let ids = try FeedFilter.serverIDs(matching: "title BEGINSWITH[c] \"s\"", in: context)
/// ```
public enum FeedFilter {
    /// The IDs of the subscriptions `format` matches. A predicate that does not parse, or that
    /// the store cannot run (a key Server lacks), is ``ZeaderError/invalidPredicate(_:)``; the
    /// query is bounded by ``UserPredicate/timeLimit``. On `context`'s queue.
    ///
    /// ```swift
    /// let busy = try FeedFilter.serverIDs(matching: "unreadCount > 10", in: context)
    /// ```
    public static func serverIDs(matching format: String, in context: ManagedObjectContext) throws(ZeaderError)
        -> Set<ObjectID>
    {
        let predicate = try ZeaderModel.serverPredicate(format: format)
        do {
            return Set(
                try context.fetchObjectIDs(FetchRequest<Server>(predicate: predicate, timeLimit: UserPredicate.timeLimit)))
        } catch {
            throw .invalidPredicate(error.description)
        }
    }
}
