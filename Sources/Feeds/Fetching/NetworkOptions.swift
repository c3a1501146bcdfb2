import Foundation
import Synchronization

/// How a fetch reaches its server, as newsboat's network settings name it: a proxy, a login,
/// cookies, certificate checks, a speed and a time limit, and the request's own headers.
/// Every value is optional: an unset one leaves libcurl's default (or the wider setting,
/// through ``overridden(by:)``).
///
/// ```swift
/// var network = NetworkOptions()
/// network.proxy = "127.0.0.1:1080"
/// network.proxyType = .socks5h
/// ```
public struct NetworkOptions: Sendable, Hashable {
    /// The proxy's protocol (newsboat's `proxy-type`).
    public enum ProxyType: String, Sendable, Hashable, CaseIterable {
        case http, socks4, socks5
        /// SOCKS5 with the proxy resolving host names (no DNS query leaves the machine).
        case socks5h
    }

    /// How a login is sent (newsboat's `http-auth-method`).
    public enum AuthMethod: String, Sendable, Hashable, CaseIterable {
        case any, basic, digest
        case digestIE = "digest_ie"
        case gssnegotiate, ntlm, anysafe
    }

    /// The `User-Agent` header in place of the fetcher's.
    public var userAgent: String?
    /// Extra request lines, each `Name: value`; one with a line break is left out.
    public var headers: [String] = []
    /// The `Cookie` header's value (`name=value; other=value`).
    public var cookie: String?
    /// A cookie file in Netscape format that libcurl reads before the fetch and writes after it.
    public var cookieFile: String?
    /// The proxy, `HOST:PORT` or a URL (`socks5h://127.0.0.1:1080`).
    public var proxy: String?
    public var proxyType: ProxyType?
    /// The proxy's login, `USER:PASSWORD`.
    public var proxyAuth: String?
    /// `false` ignores ``proxy`` (libcurl's `*_proxy` environment variables still count).
    public var useProxy: Bool?
    public var authMethod: AuthMethod?
    /// The login of the feed's server; a user name and password in the URL count too.
    public var user: String?
    public var password: String?
    /// `false` accepts any certificate (a home server's self-signed one); nil or `true` checks.
    public var verifyTLS: Bool?
    /// Longest time for the whole fetch, in seconds, in place of the fetcher's.
    public var timeout: TimeInterval?
    /// Most bytes a second received (libcurl's `CURLOPT_MAX_RECV_SPEED_LARGE`).
    public var maxBytesPerSecond: Int?

    /// No setting: the fetcher's own behaviour.
    ///
    /// ```swift
    /// let none = NetworkOptions()
    /// ```
    public init() {}

    /// These options with each value `other` sets put in place of this one's; `other`'s
    /// headers come after these.
    ///
    /// ```swift
    /// var feed = NetworkOptions()
    /// feed.userAgent = "Feed/1.0"
    /// let effective = NetworkOptions().overridden(by: feed)   // effective.userAgent == "Feed/1.0"
    /// ```
    public func overridden(by other: NetworkOptions) -> NetworkOptions {
        var result = self
        result.userAgent = other.userAgent ?? userAgent
        result.headers = headers + other.headers
        result.cookie = other.cookie ?? cookie
        result.cookieFile = other.cookieFile ?? cookieFile
        result.proxy = other.proxy ?? proxy
        result.proxyType = other.proxyType ?? proxyType
        result.proxyAuth = other.proxyAuth ?? proxyAuth
        result.useProxy = other.useProxy ?? useProxy
        result.authMethod = other.authMethod ?? authMethod
        result.user = other.user ?? user
        result.password = other.password ?? password
        result.verifyTLS = other.verifyTLS ?? verifyTLS
        result.timeout = other.timeout ?? timeout
        result.maxBytesPerSecond = other.maxBytesPerSecond ?? maxBytesPerSecond
        return result
    }

    /// Whether a fetch with these options sends something meant for its own server only
    /// (a header, a cookie, a login): such a fetch follows redirects only within its origin.
    var carriesCredentials: Bool { !headers.isEmpty || cookie != nil || user != nil || password != nil }
}

// MARK: - The process's network settings

extension FetcherConfiguration {
    /// The ``network`` every configuration made from now on starts with: the front end sets
    /// it once from the config file's `proxy`, `cookie-cache`, `ssl-verify` and the like, so
    /// that every fetch (a refresh's, an add's, a sync's, a podcast download) goes the same way.
    ///
    /// ```swift
    /// var network = FetcherConfiguration.defaultNetwork
    /// network.proxy = "127.0.0.1:3128"   // then: FetcherConfiguration.defaultNetwork = network
    /// ```
    public static var defaultNetwork: NetworkOptions {
        get { defaultNetworkStorage.withLock { $0 } }
        set { defaultNetworkStorage.withLock { $0 = newValue } }
    }

    private static let defaultNetworkStorage = Mutex(NetworkOptions())
}
