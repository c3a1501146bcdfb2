import Foundation
import LoopbackHTTPServer
import Testing

/// Runs `Tests/e2e/tui_tmux.sh` against the `zeader` binary built beside the tests: the
/// real reader in tmux (start-up, navigation, mark read, undo, search, links, resize,
/// search scope and phrases, the HTML fixtures at 80 and 200 columns, `color`/`highlight` lines
/// on the screen, the discovery chooser, another process's commit, refresh (R, r) against a loopback server, a concurrent
/// `zeader refresh`, the terminal restored after q, signals and a crash).
@Suite struct EndToEndTests {
    @Test(.timeLimit(.minutes(3))) func readerInTmux() async throws {
        let (status, text) = try await runEndToEndScript("Tests/e2e/tui_tmux.sh")
        #expect(status == 0, "\(text)")
        #expect(text.contains(" checks, 0 failed"), "\(text)")
    }
}

/// The repository's root and the `zeader` binary built beside the tests, for the tests that
/// drive the real reader through a script in `Tests/e2e`.
func endToEndPaths() throws -> (root: URL, binary: String) {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let buildDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [buildDirectory, buildDirectory.deletingLastPathComponent()].map {
        $0.appendingPathComponent("zeader").path
    }
    let binary = try #require(
        candidates.first { FileManager.default.isExecutableFile(atPath: $0) },
        "no zeader binary beside the tests (looked at \(candidates))")
    return (root, binary)
}

/// Runs `script` (a path from the repository's root, in `Tests/e2e`) with `interpreter`, and
/// `ZEADER` set to the built binary (and `environment` added); returns its exit status and output. Such a script runs for
/// a minute or more, mostly waiting on tmux or a server: it is waited for off the cooperative
/// pool, so that other tests run meanwhile.
func runEndToEndScript(
    _ script: String, interpreter: [String] = ["/bin/bash"], environment: [String: String] = [:]
) async throws -> (
    status: Int32, output: String
) {
    let (root, binary) = try endToEndPaths()
    return try await waitingOffThePool { () throws -> (Int32, String) in
        let process = Process()
        process.executableURL = URL(fileURLWithPath: interpreter[0])
        process.arguments = interpreter.dropFirst() + [root.appendingPathComponent(script).path]
        process.environment = ProcessInfo.processInfo.environment.merging(environment.merging(["ZEADER": binary]) { $1 }) {
            $1
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
