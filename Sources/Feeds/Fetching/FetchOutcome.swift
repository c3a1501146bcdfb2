import Foundation

/// What the fetcher learned about a response, whatever its status.
///
/// ```swift
/// if case .fetched(_, let metadata) = outcome, let newURL = metadata.permanentRedirect {
///     server.url = newURL.absoluteString   // every hop was a 301 or 308
/// }
/// ```
public struct FetchMetadata: Sendable, Equatable {
    /// The URL the body finally came from, after any redirects.
    public var finalURL: URL
    /// Set when the request was redirected and every hop was permanent (301 or 308): the URL
    /// the caller should store instead of the one it asked for. `nil` when any hop was temporary.
    public var permanentRedirect: URL?
    /// The final HTTP status (200 for files).
    public var status: Int
    /// The response's `ETag`, to send back next time.
    public var etag: String?
    /// The response's `Last-Modified` (for files: the modification time as an HTTP-date).
    public var lastModified: String?
    /// The media type from `Content-Type`, lowercased, without parameters (`application/rss+xml`).
    public var contentType: String?
    /// The `charset` parameter of `Content-Type`, if the server sent one (`utf-8`).
    public var charset: String?
    /// Set when the body is not the one the server announced (``FetchError/incompleteBody(url:received:expected:)``
    /// or ``FetchError/bodyLongerThanDeclared(url:declared:)``): the body is what arrived, to be
    /// kept as far as it parses and reported; the validators are dropped so that the next
    /// fetch downloads the whole feed again.
    ///
    /// `if let problem = metadata.bodyProblem { server.lastError = problem.description }`
    public var bodyProblem: FetchError?
    /// The HTTP version of the final response: `"1.1"`, `"2"`…; `nil` for files and commands.
    public var httpVersion: String?
    /// Connections libcurl opened for this fetch, redirects included: 0 when it reused one
    /// (or, over HTTP/2, shared one with other fetches).
    public var newConnections = 0

    /// Creates metadata; the fetcher fills these in from the response.
    ///
    /// ```swift
    /// let metadata = FetchMetadata(finalURL: url, status: 200)
    /// ```
    public init(
        finalURL: URL, permanentRedirect: URL? = nil, status: Int, etag: String? = nil,
        lastModified: String? = nil, contentType: String? = nil, charset: String? = nil
    ) {
        self.finalURL = finalURL
        self.permanentRedirect = permanentRedirect
        self.status = status
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.charset = charset
    }
}

/// The result of fetching one feed. Fetching never throws: every failure is a value that
/// names the URL and what went wrong, so one feed's failure never disturbs another's.
///
/// ```swift
/// switch await fetcher.fetch(request) {
/// case .fetched(let body, let metadata): print(body.count, "bytes,", metadata.charset ?? "no charset")
/// case .notModified: break                       // 304: nothing to parse
/// case .gone: print("gone: unsubscribe")          // 410
/// case .deferred(let until, _): print("not before", until)
/// case .failed(let error): server.lastError = error.description
/// }
/// ```
public enum FetchOutcome: Sendable, Equatable {
    /// A 2xx response (or a file) with its complete, decoded body.
    case fetched(body: Data, metadata: FetchMetadata)
    /// 304 Not Modified: the validators still match; the stored copy is current.
    case notModified(FetchMetadata)
    /// 410 Gone: the feed has been removed for good; stop fetching it.
    case gone(FetchMetadata)
    /// The server asked us to wait (429 or 503 with `Retry-After`), or the request's
    /// `notBefore` is still in the future (then the metadata is `nil`: nothing was sent).
    case deferred(until: Date, FetchMetadata?)
    /// Anything else: HTTP errors, timeouts, oversized bodies, redirect trouble, transport errors.
    case failed(FetchError)
}
