import Feeds
import Foundation
import Synchronization

/// A client of Tiny Tiny RSS's JSON API (`https://HOST/tt-rss/api/`) over the libcurl fetcher:
/// every request a POST of one JSON object (`op`, the session's `sid`, the operation's
/// parameters), answered with `{"seq", "status", "content"}`, `status` 1 with
/// `content.error` on failure. A session that expired (`NOT_LOGGED_IN`) is logged in again
/// once per client with the credentials the token keeps (``TTRSSToken``). TT-RSS's API has no
/// call to rename a feed or to file it in another category
/// (``SyncError/unsupported(service:_:)``).
///
/// ```swift
/// let token = try await TTRSSClient.login(apiURL: url, user: "alice", password: pw, fetcher: fetcher)
/// let client = TTRSSClient(apiURL: url, token: token, fetcher: fetcher)
/// let feeds = try await client.subscriptions()
/// ```
public final class TTRSSClient: Sendable {
    /// The API's URL (`…/api/`), ending in a slash unless it names a `.php` script.
    public let apiURL: String
    let fetcher: FeedFetcher
    /// Bounds on the lists the server sends (pages of headlines, id lists).
    let limits: GReaderClient.PaginationLimits
    let state: Mutex<State>

    struct State {
        var requests = 0
        var token: TTRSSToken
        /// Whether this client logged in again after the session expired (once at most).
        var renewed = false
        /// Items from the listing of new items, for the fetch that follows it.
        var cached = ListedItems()
    }

    /// How many HTTP requests this client has made.
    public var requestCount: Int { state.withLock { $0.requests } }

    /// The token after a new login (a session that expired), to be kept for the next sync;
    /// nil while the token given is still the one in use.
    public var renewedToken: String? { state.withLock { $0.renewed ? $0.token.encoded : nil } }

    /// Headlines TT-RSS gives per request at most (`getHeadlines` caps `limit` at 200).
    static let pageSize = 200
    /// Articles asked for by id in one `getArticle`.
    static let articlesPerRequest = 100

    /// A client that sends the session kept in `token` (from ``login(apiURL:user:password:fetcher:)``).
    public init(apiURL: String, token: String, fetcher: FeedFetcher, limits: GReaderClient.PaginationLimits = .init()) {
        self.apiURL = Self.endpoint(apiURL)
        self.fetcher = fetcher
        self.limits = limits
        state = Mutex(State(token: TTRSSToken(decoding: token)))
    }

    /// The URL requests go to: the API's directory with its slash (a POST to `…/api` would be
    /// redirected, and a redirected POST becomes a GET), or a `.php` script as given.
    static func endpoint(_ apiURL: String) -> String {
        let base = GReaderClient.normalizedBase(apiURL)
        return base.lowercased().hasSuffix(".php") ? base : base + "/"
    }

    /// Logs in as `user` with `password` (one request) and returns the token to keep: the
    /// session, with the credentials that open a new one when it expires.
    ///
    /// ```swift
    /// let token = try await TTRSSClient.login(apiURL: url, user: "alice", password: pw, fetcher: fetcher)
    /// ```
    public static func login(apiURL: String, user: String, password: String, fetcher: FeedFetcher) async throws(SyncError)
        -> String
    {
        try GReaderClient.checkAPIURL(apiURL)
        let client = TTRSSClient(apiURL: apiURL, token: "", fetcher: fetcher)
        do throws(SyncError) {
            let session = try await client.openSession(user: user, password: password)
            return TTRSSToken(session: session, user: user, password: password).encoded
        } catch {
            switch error {
            case .badResponse: throw .notTheAPI(url: client.apiURL, saw: "an answer without Tiny Tiny RSS's JSON")
            case .server(let status, _) where GReaderClient.notAnEndpoint.contains(status):
                throw .notTheAPI(url: client.apiURL, saw: "HTTP \(status)")
            default: throw error
            }
        }
    }

    // MARK: - Requests

