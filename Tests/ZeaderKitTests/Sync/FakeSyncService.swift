import Feeds
import Foundation
import Synchronization

@testable import ZeaderKit

/// A sync service held in memory: the engine's rules (queue, push, pull, conflicts) tested
/// without a server. Item ids are arrival times in microseconds, as FreshRSS gives them.
/// Any operation can be made to fail once (``failing(at:)``), as a server stopping mid-sync.
///
/// ```swift
/// let service = FakeSyncService()
/// let feed = service.addFeed(url: "http://a.example/feed.xml", title: "A")
/// service.addItem(to: feed, title: "Hello")
/// let sync = FeedSync(store: store, service: { _, _ in service })
/// ```
final class FakeSyncService: SyncService {
    /// The operations, named as the failures and the call log name them.
    enum Operation: String, CaseIterable, Sendable {
        case subscriptions, subscribe, unsubscribe, rename, move, newItemIDs, itemIDs, newestItemIDs, items, mark
        case markAllRead, setLabel
    }

    struct Feed: Sendable, Equatable {
        var id: String
        var url: String
        var title: String
        var labels: [String]
    }

    struct State: Sendable {
        var feeds: [Feed] = []
        var items: [UInt64: SyncItem] = [:]
        var nextItemID: UInt64 = UInt64(Date().timeIntervalSince1970 - 100_000) * 1_000_000
        var nextFeed = 1
        var requests = 0
        var calls: [Operation] = []
        /// The call (counted from 1 across every operation) that fails, and how.
        var failAt: Int?
        var failure: SyncError = FakeSyncService.serverAway
        /// Operations the service lacks: refused with HTTP 400, as a server without the call.
        var lacking: Set<Operation> = []
        /// URLs the service cannot fetch: subscribing is refused.
        var unfetchable: Set<String> = []
        /// Labels on items refused as this protocol refuses them (``SyncError/unsupported(service:_:)``), when set.
        var refusesLabels: SyncServiceKind?
        /// Renames and folders refused as this protocol refuses them (Fever, TT-RSS), when set.
        var refusesFeedEdits: SyncServiceKind?
        /// Items every `items` answer holds besides those asked for (a server answering with more).
        var answersAlso: [UInt64] = []
    }

    let state = Mutex(State())

    /// The failure of a server that stopped answering.
    static let serverAway = SyncError.unreachable(
        .timedOut(url: URL(string: "http://127.0.0.1:1/api")!, seconds: 30, kind: .idle))

    var requestCount: Int { state.withLock { $0.requests } }
    var calls: [Operation] { state.withLock { $0.calls } }
    var feeds: [Feed] { state.withLock { $0.feeds } }
    var items: [SyncItem] { state.withLock { $0.items.values.sorted { $0.id < $1.id } } }

    /// Makes the `call`-th call from now fail with `failure`, then work again.
    func failing(at call: Int, with failure: SyncError = FakeSyncService.serverAway) {
        state.withLock {
            $0.failAt = $0.calls.count + call
            $0.failure = failure
        }
    }

    @discardableResult
    func addFeed(url: String, title: String, labels: [String] = []) -> String {
        state.withLock {
            let id = "feed/\($0.nextFeed)"
            $0.nextFeed += 1
            $0.feeds.append(Feed(id: id, url: url, title: title, labels: labels))
            return id
        }
    }

    @discardableResult
    func addItem(
        to feed: String, title: String, link: String? = nil, published: Date? = nil, updated: Date? = nil,
        read: Bool = false, starred: Bool = false
    ) -> UInt64 {
        state.withLock {
            $0.nextItemID += 1_000
            let id = $0.nextItemID
            $0.items[id] = SyncItem(
                id: id, feedID: feed, title: title, link: link, html: "<p>\(title)</p>", published: published,
                updated: updated, isRead: read, isStarred: starred)
            return id
        }
    }

    func update(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }

    func item(_ id: UInt64) -> SyncItem? { state.withLock { $0.items[id] } }

    /// Counts the call, and throws when it is the one set to fail or the service lacks it.
    private func call(_ operation: Operation) throws(SyncError) {
        let failure: SyncError? = state.withLock {
            $0.requests += 1
            $0.calls.append(operation)
            if $0.lacking.contains(operation) { return .server(status: 400, request: operation.rawValue) }
            guard $0.failAt == $0.calls.count else { return nil }
            $0.failAt = nil
            return $0.failure
        }
        if let failure { throw failure }
    }

