import Foundation

/// Why a fetch failed. Each case names the URL, and the HTTP status where there is one.
///
/// ```swift
/// if case .failed(let error) = outcome {
///     print(error)          // "https://example.org/feed: HTTP 404"
/// }
/// ```
public enum FetchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which of the two clocks ran out.
    ///
    /// ```swift
    /// if case .timedOut(_, _, .idle) = error { print("server went silent") }
    /// ```
    public enum TimeoutKind: String, Sendable, Equatable {
        /// No connection, or no bytes, for ``FetcherConfiguration/idleTimeout`` seconds.
        case idle
        /// The whole transfer took longer than ``FetcherConfiguration/totalTimeout``.
        case total
    }

    /// The URL cannot be fetched as written (for instance an http URL without a host).
    case invalidURL(URL, reason: String)
    /// The scheme is not `http`, `https` or `file`.
    case unsupportedScheme(URL)
    /// The server answered with an error status (404, 500, a 429/503 without `Retry-After`…).
    case httpStatus(Int, url: URL)
    /// A timeout ran out after `seconds`.
    case timedOut(url: URL, seconds: TimeInterval, kind: TimeoutKind)
    /// The body grew past the configured cap of `limit` bytes; the transfer was aborted.
    case tooLarge(url: URL, limit: Int)
    /// The connection ended before the whole body arrived: `received` bytes of the
    /// `expected` its `Content-Length` announced (`nil`: no length, e.g. a chunked body cut off).
    case incompleteBody(url: URL, received: Int64, expected: Int64?)
    /// The server sent more than the `declared` `Content-Length`; the body is unreliable.
    /// Seen when the extra bytes arrive with the end of the body, as they do when a server
    /// miscounts; bytes that come later are dropped unread with the connection.
    case bodyLongerThanDeclared(url: URL, declared: Int64)
    /// More than `limit` redirects.
    case tooManyRedirects(url: URL, limit: Int)
    /// A redirect led back to a URL already visited in this fetch.
    case redirectLoop(url: URL)
    /// A redirect pointed to a scheme other than http or https (`file:`, `ftp:` …).
    case unsupportedRedirect(from: URL, to: URL)
    /// A request carrying credentials (an `Authorization` or other header set by the caller,
    /// a form body, a user name in the URL) was redirected to another origin (scheme, host
    /// or port): not followed, so the credentials reach only the origin they were meant for.
    ///
    /// ```swift
    /// if case .credentialedRedirect(_, let to) = error { print("moved to", FetchError.origin(of: to)) }
    /// ```
    case credentialedRedirect(from: URL, to: URL)
    /// A response header line, or all of them together, longer than `limit` bytes.
    case headersTooLarge(url: URL, limit: Int)
    /// A `file:` URL names no existing file.
    case fileNotFound(URL)
    /// A `file:` URL could not be read (a directory, no permission …).
    case fileUnreadable(URL, message: String)
    /// The connection failed (refused, reset, DNS, TLS …); `message` is the system's.
    case transport(url: URL, message: String)
    /// The fetch was cancelled by the caller.
    case cancelled(url: URL)

    /// Whether fetching again soon may succeed: the server did not answer in time, the
    /// connection failed or was cut, or the server had an error (5xx). A refusal that stays
    /// (4xx, a bad URL, a size cap, a redirect rule) is not worth another try.
    ///
    /// ```swift
    /// if case .failed(let error) = outcome, error.isWorthRetrying { print("fetch \(error.url) again") }
    /// ```
    public var isWorthRetrying: Bool {
        switch self {
        case .timedOut, .transport, .incompleteBody: return true
        case .httpStatus(let status, _): return (500...599).contains(status)
        case .invalidURL, .unsupportedScheme, .tooLarge, .bodyLongerThanDeclared, .tooManyRedirects, .redirectLoop,
            .unsupportedRedirect, .credentialedRedirect, .headersTooLarge, .fileNotFound, .fileUnreadable, .cancelled:
            return false
        }
    }

    /// The URL the error is about.
    ///
    /// ```swift
    /// log("\(error.url): \(error)")
    /// ```
    public var url: URL {
        switch self {
        case .invalidURL(let url, _), .unsupportedScheme(let url), .httpStatus(_, let url),
            .timedOut(let url, _, _), .tooLarge(let url, _), .incompleteBody(let url, _, _),
            .bodyLongerThanDeclared(let url, _), .tooManyRedirects(let url, _),
            .redirectLoop(let url), .unsupportedRedirect(let url, _), .credentialedRedirect(let url, _),
            .headersTooLarge(let url, _), .fileNotFound(let url),
            .fileUnreadable(let url, _), .transport(let url, _), .cancelled(let url):
            return url
        }
    }

    /// The HTTP status, for ``httpStatus(_:url:)``; `nil` otherwise.
    ///
    /// ```swift
    /// if error.httpStatus == 404 { print("feed moved without a redirect") }
    /// ```
    public var httpStatus: Int? {
        if case .httpStatus(let status, _) = self { return status }
        return nil
    }

    /// One line naming the URL and what went wrong.
    ///
    /// ```swift
    /// server.lastError = error.description
    /// ```
    public var description: String {
        // An exec:/filter: feed is named as the user wrote it (CommandFeed.requestURL encodes it).
        let scheme = self.url.scheme?.lowercased()
        let url = scheme == "exec" || scheme == "filter" ? CommandFeed.subscription(of: self.url) : RedactedURL.text(self.url)
        switch self {
        case .invalidURL(_, let reason): return "\(url): invalid URL (\(reason))"
        case .unsupportedScheme(let u): return "\(url): unsupported scheme '\(u.scheme ?? "")'"
        case .httpStatus(let status, _):
            return "\(url): HTTP \(status) \(HTTPHeaderValues.reasonPhrase(status))"
        case .timedOut(_, let seconds, let kind):
            let what = kind == .idle ? "no answer" : "transfer not finished"
            return "\(url): timed out (\(what) after \(Self.format(seconds)) s)"
        case .tooLarge(_, let limit): return "\(url): body larger than \(limit) bytes, aborted"
        case .incompleteBody(_, let received, let expected?):
            return "\(url): body cut off: \(received) of the \(expected) bytes its Content-Length announced"
        case .incompleteBody(_, let received, nil):
            return "\(url): body cut off: the connection closed after \(received) bytes"
        case .bodyLongerThanDeclared(_, let declared):
            return "\(url): body longer than its Content-Length of \(declared) bytes"
        case .tooManyRedirects(_, let limit): return "\(url): more than \(limit) redirects"
        case .redirectLoop: return "\(url): redirect loop"
        case .unsupportedRedirect(_, let to): return "\(url): redirect to unsupported URL \(RedactedURL.text(to))"
        case .credentialedRedirect(_, let to):
            return "\(url): redirect to another origin (\(Self.origin(of: to))) refused: the request carries credentials"
        case .headersTooLarge(_, let limit): return "\(url): response header longer than \(limit) bytes"
        case .fileNotFound: return "\(url): no such file"
        case .fileUnreadable(_, let message): return "\(url): cannot read file (\(message))"
        case .transport(_, let message): return "\(url): \(message)"
        case .cancelled: return "\(url): cancelled"
        }
    }

    /// `scheme://host:port` of `url`, the port written only when it is not the scheme's
    /// default: what two URLs must share for credentials to go from one to the other.
    ///
    /// ```swift
    /// FetchError.origin(of: URL(string: "https://Example.org:443/api")!)   // "https://example.org"
    /// ```
    public static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let host = url.host?.lowercased() ?? ""
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        guard let port = url.port, port != defaultPort else { return "\(scheme)://\(host)" }
        return "\(scheme)://\(host):\(port)"
    }

    private static func format(_ seconds: TimeInterval) -> String {
        // Int(_:) traps outside its range: only small whole numbers take that path.
        abs(seconds) < 1e15 && seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}
