import Foundation
import Testing

/// `zeader config check`: every problem of the config file, labelled error or warning; exit 1
/// when the reader would not start.
@Suite("zeader config check", .serialized)
struct ConfigCheckCLITests {
    @Test("prints every problem of a newsboat config, file:line and its label, and exits 1 for an error")
    func newsboatConfig() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("newsboat-config")
        try """
        auto-reload yes
        browser "firefox --new-tab %u"
        cache-file ~/.newsboat/cache.db
        bind-key j fly
        show-read-feeds maybe
        """.write(to: file, atomically: true, encoding: .utf8)
        let r = try zeader(["config", "check", file.path], in: dir)
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(
            lines.first
                == "\(file.path):3: warning: newsboat's 'cache-file' is not used: the store is --db PATH or $ZEADER_DB; zeader import reads newsboat's cache.db (line ignored)"
        )
        #expect(lines.dropFirst().first?.hasPrefix("\(file.path):4: warning: unknown action 'fly'") == true)
        #expect(lines.last == "\(file.path):5: error: show-read-feeds needs yes or no")
    }

    @Test("warnings alone: each is printed, labelled, and the exit status is 0 as the reader starts")
    func warningsAlone() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("newsboat-config")
        try "cache-file ~/.newsboat/cache.db\nfrobnicate 1\nbind-key j down\n".write(to: file, atomically: true, encoding: .utf8)
        let r = try zeader(["config", "check", file.path], in: dir)
        #expect(r.status == 0, "\(r.stdout)")
        #expect(
            r.stdout.split(separator: "\n").map(String.init) == [
                "\(file.path):1: warning: newsboat's 'cache-file' is not used: the store is --db PATH or $ZEADER_DB; zeader import reads newsboat's cache.db (line ignored)",
                "\(file.path):2: warning: unknown directive 'frobnicate' (line ignored)",
            ])
    }

    @Test("a sound config file (the default one) passes with exit 0; a missing FILE is an error")
    func soundAndMissing() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("config/zeader")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "bind-key x reload-all\nshow-read-articles no\n".write(
            to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        var r = try zeader(["config", "check"], in: dir)
        #expect(r.status == 0)
        #expect(r.stdout.hasSuffix("config/zeader/config: no problems\n"))
        r = try zeader(["config", "check", dir.appendingPathComponent("nope").path], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("zeader config check: no such file:"))
    }
}
