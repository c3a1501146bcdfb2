import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing

@testable import Feeds

#if canImport(Glibc)
    import Glibc
#endif

/// HTTPS with a private CA (`caFile`) and HTTP/2: a loopback `nghttpd` (it speaks HTTP/2
/// only, offered by ALPN) with a CA and certificate made by `openssl` for this run. Both
/// tools must be installed (`.ci/run` installs them): a missing tool fails these tests.
@Suite("FeedFetcher: HTTP/2 over TLS with a private CA")
struct FetchHTTP2Tests {
    static let feed = Data("<rss version=\"2.0\"><channel><title>h2</title></channel></rss>\n".utf8)

    @Test func aFeedOverTLSComesOverHTTP2WhenItsCAIsTrusted() async throws {
        let server = try await TLSFeedServer.start(files: ["feed.xml": Self.feed])
        defer { server.stop() }
        let outcome = await fetcher(caFile: server.caFile).fetch(FeedRequest(url: server.url("/feed.xml")))
        #expect(outcome.body == Self.feed, "\(outcome)\n\(server.diagnosis())")
        #expect(outcome.metadata?.httpVersion == "2")
        #expect(outcome.metadata?.newConnections == 1)
    }

    @Test func fetchesOneAfterAnotherReuseOneConnection() async throws {
        let server = try await TLSFeedServer.start(files: ["feed.xml": Self.feed])
        defer { server.stop() }
        let fetcher = fetcher(caFile: server.caFile)
        var opened: [Int] = []
        var started: [ContinuousClock.Instant] = []
        for index in 0..<5 {
            started.append(.now)
            let outcome = await fetcher.fetch(FeedRequest(url: server.url("/feed.xml?\(index)")))
            #expect(
                outcome.body == Self.feed && outcome.metadata?.httpVersion == "2", "\(outcome)\n\(server.diagnosis())")
            opened.append(outcome.metadata?.newConnections ?? -1)
        }
        // A new connection only after libcurl's idle limit, which a test's task can wait on
        // a machine running the whole suite (FetchConnectionReuseTests.curlMaxIdle).
        let waitedLong = (0..<5).map {
            $0 > 0 && started[$0] - started[$0 - 1] >= FetchConnectionReuseTests.curlMaxIdle - .seconds(8)
        }
        #expect(opened[0] == 1)
        for index in 1..<5 where !waitedLong[index] { #expect(opened[index] == 0, "fetch \(index): \(opened)") }
        let reopened = (1..<5).filter { opened[$0] == 1 }.count
        #expect(server.sessions() == 1 + reopened, "the server saw \(server.sessions()) connections")
    }

    /// Transfers started together wait for the first connection (`CURLOPT_PIPEWAIT`) and
    /// then share it as HTTP/2 streams, under a per-host limit that would allow four.
    @Test func feedsFetchedAtOnceShareOneConnection() async throws {
        let server = try await TLSFeedServer.start(files: ["feed.xml": Self.feed])
        defer { server.stop() }
        let fetcher = fetcher(caFile: server.caFile, maxPerHost: 4)
        let seen = Mutex<[(version: String?, opened: Int)]>([])
        await fetcher.fetchAll((0..<12).map { FeedRequest(url: server.url("/feed.xml?\($0)")) }) { _, outcome in
            guard outcome.body == Self.feed, let metadata = outcome.metadata else { return }
            seen.withLock { $0.append((metadata.httpVersion, metadata.newConnections)) }
        }
        let results = seen.withLock { $0 }
        #expect(results.count == 12, "\(server.diagnosis())")
        #expect(results.allSatisfy { $0.version == "2" })
        #expect(results.map(\.opened).reduce(0, +) == 1, "connections opened: \(results.map(\.opened))")
        #expect(server.sessions() == 1, "the server saw \(server.sessions()) connections")
    }

    /// The control: the same server without its CA is refused, so the tests above depend on `caFile`.
    @Test func withoutTheCAFileTheCertificateIsRefused() async throws {
        let server = try await TLSFeedServer.start(files: ["feed.xml": Self.feed])
        defer { server.stop() }
        let outcome = await fetcher(caFile: nil).fetch(FeedRequest(url: server.url("/feed.xml")))
        let message = outcome.error.map(String.init(describing:)) ?? "no error"
        #expect(message.lowercased().contains("certificate"), "\(message)\n\(server.diagnosis())")
    }

