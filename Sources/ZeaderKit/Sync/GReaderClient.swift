import Feeds
import Foundation
import Synchronization

/// A client of the Google Reader API (FreshRSS, Miniflux, Inoreader, The Old Reader,
/// BazQux) over the libcurl fetcher: ClientLogin, then every request with the header
/// `Authorization: GoogleLogin auth=TOKEN`; POSTs carry the action token `T`, fetched once.
///
/// ```swift
/// let token = try await GReaderClient.login(apiURL: url, user: "alice", password: pw, fetcher: fetcher)
/// let client = GReaderClient(apiURL: url, token: token, fetcher: fetcher)
/// let feeds = try await client.subscriptionList()
/// ```
public final class GReaderClient: Sendable {
    /// The API's base URL, without a trailing slash.
    public let apiURL: String
    let token: String
    let fetcher: FeedFetcher
    private let state = Mutex<(requests: Int, actionToken: String?)>((0, nil))

    /// How many HTTP requests this client has made.
    public var requestCount: Int { state.withLock { $0.requests } }

    /// A client that uses `token` (from ``login(apiURL:user:password:fetcher:)``).
    public init(apiURL: String, token: String, fetcher: FeedFetcher) {
        self.apiURL = Self.normalizedBase(apiURL)
        self.token = token
        self.fetcher = fetcher
    }

    /// `url` without trailing slashes.
    static func normalizedBase(_ url: String) -> String {
        var base = url.trimmingCharacters(in: .whitespacesAndNewlines)
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }

    /// Refuses an API URL that is not http or https (any case) with a host, before a password
    /// is asked for or anything is sent.
    ///
    /// ```swift
    /// try GReaderClient.checkAPIURL("https://rss.example.org/api/greader.php")
    /// ```
    public static func checkAPIURL(_ apiURL: String) throws(SyncError) {
        let base = normalizedBase(apiURL)
        guard let url = URL(string: base), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { throw .invalidAPIURL(apiURL) }
    }

    /// Logs in (`accounts/ClientLogin`) and returns the `Auth` token.
    ///
    /// ```swift
    /// let token = try await GReaderClient.login(apiURL: url, user: "alice", password: pw, fetcher: fetcher)
    /// ```
    public static func login(apiURL: String, user: String, password: String, fetcher: FeedFetcher) async throws(SyncError)
        -> String
    {
        try checkAPIURL(apiURL)
        let base = normalizedBase(apiURL)
        guard let url = URL(string: base + "/accounts/ClientLogin") else { throw .invalidAPIURL(apiURL) }
        var request = FeedRequest(url: url)
        request.formBody = FormBody.encode([("Email", user), ("Passwd", password)])
        switch await fetcher.fetch(request) {
        case .fetched(let body, let metadata):
            let text = String(decoding: body, as: UTF8.self)
            for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("Auth=") {
                let token = String(line.dropFirst(5))
                if !token.isEmpty { return token }
            }
            if looksLikeHTML(text, contentType: metadata.contentType) { throw .notTheAPI(url: base, saw: "an HTML page") }
            throw .badResponse(request: "ClientLogin", reason: "no Auth= line")
        case .failed(.httpStatus(let status, _)) where status == 401 || status == 403 || status == 400:
            throw .loginRefused(user: user, url: base)
        case .failed(.httpStatus(let status, _)) where notAnEndpoint.contains(status):
            // No ClientLogin there: a site or a path without the API.
            throw .notTheAPI(url: base, saw: "HTTP \(status)")
        case .gone(let metadata) where notAnEndpoint.contains(metadata.status):
            throw .notTheAPI(url: base, saw: "HTTP \(metadata.status)")
        case .failed(.credentialedRedirect(_, let to)):
            throw .redirectedElsewhere(request: "ClientLogin", to: FetchError.origin(of: to))
        case .failed(let error): throw .unreachable(error)
        case .notModified(let metadata), .gone(let metadata): throw .server(status: metadata.status, request: "ClientLogin")
        case .deferred(_, let metadata): throw .server(status: metadata?.status ?? 503, request: "ClientLogin")
        }
    }

    /// The statuses that say a login URL has no ClientLogin: not found, gone, method not allowed.
    static let notAnEndpoint: Set<Int> = [404, 405, 410]

