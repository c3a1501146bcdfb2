import Foundation
import Synchronization

/// Limits and identity for a ``FeedFetcher``. The defaults suit a laptop refreshing a few
/// hundred feeds.
///
/// ```swift
/// var configuration = FetcherConfiguration(version: "1.0")
/// configuration.maxConcurrent = jobs
/// let fetcher = FeedFetcher(configuration: configuration)
/// ```
public struct FetcherConfiguration: Sendable, Equatable {
    /// The program version sent in `User-Agent: zeader/VERSION`.
    public var version: String
    /// At most this many transfers at once, over all hosts.
    public var maxConcurrent: Int = 8
    /// Transfers at once to one host and port at first, to be polite to servers; a host
    /// that answers slowly but surely, or multiplexes over HTTP/2, gets more, up to
    /// ``maxConcurrent``, and one answering 429 or 503 gets one at a time.
    public var maxPerHost: Int = 4
    /// A fixed number of transfers at once to one host and port instead of the above (the
    /// config's `max-host-connections`); a 429 or 503 still brings a host down to one.
    ///
    /// ```swift
    /// var configuration = FetcherConfiguration(version: "1.0")
    /// configuration.maxHostConnections = 2   // never more than two at once to one host
    /// ```
    public var maxHostConnections: Int?
    /// Transfers at once to start with for hosts an earlier fetcher learnt about
    /// (``FeedFetcher/learntHostShares()``), by `host:port`, instead of ``maxPerHost``; kept
    /// within ``maxHostConnections`` or ``maxConcurrent``.
    ///
    /// ```swift
    /// var configuration = FetcherConfiguration(version: "1.0")
    /// configuration.knownHostShares = ["feeds.example:443": 8]   // a slow host seen before
    /// ```
    public var knownHostShares: [String: Int] = [:]
    /// How long, in seconds, a host not heard from yet may keep all its transfers waiting
    /// for an answer, with more of its feeds queued, before its share doubles until its first
    /// answer; `nil`: only answers change a share. Dozens of feeds on a far or slow host then
    /// do not all wait for its first answers.
    ///
    /// ```swift
    /// var configuration = FetcherConfiguration(version: "1.0")
    /// configuration.hostPatience = nil   // a host's share grows only by its answers
    /// ```
    public var hostPatience: TimeInterval? = 0.25
    /// Redirects followed before giving up with ``FetchError/tooManyRedirects(url:limit:)``.
    public var maxRedirects: Int = 5
    /// Longest wait for a connection, and between two pieces of the response, in seconds.
    /// This also bounds connecting: a host that never accepts times out after this long.
    /// libcurl's low-speed check counts whole seconds, so values are rounded up to at least 1;
    /// once bytes have flowed, "idle" means under one byte a second over its sliding window.
    public var idleTimeout: TimeInterval = 20
    /// Longest time for a whole fetch, redirects included, in seconds.
    public var totalTimeout: TimeInterval = 60
    /// Largest body accepted, in bytes, after gzip decoding; larger transfers are aborted
    /// as soon as they pass it.
    public var maxBodySize: Int = 16 * 1024 * 1024
    /// The longest `Retry-After` honoured; longer requests are shortened to this (and never
    /// past a year, whatever this says), so a hostile server cannot silence a feed for years.
    public var maxRetryAfter: TimeInterval = 7 * 24 * 3600
    /// A PEM file of CA certificates to trust for `https` (a self-hosted server's private
    /// CA), besides the system's certificate directory; `nil`: the system's trust only.
    /// Starts as ``defaultCAFile``.
    public var caFile: String? = FetcherConfiguration.defaultCAFile

    /// Creates a configuration with the defaults above.
    ///
    /// ```swift
    /// let configuration = FetcherConfiguration(version: "0.1.0", maxConcurrent: 16)
    /// ```
    public init(
        version: String, maxConcurrent: Int = 8, maxPerHost: Int = 4, maxRedirects: Int = 5,
        idleTimeout: TimeInterval = 20, totalTimeout: TimeInterval = 60,
        maxBodySize: Int = 16 * 1024 * 1024, maxRetryAfter: TimeInterval = 7 * 24 * 3600
    ) {
        self.version = version
        self.maxConcurrent = maxConcurrent
        self.maxPerHost = maxPerHost
        self.maxRedirects = maxRedirects
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
        self.maxBodySize = maxBodySize
        self.maxRetryAfter = maxRetryAfter
    }

    /// The `User-Agent` header value: ``customUserAgent`` when set, else `zeader/VERSION`.
    ///
    /// ```swift
    /// FetcherConfiguration(version: "1.2").userAgent   // "zeader/1.2"
    /// ```
    public var userAgent: String { customUserAgent ?? "zeader/\(version)" }

    /// Transfers at once to a host not heard from yet, and the most one host may get.
    var hostLimits: (start: Int, ceiling: Int) {
        if let fixed = maxHostConnections { return (max(1, fixed), max(1, fixed)) }
        return (max(1, maxPerHost), max(1, maxPerHost, maxConcurrent))
    }

    /// A `User-Agent` sent in place of `zeader/VERSION` (the config's `user-agent`, for a
    /// server that refuses unknown clients). Starts as ``defaultUserAgent``.
    ///
    /// ```swift
    /// var configuration = FetcherConfiguration(version: "1.0")
    /// configuration.customUserAgent = "Mozilla/5.0 (X11; Linux x86_64)"
    /// ```
    public var customUserAgent: String? = FetcherConfiguration.defaultUserAgent

    /// Proxy, login, cookies and certificate checks of every fetch; a request's own
    /// ``FeedRequest/network`` overrides them. Starts as ``defaultNetwork``.
    ///
    /// ```swift
    /// var configuration = FetcherConfiguration(version: "1.0")
    /// configuration.network.proxy = "127.0.0.1:3128"
    /// ```
    public var network = FetcherConfiguration.defaultNetwork
}

// MARK: - The process's trust settings

extension FetcherConfiguration {
    /// The ``caFile`` every configuration made from now on starts with: the front end sets
    /// it once from the config file's `ca-file`, so that every fetcher the program makes (a
    /// refresh's, a sync's, a podcast download's) trusts the same CAs.
    ///
    /// ```swift
    /// FetcherConfiguration.defaultCAFile = "/etc/zeader/home-ca.pem"
    /// ```
    public static var defaultCAFile: String? {
        get { defaultCAFileStorage.withLock { $0 } }
        set { defaultCAFileStorage.withLock { $0 = newValue } }
    }

    private static let defaultCAFileStorage = Mutex<String?>(nil)

    /// The ``customUserAgent`` every configuration made from now on starts with: the front
    /// end sets it once from the config file's `user-agent`, so that every fetch (a refresh,
    /// an add, a sync, a podcast download) names itself the same way.
    ///
    /// ```swift
    /// FetcherConfiguration.defaultUserAgent = "Mozilla/5.0 (X11; Linux x86_64)"
    /// ```
    public static var defaultUserAgent: String? {
        get { defaultUserAgentStorage.withLock { $0 } }
        set { defaultUserAgentStorage.withLock { $0 = newValue } }
    }

    private static let defaultUserAgentStorage = Mutex<String?>(nil)
}
