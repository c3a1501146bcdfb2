import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one URLSession task produced, reduced to Sendable values.
struct TransferResult: Sendable {
    /// The final status, `nil` when no complete response arrived.
    var status: Int?
    /// Response headers with lowercased names.
    var headers: [String: String]
    var finalURL: URL
    var body: Data
    var redirectCount: Int
    var allRedirectsPermanent: Bool
    /// A failure detected by the fetcher itself (cap, redirects, total timeout).
    var failure: FetchError?
    /// The error URLSession reported, if any.
    var error: (any Error)?
}

/// The session's delegate: follows redirects by hand (to count them, detect loops and tell
/// permanent from temporary), streams the body so the size cap can abort the transfer, and
/// resumes each fetch's continuation when its task completes.
///
/// URLSession calls it on its delegate queue, which ``FeedFetcher`` makes serial, so the
/// body's chunks arrive in order; the per-task state sits behind a `Mutex` because
/// ``FeedFetcher`` registers and times out transfers from other threads.
final class FetchSessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Transfer {
        var currentURL: URL
        var visited: Set<String>
        var redirectCount = 0
        var allRedirectsPermanent = true
        var body = Data()
        var failure: FetchError?
        let continuation: CheckedContinuation<TransferResult, Never>
    }

    private let transfers = Mutex<[Int: Transfer]>([:])
    private let maxRedirects: Int
    private let maxBodySize: Int

    init(maxRedirects: Int, maxBodySize: Int) {
        self.maxRedirects = maxRedirects
        self.maxBodySize = maxBodySize
    }

    /// Starts tracking `task`; its completion resumes `continuation` exactly once.
    func register(_ task: URLSessionTask, url: URL, continuation: CheckedContinuation<TransferResult, Never>) {
        let transfer = Transfer(currentURL: url, visited: [Self.key(url)], continuation: continuation)
        transfers.withLock { $0[task.taskIdentifier] = transfer }
    }

    /// Records `failure` as the reason the task is about to be cancelled, unless it already
    /// has one or has completed. Returns whether the failure was recorded.
    @discardableResult
    func fail(_ task: URLSessionTask, with failure: FetchError) -> Bool {
        transfers.withLock { transfers in
            guard transfers[task.taskIdentifier] != nil, transfers[task.taskIdentifier]?.failure == nil else {
                return false
            }
            transfers[task.taskIdentifier]?.failure = failure
            return true
        }
    }

    // MARK: URLSessionTaskDelegate

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @Sendable @escaping (URLRequest?) -> Void
    ) {
        let location = response.value(forHTTPHeaderField: "Location")?.trimmingCharacters(in: .whitespaces)
        let verdict: URLRequest? = transfers.withLock { transfers in
            guard var transfer = transfers[task.taskIdentifier] else { return nil }
            defer { transfers[task.taskIdentifier] = transfer }
            // Resolve Location ourselves (RFC 3986): URLSession on Linux turns a relative
            // `feed.xml` into `/feed.xml`, and `file:///x` into `http://same-host/x`.
            guard
                let target = location.flatMap({ URL(string: $0, relativeTo: transfer.currentURL)?.absoluteURL })
                    ?? request.url
            else { return nil }
            transfer.redirectCount += 1
            if transfer.redirectCount > maxRedirects {
                transfer.failure = .tooManyRedirects(url: transfer.currentURL, limit: maxRedirects)
                return nil
            }
            guard let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                transfer.failure = .unsupportedRedirect(from: transfer.currentURL, to: target)
                return nil
            }
            guard transfer.visited.insert(Self.key(target)).inserted else {
                transfer.failure = .redirectLoop(url: transfer.currentURL)
                return nil
            }
            if response.statusCode != 301 && response.statusCode != 308 {
                transfer.allRedirectsPermanent = false
            }
            transfer.currentURL = target
            var next = request
            next.url = target
            return next
        }
        // Refusing (nil) makes URLSession complete the task with the 3xx response; the
        // failure recorded above then names the reason.
        completionHandler(verdict)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let response = task.response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in response?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        let result = TransferResult(
            status: response?.statusCode, headers: headers,
            finalURL: response?.url ?? transfer.currentURL, body: transfer.body,
            redirectCount: transfer.redirectCount, allRedirectsPermanent: transfer.allRedirectsPermanent,
            failure: transfer.failure, error: error)
        transfer.continuation.resume(returning: result)
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @Sendable @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        // A declared length over the cap is refused before any body is read. On Linux,
        // URLSession ignores the disposition passed here (it never waits for it), so the
        // task is cancelled directly.
        if response.expectedContentLength > Int64(maxBodySize),
            fail(dataTask, with: .tooLarge(url: response.url ?? dataTask.originalRequest?.url ?? Self.unknownURL, limit: maxBodySize))
        {
            completionHandler(.cancel)
            Self.cancelSoon(dataTask)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let overflow: Bool = transfers.withLock { transfers in
            guard let transfer = transfers[id], transfer.failure == nil else { return false }
            if transfer.body.count + data.count > maxBodySize {
                transfers[id]?.failure = .tooLarge(url: transfer.currentURL, limit: maxBodySize)
                transfers[id]?.body = Data()  // free it now; the outcome carries no body
                return true
            }
            // Appended in place: a copy taken out of the dictionary would share the buffer
            // and make every append copy the whole body so far.
            transfers[id]?.body.append(data)
            return false
        }
        if overflow { Self.cancelSoon(dataTask) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @Sendable @escaping (CachedURLResponse?) -> Void
    ) {
        completionHandler(nil)  // Zeader keeps its own validators; nothing is cached
    }

    /// Cancels `task` from another thread. On Linux `URLSessionTask.cancel()` waits
    /// (`sync`) for the session's work queue, which a fast transfer keeps busy for seconds;
    /// called here it would stall the delegate while undelivered chunks pile up in memory,
    /// and called from a Swift task it would block one of the few cooperative threads.
    /// Until the cancel lands, the delegate drops whatever still arrives.
    static func cancelSoon(_ task: URLSessionTask) {
        cancelQueue.async { task.cancel() }
    }

    private static let cancelQueue = DispatchQueue(label: "zeader.FeedFetcher.cancel", attributes: .concurrent)

    private static let unknownURL = URL(fileURLWithPath: "/")

    /// Redirect loops are detected on the URL without its fragment (never sent to the server).
    private static func key(_ url: URL) -> String {
        var text = url.absoluteString
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        return text
    }
}
