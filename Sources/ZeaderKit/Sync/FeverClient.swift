import Feeds
import Foundation
import Synchronization

/// A client of the Fever API (FreshRSS's `/api/fever.php`, Miniflux, Tiny Tiny RSS's plugin)
/// over the libcurl fetcher: every request a POST of `api_key` (``FeverAPIKey``) to
/// `fever.php?api&…`, answered with one JSON object whose `auth` says whether the key was
/// taken. Fever reads and marks items and lists feeds and groups; it cannot subscribe,
/// unsubscribe, rename or file feeds (``SyncError/unsupported(service:_:)``).
///
/// ```swift
/// let key = try await FeverClient.login(apiURL: url, user: "alice", password: pw, fetcher: fetcher)
/// let client = FeverClient(apiURL: url, apiKey: key, fetcher: fetcher)
/// let feeds = try await client.subscriptions()
/// ```
public final class FeverClient: Sendable {
    /// The API's URL (`…/api/fever.php`), without a trailing slash.
    public let apiURL: String
    let apiKey: String
    let fetcher: FeedFetcher
    /// Bounds on the lists the server sends (its pages of items, its id lists).
    let limits: GReaderClient.PaginationLimits
    let state = Mutex<(requests: Int, cached: ListedItems)>((0, ListedItems()))

    /// How many HTTP requests this client has made.
    public var requestCount: Int { state.withLock { $0.requests } }

    /// Items Fever gives per page (`items` answers at most 50).
    static let pageSize = 50

    /// A client that sends `apiKey` (from ``login(apiURL:user:password:fetcher:)``).
    public init(
        apiURL: String, apiKey: String, fetcher: FeedFetcher, limits: GReaderClient.PaginationLimits = .init()
    ) {
        self.apiURL = GReaderClient.normalizedBase(apiURL)
        self.apiKey = apiKey
        self.fetcher = fetcher
        self.limits = limits
    }

    /// Checks the key of `user` with `password` with one request and returns it.
    ///
    /// ```swift
    /// let key = try await FeverClient.login(apiURL: url, user: "alice", password: pw, fetcher: fetcher)
    /// ```
    public static func login(apiURL: String, user: String, password: String, fetcher: FeedFetcher) async throws(SyncError)
        -> String
    {
        try GReaderClient.checkAPIURL(apiURL)
        let key = FeverAPIKey.make(user: user, password: password)
        let client = FeverClient(apiURL: apiURL, apiKey: key, fetcher: fetcher)
        do throws(SyncError) {
            _ = try await client.call([], request: "api")
        } catch {
            switch error {
            case .tokenRejected: throw .loginRefused(user: user, url: client.apiURL)
            case .badResponse: throw .notTheAPI(url: client.apiURL, saw: "an answer without Fever's JSON")
            case .server(let status, _) where GReaderClient.notAnEndpoint.contains(status):
                throw .notTheAPI(url: client.apiURL, saw: "HTTP \(status)")
            default: throw error
            }
        }
        return key
    }

    // MARK: - Requests

    /// The parts of an answer the client reads; every key optional.
    struct Answer: Decodable {
        var auth: Int?
        var feeds: [Feed]?
        var groups: [Group]?
        var feedsGroups: [FeedsGroup]?
        var items: [Item]?
        var unreadItemIDs: String?
        var savedItemIDs: String?

        enum CodingKeys: String, CodingKey {
            case auth, feeds, groups, items
            case feedsGroups = "feeds_groups"
            case unreadItemIDs = "unread_item_ids"
            case savedItemIDs = "saved_item_ids"
        }
    }

    struct Feed: Decodable {
        var id: FeverNumber
        var title: String?
        var url: String?
        var siteURL: String?
        enum CodingKeys: String, CodingKey {
            case id, title, url
            case siteURL = "site_url"
        }
    }

    struct Group: Decodable {
        var id: FeverNumber
        var title: String?
    }

    struct FeedsGroup: Decodable {
        var groupID: FeverNumber
        var feedIDs: String?
        enum CodingKeys: String, CodingKey {
            case groupID = "group_id"
            case feedIDs = "feed_ids"
        }
    }

    struct Item: Decodable {
        var id: FeverNumber
        var feedID: FeverNumber?
        var title: String?
        var author: String?
        var html: String?
        var url: String?
        var isSaved: FeverNumber?
        var isRead: FeverNumber?
        var createdOnTime: FeverNumber?
        enum CodingKeys: String, CodingKey {
            case id, title, author, html, url
            case feedID = "feed_id"
            case isSaved = "is_saved"
            case isRead = "is_read"
            case createdOnTime = "created_on_time"
        }
    }

    /// POSTs the key to `fever.php?api&` and `query`; returns the answer, refusing one whose
    /// `auth` is not 1 (``SyncError/tokenRejected(url:)``).
    func call(_ query: [(String, String)], request: String) async throws(SyncError) -> Answer {
        let text = apiURL + "?api" + (query.isEmpty ? "" : "&" + FormBody.encode(query))
        guard let url = URL(string: text) else {
            throw .badResponse(request: request, reason: "bad URL \(text)", service: .fever)
        }
        var feedRequest = FeedRequest(url: url)
        feedRequest.formBody = FormBody.encode([("api_key", apiKey)])
        state.withLock { $0.requests += 1 }
        let body: Data
        switch await fetcher.fetch(feedRequest) {
        case .fetched(let data, _): body = data
        case .failed(.httpStatus(let status, _)) where status == 401 || status == 403: throw .tokenRejected(url: apiURL)
        case .failed(.httpStatus(let status, _)): throw .server(status: status, request: request)
        case .failed(.credentialedRedirect(_, let to)):
            throw .redirectedElsewhere(request: request, to: FetchError.origin(of: to))
        case .failed(let error): throw .unreachable(error)
        case .notModified(let metadata), .gone(let metadata): throw .server(status: metadata.status, request: request)
        case .deferred(_, let metadata): throw .server(status: metadata?.status ?? 503, request: request)
        }
        let answer = try Self.answer(body, request: request)
        guard answer.auth == 1 else { throw .tokenRejected(url: apiURL) }
        return answer
    }

