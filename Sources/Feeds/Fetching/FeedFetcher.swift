import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads feeds over http, https and file URLs, politely and within limits.
///
/// Built on Foundation's `URLSession` (libcurl on Linux) with an ephemeral configuration and
/// no URL cache: the caller stores each feed's `ETag`/`Last-Modified` and passes them back in
/// the next ``FetchRequest``, so an unchanged feed costs a 304 and no parse. Redirects are
/// followed by hand (at most ``FetcherConfiguration/maxRedirects``, loops detected), gzip
/// bodies arrive decoded, bodies larger than ``FetcherConfiguration/maxBodySize`` are
/// aborted mid-transfer, and at most ``FetcherConfiguration/maxConcurrent`` transfers run
/// at once, at most ``FetcherConfiguration/maxPerHost`` to one host and port.
///
/// Every method is safe to call from any task; fetches never throw (see ``FetchOutcome``).
///
/// ```swift
/// let fetcher = FeedFetcher(configuration: FetcherConfiguration(version: "0.1.0"))
/// let outcome = await fetcher.fetch(FetchRequest(url: URL(string: "https://example.org/feed")!))
/// ```
public final class FeedFetcher: Sendable {
    /// The limits this fetcher was created with.
    public let configuration: FetcherConfiguration
    private let session: URLSession
    private let delegate: FetchSessionDelegate
    private let limiter: ConnectionLimiter
    /// The idle timeout as URLSession applies it (whole seconds, at least 1).
    private let idleTimeout: TimeInterval
    /// Kept here because `OperationQueue.underlyingQueue` does not retain it.
    private let delegateDispatchQueue = DispatchQueue(label: "zeader.FeedFetcher.delegate")

    /// Creates a fetcher with its own URLSession.
    ///
    /// ```swift
    /// let fetcher = FeedFetcher(configuration: FetcherConfiguration(version: "0.1.0", maxConcurrent: 4))
    /// ```
    public init(configuration: FetcherConfiguration) {
        self.configuration = configuration
        let idleTimeout = max(1, configuration.idleTimeout.rounded(.up))
        self.idleTimeout = idleTimeout
        delegate = FetchSessionDelegate(
            maxRedirects: max(0, configuration.maxRedirects), maxBodySize: max(0, configuration.maxBodySize))
        limiter = ConnectionLimiter(maxConcurrent: configuration.maxConcurrent, maxPerHost: configuration.maxPerHost)

        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpCookieAcceptPolicy = .never
        sessionConfiguration.timeoutIntervalForRequest = idleTimeout
        sessionConfiguration.httpMaximumConnectionsPerHost = max(1, configuration.maxPerHost)
        // No Accept-Encoding here: libcurl advertises the encodings it can decode (gzip,
        // deflate …) and decodes them itself; a header set here would replace its list.
        sessionConfiguration.httpAdditionalHeaders = [
            "User-Agent": configuration.userAgent,
            "Accept": Self.acceptHeader,
        ]
        // Serial, so a task's body chunks reach the delegate in order, and on its own
        // dispatch queue: serial queues get a thread even when every worker of the global
        // pool is busy. With the default (global, width = cores) the delegate can starve
        // behind a fast transfer, and with no back-pressure in URLSession on Linux the
        // undelivered chunks pile up in memory until the size cap finally sees them.
        let delegateQueue = OperationQueue()
        delegateQueue.name = "zeader.FeedFetcher.delegate"
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.underlyingQueue = delegateDispatchQueue
        session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: delegateQueue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    static let acceptHeader =
        "application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, "
        + "application/rdf+xml;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.8"

    /// Fetches one feed. Never throws: failures come back as ``FetchOutcome/failed(_:)``.
    ///
    /// Cancelling the calling task aborts the transfer and yields ``FetchError/cancelled(url:)``.
    ///
    /// ```swift
    /// let outcome = await fetcher.fetch(FetchRequest(url: feedURL, etag: server.etag))
    /// ```
    public func fetch(_ request: FetchRequest) async -> FetchOutcome {
        if let notBefore = request.notBefore, notBefore > Date() {
            return .deferred(until: notBefore, nil)
        }
        switch request.url.scheme?.lowercased() {
        case "http", "https": return await fetchHTTP(request)
        case "file": return await fetchFile(request)
        default: return .failed(.unsupportedScheme(request.url))
        }
    }

    /// Fetches many feeds, ``FetcherConfiguration/maxConcurrent`` at a time and at most
    /// ``FetcherConfiguration/maxPerHost`` per host, calling `onEach` as each one finishes
    /// (in completion order, possibly from several tasks at once). Returns when all are done.
    ///
    /// ```swift
    /// await fetcher.fetchAll(requests) { request, outcome in
    ///     await pipeline.handle(outcome, for: request)
    /// }
    /// ```
    public func fetchAll(
        _ requests: [FetchRequest], onEach: @escaping @Sendable (FetchRequest, FetchOutcome) async -> Void
    ) async {
        // One child task per request: the limiter, not the group, decides what runs, so a
        // queue of requests to one busy host never blocks requests to other hosts.
        await withTaskGroup(of: Void.self) { group in
            for request in requests {
                group.addTask {
                    let outcome = await self.fetch(request)
                    await onEach(request, outcome)
                }
            }
        }
    }

    // MARK: HTTP

    private func fetchHTTP(_ request: FetchRequest) async -> FetchOutcome {
        let url = request.url
        guard let host = url.host, !host.isEmpty else {
            return .failed(.invalidURL(url, reason: "no host"))
        }
        let defaultPort = url.scheme?.lowercased() == "https" ? 443 : 80
        let hostKey = "\(host.lowercased()):\(url.port ?? defaultPort)"
        guard await limiter.acquire(host: hostKey) else {
            return .failed(.cancelled(url: url))
        }
        let result = await transfer(request)
        await limiter.release(host: hostKey)
        return outcome(of: result, for: request)
    }

    private func transfer(_ request: FetchRequest) async -> TransferResult {
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: idleTimeout)
        urlRequest.httpMethod = "GET"
        if let etag = request.etag { urlRequest.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified = request.lastModified {
            urlRequest.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
        }
        let task = session.dataTask(with: urlRequest)
        let delegate = self.delegate
        let totalTimeout = configuration.totalTimeout
        let url = request.url
        // URLSession's own resource timeout is not reliable across platforms; this clock is.
        let totalTimer = Task {
            try await Task.sleep(for: .seconds(totalTimeout))
            if delegate.fail(task, with: .timedOut(url: url, seconds: totalTimeout, kind: .total)) {
                FetchSessionDelegate.cancelSoon(task)
            }
        }
        defer { totalTimer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                delegate.register(task, url: url, continuation: continuation)
                task.resume()
            }
        } onCancel: {
            if delegate.fail(task, with: .cancelled(url: url)) { FetchSessionDelegate.cancelSoon(task) }
        }
    }

