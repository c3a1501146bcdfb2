import Foundation
import ObjectGraph

/// Search, the one implementation the reader's `/` and `zeader items --search` share:
/// every word of the text must start a word of an item's title, author, summary or body (the
/// plain text of its content, or of its full article: ``FeedItemBody/text``), each word in
/// any of them, ignoring case and diacritics; words in double quotes are a phrase, matched
/// whole and in that order (``FullTextSearch``). Items whose title is exactly the text
/// (ignoring case, diacritics, quotes and spacing) come first — those among the
/// ``exactTitleWindow`` most recently stored matches, so that the look-up costs the same in
/// a store of any size — then the others. The words are looked up in the full-text
/// index the model declares on FeedItem (``ZeaderModel/searchIndex``, kept by ObjectGraph
/// with triggers, so items any process stored are found), other filters apply in the same
/// query, and the matches come newest first (``ItemOrder``): the cost follows the number of
/// matches, not of items. Text without words (`"--"`) matches nothing.
///
/// Results include the context's unsaved changes, matched by the same rules in memory.
///
/// ```swift
/// let ids = try ItemSearch.itemIDs("cafe swift", filter: try ObjectPredicate(format: "read == NO"), limit: 20, in: context)
/// ```
public enum ItemSearch {
    /// The IDs of the items matching `text` (and `filter`, when given), newest first, at
    /// most `limit` (nil: all). Reads IDs only. Call on `context`'s queue.
    ///
    /// ```swift
    /// let ids = try ItemSearch.itemIDs("linux", in: viewContext)
    /// ```
    public static func itemIDs(
        _ text: String, filter: ObjectPredicate? = nil, limit: Int? = nil, timeLimit: Duration? = nil,
        in context: ManagedObjectContext
    ) throws(ZeaderError) -> [ObjectID] {
        do {
            let matches: [ObjectID] = try context.fetchObjectIDs(
                ItemOrder.newestFirst(filter, searchText: text, limit: limit, timeLimit: timeLimit))
            guard let exact = exactTitle(text) else { return matches }
            let titled: [ObjectID] = try context.fetchObjectIDs(
                ItemOrder.newestFirst(
                    .and([filter, exact].compactMap { $0 }), searchText: text, limit: nil, timeLimit: timeLimit,
                    searchWindow: exactTitleWindow))
            return firstThenRest(titled, matches, limit: limit)
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
        _ text: String, filter: ObjectPredicate? = nil, limit: Int? = nil, timeLimit: Duration? = nil,
        in context: ManagedObjectContext
    ) throws(ZeaderError) -> [FeedItem] {
        do {
            let matches: [FeedItem] = try context.fetch(
                ItemOrder.newestFirst(filter, searchText: text, limit: limit, timeLimit: timeLimit))
            guard let exact = exactTitle(text) else { return matches }
            let titled: [FeedItem] = try context.fetch(
                ItemOrder.newestFirst(
                    .and([filter, exact].compactMap { $0 }), searchText: text, limit: nil, timeLimit: timeLimit,
                    searchWindow: exactTitleWindow))
            return firstThenRest(titled, matches, by: \.objectID, limit: limit)
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

    /// How many of the most recently stored matches are looked at for exact titles: without
    /// a bound, a word in a quarter of a million items had every match read for its title.
    /// Each is read from its row (2,000 rows spread over a store of a million items for a
    /// rare word): the full-text index cannot narrow them, as no full-text query holds for
    /// every title equal to a text ignoring case and diacritics. Of the 2,573 non-ASCII
    /// scalars that fold to ASCII letters, digits or nothing, the index's tokenizer takes
    /// 2,058 otherwise: most are combining marks that fold to nothing but split a word in
    /// two in the index (U+0305) or stay in it (U+07FD), the rest `ß`, `ı`, `ǡ` and ligatures.
    public static let exactTitleWindow = 2_000

    /// The predicate of an exact title match for `text`: its words (quotes dropped) joined
    /// by single spaces, compared ignoring case and diacritics; nil when it has no words.
    static func exactTitle(_ text: String) -> ObjectPredicate? {
        let title = text.replacingOccurrences(of: "\"", with: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard FullTextSearch.matchExpression(for: title) != nil else { return nil }
        return try? ObjectPredicate(format: "title ==[cd] %@", title)
    }

    /// `first`, then the elements of `rest` not in it, at most `limit` in all.
    static func firstThenRest<T>(_ first: [T], _ rest: [T], limit: Int?) -> [T] where T: Hashable {
        firstThenRest(first, rest, by: \.self, limit: limit)
    }

    /// `first`, then the elements of `rest` whose `key` is not in it, at most `limit` in all.
    static func firstThenRest<T, K: Hashable>(_ first: [T], _ rest: [T], by key: KeyPath<T, K>, limit: Int?) -> [T] {
        guard !first.isEmpty else { return rest }
        let seen = Set(first.map { $0[keyPath: key] })
        let all = first + rest.filter { !seen.contains($0[keyPath: key]) }
        guard let limit, limit > 0 else { return all }
        return Array(all.prefix(limit))
    }
}
