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
