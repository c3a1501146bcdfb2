import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small HTTP/1.1 server for tests, on 127.0.0.1 and an ephemeral port, one thread per
/// connection, one request per connection (`Connection: close`) unless made with
/// `keepAlive: true`, when a connection that got a ``Reply/respond(status:headers:body:)``
/// stays open for the client's next request (the other replies still close it).
/// ``connectionsAccepted`` and ``maxOpenConnections`` count TCP connections, so tests can
/// see connection reuse and per-host connection limits.
///
/// Tests get one through ``withLoopbackServer(gauge:keepAlive:_:_:)``, which stops it when the test's
/// body returns; as a safety net it also stops itself after `lifetime` seconds (default 600: under a full
/// parallel test run on two cores a test can wait over a minute before it connects).
///
/// ```swift
/// try await withLoopbackServer({ _ in .ok("hello") }) { server in
///     let outcome = await fetcher.fetch(FeedRequest(url: server.url("/feed")))
/// }
/// ```
public final class LoopbackHTTPServer: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// Header names lowercased.
        public var headers: [String: String]
        /// Which accepted connection carried it (1 for the first): requests on one
        /// connection share the number, whatever else connects to the port.
        public var connection = 0
        /// The request's `Content-Length` body (a form POST's fields).
        public var body = Data()
    }

    public enum Reply: Sendable {
        /// A complete response with `Content-Length`.
        case respond(status: Int, headers: [(String, String)], body: Data)
        /// Reads the request and then sends nothing for `seconds` (or until stopped).
        case stall(seconds: TimeInterval)
        /// Sends a 200 header, then `chunk` every `interval` seconds, `count` times.
        case trickle(chunk: Data, interval: TimeInterval, count: Int)
        /// Sends a 200 header with no length, then a body that never ends (until the client
        /// goes away or the server stops): at about 30 MB/s, or as fast as the socket takes it.
        case endless(fullSpeed: Bool = false)
        /// Waits `seconds`, then answers with `reply`.
        indirect case delayed(seconds: TimeInterval, Reply)
        /// Sends exactly these bytes (status line, headers and body as given), then closes:
        /// for lying `Content-Length`s, cut-off chunked bodies and other broken responses.
        case raw(Data)
        /// Sends a 200 header with `Transfer-Encoding: chunked`, then chunks that never end.
        case endlessChunked(fullSpeed: Bool = false)
        /// Sends a 200 header with `Content-Encoding` gzip or deflate and no length, then a
        /// compressed stream of zeros that never ends: about 160 decoded bytes per byte sent.
        case compressionBomb(CompressionBomb.Encoding)

        public static func ok(_ text: String, contentType: String = "application/rss+xml; charset=utf-8") -> Reply {
            .respond(status: 200, headers: [("Content-Type", contentType)], body: Data(text.utf8))
        }

        public static func status(_ status: Int, headers: [(String, String)] = []) -> Reply {
            .respond(status: status, headers: headers, body: Data("status \(status)\n".utf8))
        }

        public static func redirect(_ status: Int, to location: String) -> Reply {
            .respond(status: status, headers: [("Location", location)], body: Data())
        }

        /// A file served as a media server serves it: `Range: bytes=N-` gets 206 with the rest
        /// and `Content-Range` (416 when N is past the end), no Range a 200 with the whole file.
        /// With `rangesHonoured: false` every request gets the whole file. With `cutAfter`,
        /// the connection closes after that many body bytes (the headers still declare the
        /// full length): an interrupted download.
        public static func ranged(
            _ request: Request, body: Data, contentType: String = "audio/mpeg", rangesHonoured: Bool = true,
            cutAfter: Int? = nil
        ) -> Reply {
            var start = 0
            var status = 200
            if rangesHonoured, let range = request.headers["range"], range.hasPrefix("bytes="),
                let dash = range.firstIndex(of: "-"),
                let first = Int(range[range.index(range.startIndex, offsetBy: 6)..<dash])
            {
                guard first < body.count else {
                    return .respond(status: 416, headers: [("Content-Range", "bytes */\(body.count)")], body: Data())
                }
                start = first
                status = 206
            }
            let rest = body.subdata(in: start..<body.count)
            var head = "HTTP/1.1 \(status) \(status == 206 ? "Partial Content" : "OK")\r\nContent-Type: \(contentType)\r\n"
            head += "Accept-Ranges: bytes\r\n"
            if status == 206 { head += "Content-Range: bytes \(start)-\(body.count - 1)/\(body.count)\r\n" }
            head += "Content-Length: \(rest.count)\r\nConnection: close\r\n\r\n"
            let sent = cutAfter.map { rest.prefix(max(0, $0)) } ?? rest
            return .raw(Data(head.utf8) + sent)
        }

        /// A 200 whose `Content-Length` says `declaredLength` (any text, even a lie or
        /// nonsense), followed by `body`, then the connection closes.
        public static func declaring(_ declaredLength: String, body: Data, headers: [(String, String)] = []) -> Reply {
            var head = "HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(declaredLength)\r\nConnection: close\r\n\r\n"
            return .raw(Data(head.utf8) + body)
        }
    }

    private struct State {
        var requests: [Request] = []
        var inProgress = 0
        var maxInProgress = 0
        var bytesSent = 0
        var stopped = false
        var connectionsAccepted = 0
        var openConnections = 0
        var maxOpenConnections = 0
        /// Set by the accept loop when it has closed the listener: from then on its number
        /// may belong to someone else's socket, which `stop()` must not shut down.
        var listenerClosed = false
    }

    public let port: UInt16
    private let listener: Int32
    private let handler: @Sendable (Request) -> Reply
    private let state = Mutex(State())
    private let gauge: ConcurrencyGauge?
    private let acceptLoopDone = Mutex(false)
    private let keepAlive: Bool

    public init(
        gauge: ConcurrencyGauge? = nil, keepAlive: Bool = false, lifetime: TimeInterval = 600,
        handler: @escaping @Sendable (Request) -> Reply
    ) throws {
        self.handler = handler
        self.gauge = gauge
        self.keepAlive = keepAlive
        let fd = socket(AF_INET, closeOnExecStream, 0)
        guard fd >= 0 else { throw ServerError.socket("socket", errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            throw ServerError.socket("bind/listen", errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
        DispatchQueue.global().asyncAfter(deadline: .now() + lifetime) { [weak self] in self?.stop() }
    }

    deinit { stop() }

    public enum ServerError: Error { case socket(String, Int32) }

    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    public var requests: [Request] { state.withLock { $0.requests } }
    /// Most requests being worked on at once (from request read to reply sent).
    public var maxInProgress: Int { state.withLock { $0.maxInProgress } }
    public var bytesSent: Int { state.withLock { $0.bytesSent } }
    /// TCP connections accepted so far.
    public var connectionsAccepted: Int { state.withLock { $0.connectionsAccepted } }
    /// Most TCP connections open at once (from accept to close).
    public var maxOpenConnections: Int { state.withLock { $0.maxOpenConnections } }
    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// Stops accepting; connections still open notice within a fraction of a second.
    public func stop() {
        // The shutdown happens under the lock the accept loop closes the listener under, so
        // it never reaches a number the loop has closed and the kernel has handed on (to a
        // parallel test's connection, which would then read an end of file).
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            if !state.listenerClosed { shutdown(listener, Int32(SHUT_RDWR)) }
        }
        // The accept loop closes the listener itself once accept() has returned.
    }

    private func acceptLoop() {
        while !isStopped {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            // (accept4 with SOCK_CLOEXEC is not in Swift's Glibc module.)
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            if isStopped {
                close(client)
                break
            }
            let number = state.withLock {
                $0.connectionsAccepted += 1
                $0.openConnections += 1
                $0.maxOpenConnections = max($0.maxOpenConnections, $0.openConnections)
                return $0.connectionsAccepted
            }
            Thread.detachNewThread { [self] in serveConnection(client, number: number) }
        }
        state.withLock {
            close(listener)
            $0.listenerClosed = true
        }
    }

    /// Answers requests on `client` until a reply closes it (every reply, unless keep-alive).
    private func serveConnection(_ client: Int32, number: Int) {
        defer {
            state.withLock { $0.openConnections -= 1 }
            close(client)
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var pending = Data()
        var servedBefore = false
        while !isStopped, var request = readRequest(client, pending: &pending, idleForever: servedBefore) {
            request.connection = number
            guard serve(request, on: client) else { return }
            servedBefore = true
        }
    }

    /// Answers one request; true when the connection stays open for another.
    private func serve(_ request: Request, on client: Int32) -> Bool {
        state.withLock { $0.requests.append(request) }
        beginWork()
        var workEnded = false
        let endWork = { [self] in
            if !workEnded {
                workEnded = true
                self.endWork()
            }
        }
        defer { endWork() }
        var reply = handler(request)
        while case .delayed(let seconds, let next) = reply {
            sleepUnlessStopped(seconds)
            reply = next
        }
        // Counted as finished before the answer goes out, so a client that starts its next
        // request as soon as this one completes can never be seen overlapping it.
        endWork()
        switch reply {
        case .respond(let status, let headers, let body):
            var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(body.count)\r\nConnection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
            return sendAll(client, Data(head.utf8) + body) && keepAlive
        case .stall(let seconds):
            sleepUnlessStopped(seconds)
        case .trickle(let chunk, let interval, let count):
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nConnection: close\r\n\r\n"
            guard sendAll(client, Data(head.utf8)) else { return false }
            for _ in 0..<count {
                sleepUnlessStopped(interval)
                if isStopped || !sendAll(client, chunk) { return false }
            }
        case .endless(let fullSpeed):
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nConnection: close\r\n\r\n"
            guard sendAll(client, Data(head.utf8)) else { return false }
            let chunk = Data(String(repeating: "<item><title>more</title></item>\n", count: 2000).utf8)
            // About 30 MB/s: faster than any feed server's link, and slow enough that this
            // in-process server does not starve the client of the 2 CPUs it shares.
            while !isStopped, sendAll(client, chunk) {
                if !fullSpeed { usleep(2000) }
            }
        case .raw(let bytes):
            _ = sendAll(client, bytes)
        case .endlessChunked(let fullSpeed):
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nTransfer-Encoding: chunked\r\n"
                + "Connection: close\r\n\r\n"
            guard sendAll(client, Data(head.utf8)) else { return false }
            let payload = Data(String(repeating: "<item><title>more</title></item>\n", count: 2000).utf8)
            let chunk = Data(String(payload.count, radix: 16).utf8) + Data("\r\n".utf8) + payload + Data("\r\n".utf8)
            while !isStopped, sendAll(client, chunk) {
                if !fullSpeed { usleep(2000) }
            }
        case .compressionBomb(let encoding):
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Encoding: \(encoding.rawValue)\r\n"
                + "Connection: close\r\n\r\n"
            let stream = CompressionBomb.endlessStream(encoding)
            guard sendAll(client, Data(head.utf8) + Data(stream.prefix)) else { return false }
            var block: [UInt8] = []
            while block.count < 64 * 1024 { block += stream.period }
            let data = Data(block)
            while !isStopped, sendAll(client, data) {}
        case .delayed:
            break  // unwrapped above
        }
        return false
    }

    private func beginWork() {
        state.withLock {
            $0.inProgress += 1
            $0.maxInProgress = max($0.maxInProgress, $0.inProgress)
        }
        gauge?.enter()
    }

    private func endWork() {
        state.withLock { $0.inProgress -= 1 }
        gauge?.leave()
    }

    private func sleepUnlessStopped(_ seconds: TimeInterval) {
        let deadline = Date().addingTimeInterval(seconds)
        while !isStopped, Date() < deadline {
            Thread.sleep(forTimeInterval: min(0.05, max(0, deadline.timeIntervalSinceNow)))
        }
    }

    /// Writes all of `data`; false once the peer has gone.
    private func sendAll(_ client: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                #if canImport(Glibc)
                    let flags = Int32(MSG_NOSIGNAL)
                #else
                    let flags: Int32 = 0
                #endif
                let written = send(client, raw.baseAddress! + offset, raw.count - offset, flags)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    return false
                }
                offset += written
                state.withLock { $0.bytesSent += written }
            }
            return true
        }
    }

    /// Reads one request's head (and skips its `Content-Length` body); `pending` holds bytes
    /// read past it, the start of the next request on a kept-alive connection. A kept-alive
    /// connection may wait for its next request as long as the server runs (`idleForever`):
    /// closing it sooner would make a slow test look like a client that does not reuse.
    private func readRequest(_ client: Int32, pending: inout Data, idleForever: Bool) -> Request? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator = Data("\r\n\r\n".utf8)
        while pending.range(of: terminator) == nil {
            guard waitForInput(client, idleForever: idleForever && pending.isEmpty) else { return nil }
            let count = recv(client, &buffer, buffer.count, 0)
            if count <= 0 || pending.count > 64 * 1024 { return nil }
            pending.append(contentsOf: buffer[0..<count])
        }
        let headEnd = pending.range(of: terminator)!.upperBound
        let received = pending.subdata(in: pending.startIndex..<headEnd)
        pending = pending.subdata(in: headEnd..<pending.endIndex)
        guard let text = String(data: received, encoding: .utf8) else { return nil }
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let declared = max(0, headers["content-length"].flatMap { Int($0) } ?? 0)
        var body = Data()
        while declared - body.count > pending.count {
            body.append(pending)
            pending = Data()
            guard waitForInput(client) else { return nil }
            let count = recv(client, &buffer, min(buffer.count, declared - body.count), 0)
            if count <= 0 { return nil }
            pending.append(contentsOf: buffer[0..<count])
        }
        let rest = declared - body.count
        body.append(pending.subdata(in: pending.startIndex..<(pending.startIndex + rest)))
        pending = pending.subdata(in: (pending.startIndex + rest)..<pending.endIndex)
        var request = Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers)
        request.body = body
        return request
    }

    /// Waits up to 10 s (or, `idleForever`, without limit) for `client` to have bytes or to
    /// close; false once the server stops or the time is up.
    private func waitForInput(_ client: Int32, idleForever: Bool = false) -> Bool {
        var descriptor = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
        var rounds = 0
        while idleForever || rounds < 100 {
            rounds += 1
            if isStopped { return false }
            descriptor.revents = 0
            let ready = poll(&descriptor, 1, 100)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return false }
        }
        return false
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 404: "Not Found"
        case 410: "Gone"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// Counts work in progress across several servers, to check a global concurrency limit.