    @Test func anUnreadableCAFileIsAFetchErrorNamingIt() async throws {
        let server = try await TLSFeedServer.start(files: ["feed.xml": Self.feed])
        defer { server.stop() }
        let outcome = await fetcher(caFile: "/nonexistent/zeader-ca.pem").fetch(FeedRequest(url: server.url("/feed.xml")))
        #expect(outcome.error != nil, "\(outcome)")
    }

    private func fetcher(caFile: String?, maxPerHost: Int = 4) -> FeedFetcher {
        var configuration = FetcherConfiguration(
            version: "9.9-test", maxConcurrent: 8, maxPerHost: maxPerHost, idleTimeout: 20, totalTimeout: 60)
        configuration.caFile = caFile
        return FeedFetcher(configuration: configuration)
    }
}

/// `nghttpd` serving files over TLS on 127.0.0.1 (a port the kernel picks), with a CA and
/// a certificate for 127.0.0.1 made for it; stopped with ``stop()``.
///
/// `nghttpd` starts as a ``SpawnedProgram``, inheriting none of the test process's
/// descriptors: with Foundation's `Process` it could inherit a listener a parallel test had
/// just opened, and the port found from its sockets could then be that test's server (a
/// plain HTTP server reading our TLS hello, then closing: "SSL_ERROR_SYSCALL").
final class TLSFeedServer: Sendable {
    let directory: URL
    let caFile: String
    let port: Int
    private let program: SpawnedProgram
    private let log: URL

