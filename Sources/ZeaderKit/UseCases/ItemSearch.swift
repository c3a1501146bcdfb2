import Foundation
import ObjectGraph

/// Search, the one implementation the reader's `/` and `zeader items --search` share:
/// every word of the text must start a word of an item's title, author or summary (its
/// plain text), ignoring case and diacritics. The words are looked up in the full-text
/// index the model declares on FeedItem (``ZeaderModel/searchIndex``, kept by ObjectGraph
/// with triggers, so items any process stored are found), other filters apply in the same
/// query, and the matches come newest first (``ItemOrder``): the cost follows the number of
/// matches, not of items. Text without words (`"--"`) matches nothing.
///
/// Results include the context's unsaved changes, matched by the same rules in memory.
///
/// ```swift
/// let ids = try ItemSearch.itemIDs("cafe swift", filter: try Predicate(format: "read == NO"), limit: 20, in: context)
/// ```
public enum ItemSearch {
    /// The IDs of the items matching `text` (and `filter`, when given), newest first, at
    /// most `limit` (nil: all). Reads IDs only. Call on `context`'s queue.
    ///
    /// ```swift
    /// let ids = try ItemSearch.itemIDs("linux", in: viewContext)
    /// ```
    public static func itemIDs(
        _ text: String, filter: ObjectGraph.Predicate? = nil, limit: Int? = nil, timeLimit: Duration? = nil,
        in context: ManagedObjectContext
    ) throws(ZeaderError) -> [ObjectID] {
        do {
            return try context.fetchObjectIDs(
                ItemOrder.newestFirst(filter, searchText: text, limit: limit, timeLimit: timeLimit))
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

    /// The items matching `text` (and `filter`), newest first, at most `limit`, read in one
    /// query: what `zeader items --search` prints. `timeLimit` bounds the query (give one
    /// when the user wrote `filter`: ``UserPredicate/timeLimit``).
    ///
    /// ```swift
    /// let items = try ItemSearch.items("linux", filter: nil, limit: 10, in: context)
    /// ```
    public static func items(
        _ text: String, filter: ObjectGraph.Predicate? = nil, limit: Int? = nil, timeLimit: Duration? = nil,
        in context: ManagedObjectContext
    ) throws(ZeaderError) -> [FeedItem] {
        do {
            return try context.fetch(
                ItemOrder.newestFirst(filter, searchText: text, limit: limit, timeLimit: timeLimit))
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }
}
