import Foundation
import LoopbackHTTPServer
import Synchronization

@testable import ZeaderKit

/// A real FreshRSS (`../shared/servers/freshrss/freshrss.sh`) on a free loopback port, for
/// one test: started in a directory of its own, stopped by ``stop()`` (and by itself after
/// its lifetime, should a test crash).
final class FreshRSSServer: Sendable {
    /// `freshrss.sh`: `$ZEADER_FRESHRSS`, else `../shared/servers/freshrss/` beside the repository.
    static let script: URL? = {
        if let path = ProcessInfo.processInfo.environment["ZEADER_FRESHRSS"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let candidate = repository.deletingLastPathComponent().appendingPathComponent("shared/servers/freshrss/freshrss.sh")
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }()

    /// Whether FreshRSS can run here: the script and PHP are present.
    static let isAvailable: Bool = {
        guard script != nil else { return false }
        return ["/usr/bin/php", "/usr/local/bin/php"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    let directory: URL
    let port: Int
    let apiURL: String
    let user: String
    let password: String

    /// Unpacks, installs and serves FreshRSS in `directory`.
    init(directory: URL) throws {
        self.directory = directory
        port = try Self.freePort()
        let output = try Self.run(["start", directory.path, String(port), "300"])
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        guard let api = values["FRESHRSS_API"], let user = values["FRESHRSS_USER"], let password = values["FRESHRSS_PASSWORD"]
        else { throw Failure(message: "freshrss.sh start printed no API: \(output)") }
        apiURL = api
        self.user = user
        self.password = password
    }

    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Stops the server (the installation stays, for ``serve()``).
    func stop() {
        // `freshrss.sh stop` ends the session leader it started (`timeout`), but PHP's
        // worker processes (PHP_CLI_SERVER_WORKERS) would go on serving: end its whole
        // process group, whose id is that leader's pid.
        let pidFile = directory.appendingPathComponent("server.pid")
        let leader = (try? String(contentsOf: pidFile, encoding: .utf8)).flatMap {
            pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        _ = try? Self.run(["stop", directory.path])
        if let leader, leader > 1 { kill(-leader, SIGTERM) }
        // Wait until the port no longer answers.
        for _ in 0..<50 where Self.answers(port: port) { usleep(50_000) }
    }

    /// Serves the installation again on the same port.
    func serve() throws {
        _ = try Self.run(["serve", directory.path, String(port), "300"])
    }

    /// Makes the server fetch its feeds now, even those it fetched within their time to
    /// live (an hour by default, during which `freshrss.sh refresh` alone skips them and
    /// FreshRSS's feed cache answers): their last update is reset and the cache emptied.
    func refresh() throws {
        let root = directory.appendingPathComponent("FreshRSS")
        _ = try Self.spawn(
            "/usr/bin/env",
            ["php", "-r", "(new PDO('sqlite:data/users/\(user)/db.sqlite'))->exec('UPDATE feed SET lastUpdate=0');"],
            directory: root.path)
        let cache = root.appendingPathComponent("data/cache")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? [] where name.hasSuffix(".spc") {
            unlink(cache.appendingPathComponent(name).path)
        }
        _ = try Self.run(["refresh", directory.path])
    }

    /// Deletes the user and creates it again, empty (`freshrss.sh reset-user`): a server
    /// reset, or an account recreated by its owner.
    func resetUser() throws {
        _ = try Self.run(["reset-user", directory.path])
    }

    /// Changes the user's API password (tokens issued before stop working).
    func changeAPIPassword(to password: String) throws {
        _ = try Self.spawn(
            "/usr/bin/env", ["php", "cli/update-user.php", "--user", user, "--api-password", password],
            directory: directory.appendingPathComponent("FreshRSS").path)
    }

    /// Runs freshrss.sh with posix_spawn and waitpid (Foundation's Process can wait
    /// forever for a script that leaves a server running in a session of its own), its
    /// output through a file.
    private static func run(_ arguments: [String]) throws -> String {
        guard let script else { throw Failure(message: "freshrss.sh not found") }
        return try spawn("/usr/bin/env", ["PHP_INI_SCAN_DIR=:" + (try phpSettings()).path, script.path] + arguments)
    }

    /// A directory of PHP settings read besides the system's (the leading `:` of
    /// `PHP_INI_SCAN_DIR`) by the server: the opcode cache off. With it, a worker process
    /// keeps a user's settings file compiled for seconds after it changed, and FreshRSS
    /// saving them from such a copy after `reset-user` puts the old account's API password
    /// back, so that tokens issued meanwhile stop working.
    private static func phpSettings() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-freshrss-php.d")
        let file = directory.appendingPathComponent("zeader-tests.ini")
        let settings = "opcache.enable=0\n"
        if (try? String(contentsOf: file, encoding: .utf8)) != settings {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let temporary = directory.appendingPathComponent("zeader-tests.ini.\(getpid())")
            try settings.write(to: temporary, atomically: false, encoding: .utf8)
            guard rename(temporary.path, file.path) == 0 else { throw Failure(message: "cannot write \(file.path)") }
        }
        return directory
    }

    static func spawn(_ path: String, _ arguments: [String], directory: String? = nil) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("freshrss-\(UUID().uuidString).out")
        defer { unlink(output.path) }
        // The server it starts runs for minutes: SpawnedProgram gives it none of the test
        // process's sockets and pipes (a parallel test's connection, a child's output pipe that
        // would then never reach its end), nor its blocked signals (it would ignore `stop`'s SIGTERM).
        let command = directory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0] } ?? []
        let argv = command.isEmpty ? [path] + arguments : command + [path] + arguments
        let status = try SpawnedProgram(argv[0], Array(argv.dropFirst()), output: output).waitForExit()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        guard exited, (status >> 8) & 0xff == 0 else {
            throw Failure(message: "\(path) \(arguments.first ?? "") failed (status \(status)): \(text)")
        }
        return text
    }