    // MARK: - SyncService

    func subscriptions() async throws(SyncError) -> [SyncSubscription] {
        try call(.subscriptions)
        return feeds.map { SyncSubscription(id: $0.id, title: $0.title, url: $0.url, labels: $0.labels) }
    }

    func subscribe(url: String) async throws(SyncError) -> String {
        try call(.subscribe)
        if state.withLock({ $0.unfetchable.contains(url) }) {
            throw .badResponse(request: "subscribe \(url)", reason: "HTTP 404")
        }
        if let known = feeds.first(where: { $0.url == url }) { return known.id }
        return addFeed(url: url, title: url)
    }

    func unsubscribe(_ feedID: String) async throws(SyncError) {
        try call(.unsubscribe)
        state.withLock { state in
            state.feeds.removeAll { $0.id == feedID }
            state.items = state.items.filter { $0.value.feedID != feedID }
        }
    }

    func rename(_ feedID: String, title: String) async throws(SyncError) {
        try call(.rename)
        if let service = state.withLock({ $0.refusesFeedEdits }) { throw .unsupported(service: service, .rename) }
        state.withLock { state in
            for index in state.feeds.indices where state.feeds[index].id == feedID { state.feeds[index].title = title }
        }
    }

    func move(_ feedID: String, title: String?, add: [String], remove: [String]) async throws(SyncError) {
        try call(.move)
        if let service = state.withLock({ $0.refusesFeedEdits }) { throw .unsupported(service: service, .move) }
        state.withLock { state in
            for index in state.feeds.indices where state.feeds[index].id == feedID {
                if let title { state.feeds[index].title = title }
                state.feeds[index].labels.removeAll { remove.contains($0) }
                for label in add where !state.feeds[index].labels.contains(label) {
                    state.feeds[index].labels.append(label)
                }
            }
        }
    }

    func newItemIDs(after newest: UInt64?) async throws(SyncError) -> [UInt64] {
        try call(.newItemIDs)
        return items.map(\.id).filter { $0 > (newest ?? 0) }
    }

    func itemIDs(_ list: SyncItemList) async throws(SyncError) -> [UInt64] {
        try call(.itemIDs)
        let all = items
        switch list {
        case .unread: return all.filter { !$0.isRead }.map(\.id)
        case .starred: return all.filter(\.isStarred).map(\.id)
        case .feed(let feed): return all.filter { $0.feedID == feed }.map(\.id)
        }
    }

    func newestItemIDs(feed feedID: String, count: Int) async throws(SyncError) -> [UInt64] {
        try call(.newestItemIDs)
        return Array(items.filter { $0.feedID == feedID }.map(\.id).reversed().prefix(count))
    }

    func items(_ ids: [UInt64]) async throws(SyncError) -> [SyncItem] {
        try call(.items)
        return state.withLock { state in (ids + state.answersAlso).compactMap { state.items[$0] } }
    }

    func mark(_ itemState: SyncItemState, _ on: Bool, ids: [UInt64]) async throws(SyncError) {
        try call(.mark)
        state.withLock { state in
            for id in ids where state.items[id] != nil {
                switch itemState {
                case .read: state.items[id]?.isRead = on
                case .starred: state.items[id]?.isStarred = on
                }
            }
        }
    }

    /// Labels on items kept as the Google Reader API lists them, among the item's categories.
    func setLabel(_ label: String, _ on: Bool, ids: [UInt64]) async throws(SyncError) {
        try call(.setLabel)
        if let service = state.withLock({ $0.refusesLabels }) { throw .unsupported(service: service, .tagItems) }
        let category = "user/-/label/" + label
        state.withLock { state in
            for id in ids where state.items[id] != nil {
                state.items[id]?.categories.removeAll { $0 == category }
                if on { state.items[id]?.categories.append(category) }
            }
        }
    }

    func markAllRead(feed feedID: String?, olderThan: UInt64) async throws(SyncError) {
        try call(.markAllRead)
        state.withLock { state in
            for (id, item) in state.items where id <= olderThan && (feedID == nil || item.feedID == feedID) {
                state.items[id]?.isRead = true
            }
        }
    }
}
