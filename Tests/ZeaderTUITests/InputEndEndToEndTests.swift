import Foundation
import LoopbackHTTPServer
import Testing

/// Runs `Tests/e2e/tui_input_end.py` against the `zeader` binary built beside the tests: the
/// real reader started by `timeout` (its own process group) or with `&`, sent to the
/// background while running, and on a terminal that closes; each time it exits by itself with one line on
/// stderr, within a generous bound, instead of spinning.
@Suite struct InputEndEndToEndTests {
    @Test(.timeLimit(.minutes(3))) func readerThatCannotReadItsTerminalExits() async throws {
        let (root, binary) = try endToEndPaths()
        let (status, text) = try await waitingOffThePool { () throws -> (Int32, String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", root.appendingPathComponent("Tests/e2e/tui_input_end.py").path]
            process.environment = ProcessInfo.processInfo.environment.merging(["ZEADER": binary]) { $1 }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
        #expect(status == 0, "\(text)")
        #expect(text.contains("input-end: 4 checks, 0 failed"), "\(text)")
    }
}
