import Feeds
import Foundation
import Testing

/// Comments carry no branch or session labels, and at most five in Sources quote a
/// measurement (`scripts/check-comments.sh` says which kinds it finds; figures go to
/// docs/PERFORMANCE.md); its run here keeps CI from letting them back in.
@Suite struct CommentHygieneTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func noBranchLabelsAndFewMeasurementsInComments() throws {
        let script = Self.root.appendingPathComponent("scripts/check-comments.sh").path
        let outcome = try Subprocess.run(["/bin/sh", script, "--max", "5"], outputLimit: 1 << 20)
        #expect(outcome.termination == .exited(0), "\(String(decoding: outcome.output, as: UTF8.self))")
    }
}
