import CCurl
import Foundation
import Synchronization

/// What one transfer produced: a final response (any status), or why there is none.
enum TransferResult: Sendable {
    case response(HTTPResponse)
    case failure(FetchError)
}

/// The final response of a transfer, after any redirects.
struct HTTPResponse: Sendable {
    var status: Int
    /// Header names lowercased; the first of repeated headers.
    var headers: [String: String]
    var finalURL: URL
    /// The decoded body of a 2xx response; empty for other statuses.
    var body: Data
    var redirectCount: Int
    var allRedirectsPermanent: Bool
    /// A 2xx body that disagrees with its `Content-Length` (cut off, or longer): kept, and
    /// reported beside it.
    var problem: FetchError? = nil
    /// `CURLINFO_HTTP_VERSION` as text (`"2"`), and the connections opened for the fetch.
    var httpVersion: String? = nil
    var newConnections = 0
}

/// One fetch as a libcurl easy handle: its options, its callbacks (body, headers, debug
/// text), and what happens when libcurl reports it done: a redirect is followed by hand on
/// the same handle, anything else becomes a ``TransferResult``.
///
/// Redirects are followed here, not by `CURLOPT_FOLLOWLOCATION`: the fetcher must know
/// whether every hop was permanent (301/308, to update the stored URL), stop at a loop
/// before requesting the same URL again, and name the URL it gave up at; libcurl's follower
/// reports none of these. The scheme whitelist is enforced both here and by libcurl
/// (`CURLOPT_PROTOCOLS_STR`/`CURLOPT_REDIR_PROTOCOLS_STR` "http,https"). A request that
/// carries credentials follows redirects only within its own origin, since the headers and
/// the form body go along on the same handle.
// Safe to share across threads: the fetching task sets a transfer up and then hands it to
// CurlMulti through the multi's locked inbox, which orders the two; from then on only the
// multi's loop thread touches its state (libcurl runs the callbacks inside
// `curl_multi_perform` on that thread). The one exception is `cancelRequested`, an atomic.
final class CurlTransfer: @unchecked Sendable {
    /// The URL the caller asked for.
    let originalURL: URL
    /// The URL being requested now (changes at each redirect).
    private(set) var currentURL: URL
    /// The easy handle; `nil` once released.
    private(set) var handle: UnsafeMutableRawPointer?
    /// Resumed once, by ``finish(_:)``.
    var continuation: CheckedContinuation<TransferResult, Never>?
    /// Set by the caller's cancellation handler, from any thread; the loop thread polls it.
    let cancelRequested = Atomic<Bool>(false)

    private let limits: TransferLimits
    /// The fetcher's network options with the request's over them.
    private let network: NetworkOptions
    /// The whole-fetch timeout in force (the request's own, else the fetcher's), as errors report it.
    private let totalTimeout: TimeInterval
    private let deadline: ContinuousClock.Instant
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>

    // The current response.
    private var status = 0
    private var headers: [String: String] = [:]
    private var headerBytes = 0
    /// The final response's header block has ended (its body, if any, comes next).
    private var headersDone = false
    private var bodyStarted = false
    private var body: BodyBuffer
    /// Decoded body bytes of the current response, stored or not.
    private var bodyBytes = 0
    /// libcurl saw more bytes than `Content-Length` announced (it drops them silently).
    private var excessFound = false
    /// Why a callback aborted the transfer.
    private var failure: FetchError?
    /// Set for a download: the 2xx body goes to this file, not into memory.
    private let download: DownloadSink?

    // The whole fetch.
    private var redirectCount = 0
    private var allRedirectsPermanent = true
    private var newConnections = 0
    private var visited: Set<String>
    /// Set when the request carries credentials: the only origin its redirects may reach.
    private let credentialOrigin: String?

    /// Most response-header bytes accepted per response.
    static let maxHeaderBytes = 256 * 1024
    /// The longest header line libcurl buffers (`CURL_MAX_HTTP_HEADER`).
    static let libcurlHeaderLineLimit = 100 * 1024

