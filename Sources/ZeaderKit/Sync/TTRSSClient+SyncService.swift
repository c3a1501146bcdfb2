import Feeds
import Foundation

/// Tiny Tiny RSS's JSON API as a ``SyncService``. Feeds are `feed/ID` (TT-RSS's feed ids),
/// items its article ids; a feed's category is its one label. What the API has no call for
/// (renaming a feed, filing it in another category) is refused with
/// ``SyncError/unsupported(service:_:)``; marking a feed read up to a time is pushed item by
/// item (`catchupFeed` marks everything, newer items included).
///
/// ```swift
/// let service: any SyncService = TTRSSClient(apiURL: url, token: token, fetcher: fetcher)
/// try await service.mark(.starred, true, ids: [7])
/// ```
extension TTRSSClient: SyncService {
    /// `getFeeds` of every category (`cat_id` -3), and `getCategories` for the titles when a
    /// feed is in one.
    public func subscriptions() async throws(SyncError) -> [SyncSubscription] {
        let feeds = try Self.required(await call("getFeeds", ["cat_id": -3], as: [Feed].self), op: "getFeeds")
        var titles: [UInt64: String] = [:]
        if feeds.contains(where: { ($0.categoryID ?? 0) > 0 }) {
            let categories = try Self.required(await call("getCategories", as: [Category].self), op: "getCategories")
            for category in categories {
                if let id = category.id, let title = category.title { titles[id] = HTMLText.plainText(title) }
            }
        }
        return feeds.compactMap { feed in
            guard let id = feed.id else { return nil }
            let label = feed.categoryID.flatMap { titles[$0] }.flatMap { $0.isEmpty ? nil : $0 }
            return SyncSubscription(id: "feed/\(id)", title: feed.title, url: feed.url, labels: label.map { [$0] } ?? [])
        }
    }

    /// `subscribeToFeed`; the server fetches the feed first and refuses one it cannot read.
    public func subscribe(url: String) async throws(SyncError) -> String {
        let answer = try Self.required(
            await call("subscribeToFeed", ["feed_url": url], as: SubscribeContent.self), op: "subscribeToFeed")
        let status = answer.status
        switch status?.code?.value {
        case 0, 1:
            guard let id = status?.feedID?.value, id > 0 else {
                throw .badResponse(request: "subscribeToFeed", reason: "no feed_id", service: .ttrss)
            }
            return "feed/\(id)"
        case 2: throw .badResponse(request: "subscribeToFeed", reason: "the server took \(url) for no URL", service: .ttrss)
        case 3: throw .badResponse(request: "subscribeToFeed", reason: "the server found no feed at \(url)", service: .ttrss)
        case 4:
            throw .badResponse(request: "subscribeToFeed", reason: "the server found several feeds at \(url)", service: .ttrss)
        default:
            let message = status?.message.map { ": " + HTMLText.plainText($0).prefix(120) } ?? ""
            throw .badResponse(request: "subscribeToFeed", reason: "the server could not fetch \(url)\(message)", service: .ttrss)
        }
    }

    /// `unsubscribeFeed`; a feed the server no longer has is gone already.
    public func unsubscribe(_ feedID: String) async throws(SyncError) {
        guard let feed = FeverClient.number(feedID) else { return }
        switch try await call("unsubscribeFeed", ["feed_id": feed], as: ErrorContent.self) {
        case .success: return
        case .failure(let error) where error.name == "FEED_NOT_FOUND": return
        case .failure(let error): throw .badResponse(request: "unsubscribeFeed", reason: Self.errorReason(error), service: .ttrss)
        }
    }

    public func rename(_ feedID: String, title: String) async throws(SyncError) {
        throw .unsupported(service: .ttrss, .rename)
    }

    public func move(_ feedID: String, title: String?, add: [String], remove: [String]) async throws(SyncError) {
        throw .unsupported(service: .ttrss, .move)
    }

    /// Every article after `newest` (`since_id`); the first pages with their contents (up to
    /// ``SyncItem/listedBudget``), kept for ``items(_:)``, which then makes no request for
    /// them. The pages after those come without contents and are read for their ids only:
    /// ``items(_:)`` asks for those again, so their contents are decoded once. The ids are
    /// returned in ascending order, as Fever lists them: TT-RSS lists newest first across
    /// feeds, but numbers a feed's new articles together, so in that order each save of the
    /// engine holds few feeds' items and looks up few feeds.
    public func newItemIDs(after newest: UInt64?) async throws(SyncError) -> [UInt64] {
        var ids: [UInt64] = []
        var kept = ListedItems()
        let parameters: [String: any Sendable] = ["feed_id": -4, "view_mode": "all_articles", "since_id": newest ?? 0]
        try await pageHeadlines(parameters, contents: { !kept.isFull }) { page in
            for item in page {
                ids.append(item.id)
                if !kept.isFull { kept.keep(item) }  // once full, the pages come without contents
            }
        }
        state.withLock { $0.cached = kept }
        return ids.sorted()
    }

    /// The unread articles (`view_mode` unread of all feeds), the starred ones (the Starred
    /// feed, -1) or a feed's, 200 a request, each page read for its ids only.
    public func itemIDs(_ list: SyncItemList) async throws(SyncError) -> [UInt64] {
        let parameters: [String: any Sendable]
        switch list {
        case .unread: parameters = ["feed_id": -4, "view_mode": "unread"]
        case .starred: parameters = ["feed_id": -1, "view_mode": "all_articles"]
        case .feed(let feedID):
            guard let feed = FeverClient.number(feedID) else { return [] }
            parameters = ["feed_id": feed, "view_mode": "all_articles"]
        }
        var ids: [UInt64] = []
        try await pageHeadlines(parameters) { page in ids += page.map(\.id) }
        return ids
    }

