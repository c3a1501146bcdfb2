import Foundation
import ObjectGraph

/// Search, the one implementation the reader's `/` and `zeader items --search` share:
/// every word of the text must occur (as a word prefix) in an item's title, author,
/// summary or content, ignoring case and diacritics, through the FTS5 ``SearchIndex``; the
/// matches come newest first (``ItemOrder``), so the cost follows the number of matches,
/// not of items. Other filters are checked on the matches only.
///
/// ```swift
/// let search = try ItemSearch(store: store)
/// let ids = try search.itemIDs("cafe swift", filter: try Predicate(format: "read == NO"), limit: 20, in: context)
/// ```
public struct ItemSearch: Sendable {
    public let index: SearchIndex

    /// Searches through `index`.
    ///
    /// ```swift
    /// let search = ItemSearch(index: try SearchIndex(store: store))
    /// ```
    public init(index: SearchIndex) {
        self.index = index
    }

    /// Opens the store's index (creating it, and indexing the items stored, the first time).
    ///
    /// ```swift
    /// let search = try ItemSearch(store: store)
    /// ```
    public init(store: ZeaderStore) throws(ZeaderError) {
        do {
            index = try SearchIndex(store: store)
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

    /// The IDs of the items matching `text` (and `filter`, when given), newest first, at
    /// most `limit` (nil: all). Call on `context`'s queue.
    ///
    /// ```swift
    /// let ids = try search.itemIDs("linux", in: viewContext)
    /// ```
    public func itemIDs(
        _ text: String, filter: ObjectGraph.Predicate? = nil, limit: Int? = nil, in context: ManagedObjectContext
    ) throws(ZeaderError) -> [ObjectID] {
        do {
            let matches = try index.search(text, in: context)
            guard let filter else { return limit.map { Array(matches.prefix($0)) } ?? matches }
            var kept: [ObjectID] = []
            for id in matches {
                if let limit, kept.count >= limit { break }
                guard let item = try? context.existingObject(with: id) else { continue }  // deleted since
                if try filter.evaluate(with: item) { kept.append(id) }
            }
            return kept
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

    /// Above this many matches, ``items(_:filter:limit:in:)`` reads the items in one query
    /// rather than one look-up per match.
    static let oneQueryThreshold = 256

    /// The items matching `text` (and `filter`), newest first, at most `limit`, loaded:
    /// what `zeader items --search` prints. A few matches are looked up one by one; many
    /// (a common word) are read in one newest-first query over `filter` and kept when
    /// they match, which gives the same list in the same order (``ItemOrder``).
    ///
    /// ```swift
    /// let items = try search.items("linux", filter: nil, limit: 10, in: context)
    /// ```
    public func items(
        _ text: String, filter: ObjectGraph.Predicate? = nil, limit: Int? = nil, in context: ManagedObjectContext
    ) throws(ZeaderError) -> [FeedItem] {
        do {
            let matches = try index.search(text, in: context)
            var items: [FeedItem] = []
            if matches.count <= Self.oneQueryThreshold {
                for id in matches {
                    if let limit, items.count >= limit { break }
                    guard let item = (try? context.existingObject(with: id)) as? FeedItem else { continue }
                    if try filter?.evaluate(with: item) ?? true { items.append(item) }
                }
            } else {
                let keys = Set(matches.compactMap(\.primaryKey))
                for item in try ItemOrder.items(matching: filter, in: context) {
                    if let limit, items.count >= limit { break }
                    if let key = item.objectID.primaryKey, keys.contains(key) { items.append(item) }
                }
            }
            return items
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }
}
