import Foundation

/// One feed to fetch, with the validators stored from the last successful fetch.
///
/// Pass the `etag` and `lastModified` that the previous ``FetchOutcome`` reported so that an
/// unchanged feed comes back as ``FetchOutcome/notModified(_:)`` (HTTP 304) and costs no parse.
/// A `notBefore` date in the future (from an earlier `Retry-After`) makes the fetcher answer
/// ``FetchOutcome/deferred(until:_:)`` without touching the network.
///
/// ```swift
/// let request = FeedRequest(url: URL(string: "https://example.org/feed.xml")!,
///                           etag: server.etag, lastModified: server.lastModified)
/// ```
public struct FeedRequest: Sendable, Hashable {
    /// The feed's URL: `http`, `https` or `file`.
    public var url: URL
    /// The `ETag` the server sent last time, sent back as `If-None-Match`.
    public var etag: String?
    /// The `Last-Modified` the server sent last time, sent back verbatim as `If-Modified-Since`.
    public var lastModified: String?
    /// Do not contact the server before this date (it asked us to wait with `Retry-After`).
    public var notBefore: Date?
    /// Extra request headers (`["Authorization": "GoogleLogin auth=…"]`); values with a line
    /// break are left out.
    public var headers: [String: String] = [:]
    /// A form body (`application/x-www-form-urlencoded`): when set, the request is a POST
    /// (see ``FormBody``). A redirect of a POST is followed with a GET, as browsers do.
    public var formBody: String?
    /// This feed's proxy, login, cookies, headers and limits, over the fetcher's
    /// (``FetcherConfiguration/network``).
    public var network = NetworkOptions()

    /// Creates a request; only `url` is required.
    ///
    /// ```swift
    /// let first = FeedRequest(url: URL(string: "https://example.org/feed.xml")!)
    /// let again = FeedRequest(url: first.url, etag: "\"v2\"")
    /// ```
    public init(url: URL, etag: String? = nil, lastModified: String? = nil, notBefore: Date? = nil) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.notBefore = notBefore
    }
}

/// Building `application/x-www-form-urlencoded` bodies and query strings for ``FeedRequest/formBody``.
///
/// ```swift
/// let body = FormBody.encode([("Email", "alice"), ("Passwd", "p&ss")])   // "Email=alice&Passwd=p%26ss"
/// ```
public enum FormBody {
    /// The pairs, each name and value percent-encoded (only unreserved characters kept),
    /// joined with `&`.
    ///
    /// ```swift
    /// FormBody.encode([("i", "1"), ("i", "2")])   // "i=1&i=2"
    /// ```
    public static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// One component percent-encoded (RFC 3986 unreserved characters kept).
    ///
    /// ```swift
    /// FormBody.escape("a b/c")   // "a%20b%2Fc"
    /// ```
    public static func escape(_ text: String) -> String {
        // Most components (a sync's thousands of item ids) need no escape: kept as they are.
        if text.utf8.allSatisfy(isUnreserved) { return text }
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