    /// Makes the certificates, writes `files` to the document root and starts the server,
    /// on a thread of its own: it runs `openssl` three times and waits for the port, which
    /// on a loaded machine takes seconds that would otherwise hold a thread of the test pool.
    static func start(files: [String: Data]) async throws -> TLSFeedServer {
        let openssl = try #require(tool("openssl"), "openssl is missing (apt-get install openssl)")
        let nghttpd = try #require(
            tool("nghttpd"), "nghttpd is missing: apt-get install nghttp2-server (.ci/run installs it)")
        return try await waitingOffThePool { try start(files: files, openssl: openssl, nghttpd: nghttpd) }
    }

    private static func start(files: [String: Data], openssl: String, nghttpd: String) throws -> TLSFeedServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-h2-\(UUID().uuidString)")
        let documents = directory.appendingPathComponent("htdocs")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        for (name, data) in files { try data.write(to: documents.appendingPathComponent(name)) }
        try makeCertificates(in: directory, openssl: openssl)

        let log = directory.appendingPathComponent("nghttpd.log")
        let program = try SpawnedProgram(
            nghttpd,
            [
                "--verbose", "--htdocs=\(documents.path)", "--address=127.0.0.1", "0",
                directory.appendingPathComponent("server.key").path, directory.appendingPathComponent("server.pem").path,
            ], output: log)
        let ports: [Int]
        do {
            ports = try listeningPorts(of: program)
        } catch {
            program.kill()
            let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw TLSFeedServerError(message: "\(error) (nghttpd \(program.statusDescription)): \(said.suffix(300))")
        }
        guard ports.count == 1 else {
            program.kill()
            throw TLSFeedServerError(message: "nghttpd listens on \(ports.count) ports (\(ports)), expected its one")
        }
        return TLSFeedServer(
            directory: directory, caFile: directory.appendingPathComponent("ca.pem").path, port: ports[0], program: program,
            log: log)
    }

    private init(directory: URL, caFile: String, port: Int, program: SpawnedProgram, log: URL) {
        self.directory = directory
        self.caFile = caFile
        self.port = port
        self.program = program
        self.log = log
    }

    func url(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(port)\(path)")! }

    /// Connections the server has seen: `--verbose` tags each line with its session's id.
    func sessions() -> Int {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        var ids = Set<Substring>()
        for line in text.split(separator: "\n") where line.hasPrefix("[id=") {
            if let end = line.firstIndex(of: "]") { ids.insert(line[..<end]) }
        }
        return ids.count
    }

    /// What a failed test needs to tell a server that closed or died from a client whose
    /// connection went wrong on its side: whether `nghttpd` still runs and still listens on
    /// the port, whether a fresh TLS handshake (`openssl s_client`, with the CA and ALPN h2)
    /// works now, the sessions it logged and the end of its log (deleted by ``stop()``).
    /// Only called when an expectation fails.
    func diagnosis() -> String {
        let listening = (try? Self.listeningPortsNow(of: program.pid)) ?? []
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? "(no log)"
        // A few long lines: the test's console output shows only the first lines of a comment.
        func oneLine(_ text: Substring) -> String { text.split(separator: "\n").joined(separator: " | ") }
        return """
            nghttpd pid \(program.pid): \(program.statusDescription); its listening ports now: \(listening) \
            (the tests use \(port)); sessions logged: \(sessions())
            nghttpd log, end: \(oneLine(text.suffix(1500)))
            a fresh handshake now: \(oneLine(handshakeProbe()[...]))
            """
    }

    func stop() {
        program.kill()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Non public

    private static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `openssl s_client` against the server with its CA, offering only h2: "ok, ..." with
    /// the protocol it agreed on, or what went wrong.
    private func handshakeProbe() -> String {
        guard let openssl = Self.tool("openssl") else { return "openssl is missing" }
        let output = directory.appendingPathComponent("probe.out")
        do {
            let probe = try SpawnedProgram(
                openssl,
                [
                    "s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", caFile, "-alpn", "h2", "-verify_return_error",
                    "-brief",
                ], output: output)
            for _ in 0..<200 where probe.isRunning { usleep(50_000) }
            probe.kill()
            let said = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            return "\(probe.statusDescription): \(said.suffix(600))"
        } catch {
            return "\(error)"
        }
    }

    /// A CA, and a certificate for 127.0.0.1 that it signs (EC keys: quick to make).
    private static func makeCertificates(in directory: URL, openssl: String) throws {
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let extensions = "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"
        try extensions.write(toFile: path("server.ext"), atomically: false, encoding: .utf8)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(
            openssl,
            ["req", "-x509"] + key + [
                "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=Zeader Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
            ])
        try run(openssl, ["req"] + key + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=127.0.0.1"])
        try run(
            openssl,
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                "-CAcreateserial", "-out", path("server.pem"), "-days", "2", "-extfile", path("server.ext"),
            ])
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TLSFeedServerError(message: "\(executable) \(arguments.prefix(2).joined(separator: " ")) failed")
        }
    }

    /// The TCP ports `program` listens on; waits until there is one (a loaded machine may
    /// take seconds to start it). Throws if it exits first or never listens.
    private static func listeningPorts(of program: SpawnedProgram) throws -> [Int] {
        for _ in 0..<2400 {
            guard program.isRunning else { throw TLSFeedServerError(message: "nghttpd exited before it listened") }
            let ports = try listeningPortsNow(of: program.pid)
            if !ports.isEmpty { return ports }
            usleep(50_000)
        }
        throw TLSFeedServerError(message: "nghttpd did not listen within 2 minutes")
    }

    /// The TCP ports of the sockets in LISTEN state among `pid`'s descriptors, from their
    /// inodes in /proc.
    private static func listeningPortsNow(of pid: pid_t) throws -> [Int] {
        let fdDirectory = "/proc/\(pid)/fd"
        let inodes = Set(
            ((try? FileManager.default.contentsOfDirectory(atPath: fdDirectory)) ?? []).compactMap { entry -> String? in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(entry)"),
                    target.hasPrefix("socket:[")
                else { return nil }
                return String(target.dropFirst("socket:[".count).dropLast())
            })
        guard !inodes.isEmpty else { return [] }
        // Read to the end: a busy machine's table is longer than the one page a sized read gets.
        let bytes = FileHandle(forReadingAtPath: "/proc/net/tcp").flatMap { try? $0.readToEnd() } ?? Data()
        var ports: [Int] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // local_address is ADDRESS:PORT in hex; state 0A is LISTEN; field 9 the inode.
            guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])),
                let portText = fields[1].split(separator: ":").last, let port = Int(portText, radix: 16)
            else { continue }
            ports.append(port)
        }
        return ports
    }
}

struct TLSFeedServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
