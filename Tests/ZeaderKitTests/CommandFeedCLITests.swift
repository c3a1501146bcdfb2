import Foundation
import Testing

/// `exec:` and `filter:` feeds the user typed, refreshed by the `zeader` binary: a program's
/// misbehaviour fails its own feed and never the process.
@Suite("command feeds through the zeader binary", .serialized)
struct CommandFeedCLITests {
    @Test("a filter: program that exits without reading its input fails its feed only; the refresh goes on")
    func filterThatReadsNothing() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Larger than a pipe's buffer: feeding it to a program that has exited meets a closed
        // pipe, which must be an error for that feed, not a SIGPIPE for the whole refresh.
        let items = (1...4_000).map { "<item><guid>g\($0)</guid><title>Item \($0)</title></item>" }.joined()
        let source = dir.appendingPathComponent("big.xml")
        try "<rss version=\"2.0\"><channel><title>Big</title>\(items)</channel></rss>".write(
            to: source, atomically: true, encoding: .utf8)
        let db = dir.appendingPathComponent("z.sqlite").path
        for n in 1...3 {
            let r = try zeader(["add", "filter:/bin/true \(n):\(source.absoluteString)", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
        }
        var r = try zeader(["add", "exec:/bin/cat \(source.path)", "--db", db], in: dir)
        #expect(r.status == 0, "\(r.stderr)")

        r = try zeader(["refresh", "--jobs", "1", "--db", db], in: dir)
        #expect(r.status == 1, "exit \(r.status): \(r.stdout)\(r.stderr)")
        #expect(r.stdout.hasPrefix("4 feeds: 1 updated, 0 unchanged, 3 failed;"), "\(r.stdout)")
        #expect(r.stderr.split(separator: "\n").count == 3, "\(r.stderr)")
    }
}