    /// Sets up an easy handle for `request`; `nil` when libcurl cannot make one.
    init?(request: FeedRequest, limits: TransferLimits, acceptHeader: String, download: DownloadSink? = nil) {
        guard let handle = zc_easy_init() else { return nil }
        self.handle = handle
        originalURL = request.url
        currentURL = request.url
        self.limits = limits
        network = limits.network.overridden(by: request.network)
        totalTimeout = network.timeout ?? limits.totalTimeout
        let totalMilliseconds = network.timeout.map { TransferLimits.clamped($0, scale: 1000, minimum: 1) }
        deadline = .now + .milliseconds(totalMilliseconds ?? limits.totalMilliseconds)
        body = BodyBuffer(limit: download == nil ? limits.maxBodySize : 0)
        self.download = download
        visited = [Self.redirectKey(request.url)]
        credentialOrigin =
            Self.carriesCredentials(request) || network.carriesCredentials ? FetchError.origin(of: request.url) : nil
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))

        var lines = ["Accept: \(acceptHeader)"]
        // Validators come from the store, and so once from a server: never let one carry
        // a line break into the request.
        if let etag = request.etag.flatMap(HTTPHeaderValues.headerSafe) { lines.append("If-None-Match: \(etag)") }
        if let stamp = request.lastModified.flatMap(HTTPHeaderValues.headerSafe) {
            lines.append("If-Modified-Since: \(stamp)")
        }
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            if let name = HTTPHeaderValues.headerSafe(name), let value = HTTPHeaderValues.headerSafe(value) {
                lines.append("\(name): \(value)")
            }
        }
        for line in network.headers {
            if let safe = HTTPHeaderValues.headerSafe(line), safe.contains(":") { lines.append(safe) }
        }
        if request.formBody != nil { lines.append("Content-Type: application/x-www-form-urlencoded") }
        if let download, download.resumeFrom > 0 { lines.append("Range: bytes=\(download.resumeFrom)-") }
        for line in lines { requestHeaders = zc_slist_append(requestHeaders, line) }
        configure(handle)
        if let form = request.formBody {
            setLong(CURLOPT_POSTFIELDSIZE, form.utf8.count)
            setString(CURLOPT_COPYPOSTFIELDS, form)
        }
    }

    deinit {
        releaseHandle()
        errorBuffer.deallocate()
    }

    private func configure(_ handle: UnsafeMutableRawPointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        setLong(CURLOPT_NOSIGNAL, 1)  // many threads; timeouts must not use signals
        _ = zc_easy_open_sockets_closing_on_exec(handle)
        setString(CURLOPT_PROTOCOLS_STR, "http,https")
        setString(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        setLong(CURLOPT_FOLLOWLOCATION, 0)
        setLong(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // In place of libcurl's CA bundle file; its CA directory (/etc/ssl/certs) still counts.
        if let caFile = limits.caFile { setString(CURLOPT_CAINFO, caFile) }
        // Every encoding this libcurl decodes; a download asks for the file as it is (a byte
        // range of a compressed stream could not be resumed).
        if download == nil { setString(CURLOPT_ACCEPT_ENCODING, "") }
        setString(CURLOPT_USERAGENT, network.userAgent.flatMap(HTTPHeaderValues.headerSafe) ?? limits.userAgent)
        applyNetworkOptions()
        _ = zc_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, requestHeaders)
        setLong(CURLOPT_CONNECTTIMEOUT_MS, limits.idleSeconds * 1000)
        setLong(CURLOPT_LOW_SPEED_LIMIT, 1)
        setLong(CURLOPT_LOW_SPEED_TIME, limits.idleSeconds)
        _ = zc_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = zc_easy_setopt_write_callback(handle, CURLOPT_WRITEFUNCTION, Self.bodyCallback)
        _ = zc_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = zc_easy_setopt_write_callback(handle, CURLOPT_HEADERFUNCTION, Self.headerCallback)
        _ = zc_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        // libcurl tells of bytes past Content-Length only in its verbose text; the callback
        // looks at that one message and drops the rest.
        _ = zc_easy_setopt_debug_callback(handle, Self.debugCallback)
        _ = zc_easy_setopt_pointer(handle, CURLOPT_DEBUGDATA, context)
        setLong(CURLOPT_VERBOSE, 1)
        pointAt(currentURL)
    }

    /// Sets the URL and the time left of the whole-fetch clock, for the first request and
    /// for each redirect.
    private func pointAt(_ url: URL) {
        setString(CURLOPT_URL, url.absoluteString)
        // Over https a new transfer to a host being connected waits for the TLS handshake to
        // say whether it can share that connection (HTTP/2) instead of opening another. Not
        // over http: there libcurl would only learn it from the response, so transfers to
        // one host would go one at a time.
        setLong(CURLOPT_PIPEWAIT, url.scheme?.lowercased() == "https" ? 1 : 0)
        setLong(CURLOPT_TIMEOUT_MS, max(1, Self.milliseconds(deadline - .now)))
    }

    /// Proxy, login, cookies, certificate checks and speed limit (``NetworkOptions``).
    private func applyNetworkOptions() {
        if let cookie = network.cookie.flatMap(HTTPHeaderValues.headerSafe) { setString(CURLOPT_COOKIE, cookie) }
        if let file = network.cookieFile {
            // libcurl's cookie engine: read before the fetch, written back when the handle is freed.
            setString(CURLOPT_COOKIEFILE, file)
            setString(CURLOPT_COOKIEJAR, file)
        }
        if network.useProxy != false, let proxy = network.proxy {
            setString(CURLOPT_PROXY, proxy)
            if let type = network.proxyType { setLong(CURLOPT_PROXYTYPE, Self.curlProxyType(type)) }
            if let login = network.proxyAuth { setString(CURLOPT_PROXYUSERPWD, login) }
        }
        if let user = network.user { setString(CURLOPT_USERNAME, user) }
        if let password = network.password { setString(CURLOPT_PASSWORD, password) }
        // As newsboat: a login is sent by whichever method the server asks for, unless one is named.
        let hasLogin = network.user != nil || originalURL.user != nil
        if let method = network.authMethod ?? (hasLogin ? .any : nil) { setLong(CURLOPT_HTTPAUTH, Self.curlAuth(method)) }
        if network.verifyTLS == false {
            setLong(CURLOPT_SSL_VERIFYPEER, 0)
            setLong(CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let speed = network.maxBytesPerSecond, speed > 0, let handle {
            _ = zc_easy_setopt_off_t(handle, CURLOPT_MAX_RECV_SPEED_LARGE, curl_off_t(speed))
        }
    }

    /// `CURLOPT_PROXYTYPE`'s value for `type`.
    private static func curlProxyType(_ type: NetworkOptions.ProxyType) -> Int {
        switch type {
        case .http: Int(CURLPROXY_HTTP.rawValue)
        case .socks4: Int(CURLPROXY_SOCKS4.rawValue)
        case .socks5: Int(CURLPROXY_SOCKS5.rawValue)
        case .socks5h: Int(CURLPROXY_SOCKS5_HOSTNAME.rawValue)
        }
    }

    /// `CURLOPT_HTTPAUTH`'s bits for `method` (curl.h's `CURLAUTH_*`, whose casts Swift cannot import).
    private static func curlAuth(_ method: NetworkOptions.AuthMethod) -> Int {
        let basic = 1
        let digest = 2
        let negotiate = 4
        let ntlm = 8
        let digestIE = 16
        switch method {
        case .basic: return basic
        case .digest: return digest
        case .digestIE: return digestIE
        case .gssnegotiate: return negotiate
        case .ntlm: return ntlm
        case .any: return ~digestIE
        case .anysafe: return ~(basic | digestIE)
        }
    }

    private func setLong(_ option: CURLoption, _ value: Int) {
        guard let handle else { return }
        _ = zc_easy_setopt_long(handle, option, value)
    }

    private func setString(_ option: CURLoption, _ value: String) {
        guard let handle else { return }
        _ = value.withCString { zc_easy_setopt_string(handle, option, $0) }
    }

    /// Frees the easy handle and the request headers. Call only once the handle is out of
    /// the multi handle.
    func releaseHandle() {
        if let handle { zc_easy_cleanup(handle) }
        handle = nil
        if let requestHeaders { zc_slist_free_all(requestHeaders) }
        requestHeaders = nil
        body.removeAll()
    }

    /// Releases the handle and resumes the waiting fetch with `result`.
    func finish(_ result: TransferResult) {
        releaseHandle()
        continuation?.resume(returning: result)
        continuation = nil
    }

    // MARK: - Callbacks

    private static let bodyCallback: curl_write_callback = { data, size, count, context in
        guard let context else { return 0 }
        return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().receiveBody(data, size, count)
    }

    private static let headerCallback: curl_write_callback = { data, size, count, context in
        guard let context else { return 0 }
        return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().receiveHeader(data, size, count)
    }

    private static let debugCallback: curl_debug_callback = { _, type, text, size, context in
        guard type == CURLINFO_TEXT, let text, let context, size >= excessPrefix.count else { return 0 }
        // "Excess found in a read" (7.x) or "Excess found writing body" (8.x).
        let matches = UnsafeRawBufferPointer(start: text, count: excessPrefix.count).elementsEqual(excessPrefix)
        if matches { Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().excessFound = true }
        return 0
    }

    private static let excessPrefix = Array("Excess found".utf8)

    /// Takes decoded body bytes; returning anything but `size × count` aborts the transfer.
    private func receiveBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int) -> Int {
        let (length, overflow) = size.multipliedReportingOverflow(by: count)
        guard !overflow, failure == nil else { return 0 }
        bodyStarted = true
        guard length > 0, let data else { return length }
        let (total, tooMany) = bodyBytes.addingReportingOverflow(length)
        let base = download.map { $0.isReceiving ? Int(clamping: $0.base) : 0 } ?? 0
        guard !tooMany, total <= limits.maxBodySize - base else {
            failure = .tooLarge(url: currentURL, limit: limits.maxBodySize)
            body.removeAll()
            return 0
        }
        bodyBytes = total
        if let download, download.isReceiving {
            if let problem = download.write(data, count: length, url: currentURL) {
                failure = problem
                return 0
            }
            return length
        }
        // Only a 2xx body is kept; a redirect's or an error page's is counted and dropped.
        if (200..<300).contains(status), !body.append(data, count: length) {
            failure = .transport(url: currentURL, message: "out of memory for the body")
            body.removeAll()
            return 0
        }
        return length
    }

    /// Takes one header line (status lines included, with their CRLF).
    private func receiveHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int) -> Int {
        let (length, overflow) = size.multipliedReportingOverflow(by: count)
        guard !overflow, failure == nil else { return 0 }
        guard let data, length > 0 else { return length }
        // Trailers after a chunked body: nothing the fetcher reads comes from them.
        if bodyStarted { return length }
        headerBytes += length
        guard headerBytes <= Self.maxHeaderBytes else {
            failure = .headersTooLarge(url: currentURL, limit: Self.maxHeaderBytes)
            return 0
        }
        switch HTTPHeaderLine(UnsafeRawBufferPointer(start: data, count: length)) {
        case .status(let code):
            // A new response (an interim 1xx came first, or this is the first): start over.
            status = code
            headers = [:]
        case .end:
            if status >= 200 { headersDone = true }
            if let download, (200..<300).contains(status) {
                if let problem = download.begin(status: status, headers: headers, limit: limits.maxBodySize, url: currentURL) {
                    failure = problem
                    return 0
                }
            } else if (200..<300).contains(status), let declared = HTTPHeaderValues.contentLength(headers["content-length"]),
                declared > Int64(limits.maxBodySize)
            {
                // A declared length over the cap is refused before any of the body is read.
                failure = .tooLarge(url: currentURL, limit: limits.maxBodySize)
                return 0
            }
        case .field(let name, let value):
            if headers[name] == nil { headers[name] = value }
        case .ignored:
            break
        }
        return length
    }

    // MARK: - Completion

    /// What the loop does with a transfer libcurl reports done.
    enum Completion {
        /// The handle points at the redirect's target: add it to the multi handle again.
        case followRedirect
        case done(TransferResult)
    }

    /// Turns libcurl's verdict into a result, or prepares the next request of a redirect.
    func complete(with code: CURLcode) -> Completion {
        if let failure { return .done(.failure(failure)) }
        var responseCode = 0
        if let handle { _ = zc_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &responseCode) }
        newConnections += Int(longInfo(CURLINFO_NUM_CONNECTS))
        if code == CURLE_PARTIAL_FILE, (200..<300).contains(responseCode), body.count > 0 {
            // What arrived of a feed is worth keeping as far as it parses; the error goes with it.
            return .done(.response(response(status: responseCode, problem: error(for: code))))
        }
        guard code == CURLE_OK else { return .done(.failure(error(for: code))) }
        guard responseCode > 0 else {
            return .done(.failure(.transport(url: currentURL, message: "no HTTP response")))
        }
        if Self.redirectStatuses.contains(responseCode), let location = headers["location"] {
            if let verdict = followRedirect(status: responseCode, location: location) { return .done(verdict) }
            return .followRedirect
        }
        if (200..<300).contains(responseCode), excessFound {
            let problem = FetchError.bodyLongerThanDeclared(url: currentURL, declared: info(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T))
            return .done(.response(response(status: responseCode, problem: problem)))
        }
        return .done(.response(response(status: responseCode, problem: nil)))
    }

    /// The response as it stands: the body of a 2xx, with `problem` when it is not the body
    /// the server announced.
    private func response(status: Int, problem: FetchError?) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: headers, finalURL: currentURL,
            body: (200..<300).contains(status) ? body.takeData() : Data(),
            redirectCount: redirectCount, allRedirectsPermanent: allRedirectsPermanent, problem: problem,
            httpVersion: Self.versionText(longInfo(CURLINFO_HTTP_VERSION)), newConnections: newConnections)
    }

    /// `CURLINFO_HTTP_VERSION`'s value as the version people write.
    private static func versionText(_ value: Int) -> String? {
        switch value {
        case Int(CURL_HTTP_VERSION_1_0): "1.0"
        case Int(CURL_HTTP_VERSION_1_1): "1.1"
        case Int(CURL_HTTP_VERSION_2_0): "2"
        case Int(CURL_HTTP_VERSION_3): "3"
        default: nil
        }
    }

    private static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Checks the hop and points the handle at its target; returns the failure that ends
    /// the fetch instead, or `nil` to go on.
    private func followRedirect(status: Int, location: String) -> TransferResult? {
        // RFC 3986 resolution against the URL that answered.
        guard let target = URL(string: location, relativeTo: currentURL)?.absoluteURL else {
            return .failure(.httpStatus(status, url: currentURL))
        }
        redirectCount += 1
        if redirectCount > limits.maxRedirects {
            return .failure(.tooManyRedirects(url: currentURL, limit: limits.maxRedirects))
        }
        guard let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return .failure(.unsupportedRedirect(from: currentURL, to: target))
        }
        // Refused rather than followed without them: an API that answers from elsewhere has
        // moved or is not the one the user named, and stripped credentials only fail there.
        if let credentialOrigin, FetchError.origin(of: target) != credentialOrigin {
            return .failure(.credentialedRedirect(from: currentURL, to: target))
        }
        guard visited.insert(Self.redirectKey(target)).inserted else {
            return .failure(.redirectLoop(url: currentURL))
        }
        if status != 301 && status != 308 { allRedirectsPermanent = false }
        // A POST redirected by 301, 302 or 303 becomes a GET (as browsers and libcurl do).
        if status != 307 && status != 308 { setLong(CURLOPT_HTTPGET, 1) }
        currentURL = target
        guard deadline > .now else {
            return .failure(.timedOut(url: currentURL, seconds: totalTimeout, kind: .total))
        }
        // A fresh response on the same handle (its connection is reused when it can be).
        self.status = 0
        headers = [:]
        headerBytes = 0
        headersDone = false
        bodyStarted = false
        bodyBytes = 0
        excessFound = false
        body.removeAll()
        errorBuffer[0] = 0
        pointAt(target)
        return nil
    }

    private func error(for code: CURLcode) -> FetchError {
        let detail = errorBuffer[0] == 0 ? "" : String(cString: errorBuffer)
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            // libcurl reports both clocks with one code; the deadline tells them apart.
            if deadline - .now < .milliseconds(50) {
                return .timedOut(url: currentURL, seconds: totalTimeout, kind: .total)
            }
            return .timedOut(url: currentURL, seconds: TimeInterval(limits.idleSeconds), kind: .idle)
        case CURLE_PARTIAL_FILE:
            let expected = info(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T)
            return .incompleteBody(
                url: currentURL, received: info(CURLINFO_SIZE_DOWNLOAD_T), expected: expected >= 0 ? expected : nil)
        case CURLE_URL_MALFORMAT:
            return .invalidURL(currentURL, reason: detail.isEmpty ? "malformed" : detail)
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .unsupportedScheme(currentURL)
        case CURLE_OUT_OF_MEMORY where !headersDone && !bodyStarted:
            // libcurl's only answer to one header line past its buffer: the server's doing,
            // not this process running out of memory.
            return .headersTooLarge(url: currentURL, limit: Self.libcurlHeaderLineLimit)
        default:
            return .transport(url: currentURL, message: Self.message(for: code, detail: detail))
        }
    }

    /// One short phrase per failure a feed reader meets, with libcurl's own words where
    /// they add something (which certificate problem, which encoding error).
    static func message(for code: CURLcode, detail: String) -> String {
        let phrase: String
        var withDetail = true
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST: (phrase, withDetail) = ("host not found", false)
        case CURLE_COULDNT_CONNECT: (phrase, withDetail) = ("cannot connect to host", false)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR: (phrase, withDetail) = ("connection lost", false)
        case CURLE_GOT_NOTHING: (phrase, withDetail) = ("empty reply from server", false)
        case CURLE_SSL_CONNECT_ERROR: phrase = "TLS connection failed"
        case CURLE_PEER_FAILED_VERIFICATION: phrase = "server certificate not trusted"
        case CURLE_BAD_CONTENT_ENCODING: phrase = "body could not be decoded"
        case CURLE_WEIRD_SERVER_REPLY: phrase = "bad server response"
        case CURLE_HTTP2, CURLE_HTTP2_STREAM: phrase = "HTTP/2 error"
        case CURLE_OUT_OF_MEMORY: (phrase, withDetail) = ("out of memory", false)
        default: phrase = zc_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
        }
        return withDetail && !detail.isEmpty && detail != phrase ? "\(phrase) (\(detail))" : phrase
    }

    private func longInfo(_ item: CURLINFO) -> Int {
        var value = 0
        if let handle { _ = zc_easy_getinfo_long(handle, item, &value) }
        return value
    }

    private func info(_ item: CURLINFO) -> Int64 {
        var value: curl_off_t = -1
        if let handle { _ = zc_easy_getinfo_off_t(handle, item, &value) }
        return Int64(value)
    }

    /// Whether `request` holds something meant for its own server only: headers set by the
    /// caller (`Authorization`, tokens), a form body (a password, an action token) or a user
    /// name or password in the URL. A plain feed GET holds none.
    static func carriesCredentials(_ request: FeedRequest) -> Bool {
        !request.headers.isEmpty || request.formBody != nil || request.url.user != nil || request.url.password != nil
    }

    /// Redirect loops are detected on the URL without its fragment (never sent to the server).
    private static func redirectKey(_ url: URL) -> String {
        var text = url.absoluteString
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        return text
    }

    /// A duration in whole milliseconds, clamped to libcurl's useful range.
    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let ceiling = Int64(TransferLimits.longestTimeoutSeconds)
        guard seconds < ceiling else { return Int(ceiling) * 1000 }
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// libcurl, loaded and initialized once per process before the first handle (`zc_load`).
enum CurlGlobal {
    /// Loads libcurl on first use; nil when it is ready, else why it is not, to name in the
    /// fetch's error (thread-safe: `zc_load` runs its work once).
    static func load() -> String? { zc_load().map { String(cString: $0) } }

    /// What a fetch says when no transfer could be made: why libcurl is not ready, if so.
    static var noTransferReason: String { load() ?? "libcurl could not start a transfer" }
}