    /// `login`: a new session's id.
    func openSession(user: String, password: String) async throws(SyncError) -> String {
        let answer = try await send(["op": "login", "user": user, "password": password], op: "login", as: LoginContent.self)
        switch answer {
        case .success(let content):
            guard let session = content.sessionID, !session.isEmpty, session.count <= 256 else {
                throw .badResponse(request: "login", reason: "no session_id", service: .ttrss)
            }
            return session
        case .failure(let error):
            switch error.name {
            case "LOGIN_ERROR", "NOT_LOGGED_IN": throw .loginRefused(user: user, url: apiURL)
            case "API_DISABLED": throw .apiAccessDisabled(service: .ttrss, url: apiURL)
            default: throw .badResponse(request: "login", reason: Self.errorReason(error), service: .ttrss)
            }
        }
    }

    /// Calls `op` with `parameters` in the current session and decodes its `content` as
    /// `Content` (headlines' ids and feeds only with `idsOnly`). A session the server no
    /// longer knows is logged in again once (then the call is repeated); an error the server
    /// names is returned as `.failure` for the caller to judge, except those every call
    /// treats alike (a refused login, the API disabled).
    func call<Content: Decodable>(
        _ op: String, _ parameters: [String: any Sendable] = [:], as type: Content.Type, idsOnly: Bool = false
    ) async throws(SyncError) -> Result<Content, ServerError> {
        var relogged = false
        while true {
            let token = state.withLock { $0.token }
            var request = parameters
            request["op"] = op
            request["sid"] = token.session
            let answer = try await send(request, op: op, as: type, idsOnly: idsOnly)
            switch answer {
            case .failure(let error) where error.name == "NOT_LOGGED_IN":
                // The session expired (or the server forgot it): a new one, once.
                guard !relogged, !state.withLock({ $0.renewed }), let user = token.user, let password = token.password else {
                    throw .tokenRejected(url: apiURL)
                }
                relogged = true
                let session = try await openSession(user: user, password: password)
                state.withLock {
                    $0.token.session = session
                    $0.renewed = true
                }
            case .failure(let error) where error.name == "API_DISABLED": throw .apiAccessDisabled(service: .ttrss, url: apiURL)
            default: return answer
            }
        }
    }

    /// An error TT-RSS names in `content.error` (`FEED_NOT_FOUND`, `INCORRECT_USAGE`…).
    struct ServerError: Error, Equatable {
        var name: String
    }

    /// POSTs `parameters` as JSON; returns the decoded `content` (headlines' ids and feeds
    /// only with `idsOnly`), or the error the server named.
    private func send<Content: Decodable>(
        _ parameters: [String: any Sendable], op: String, as type: Content.Type, idsOnly: Bool = false
    ) async throws(SyncError) -> Result<Content, ServerError> {
        guard let url = URL(string: apiURL) else { throw .invalidAPIURL(apiURL) }
        guard let json = Self.requestBody(parameters) else {
            throw .badResponse(request: op, reason: "parameters not JSON", service: .ttrss)
        }
        var feedRequest = FeedRequest(url: url)
        // TT-RSS reads the body as JSON whatever its Content-Type.
        feedRequest.formBody = json
        state.withLock { $0.requests += 1 }
        let body: Data
        switch await fetcher.fetch(feedRequest) {
        case .fetched(let data, _): body = data
        case .failed(.httpStatus(let status, _)) where status == 401 || status == 403: throw .tokenRejected(url: apiURL)
        case .failed(.httpStatus(let status, _)): throw .server(status: status, request: op)
        case .failed(.credentialedRedirect(_, let to)): throw .redirectedElsewhere(request: op, to: FetchError.origin(of: to))
        case .failed(let error): throw .unreachable(error)
        case .notModified(let metadata), .gone(let metadata): throw .server(status: metadata.status, request: op)
        case .deferred(_, let metadata): throw .server(status: metadata?.status ?? 503, request: op)
        }
        switch try Self.envelope(body, op: op, as: type, idsOnly: idsOnly) {
        case .content(let content?): return .success(content)
        case .content(nil): throw .badResponse(request: op, reason: "no content", service: .ttrss)
        case .failed(let status, let error): return .failure(ServerError(name: error ?? "status \(status) without an error"))
        }
    }

