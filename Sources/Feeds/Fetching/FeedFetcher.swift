import Foundation

/// Downloads feeds over http, https and file URLs, politely and within limits.
///
/// HTTP goes through libcurl's multi interface (``CurlMulti``): one thread per fetcher
/// sleeps in `curl_multi_poll` and runs every transfer, so waiting on slow servers costs no
/// CPU, unlike Foundation's `URLSession` on Linux, which wakes up per waiting transfer,
/// copies the whole body on every append and goes on downloading after a cancel. libcurl
/// gives connection reuse, HTTP/2 where the server offers it, gzip/deflate/brotli/zstd
/// decoding, and exact timeouts; the fetcher adds the rest.
///
/// No URL cache: the caller stores each feed's `ETag`/`Last-Modified` and passes them back
/// in the next ``FeedRequest``, so an unchanged feed costs a 304 and no parse. Redirects
/// are followed by hand (at most ``FetcherConfiguration/maxRedirects``, loops detected,
/// http and https only), bodies larger than ``FetcherConfiguration/maxBodySize`` after
/// decoding are aborted in the write callback the moment they pass it, a body that ends
/// before its `Content-Length` or runs past it is an error, and at most
/// ``FetcherConfiguration/maxConcurrent`` transfers run at once, to one host and port
/// as many as its answers earn (``HostConnectionLimits``).
///
/// Every method is safe to call from any task; fetches never throw (see ``FetchOutcome``).
///
/// ```swift
/// let fetcher = FeedFetcher(configuration: FetcherConfiguration(version: "0.1.0"))
/// let outcome = await fetcher.fetch(FeedRequest(url: URL(string: "https://example.org/feed")!))
/// ```
public final class FeedFetcher: Sendable {
    /// The limits this fetcher was created with.
    public let configuration: FetcherConfiguration
    /// The configuration's numbers, clamped; the file reader uses the same cap.
    let limits: TransferLimits
    let limiter: ConnectionLimiter
    private let multi: CurlMulti

    /// Creates a fetcher with its own libcurl multi handle (connection and DNS caches).
    ///
    /// ```swift
    /// let fetcher = FeedFetcher(configuration: FetcherConfiguration(version: "0.1.0", maxConcurrent: 4))
    /// ```
    public init(configuration: FetcherConfiguration) {
        self.configuration = configuration
        limits = TransferLimits(configuration)
        let hostLimits = configuration.hostLimits
        limiter = ConnectionLimiter(
            maxConcurrent: configuration.maxConcurrent, maxPerHost: hostLimits.start, hostCeiling: hostLimits.ceiling,
            known: configuration.knownHostShares,
            patience: configuration.hostPatience.map { .seconds(max(0, $0)) })
        multi = CurlMulti(maxPerHost: hostLimits.ceiling, maxConcurrent: configuration.maxConcurrent)
    }

    /// The transfers at once that hosts' answers earned (or lost) so far, by `host:port`: pass
    /// them to a later fetcher as ``FetcherConfiguration/knownHostShares`` so it starts there.
    ///
    /// ```swift
    /// let shares = await fetcher.learntHostShares()   // ["feeds.example:443": 8]
    /// ```
    public func learntHostShares() async -> [String: Int] {
        await limiter.learnt()
    }

    static let acceptHeader =
        "application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, "
        + "application/rdf+xml;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.8"

    /// Fetches one feed. Never throws: failures come back as ``FetchOutcome/failed(_:)``.
    ///
    /// Cancelling the calling task aborts the transfer and yields ``FetchError/cancelled(url:)``.
    ///
    /// ```swift
    /// let outcome = await fetcher.fetch(FeedRequest(url: feedURL, etag: server.etag))
    /// ```
    public func fetch(_ request: FeedRequest) async -> FetchOutcome {
        if let notBefore = request.notBefore, notBefore > Date() {
            return .deferred(until: notBefore, nil)
        }
        switch request.url.scheme?.lowercased() {
        case "http", "https": return await fetchHTTP(request)
        case "file": return await fetchFile(request)
        case "exec", "filter": return await fetchCommand(request)
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
        _ requests: [FeedRequest], onEach: @escaping @Sendable (FeedRequest, FetchOutcome) async -> Void
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

    private func fetchHTTP(_ request: FeedRequest) async -> FetchOutcome {
        let url = request.url
        guard let host = url.host, !host.isEmpty else {
            return .failed(.invalidURL(url, reason: "no host"))
        }
        let defaultPort = url.scheme?.lowercased() == "https" ? 443 : 80
        let hostKey = "\(host.lowercased()):\(url.port ?? defaultPort)"
        guard await limiter.acquire(host: hostKey) else {
            return .failed(.cancelled(url: url))
        }
        let started = ContinuousClock.now
        let result = await transfer(request)
        await limiter.release(host: hostKey, answer: Self.answer(of: result, after: ContinuousClock.now - started))
        return outcome(of: result, for: request)
    }

    /// What `result` tells the limiter about its host (``HostConnectionLimits``).
    static func answer(of result: TransferResult, after duration: Duration) -> HostConnectionLimits.Answer {
        guard case .response(let response) = result else { return .failed }
        switch response.status {
        case 200..<300, 304:
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            let multiplexed = response.httpVersion.map { $0 == "2" || $0 == "3" } ?? false
            return .succeeded(seconds: seconds, multiplexed: multiplexed)
        case 429, 503: return .throttled
        default: return .failed
        }
    }

    private func transfer(_ request: FeedRequest) async -> TransferResult {
        guard let transfer = CurlTransfer(request: request, limits: limits, acceptHeader: Self.acceptHeader) else {
            return .failure(.transport(url: request.url, message: CurlGlobal.noTransferReason))
        }
        return await run(transfer)
    }

    /// Runs `transfer` on the multi handle's thread; cancelling the calling task aborts it.
    func run(_ transfer: CurlTransfer) async -> TransferResult {
        let multi = self.multi
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.continuation = continuation
                multi.start(transfer)
            }
        } onCancel: {
            transfer.cancelRequested.store(true, ordering: .relaxed)
            multi.wake()
        }
    }

    private func outcome(of result: TransferResult, for request: FeedRequest) -> FetchOutcome {
        let response: HTTPResponse
        switch result {
        case .failure(let error): return .failed(error)
        case .response(let value): response = value
        }
        let status = response.status
        let headers = response.headers
        let (mediaType, charset) = HTTPHeaderValues.contentType(headers["content-type"])
        var metadata = FetchMetadata(
            finalURL: response.finalURL,
            permanentRedirect: response.redirectCount > 0 && response.allRedirectsPermanent ? response.finalURL : nil,
            status: status, etag: headers["etag"], lastModified: headers["last-modified"],
            contentType: mediaType, charset: charset)
        metadata.httpVersion = response.httpVersion
        metadata.newConnections = response.newConnections
        switch status {
        case 200..<300:
            if let problem = response.problem {
                metadata.bodyProblem = problem
                metadata.etag = nil
                metadata.lastModified = nil
            }
            return .fetched(body: response.body, metadata: metadata)
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
            return .failed(.httpStatus(status, url: response.finalURL))
        default:
            return .failed(.httpStatus(status, url: response.finalURL))
        }
    }
}