    private func outcome(of result: TransferResult, for request: FetchRequest) -> FetchOutcome {
        if let failure = result.failure { return .failed(failure) }
        if let error = result.error {
            return .failed(fetchError(for: error, url: result.finalURL))
        }
        guard let status = result.status else {
            return .failed(.transport(url: result.finalURL, message: "no response"))
        }
        let headers = result.headers
        let (mediaType, charset) = HTTPHeaderValues.contentType(headers["content-type"])
        var metadata = FetchMetadata(
            finalURL: result.finalURL,
            permanentRedirect: result.redirectCount > 0 && result.allRedirectsPermanent ? result.finalURL : nil,
            status: status, etag: headers["etag"], lastModified: headers["last-modified"],
            contentType: mediaType, charset: charset)
        switch status {
        case 200..<300:
            return .fetched(body: result.body, metadata: metadata)
        case 304:
            // A 304 may omit the validators; the ones we sent are still the right ones.
            metadata.etag = metadata.etag ?? request.etag
            metadata.lastModified = metadata.lastModified ?? request.lastModified
            return .notModified(metadata)
        case 410:
            return .gone(metadata)
        case 429, 503:
            if let value = headers["retry-after"],
                let until = HTTPHeaderValues.retryAfter(value, now: Date(), maximum: configuration.maxRetryAfter)
            {
                return .deferred(until: until, metadata)
            }
            return .failed(.httpStatus(status, url: result.finalURL))
        default:
            return .failed(.httpStatus(status, url: result.finalURL))
        }
    }

    private func fetchError(for error: any Error, url: URL) -> FetchError {
        guard let urlError = error as? URLError else {
            return .transport(url: url, message: String(describing: error))
        }
        switch urlError.code {
        case .timedOut: return .timedOut(url: url, seconds: idleTimeout, kind: .idle)
        case .cancelled: return .cancelled(url: url)
        case .httpTooManyRedirects: return .tooManyRedirects(url: url, limit: configuration.maxRedirects)
        case .cannotConnectToHost: return .transport(url: url, message: "cannot connect to host")
        case .cannotFindHost, .dnsLookupFailed: return .transport(url: url, message: "host not found")
        case .networkConnectionLost: return .transport(url: url, message: "connection lost")
        case .notConnectedToInternet: return .transport(url: url, message: "not connected to the network")
        case .badServerResponse: return .transport(url: url, message: "bad server response")
        case .secureConnectionFailed: return .transport(url: url, message: "TLS connection failed")
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid:
            return .transport(url: url, message: "server certificate not trusted")
        default:
            return .transport(url: url, message: "\(urlError.localizedDescription) (URLError \(urlError.code.rawValue))")
        }
    }
}
