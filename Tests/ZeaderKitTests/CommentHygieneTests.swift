import Foundation
import Testing

/// Comments carry no branch or session labels, and at most five in Sources quote a
/// measurement (`scripts/check-comments.sh` says which kinds it finds; figures go to
/// docs/PERFORMANCE.md); its run here keeps CI from letting them back in.
@Suite struct CommentHygieneTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func noBranchLabelsAndFewMeasurementsInComments() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [Self.root.appendingPathComponent("scripts/check-comments.sh").path, "--max", "5"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
    }
}