public final class ConcurrencyGauge: Sendable {
    private let counts = Mutex((current: 0, maximum: 0))

    public init() {}

    public var maximum: Int { counts.withLock { $0.maximum } }

    public func enter() {
        counts.withLock {
            $0.current += 1
            $0.maximum = max($0.maximum, $0.current)
        }
    }

    public func leave() { counts.withLock { $0.current -= 1 } }
}

/// Runs `body` with a server on 127.0.0.1 and stops the server when `body` returns or throws.
public func withLoopbackServer<T>(
    gauge: ConcurrencyGauge? = nil, keepAlive: Bool = false,
    _ handler: @escaping @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply,
    _ body: (LoopbackHTTPServer) async throws -> T
) async throws -> T {
    let server = try LoopbackHTTPServer(gauge: gauge, keepAlive: keepAlive, handler: handler)
    defer { server.stop() }
    return try await body(server)
}

/// A port on 127.0.0.1 that listens but never accepts, with its accept queue already full,
/// so a new connection's handshake never completes: the case a connect timeout is for.
///
/// ```swift
/// let hole = try UnacceptingListener()
/// defer { hole.close() }
/// ```
public final class UnacceptingListener: Sendable {
    public let port: UInt16
    private let descriptors: [Int32]

    public init() throws {
        let listener = socket(AF_INET, closeOnExecStream, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard ready else {
            Glibc.close(listener)
            throw LoopbackHTTPServer.ServerError.socket("bind/listen", errno)
        }
        port = UInt16(bigEndian: address.sin_port)
        // Fill the accept queue (backlog 0 holds one; a second for good measure, which stays
        // half-open). Non-blocking so the filler that cannot complete does not hang us.
        var fillers: [Int32] = []
        for _ in 0..<2 {
            let filler = socket(AF_INET, closeOnExecStream, 0)
            _ = fcntl(filler, F_SETFL, fcntl(filler, F_GETFL) | O_NONBLOCK)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            fillers.append(filler)
        }
        descriptors = [listener] + fillers
        Thread.sleep(forTimeInterval: 0.05)  // let the first handshake land in the queue
    }

    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    public func close() {
        for descriptor in descriptors { Glibc.close(descriptor) }
    }
}

/// `SOCK_STREAM | SOCK_CLOEXEC`, for every socket of these test servers. Without the flag a
/// program another test starts at that moment can inherit the socket: Foundation's `Process`
/// closes in the child only the descriptors open when it looked (`/proc/self/fd`), not one
/// another thread opens between that look and the spawn. A child holding a listener keeps its
/// port alive, and a test that finds a server's port from the server's sockets (the HTTP/2
/// tests' `nghttpd`) could take that port for the server's own.
public let closeOnExecStream = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
