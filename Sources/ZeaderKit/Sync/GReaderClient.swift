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

    /// `edit-tag`: puts the label `label` (`user/-/label/NAME`) on the items `ids`, or takes
    /// it off; a server makes a label it lacks.
    ///
    /// ```swift
    /// try await client.setItemLabel("later", true, ids: ["31"])
    /// ```
    public func setItemLabel(_ label: String, _ on: Bool, ids: [String]) async throws(SyncError) {
        guard !ids.isEmpty else { return }
        _ = try await post("reader/api/0/edit-tag", [(on ? "a" : "r", "user/-/label/" + label)] + ids.map { ("i", $0) })
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
}
