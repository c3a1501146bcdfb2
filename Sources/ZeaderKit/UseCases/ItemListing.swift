import Foundation
import ObjectGraph

/// How an item list is sorted: newsboat's `article-sort-order` fields that Zeader's items
/// have (`date`, `title`, `author`, `feed`, `flags`, `link`, `guid`), ascending or descending.
///
/// ```swift
/// let order = try ItemSortOrder(newsboat: "title-desc")
/// ```
public struct ItemSortOrder: Equatable, Sendable {
    public enum Field: String, CaseIterable, Sendable {
        case date, title, author, feed, flags, link, guid

        /// The store key sorted on.
        var key: String {
            switch self {
            case .date: return "sortDate"
            case .title: return "title"
            case .author: return "author"
            case .feed: return "server.title"
            case .flags: return "flagged"
            case .link: return "link"
            case .guid: return "guid"
            }
        }
    }

    public var field: Field
    public var ascending: Bool

    /// Newest first: the order of every list unless the user picks another.
    public static let newestFirst = ItemSortOrder(field: .date, ascending: false)

    public init(field: Field, ascending: Bool) {
        self.field = field
        self.ascending = ascending
    }

    /// The field's usual direction (dates newest first, the rest A to Z), as newsboat has it.
    public init(field: Field) { self.init(field: field, ascending: field != .date) }

    /// Parses newsboat's `<field>[-asc|-desc]`; throws a message listing the fields.
    public init(newsboat text: String) throws(ZeaderError) {
        let parts = text.split(separator: "-", maxSplits: 1).map(String.init)
        guard let first = parts.first, let field = Field(rawValue: first.lowercased()) else {
            throw ZeaderError.unknownSortField(text)
        }
        self.init(field: field)
        if parts.count == 2 {
            switch parts[1].lowercased() {
            case "asc": ascending = true
            case "desc": ascending = false
            default: throw ZeaderError.unknownSortDirection(parts[1], order: text)
            }
        }
    }

    /// `title`, `date-asc`: the form ``init(newsboat:)`` reads, shown on the status line.
    public var name: String {
        ascending == Self(field: field).ascending ? field.rawValue : field.rawValue + (ascending ? "-asc" : "-desc")
    }

    var sortDescriptors: [ObjectSortDescriptor] {
        var descriptors = [ObjectSortDescriptor(field.key, ascending: ascending)]
        if field != .date { descriptors.append(ObjectSortDescriptor("sortDate", ascending: false)) }
        return descriptors
    }
}

/// An item list as the reader shows it: the items of a feed, a smart feed or a search,
/// optionally only the unread ones, narrowed by a filter predicate (the `--where`
/// language), in a chosen order, one page at a time if asked. One SQL query (the
/// foreign-key, read and full-text indexes do the narrowing); items of the same date come
/// in the order they were stored. (The plain newest-first list of a feed, unfiltered, is
/// ``ItemOrder``'s.)
///
/// ```swift
/// let ids = try ItemListing.itemIDs(
///     ItemListing.Query(base: try ObjectPredicate(format: "server == %@", id), unreadOnly: true, order: .newestFirst), in: context)
/// ```
public enum ItemListing {
    public struct Query: Sendable {
        /// The list's own items (a feed's, a smart feed's); nil: every item.
        public var base: ObjectPredicate?
        /// Search text (``ItemSearch``'s rules); nil: no search.
        public var searchText: String?
        public var unreadOnly: Bool
        /// The user's filter, already parsed.
        public var filter: ObjectPredicate?
        public var order: ItemSortOrder

        public init(
            base: ObjectPredicate? = nil, searchText: String? = nil, unreadOnly: Bool = false,
            filter: ObjectPredicate? = nil, order: ItemSortOrder = .newestFirst
        ) {
            self.base = base
            self.searchText = searchText
            self.unreadOnly = unreadOnly
            self.filter = filter
            self.order = order
        }

        var predicate: ObjectPredicate? {
            var parts: [ObjectPredicate] = []
            if let base { parts.append(base) }
            if unreadOnly { parts.append(.comparison(.keyPath("read"), .equalTo, .constant(.bool(false)))) }
            if let filter { parts.append(filter) }
            return parts.isEmpty ? nil : parts.count == 1 ? parts[0] : .and(parts)
        }
    }

    /// The IDs of the query's items in its order, at most `limit` (nil: all): the first
    /// `limit` are always the start of the whole list, so a list can show its first screen at
    /// once and load the rest when the cursor gets near it. Call on `context`'s queue.
    /// `timeLimit` bounds the query (give ``UserPredicate/timeLimit`` for a predicate the user wrote).
    ///
    /// ```swift
    /// let firstPage = try ItemListing.itemIDs(.init(unreadOnly: true), limit: 1000, in: viewContext)
    /// ```
    public static func itemIDs(
        _ query: Query, limit: Int? = nil, timeLimit: Duration? = nil, in context: ManagedObjectContext
    ) throws(ZeaderError) -> [ObjectID] {
        do {
            var request = FetchRequest<FeedItem>(
                predicate: query.predicate, sortDescriptors: query.order.sortDescriptors, timeLimit: timeLimit)
            request.searchText = query.searchText
            if let limit { request.fetchLimit = max(1, limit) }
            return try context.fetchObjectIDs(request)
        } catch {
            throw FeedLibrary.predicateError(error)
        }
    }
}