    /// The feed's newest articles (TT-RSS lists newest first), one request.
    public func newestItemIDs(feed feedID: String, count: Int) async throws(SyncError) -> [UInt64] {
        guard let feed = FeverClient.number(feedID), count > 0 else { return [] }
        let parameters: [String: any Sendable] = [
            "feed_id": feed, "view_mode": "all_articles", "limit": min(count, Self.pageSize),
        ]
        let rows = try Self.required(await call("getHeadlines", parameters, as: [Headline].self), op: "getHeadlines")
        let now = Date()
        return Array(rows.compactMap { Self.syncItem($0, now: now)?.id }.sorted(by: >).prefix(count))
    }

    /// The items kept by ``newItemIDs(after:)``, the others by `getArticle`, 100 a request.
    public func items(_ ids: [UInt64]) async throws(SyncError) -> [SyncItem] {
        var found: [SyncItem] = []
        var missing: [UInt64] = []
        state.withLock { state in
            for id in ids {
                if let item = state.cached.take(id) { found.append(item) } else { missing.append(id) }
            }
        }
        let now = Date()
        for start in stride(from: 0, to: missing.count, by: Self.articlesPerRequest) {
            let chunk = missing[start..<min(start + Self.articlesPerRequest, missing.count)]
            let wanted = Set(chunk)
            let rows = try Self.required(
                await call("getArticle", ["article_id": chunk.map { String($0) }.joined(separator: ",")], as: [Headline].self),
                op: "getArticle")
            found += rows.compactMap { Self.syncItem($0, now: now) }.filter { wanted.contains($0.id) }
        }
        return found
    }

    /// `updateArticle`: `field` 2 (unread) or 0 (starred), `mode` 1 sets it, 0 clears it;
    /// 200 articles a request.
    public func mark(_ itemState: SyncItemState, _ on: Bool, ids: [UInt64]) async throws(SyncError) {
        let (field, mode) =
            switch itemState {
            case .read: (2, on ? 0 : 1)
            case .starred: (0, on ? 1 : 0)
            }
        for start in stride(from: 0, to: ids.count, by: Self.pageSize) {
            let chunk = ids[start..<min(start + Self.pageSize, ids.count)]
            let parameters: [String: any Sendable] = [
                "article_ids": chunk.map { String($0) }.joined(separator: ","), "field": field, "mode": mode,
            ]
            _ = try Self.required(await call("updateArticle", parameters, as: ErrorContent.self), op: "updateArticle")
        }
    }

    /// TT-RSS's API sets only labels made beforehand in its preferences (`setArticleLabel`
    /// takes a label's id, and no call makes one): refused, the tags staying here.
    public func setLabel(_ label: String, _ on: Bool, ids: [UInt64]) async throws(SyncError) {
        throw .unsupported(service: .ttrss, .tagItems)
    }

    /// TT-RSS's `catchupFeed` marks a feed read whatever the items' age (newer items too):
    /// refused, so that the engine pushes the items read here one by one.
    public func markAllRead(feed feedID: String?, olderThan: UInt64) async throws(SyncError) {
        throw .server(status: 400, request: "catchupFeed")
    }

    // MARK: - Paging

    /// Pages through `getHeadlines` with `parameters` (`skip` 0, 200, …) until a page is not
    /// full, calling `page` with each page's items, each id once; a page asked while `contents`
    /// holds comes with the articles' contents (`show_content`), the others are read for their
    /// ids and feeds only (their items hold nothing else). A full page with no new id, too
    /// many pages or ids are ``SyncError/pagination(request:_:)`` errors.
    func pageHeadlines(
        _ parameters: [String: any Sendable], contents: () -> Bool = { false }, _ page: ([SyncItem]) -> Void
    ) async throws(SyncError) {
        var seen = Set<UInt64>()
        var skip = 0
        var pages = 0
        let now = Date()
        while true {
            pages += 1
            guard pages <= limits.maxPages else {
                throw .pagination(request: "getHeadlines", .tooManyPages(limit: limits.maxPages))
            }
            var request = parameters
            request["limit"] = Self.pageSize
            request["skip"] = skip
            let withContents = contents()
            if withContents { request["show_content"] = true }
            let rows = try Self.required(
                await call("getHeadlines", request, as: [Headline].self, idsOnly: !withContents), op: "getHeadlines")
            let items = rows.compactMap { Self.syncItem($0, now: now) }.filter { seen.insert($0.id).inserted }
            guard seen.count <= limits.maxIDs else {
                throw .pagination(request: "getHeadlines", .tooManyIDs(limit: limits.maxIDs))
            }
            if !items.isEmpty { page(items) }
            if rows.count < Self.pageSize { return }
            guard !items.isEmpty else { throw .pagination(request: "getHeadlines", .repeatedContinuation("skip=\(skip)")) }
            skip += rows.count
        }
    }

    /// The content of a call that has to succeed; an error the server named is a bad answer.
    static func required<Content>(_ answer: Result<Content, ServerError>, op: String) throws(SyncError) -> Content {
        switch answer {
        case .success(let content): return content
        case .failure(let error): throw .badResponse(request: op, reason: errorReason(error), service: .ttrss)
        }
    }
}
