import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A SOCKS5 proxy for tests, on 127.0.0.1 and an ephemeral port: it takes a client without
/// a login, records the host and port each CONNECT asks for (``targets``), and joins the
/// client to `backendPort` on 127.0.0.1 whatever the target, so a test's feed can live at a
/// name that only the proxy "reaches".
///
/// ```swift
/// let proxy = try LoopbackSOCKS5Proxy(backendPort: server.port)
/// defer { proxy.stop() }
/// ```
public final class LoopbackSOCKS5Proxy: Sendable {
    public let port: UInt16
    private let listener: Int32
    private let backendPort: UInt16
    private let recorded = Mutex<[String]>([])
    private let stopped = Mutex(false)

    /// The CONNECT targets asked for, `host:port`, in order.
    public var targets: [String] { recorded.withLock { $0 } }

    public init(backendPort: UInt16) throws {
        self.backendPort = backendPort
        let fd = socket(AF_INET, closeOnExecStream, 0)
        guard fd >= 0 else { throw LoopbackHTTPServer.ServerError.socket("socket", errno) }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw LoopbackHTTPServer.ServerError.socket("bind/listen", errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit { stop() }

    public func stop() {
        let first = stopped.withLock { was in
            defer { was = true }
            return !was
        }
        if first { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while !stopped.withLock({ $0 }) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            Thread.detachNewThread { [self] in serve(client) }
        }
        close(listener)
    }

    /// Reads exactly `count` bytes, or nil.
    private func read(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
            if n <= 0 { return nil }
            got += n
        }
        return bytes
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // Greeting: version 5, the methods offered; "no login" is chosen.
        guard let head = read(client, 2), head[0] == 5, read(client, Int(head[1])) != nil else { return }
        send(client, [5, 0])
        // Request: version, CONNECT, reserved, address type, address, port.
        guard let request = read(client, 4), request[0] == 5, request[1] == 1 else { return }
        let host: String
        switch request[3] {
        case 1:
            guard let ip = read(client, 4) else { return }
            host = ip.map(String.init).joined(separator: ".")
        case 3:
            guard let length = read(client, 1), let name = read(client, Int(length[0])) else { return }
            host = String(decoding: name, as: UTF8.self)
        default:
            return
        }
        guard let portBytes = read(client, 2) else { return }
        recorded.withLock { $0.append("\(host):\(Int(portBytes[0]) << 8 | Int(portBytes[1]))") }
        let backend = socket(AF_INET, closeOnExecStream, 0)
        var address = Self.loopback(port: backendPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(backend, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            send(client, [5, 5, 0, 1, 0, 0, 0, 0, 0, 0])  // connection refused
            close(backend)
            return
        }
        send(client, [5, 0, 0, 1, 127, 0, 0, 1, 0, 0])
        let done = DispatchGroup()
        for (from, to) in [(client, backend), (backend, client)] {
            done.enter()
            Thread.detachNewThread { [self] in
                relay(from: from, to: to)
                done.leave()
            }
        }
        done.wait()
        close(backend)
    }

    private func relay(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            send(to, Array(buffer[0..<n]))
        }
        shutdown(to, Int32(SHUT_WR))
    }
}
