import Foundation

@testable import ZeaderKit

/// The real Tiny Tiny RSS that `.ci/run` starts (`scripts/ttrss-server.sh start DIR PORT`),
/// found through `$ZEADER_TTRSS_DIR` and `$TTRSS_API`: the tests share it, each with a user
/// of its own (``addUser(_:)``).
///
/// ```sh
/// eval "$(scripts/ttrss-server.sh start /tmp/tt 18411 1800)"
/// ZEADER_TTRSS_DIR=/tmp/tt TTRSS_API=$TTRSS_API swift test --skip-build --filter SyncTTRSSTests
/// ```
struct TTRSSServer: Sendable {
    let directory: String
    let apiURL: String
    let port: Int

    /// The server named by the environment when it answers; nil otherwise (the suite skips).
    static let running: TTRSSServer? = {
        let environment = ProcessInfo.processInfo.environment
        guard let directory = environment["ZEADER_TTRSS_DIR"], !directory.isEmpty,
            let api = environment["TTRSS_API"], let url = URL(string: api), url.host == "127.0.0.1", let port = url.port,
            FileManager.default.isExecutableFile(atPath: script.path),
            (try? FreshRSSServer.spawn("/usr/bin/env", ["curl", "-sf", "-o", "/dev/null", "-d", "{}", api])) != nil
        else { return nil }
        return TTRSSServer(directory: directory, apiURL: api, port: port)
    }()

    /// `scripts/ttrss-server.sh` of this repository.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/ttrss-server.sh")

    /// Runs the script's `command` on this server's directory.
    @discardableResult
    func run(_ command: String, _ arguments: [String] = []) throws -> String {
        try FreshRSSServer.spawn("/usr/bin/env", [Self.script.path, command, directory] + arguments)
    }

    /// A new user of the test's own, with API access; returns its name and password.
    func addUser(_ prefix: String) throws -> (name: String, password: String) {
        let name = prefix + "-" + UUID().uuidString.prefix(8).lowercased()
        try run("add-user", [name])
        return (name, name + "-password-1")
    }

    /// Makes the server fetch its feeds now.
    func refresh() throws { try run("refresh") }

    /// Stops the web server (the database stays).
    func stop() throws {
        try run("stop")
        for _ in 0..<50 {
            guard (try? FreshRSSServer.spawn("/usr/bin/env", ["curl", "-sf", "-o", "/dev/null", apiURL])) != nil else { return }
            usleep(50_000)
        }
    }

    /// Serves again on the same port.
    func serve() throws { try run("serve", [String(port), "1800"]) }
}