    /// The answer in `body`: read from its bytes (``FeverAnswerScanner``), or, when it is not
    /// of the plain shape that reads, or `scanning` is off, decoded by JSONDecoder.
    static func answer(_ body: Data, request: String, scanning: Bool = true) throws(SyncError) -> Answer {
        if scanning, let answer = FeverAnswerScanner.scan(body) { return answer }
        do {
            return try JSONDecoder().decode(Answer.self, from: body)
        } catch {
            throw .badResponse(request: request, reason: String(describing: error).prefix(200).description, service: .fever)
        }
    }

    /// A comma-separated id list (`unread_item_ids`), each id checked as it enters
    /// (``GReaderClient/isPlausibleItemID(_:now:)``), at most `limits.maxIDs`.
    func idList(_ text: String?, request: String) throws(SyncError) -> [UInt64] {
        let ids = Self.ids(in: text ?? "", keepingAtMost: min(limits.maxIDs, Int.max - 1) + 1, now: Date())
        if ids.count > limits.maxIDs { throw .pagination(request: request, .tooManyIDs(limit: limits.maxIDs)) }
        return ids
    }

    /// The plausible ids of a comma-separated list, each part trimmed of white space, up to
    /// `keepingAtMost`. An ASCII list (a real server's, every unread item's id) is split on
    /// its bytes, which gives the parts its characters give, and a part of digits alone is
    /// read from them; any other part, or a list with other text, is read as characters.
    static func ids(in text: String, keepingAtMost: Int, now: Date) -> [UInt64] {
        let ceiling = GReaderClient.itemIDCeiling(now: now)
        var ids: [UInt64] = []
        func add(_ id: UInt64?) -> Bool {
            guard let id, id >= 1, id <= ceiling else { return true }
            ids.append(id)
            return ids.count < keepingAtMost
        }
        var text = text
        let read = text.withUTF8 { bytes -> Bool in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return false }
            for part in bytes.split(separator: UInt8(ascii: ",")) {
                let id =
                    decimal(part)
                    ?? UInt64(
                        String(decoding: UnsafeBufferPointer(rebasing: part), as: UTF8.self).trimmingCharacters(in: .whitespaces))
                guard add(id) else { break }
            }
            return true
        }
        if read { return ids }
        for part in text.split(separator: ",") {
            guard add(UInt64(part.trimmingCharacters(in: .whitespaces))) else { break }
        }
        return ids
    }

    /// The value of 1 to 19 decimal digits; nil for anything else (more digits are read as
    /// text, which knows where a UInt64 ends).
    private static func decimal(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// `item` as the engine stores it; nil when its id is out of range.
    static func syncItem(_ item: Item, now: Date) -> SyncItem? {
        guard let id = item.id.value, GReaderClient.isPlausibleItemID(id, now: now) else { return nil }
        return SyncItem(
            id: id, feedID: item.feedID?.value.map { "feed/\($0)" }, title: item.title, link: item.url,
            author: item.author.flatMap { $0.isEmpty ? nil : $0 }, html: item.html,
            published: item.createdOnTime?.value.flatMap { DateBounds.date(secondsSince1970: TimeInterval($0)) },
            isRead: item.isRead?.value == 1, isStarred: item.isSaved?.value == 1)
    }

    /// Pages through `items` from `since` on (ascending ids, 50 a page), for the feed
    /// `feed` only when given, calling `page` with each page's items. Ends on an empty page;
    /// a page that does not go past the one before, or too many, is a
    /// ``SyncError/pagination(request:_:)`` error.
    func pageItems(since: UInt64, feed: UInt64?, _ page: ([SyncItem]) -> Void) async throws(SyncError) {
        var since = since
        var pages = 0
        var count = 0
        let now = Date()
        while true {
            pages += 1
            guard pages <= limits.maxPages else { throw .pagination(request: "items", .tooManyPages(limit: limits.maxPages)) }
            var query = [("items", ""), ("since_id", String(since))]
            if let feed { query.append(("feed_ids", String(feed))) }
            let items = (try await call(query, request: "items").items ?? []).compactMap { Self.syncItem($0, now: now) }
            guard let top = items.map(\.id).max() else { return }
            guard top > since else { throw .pagination(request: "items", .repeatedContinuation(String(since))) }
            count += items.count
            if count > limits.maxIDs { throw .pagination(request: "items", .tooManyIDs(limit: limits.maxIDs)) }
            page(items)
            since = top
        }
    }
}

/// A number Fever sends as a JSON number or as a string of digits (FreshRSS sends item ids
/// as strings, feed ids as numbers).
struct FeverNumber: Decodable, Sendable {
    var value: UInt64?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(UInt64.self) {
            value = number
        } else if let text = try? container.decode(String.self) {
            value = UInt64(text)
        } else {
            value = nil
        }
    }
}
