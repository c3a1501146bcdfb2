import Feeds
import Foundation

/// The Fever API as a ``SyncService``. What Fever has no call for (subscribe, unsubscribe,
/// rename, filing in folders) is refused with ``SyncError/unsupported(service:_:)``; the
/// engine keeps such a change here and says so in one line.
///
/// ```swift
/// let service: any SyncService = FeverClient(apiURL: url, apiKey: key, fetcher: fetcher)
/// try await service.mark(.read, true, ids: [7])
/// ```
extension FeverClient: SyncService {
    /// `feeds` and `groups` in one request: each feed with the titles of its groups as labels.
    public func subscriptions() async throws(SyncError) -> [SyncSubscription] {
        let answer = try await call([("feeds", ""), ("groups", "")], request: "feeds")
        var titles: [UInt64: String] = [:]
        for group in answer.groups ?? [] {
            if let id = group.id.value, let title = group.title { titles[id] = HTMLText.plainText(title) }
        }
        var labels: [UInt64: [String]] = [:]
        for entry in answer.feedsGroups ?? [] {
            guard let group = entry.groupID.value, let title = titles[group], !title.isEmpty else { continue }
            for feed in (entry.feedIDs ?? "").split(separator: ",").compactMap({ UInt64($0) }) {
                labels[feed, default: []].append(title)
            }
        }
        return (answer.feeds ?? []).compactMap { feed in
            guard let id = feed.id.value else { return nil }
            return SyncSubscription(
                id: "feed/\(id)", title: feed.title, url: feed.url, siteURL: feed.siteURL, labels: labels[id] ?? [])
        }
    }

    public func subscribe(url: String) async throws(SyncError) -> String {
        throw .unsupported(service: .fever, .subscribe)
    }

    public func unsubscribe(_ feedID: String) async throws(SyncError) {
        throw .unsupported(service: .fever, .unsubscribe)
    }

    public func rename(_ feedID: String, title: String) async throws(SyncError) {
        throw .unsupported(service: .fever, .rename)
    }

    public func move(_ feedID: String, title: String?, add: [String], remove: [String]) async throws(SyncError) {
        throw .unsupported(service: .fever, .move)
    }

    /// Pages through `items` after `newest`: Fever lists items, not ids. The first pages'
    /// items (up to ``SyncItem/listedBudget``) are kept for ``items(_:)``, which then makes no
    /// request for them.
    public func newItemIDs(after newest: UInt64?) async throws(SyncError) -> [UInt64] {
        var ids: [UInt64] = []
        var kept = ListedItems()
        try await pageItems(since: newest ?? 0, feed: nil) { page in
            for item in page {
                ids.append(item.id)
                if !kept.isFull { kept.keep(item) }
            }
        }
        state.withLock { $0.cached = kept }
        return ids
    }

    /// `unread_item_ids` or `saved_item_ids` (one request each); a feed's ids by paging
    /// through its items.
    public func itemIDs(_ list: SyncItemList) async throws(SyncError) -> [UInt64] {
        switch list {
        case .unread:
            return try idList(
                try await call([("unread_item_ids", "")], request: "unread_item_ids").unreadItemIDs, request: "unread_item_ids")
        case .starred:
            return try idList(
                try await call([("saved_item_ids", "")], request: "saved_item_ids").savedItemIDs, request: "saved_item_ids")
        case .feed(let feedID):
            guard let feed = Self.number(feedID) else { return [] }
            var ids: [UInt64] = []
            try await pageItems(since: 0, feed: feed) { page in ids += page.map(\.id) }
            return ids
        }
    }

    /// `items` of the feed below the highest id: its newest 50 at most.
    public func newestItemIDs(feed feedID: String, count: Int) async throws(SyncError) -> [UInt64] {
        guard let feed = Self.number(feedID) else { return [] }
        let query = [("items", ""), ("feed_ids", String(feed)), ("max_id", String(UInt64(Int64.max)))]
        let now = Date()
        let items = (try await call(query, request: "items").items ?? []).compactMap { Self.syncItem($0, now: now) }
        return Array(items.map(\.id).sorted(by: >).prefix(count))
    }

    /// The items kept by ``newItemIDs(after:)``, the others by `with_ids`, 50 a request.
    public func items(_ ids: [UInt64]) async throws(SyncError) -> [SyncItem] {
        var found: [SyncItem] = []
        var missing: [UInt64] = []
        state.withLock { state in
            for id in ids {
                if let item = state.cached.take(id) { found.append(item) } else { missing.append(id) }
            }
        }
        let now = Date()
        for start in stride(from: 0, to: missing.count, by: Self.pageSize) {
            let chunk = missing[start..<min(start + Self.pageSize, missing.count)]
            let query = [("items", ""), ("with_ids", chunk.map { String($0) }.joined(separator: ","))]
            let wanted = Set(chunk)
            found += (try await call(query, request: "items").items ?? []).compactMap { Self.syncItem($0, now: now) }
                .filter { wanted.contains($0.id) }
        }
        return found
    }

    /// `mark=item`, one request per item: Fever marks one item at a time.
    public func mark(_ itemState: SyncItemState, _ on: Bool, ids: [UInt64]) async throws(SyncError) {
        let action =
            switch itemState {
            case .read: on ? "read" : "unread"
            case .starred: on ? "saved" : "unsaved"
            }
        for id in ids {
            _ = try await call([("mark", "item"), ("as", action), ("id", String(id))], request: "mark item \(action)")
        }
    }

    /// Fever keeps no labels on items: refused.
    public func setLabel(_ label: String, _ on: Bool, ids: [UInt64]) async throws(SyncError) {
        throw .unsupported(service: .fever, .tagItems)
    }

    /// `mark=feed` (or `mark=group` with id 0: everything) `as=read` up to `before`, in
    /// seconds: rounded up, so that every item read here up to `olderThan` is covered.
    public func markAllRead(feed feedID: String?, olderThan: UInt64) async throws(SyncError) {
        let before = String(olderThan / 1_000_000 + (olderThan % 1_000_000 == 0 ? 0 : 1))
        if let feedID {
            guard let feed = Self.number(feedID) else { throw .server(status: 400, request: "mark feed read") }
            _ = try await call(
                [("mark", "feed"), ("as", "read"), ("id", String(feed)), ("before", before)], request: "mark feed read")
        } else {
            _ = try await call([("mark", "group"), ("as", "read"), ("id", "0"), ("before", before)], request: "mark group read")
        }
    }

    /// `feed/12` → 12.
    static func number(_ feedID: String) -> UInt64? {
        UInt64(feedID.hasPrefix("feed/") ? String(feedID.dropFirst(5)) : feedID)
    }
}