    /// Whether a login answer is a web page rather than the API's `key=value` lines.
    static func looksLikeHTML(_ text: String, contentType: String?) -> Bool {
        if let contentType, contentType.lowercased().contains("html") { return true }
        let start = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.prefix(16).lowercased()
        return start.hasPrefix("<!doctype") || start.hasPrefix("<html") || start.hasPrefix("<?xml") || start.hasPrefix("<head")
            || start.hasPrefix("<!--")
    }

    // MARK: - Requests

    /// GET `path` (below the API URL) with `query`; returns the body.
    func get(_ path: String, _ query: [(String, String)] = []) async throws(SyncError) -> Data {
        try await send(path, query: query, form: nil)
    }

    /// POST `form` to `path`, with the action token added.
    func post(_ path: String, _ form: [(String, String)]) async throws(SyncError) -> Data {
        let actionToken = try await self.actionToken()
        return try await send(path, query: [], form: form + [("T", actionToken)])
    }

    private func actionToken() async throws(SyncError) -> String {
        if let known = state.withLock({ $0.actionToken }) { return known }
        let body = try await send("reader/api/0/token", query: [], form: nil)
        let value = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        state.withLock { $0.actionToken = value }
        return value
    }

    private func send(_ path: String, query: [(String, String)], form: [(String, String)]?) async throws(SyncError) -> Data {
        let text = apiURL + "/" + path + (query.isEmpty ? "" : "?" + FormBody.encode(query))
        guard let url = URL(string: text) else { throw .badResponse(request: path, reason: "bad URL \(text)") }
        var request = FeedRequest(url: url)
        request.headers = ["Authorization": "GoogleLogin auth=\(token)"]
        request.formBody = form.map(FormBody.encode)
        state.withLock { $0.requests += 1 }
        switch await fetcher.fetch(request) {
        case .fetched(let body, _): return body
        case .failed(.httpStatus(let status, _)) where status == 401 || status == 403:
            throw .tokenRejected(url: apiURL)
        case .failed(.httpStatus(let status, _)): throw .server(status: status, request: path)
        case .failed(.credentialedRedirect(_, let to)):
            throw .redirectedElsewhere(request: Self.requestName(path), to: FetchError.origin(of: to))
        case .failed(let error): throw .unreachable(error)
        case .notModified(let metadata), .gone(let metadata): throw .server(status: metadata.status, request: path)
        case .deferred(_, let metadata): throw .server(status: metadata?.status ?? 503, request: path)
        }
    }