    /// A port nothing listens on now (the kernel's pick, released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, closeOnExecStream, 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw Failure(message: "no free port") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func answers(port: Int) -> Bool {
        let fd = socket(AF_INET, closeOnExecStream, 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// Feeds for FreshRSS to fetch, served on the loopback address: `/NAME.xml` with the items
/// set by ``setItems(_:of:)``, links on 127.0.0.1.
final class SyncTestFeeds: Sendable {
    private let table: Table
    let server: LoopbackHTTPServer

    private final class Table: Sendable {
        let items = Mutex<[String: [String]]>([:])
        let documents = Mutex<[String: String]>([:])
    }

    init() throws {
        let table = Table()
        self.table = table
        server = try LoopbackHTTPServer(lifetime: 300) { request in
            let name = String(request.path.dropFirst().prefix { $0 != "." })
            if let document = table.documents.withLock({ $0[name] }) { return .ok(document) }
            guard let guids = table.items.withLock({ $0[name] }) else { return .status(404) }
            var xml = """
                <?xml version="1.0" encoding="UTF-8"?>
                <rss version="2.0"><channel><title>Feed \(name)</title><link>http://127.0.0.1/\(name)/</link>

                """
            for (n, guid) in guids.enumerated() {
                let minute = String(format: "%02d", n % 60)
                let hour = String(format: "%02d", n / 60 % 24)
                xml += """
                    <item><guid>\(guid)</guid><title>Title \(guid)</title><link>http://127.0.0.1/\(name)/\(guid)</link>
                    <pubDate>Mon, 23 Nov 2026 \(hour):\(minute):00 GMT</pubDate><description>About \(guid)</description></item>

                    """
            }
            return .ok(xml + "</channel></rss>\n")
        }
    }

    /// Sets the items (guids) of the feed `name`.
    func setItems(_ guids: [String], of name: String) {
        table.items.withLock { $0[name] = guids }
    }

    /// Serves `document` as the feed `name` (in place of items set by ``setItems(_:of:)``).
    func setDocument(_ document: String, of name: String) {
        table.documents.withLock { $0[name] = document }
    }

    /// The URL of the feed `name`.
    func url(_ name: String) -> String { server.url("/\(name).xml").absoluteString }
}