    /// `parameters` as one JSON object, its keys sorted. The kinds of value a call sends
    /// (strings, whole numbers, booleans) are written directly, as every request has them;
    /// nil for any other kind.
    static func requestBody(_ parameters: [String: any Sendable]) -> String? {
        var out = "{"
        for (index, key) in parameters.keys.sorted().enumerated() {
            if index > 0 { out += "," }
            JSONText.appendEscaped(key, to: &out)
            out += ":"
            switch parameters[key] {
            case let value as String: JSONText.appendEscaped(value, to: &out)
            case let value as Bool: out += value ? "true" : "false"
            case let value as Int: out += String(value)
            case let value as Int64: out += String(value)
            case let value as UInt64: out += String(value)
            default: return nil
            }
        }
        return out + "}"
    }

    /// The answer in `body`: headlines read from its bytes (``TTRSSHeadlineScanner``, only
    /// their ids and feeds with `idsOnly`), or, for other contents, an answer not of the plain
    /// shape that reads, or `scanning` off, decoded by JSONDecoder.
    static func envelope<Content: Decodable>(
        _ body: Data, op: String, as type: Content.Type, idsOnly: Bool = false, scanning: Bool = true
    ) throws(SyncError) -> Envelope<Content> {
        if scanning, Content.self == [Headline].self,
            let envelope = TTRSSHeadlineScanner.scan(body, idsOnly: idsOnly) as? Envelope<Content>
        {
            return envelope
        }
        do {
            return try JSONDecoder().decode(Envelope<Content>.self, from: body)
        } catch let error as DecodingError where Self.isWholeAnswer(error) {
            throw .badResponse(request: op, reason: "not Tiny Tiny RSS's JSON", service: .ttrss)
        } catch is Envelope<Content>.NoStatus {
            throw .badResponse(request: op, reason: "not Tiny Tiny RSS's JSON", service: .ttrss)
        } catch {
            throw .badResponse(request: op, reason: Self.decodingReason(error), service: .ttrss)
        }
    }

    /// Whether `error` is about the answer as a whole (not JSON, or not an object), not its content.
    private static func isWholeAnswer(_ error: DecodingError) -> Bool {
        switch error {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            context.codingPath.isEmpty
        case .keyNotFound(_, let context): context.codingPath.isEmpty
        @unknown default: false
        }
    }

    /// A server's error name as a reason, clipped and plain.
    static func errorReason(_ error: ServerError) -> String {
        "the server answered " + String(error.name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.prefix(80))
    }

    /// What did not decode, in a few words (the key path and the kind of mismatch).
    static func decodingReason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "unreadable JSON" }
        let path: [any CodingKey]
        let what: String
        switch error {
        case .typeMismatch(_, let context): (path, what) = (context.codingPath, "of the wrong type")
        case .valueNotFound(_, let context): (path, what) = (context.codingPath, "missing")
        case .keyNotFound(let key, let context): (path, what) = (context.codingPath + [key], "missing")
        case .dataCorrupted(let context): (path, what) = (context.codingPath, "unreadable")
        @unknown default: return "unreadable JSON"
        }
        let keys = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return "\(keys.isEmpty ? "the answer" : keys) \(what)"
    }
}

/// What a TT-RSS account keeps between syncs: the API session, and the user and password that
/// open a new session when the server has forgotten it (TT-RSS's API has no lasting token; an
/// app password of TT-RSS's, for the API only, keeps the account's own password off the device).
/// Kept in the account's token file (mode 0600) as a form-encoded line.
///
/// ```swift
/// let token = TTRSSToken(session: "abc", user: "alice", password: "pw")
/// TTRSSToken(decoding: token.encoded).user   // "alice"
/// ```
public struct TTRSSToken: Sendable, Equatable {
    /// The session id `login` gave.
    public var session: String
    public var user: String?
    public var password: String?

    /// A token from its parts.
    public init(session: String, user: String?, password: String?) {
        self.session = session
        self.user = user
        self.password = password
    }

    /// Reads ``encoded``; any other text is taken as a bare session id.
    public init(decoding text: String) {
        guard text.hasPrefix("sid=") else {
            self.init(session: text, user: nil, password: nil)
            return
        }
        var values: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let value = String(parts[1]).removingPercentEncoding else { continue }
            values[String(parts[0])] = value
        }
        self.init(session: values["sid"] ?? "", user: values["user"], password: values["password"])
    }

    /// `sid=…&user=…&password=…`, each value percent-encoded.
    public var encoded: String {
        var pairs = [("sid", session)]
        if let user { pairs.append(("user", user)) }
        if let password { pairs.append(("password", password)) }
        return FormBody.encode(pairs)
    }
}
