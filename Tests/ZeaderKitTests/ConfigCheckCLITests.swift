import Foundation
import Testing

/// `zeader config check`: every problem of the config file, exit 1 if any.
@Suite("zeader config check", .serialized)
struct ConfigCheckCLITests {
    @Test("prints every problem of a newsboat config, file:line, and exits 1")
    func newsboatConfig() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("newsboat-config")
        try """
        auto-reload yes
        browser "firefox --new-tab %u"
        cache-file ~/.newsboat/cache.db
        bind-key j fly
        show-read-feeds no
        """.write(to: file, atomically: true, encoding: .utf8)
        let r = try zeader(["config", "check", file.path], in: dir)
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first == "\(file.path):3: newsboat's 'cache-file' has no equivalent in Zeader (line ignored)")
        #expect(lines.last?.hasPrefix("\(file.path):4: unknown action 'fly' (one of: ") == true)
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
