import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// The lists as the views shape them: hidden read items, sort order and filter
/// (``ItemListing``), the feed list's filter, and unread items across feeds for `n`, `p`
/// and random-unread.
extension ReaderModel {
    /// The items of `source` as `views` and `filter` (a FeedItem predicate) shape them.
    /// The plain list (all items, newest first, no filter) is ``itemIDs(_:)``.
    ///
    /// ```swift
    /// let ids = try model.itemIDs(.server(id), views: state.views, filter: "title CONTAINS[c] \"swift\"")
    /// ```
    public func itemIDs(_ source: ItemSource, views: ViewOptions, filter: String?, limit: Int? = nil) throws -> [ObjectID] {
        if Self.isPlain(views, filter: filter) { return try itemIDs(source) }
        var query = ItemListing.Query(unreadOnly: !views.showReadArticles, order: views.itemOrder)
        if let filter { query.filter = try Self.itemPredicate(filter) }
        switch source {
        case .server(let id): query.base = try ObjectPredicate(format: "server == %@", id)
        case .smart(let format): query.base = try ZeaderModel.itemPredicate(format: format)
        case .search(let text): query.searchText = text
        case .feedSearch(let text, let id):
            query.base = try ObjectPredicate(format: "server == %@", id)
            query.searchText = text
        }
        return try ItemListing.itemIDs(query, limit: limit, timeLimit: UserPredicate.timeLimit, in: context)
    }

    /// Whether the list is the plain one (every item, newest first, no filter), read whole.
    static func isPlain(_ views: ViewOptions, filter: String?) -> Bool {
        views.showReadArticles && views.itemOrder == .newestFirst && filter == nil
    }

    /// The first `atLeast` (or more) items of a list shaped by `views` and `filter`, and
    /// whether that is all of them: a sorted or filtered list of 100,000 items shows its
    /// first screen without reading every ID (``ItemListing``, a page at a time).
    func itemPage(
        _ source: ItemSource, views: ViewOptions, filter: String?, atLeast: Int
    ) throws -> (ids: [ObjectID], complete: Bool) {
        if Self.isPlain(views, filter: filter) { return (try itemIDs(source), true) }
        let page = max(atLeast, 1000)
        var ids = try itemIDs(source, views: views, filter: filter, limit: page + 1)
        let complete = ids.count <= page
        if !complete { ids.removeLast() }
        return (ids, complete)
    }

    /// Parses a predicate the user typed for items, with the message `--where` gives.
    static func itemPredicate(_ format: String) throws(ZeaderError) -> ObjectPredicate {
        do { return try ZeaderModel.itemPredicate(format: format) } catch { throw .invalidPredicate(error.description) }
    }

    /// The subscriptions matching a Server predicate (`unreadCount > 10`, `url CONTAINS "github"`).
    ///
    /// ```swift
    /// let ids = try model.serverIDs(matching: "title BEGINSWITH[c] \"s\"")
    /// ```
    public func serverIDs(matching format: String) throws -> Set<ObjectID> {
        try FeedFilter.serverIDs(matching: format, in: context)
    }

    /// The first unread item of `ids` from `start` going `forward` (or backward), reading
    /// the rows' read flags one by one (they are in memory or one primary-key read each).
    func firstUnread(in ids: [ObjectID], from start: Int, forward: Bool) -> Int? {
        if forward {
            guard start < ids.count else { return nil }
            return (max(0, start)..<ids.count).first { !isRead(ids[$0]) }
        }
        guard start >= 0, !ids.isEmpty else { return nil }
        return (0...min(start, ids.count - 1)).reversed().first { !isRead(ids[$0]) }
    }

    /// A random unread item of the whole store, or nil when everything is read: one count
    /// and one fetch at a random offset (the read index), never a pass over the items.
    ///
    /// ```swift
    /// if let id = try model.randomUnreadItem() { … }
    /// ```
    public func randomUnreadItem() throws -> ObjectID? { try UnreadItems.random(in: context) }

    /// The feed (subscription) an item belongs to.
    func serverID(ofItem id: ObjectID) -> ObjectID? { item(id)?.server?.objectID }

    /// The tags of every subscription with how many feeds carry each, sorted by name.
    func tagCounts() throws -> [(tag: String, feeds: Int)] {
        var counts: [String: Int] = [:]
        for server in try FeedEditing.servers(in: context) {
            for tag in FeedTags.list(server.tags) { counts[tag, default: 0] += 1 }
        }
        return counts.sorted { $0.key.localizedCaseInsensitiveCompare($1.key) == .orderedAscending }.map { ($0.key, $0.value) }
    }
}