    /// `stream/items/ids` for `reader/api/0/stream/items/ids`: the API call a message names.
    private static func requestName(_ path: String) -> String {
        path.hasPrefix("reader/api/0/") ? String(path.dropFirst("reader/api/0/".count)) : path
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ data: Data, request: String) throws(SyncError) -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw .badResponse(request: request, reason: String(describing: error).prefix(200).description)
        }
    }

    // MARK: - The API

    /// One subscription as the server lists it.
    public struct Subscription: Sendable, Decodable, Equatable {
        /// `feed/12`.
        public var id: String
        public var title: String?
        public var url: String?
        public var htmlUrl: String?
        public var categories: [Category]?

        public struct Category: Sendable, Decodable, Equatable {
            public var id: String?
            public var label: String?
        }

        /// The labels (folders) the feed is in, as text (FreshRSS sends them HTML-escaped:
        /// `R&amp;D`).
        public var labels: [String] {
            (categories ?? []).compactMap { category in
                var label = category.label ?? ""
                if label.isEmpty, let id = category.id, let range = id.range(of: "/label/") {
                    label = String(id[range.upperBound...])
                }
                let text = HTMLText.plainText(label)
                return text.isEmpty ? nil : text
            }
        }
    }

    /// `subscription/list`.
    ///
    /// ```swift
    /// for feed in try await client.subscriptionList() { print(feed.id, feed.url ?? "") }
    /// ```
    public func subscriptionList() async throws(SyncError) -> [Subscription] {
        try Self.subscriptionList(try await get("reader/api/0/subscription/list", [("output", "json")]))
    }

    /// The subscriptions of a `subscription/list` answer.
    static func subscriptionList(_ data: Data) throws(SyncError) -> [Subscription] {
        struct List: Decodable { var subscriptions: [Subscription] }
        return try decode(List.self, data, request: "subscription/list").subscriptions
    }

    /// `subscription/quickadd`: subscribes to `url`, returns the new stream id (`feed/12`).
    public func quickAdd(_ url: String) async throws(SyncError) -> String {
        struct Answer: Decodable {
            var streamId: String?
            var error: String?
        }
        let data = try await post("reader/api/0/subscription/quickadd", [("quickadd", url)])
        let answer = try Self.decode(Answer.self, data, request: "subscription/quickadd")
        guard let id = answer.streamId, !id.isEmpty else {
            throw .badResponse(request: "subscription/quickadd \(url)", reason: answer.error ?? "no stream id")
        }
        return id
    }

    /// `subscription/edit` with action `action` (`unsubscribe`, `edit`) on `streamID`.
    public func editSubscription(
        _ streamID: String, action: String, title: String? = nil, addLabel: String? = nil, removeLabel: String? = nil
    )
        async throws(SyncError)
    {
        var form = [("ac", action), ("s", streamID)]
        if let title { form.append(("t", title)) }
        if let addLabel { form.append(("a", "user/-/label/" + addLabel)) }
        if let removeLabel { form.append(("r", "user/-/label/" + removeLabel)) }
        _ = try await post("reader/api/0/subscription/edit", form)
    }

    /// `subscription/edit` (action `edit`) of `streamID`: adds the labels `add` and takes
    /// `remove` away in one request (the API takes several `a=` and `r=`), and renames it to
    /// `title` when given. The first of `add` is sent last: a server that keeps one folder
    /// per feed reads one `a=` (FreshRSS takes the last), and files the feed under it.
    ///
    /// ```swift
    /// try await client.editLabels("feed/12", add: ["apple", "tech"], remove: ["old"])
    /// ```
    public func editLabels(_ streamID: String, title: String? = nil, add: [String], remove: [String] = [])
        async throws(SyncError)
    {
        var form = [("ac", "edit"), ("s", streamID)]
        if let title { form.append(("t", title)) }
        for label in remove { form.append(("r", "user/-/label/" + label)) }
        for label in add.dropFirst() + add.prefix(1) { form.append(("a", "user/-/label/" + label)) }
        _ = try await post("reader/api/0/subscription/edit", form)
    }

    /// The state tags of `edit-tag`.
    public enum State: String, Sendable {
        case read = "user/-/state/com.google/read"
        case starred = "user/-/state/com.google/starred"
    }

    /// `edit-tag`: adds (or removes) `state` on the items `ids`.
    public func setState(_ state: State, _ on: Bool, ids: [String]) async throws(SyncError) {
        guard !ids.isEmpty else { return }
        _ = try await post("reader/api/0/edit-tag", [(on ? "a" : "r", state.rawValue)] + ids.map { ("i", $0) })
    }

    /// `mark-all-as-read`: marks read every item of `stream` (`feed/12`, or the reading list
    /// for all) that the server got up to `olderThan` (microseconds since 1970, the unit of
    /// FreshRSS's item ids), in one request however many items that is.
    ///
    /// ```swift
    /// try await client.markAllAsRead(stream: "user/-/state/com.google/reading-list", olderThan: 1_765_000_000_000_000)
    /// ```
    public func markAllAsRead(stream: String, olderThan: UInt64) async throws(SyncError) {
        _ = try await post("reader/api/0/mark-all-as-read", [("s", stream), ("ts", String(olderThan))])
    }

    /// How far a paginated list may go: a server that repeats a continuation, or never ends,
    /// gets a ``SyncError/pagination(request:_:)`` error, never a loop or memory without bound.
    ///
    /// ```swift
    /// client.pagination = .init(maxPages: 100, maxIDs: 50_000)
    /// ```
    public struct PaginationLimits: Sendable, Equatable {
        /// Pages of one list.
        public var maxPages = 10_000
        /// Item ids in one list (8 bytes each, twice: the list and the set that de-duplicates it).
        public var maxIDs = 2_000_000
        /// Bytes of one continuation token (every token of a list is kept to find a cycle).
        public var maxContinuationBytes = 1024

        /// The limits; the defaults hold any real account's lists.
        public init(maxPages: Int = 10_000, maxIDs: Int = 2_000_000, maxContinuationBytes: Int = 1024) {
            self.maxPages = maxPages
            self.maxIDs = maxIDs
            self.maxContinuationBytes = maxContinuationBytes
        }
    }

    /// `stream/items/ids` of `stream`, following continuations: every item id once, as a
    /// number (8 bytes each, where a decimal string of 16 digits costs a heap allocation; an
    /// id in neither the decimal nor the long hex form, or out of ``isPlausibleItemID(_:now:)``'s
    /// range, is left out). `newerThan` (seconds) keeps items the server got since then;
    /// `excludeRead` only unread ones. The pages are bounded by `limits`: a repeated
    /// continuation, too many pages or ids end it with ``SyncError/pagination(request:_:)``.
    ///
    /// ```swift
    /// let unread = try await client.itemIDs(stream: "user/-/state/com.google/reading-list", excludeRead: true)
    /// ```
    public func itemIDs(
        stream: String, newerThan: Int64? = nil, excludeRead: Bool = false, pageSize: Int = 10_000,
        limits: PaginationLimits = PaginationLimits()
    )
        async throws(SyncError) -> [UInt64]
    {
        let request = "stream/items/ids"
        let ceiling = Self.itemIDCeiling(now: Date())
        var ids: [UInt64] = []
        var seen = Set<UInt64>()
        var tokens = Set<String>()
        var continuation: String?
        var pages = 0
        repeat {
            pages += 1
            guard pages <= limits.maxPages else { throw .pagination(request: request, .tooManyPages(limit: limits.maxPages)) }
            var query = [("s", stream), ("n", String(pageSize))]
            if let newerThan { query.append(("ot", String(newerThan))) }
            if excludeRead { query.append(("xt", State.read.rawValue)) }
            if let continuation { query.append(("c", continuation)) }
            let data = try await get("reader/api/0/stream/items/ids", query)
            // One more than the ids left to take: enough to know the list goes past the cap.
            let room = limits.maxIDs - seen.count + 1
            guard let page = ItemRefScanner.scan(data, keepingAtMost: room, ceiling: ceiling) else {
                throw .badResponse(request: request, reason: "not a JSON list of item ids")
            }
            let count = ids.count
            for id in page.ids where seen.insert(id).inserted { ids.append(id) }
            if seen.count > limits.maxIDs || page.overflowed {
                throw .pagination(request: request, .tooManyIDs(limit: limits.maxIDs))
            }
            let next = page.continuation.flatMap { $0.isEmpty ? nil : $0 }
            if let next {
                guard next.utf8.count <= limits.maxContinuationBytes else {
                    throw .pagination(request: request, .continuationTooLong(limit: limits.maxContinuationBytes))
                }
                guard tokens.insert(next).inserted else { throw .pagination(request: request, .repeatedContinuation(next)) }
            }
            // A page that adds nothing new ends the list, whatever continuation it gives.
            continuation = ids.count == count ? nil : next
        } while continuation != nil
        return ids
    }

    /// The ids of `stream`'s newest `count` items, one page (no continuation followed), as
    /// ``itemIDs(stream:newerThan:excludeRead:pageSize:limits:)`` checks them.
    ///
    /// ```swift
    /// let newest = try await client.newestItemIDs(stream: "feed/12", count: 100)
    /// ```
    public func newestItemIDs(stream: String, count: Int) async throws(SyncError) -> [UInt64] {
        let data = try await get("reader/api/0/stream/items/ids", [("s", stream), ("n", String(count))])
        guard let page = ItemRefScanner.scan(data, keepingAtMost: count, ceiling: Self.itemIDCeiling(now: Date())) else {
            throw .badResponse(request: "stream/items/ids", reason: "not a JSON list of item ids")
        }
        return page.ids
    }

    /// The largest item id a real server gives at `now`: FreshRSS's ids are the microsecond
    /// time an item arrived, other servers' (Miniflux, Inoreader) counters far below that.
    /// A day's slack covers clocks that disagree.
    static func itemIDCeiling(now: Date) -> UInt64 {
        UInt64(max(0, now.timeIntervalSince1970 + 86_400) * 1_000_000)
    }

    /// Whether `id` is in the range real servers use at `now` (1 up to ``itemIDCeiling(now:)``):
    /// an id beyond it would stand as the newest item pulled and hide every later one.
    ///
    /// ```swift
    /// GReaderClient.isPlausibleItemID(1_733_000_000_000_000, now: Date())   // true
    /// GReaderClient.isPlausibleItemID(UInt64.max, now: Date())              // false
    /// ```
    public static func isPlausibleItemID(_ id: UInt64, now: Date) -> Bool {
        id >= 1 && id <= itemIDCeiling(now: now)
    }

    /// One item of `stream/items/contents`.
    public struct Item: Sendable, Decodable {
        public var id: String
        /// The entry's own guid, where the server sends one (FreshRSS's `stream/items/contents`
        /// does not): the first identity a feed's history is matched by (``ItemIdentity``).
        public var guid: String?
        public var title: String?
        public var published: Int64?
        public var updated: Int64?
        public var author: String?
        public var canonical: [Link]?
        public var alternate: [Link]?
        public var categories: [String]?
        public var origin: Origin?
        public var summary: Content?
        public var content: Content?

        public struct Link: Sendable, Decodable { public var href: String? }
        public struct Origin: Sendable, Decodable { public var streamId: String? }
        public struct Content: Sendable, Decodable { public var content: String? }

        /// The item's id as a decimal number (servers give `tag:google.com,2005:reader/item/<hex>`).
        public var decimalID: String? { GReaderClient.decimalID(id) }
        public var link: String? { (canonical ?? []).first?.href ?? (alternate ?? []).first?.href }
        public var isRead: Bool { categories?.contains { $0.hasSuffix("/state/com.google/read") } ?? false }
        public var isStarred: Bool { categories?.contains { $0.hasSuffix("/state/com.google/starred") } ?? false }
    }

    /// The long form's hex tail as a decimal number; a decimal id as it is.
    static func decimalID(_ id: String) -> String? {
        if isDecimal(id) { return id }
        return hexTail(id).map { String($0) }
    }

    /// An item id in either form as a number.
    static func number(_ id: String) -> UInt64? {
        isDecimal(id) ? UInt64(id) : hexTail(id)
    }

    /// Digits only, with no leading zero (the long form's tail can be all digits too, but
    /// is 16 characters with leading zeros). Looks at the UTF-8 bytes: this runs for every
    /// item a sync pulls (docs/PERFORMANCE.md, "Tuning in the code").
    private static func isDecimal(_ id: String) -> Bool {
        let bytes = id.utf8
        guard let first = bytes.first, first != UInt8(ascii: "0") || bytes.count == 1 else { return false }
        return bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The hex digits after the last `/` as a number (by bytes: this runs for every item a
    /// sync pulls; docs/PERFORMANCE.md, "Tuning in the code").
    private static func hexTail(_ id: String) -> UInt64? {
        let bytes = id.utf8
        let start = bytes.lastIndex(of: UInt8(ascii: "/")).map(bytes.index(after:)) ?? bytes.startIndex
        var value: UInt64 = 0
        var digits = 0
        for byte in bytes[start...] {
            guard let digit = JSONCursor.hexDigit(byte) else { return nil }
            guard value >> 60 == 0 else { return nil }  // more than 64 bits
            value = value << 4 | UInt64(digit)
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// `stream/items/contents` of the items `ids` (decimal).
    public func items(_ ids: [String]) async throws(SyncError) -> [Item] {
        guard !ids.isEmpty else { return [] }
        let data = try await post("reader/api/0/stream/items/contents", ids.map { ("i", $0) })
        guard let items = ItemContentsScanner.scan(data) else {
            throw .badResponse(request: "stream/items/contents", reason: "not a JSON list of items")
        }
        // Ids enter here and in itemIDs: one out of range is refused, never stored.
        let ceiling = Self.itemIDCeiling(now: Date())
        return items.filter { item in Self.number(item.id).map { $0 >= 1 && $0 <= ceiling } ?? false }
    }
}
