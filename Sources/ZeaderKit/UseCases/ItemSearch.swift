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
    /// most `limit` (nil: all). Call on `context`'s queue. Checking `filter` on the matches
    /// stops past `timeLimit` (give one when the user wrote it: ``UserPredicate/timeLimit``).
    ///
    /// ```swift
    /// let ids = try search.itemIDs("linux", in: viewContext)
    /// ```
    public func itemIDs(
        _ text: String, filter: ObjectGraph.Predicate? = nil, limit: Int? = nil, timeLimit: Duration? = nil,
        in context: ManagedObjectContext
    ) throws(ZeaderError) -> [ObjectID] {
        do {
            let matches = try index.search(text, in: context)
            guard let filter else { return limit.map { Array(matches.prefix($0)) } ?? matches }
            let deadline = timeLimit.map { ContinuousClock.now.advanced(by: $0) }
            var kept: [ObjectID] = []
            for id in matches {
                if let limit, kept.count >= limit { break }
                guard let item = try? context.existingObject(with: id) else { continue }  // deleted since
                var remaining: Duration?
                if let deadline, let timeLimit {
                    remaining = deadline - ContinuousClock.now
                    if remaining! <= .zero {
                        throw ObjectGraphError.timeLimitExceeded(entity: "FeedItem", seconds: Self.seconds(timeLimit))
                    }
                }
                do {
                    if try filter.evaluate(with: item, timeLimit: remaining) { kept.append(id) }
                } catch ObjectGraphError.timeLimitExceeded {
                    throw ObjectGraphError.timeLimitExceeded(entity: "FeedItem", seconds: Self.seconds(timeLimit ?? .zero))
                }
            }
            return kept
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
