import Feeds
import Foundation

/// The Google Reader API as a ``SyncService``: each operation one or a few of its requests.
///
/// ```swift
/// let service: any SyncService = GReaderClient(apiURL: url, token: token, fetcher: fetcher)
/// try await service.mark(.starred, true, ids: [7])
/// ```
extension GReaderClient: SyncService {
    static let readingList = "user/-/state/com.google/reading-list"
    static let starredList = "user/-/state/com.google/starred"

    /// `subscription/list`, as the engine reads it.
    public func subscriptions() async throws(SyncError) -> [SyncSubscription] {
        try await subscriptionList().map {
            SyncSubscription(id: $0.id, title: $0.title, url: $0.url, siteURL: $0.htmlUrl, labels: $0.labels)
        }
    }

    /// `subscription/quickadd`.
    public func subscribe(url: String) async throws(SyncError) -> String {
        try await quickAdd(url)
    }

    /// `subscription/edit` with action `unsubscribe`.
    public func unsubscribe(_ feedID: String) async throws(SyncError) {
        try await editSubscription(feedID, action: "unsubscribe")
    }

    /// `subscription/edit` with a new title.
    public func rename(_ feedID: String, title: String) async throws(SyncError) {
        try await editSubscription(feedID, action: "edit", title: title)
    }

    /// `subscription/edit` with labels added and removed (``editLabels(_:title:add:remove:)``).
    public func move(_ feedID: String, title: String?, add: [String], remove: [String]) async throws(SyncError) {
        try await editLabels(feedID, title: title, add: add, remove: remove)
    }

    /// `stream/items/ids` of the reading list since the second the item `newest` arrived:
    /// FreshRSS's ids are that time in microseconds; other servers' counters give a time
    /// in 1970, so every item (the engine skips those it has).
    public func newItemIDs(after newest: UInt64?) async throws(SyncError) -> [UInt64] {
        try await itemIDs(stream: Self.readingList, newerThan: newest.map { Int64($0 / 1_000_000) })
    }

    /// `stream/items/ids` of the unread or starred items, or a feed's; the whole list in
    /// large pages where the server allows it.
    public func itemIDs(_ list: SyncItemList) async throws(SyncError) -> [UInt64] {
        switch list {
        case .unread: return try await itemIDs(stream: Self.readingList, excludeRead: true, pageSize: 100_000)
        case .starred: return try await itemIDs(stream: Self.starredList, pageSize: 100_000)
        case .feed(let stream): return try await itemIDs(stream: stream)
        }
    }

    /// One page of `stream/items/ids` of the feed.
    public func newestItemIDs(feed feedID: String, count: Int) async throws(SyncError) -> [UInt64] {
        try await newestItemIDs(stream: feedID, count: count)
    }

    /// `stream/items/contents`.
    public func items(_ ids: [UInt64]) async throws(SyncError) -> [SyncItem] {
        try await items(ids.map { String($0) }).compactMap(\.syncItem)
    }

    /// `edit-tag`.
    public func mark(_ state: SyncItemState, _ on: Bool, ids: [UInt64]) async throws(SyncError) {
        try await setState(state == .read ? .read : .starred, on, ids: ids.map { String($0) })
    }

    /// `edit-tag` with the label `user/-/label/NAME`.
    public func setLabel(_ label: String, _ on: Bool, ids: [UInt64]) async throws(SyncError) {
        try await setItemLabel(label, on, ids: ids.map { String($0) })
    }

    /// `mark-all-as-read` of the feed, or of the reading list.
    public func markAllRead(feed feedID: String?, olderThan: UInt64) async throws(SyncError) {
        try await markAllAsRead(stream: feedID ?? Self.readingList, olderThan: olderThan)
    }
}

extension GReaderClient.Item {
    /// The item as the engine stores it; nil when its id is no number. Dates out of range
    /// are no dates (``DateBounds``).
    ///
    /// ```swift
    /// let item = GReaderClient.Item(id: "7").syncItem   // id 7
    /// ```
    public var syncItem: SyncItem? {
        guard let id = GReaderClient.number(id) else { return nil }
        return SyncItem(
            id: id, feedID: origin?.streamId, guid: guid, title: title, link: link, author: author,
            html: content?.content ?? summary?.content,
            published: published.flatMap { DateBounds.date(secondsSince1970: TimeInterval($0)) },
            updated: updated.flatMap { DateBounds.date(secondsSince1970: TimeInterval($0)) },
            isRead: isRead, isStarred: isStarred, categories: categories ?? [])
    }
}
