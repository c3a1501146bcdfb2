import Foundation
import LoopbackHTTPServer
import Testing

/// `zeader refresh` runs `notify-program` with the counts after a refresh that stored new
/// items, and only then; a failing program is one line on stderr, not a failed refresh.
@Suite struct NotifyProgramCLITests {
    @Test func refreshRunsNotifyProgramWithTheCounts() async throws {
        let routes = Routes()
        routes["/feed"] = .ok(rss(items: [("g1", "One"), ("g2", "Two")]))
        try await withLoopbackServer(routes.handler) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            let out = dir.appendingPathComponent("notified.txt")
            let script = dir.appendingPathComponent("notify.sh")
            try writeExecutableScript("printf '%s\\n' \"$@\" > '\(out.path)'", to: script)
            let configDir = dir.appendingPathComponent("config/zeader")
            try FileManager.default.createDirectory(at: configDir, withIntermediateDirectories: true)
            let configFile = configDir.appendingPathComponent("config")
            // Extra words are the program's first arguments; the message comes last, as one argument.
            try "notify-program \"\(script.path) --urgent\"\n".write(to: configFile, atomically: true, encoding: .utf8)

            _ = try zeader(["add", http.url("/feed").absoluteString, "--db", db], in: dir)
            var r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try String(contentsOf: out, encoding: .utf8) == "--urgent\nZeader: 2 new items in 1 feed\n")

            // Nothing new: the program does not run.
            try FileManager.default.removeItem(at: out)
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.stdout.contains("0 new items"))
            #expect(!FileManager.default.fileExists(atPath: out.path))

            // A failing program: one line on stderr; the refresh itself went well.
            routes["/feed"] = .ok(rss(items: [("g1", "One"), ("g2", "Two"), ("g3", "Three")]))
            try "notify-program false\n".write(to: configFile, atomically: true, encoding: .utf8)
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0)
            #expect(r.stderr == "zeader refresh: notify-program: false exited with status 1\n")
            routes["/feed"] = .ok(rss(items: [("g4", "Four")]))
            try "notify-program no-such-notifier-zeader\n".write(to: configFile, atomically: true, encoding: .utf8)
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.stderr == "zeader refresh: notify-program: cannot run no-such-notifier-zeader: not found\n")
        }
    }

    /// Without `notify-program`, `notify-send` runs when it is on the PATH and a desktop
    /// session is there; not from cron (no session), not after `notify-program ""`, and its
    /// failures are not reported.
    @Test func refreshFallsBackToNotifySendInADesktopSession() async throws {
        let routes = Routes()
        routes["/feed"] = .ok(rss(items: [("g1", "One"), ("g2", "Two")]))
        try await withLoopbackServer(routes.handler) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            let out = dir.appendingPathComponent("notified.txt")
            let bin = dir.appendingPathComponent("bin")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try writeExecutableScript(
                "printf '%s\\n' \"$@\" > '\(out.path)'", to: bin.appendingPathComponent("notify-send"))
            let desktop = ["PATH": bin.path + ":/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"]
            _ = try zeader(["add", http.url("/feed").absoluteString, "--db", db], in: dir)
            var r = try zeader(["refresh", "--db", db], in: dir, environment: desktop)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try String(contentsOf: out, encoding: .utf8) == "-a\nzeader\nZeader: 2 new items in 1 feed\n")

            // From cron: no session, no notification.
            try FileManager.default.removeItem(at: out)
            routes["/feed"] = .ok(rss(items: [("g1", "One"), ("g2", "Two"), ("g3", "Three")]))
            r = try zeader(["refresh", "--db", db], in: dir, environment: ["PATH": bin.path + ":/usr/bin:/bin"])
            #expect(r.stdout.contains("1 new item"))
            #expect(!FileManager.default.fileExists(atPath: out.path))

            // notify-program "" turns it off.
            let configDir = dir.appendingPathComponent("config/zeader")
            try FileManager.default.createDirectory(at: configDir, withIntermediateDirectories: true)
            let configFile = configDir.appendingPathComponent("config")
            try "notify-program \"\"\n".write(to: configFile, atomically: true, encoding: .utf8)
            routes["/feed"] = .ok(rss(items: [("g4", "Four")]))
            r = try zeader(["refresh", "--db", db], in: dir, environment: desktop)
            #expect(r.stdout.contains("1 new item"))
            #expect(!FileManager.default.fileExists(atPath: out.path))

            // A notify-send that fails: nothing on stderr (nobody asked for it).
            try FileManager.default.removeItem(at: configFile)
            try writeExecutableScript("exit 3", to: bin.appendingPathComponent("notify-send"))
            routes["/feed"] = .ok(rss(items: [("g5", "Five")]))
            r = try zeader(["refresh", "--db", db], in: dir, environment: desktop)
            #expect(r.status == 0 && r.stdout.contains("1 new item"))
            #expect(r.stderr.isEmpty, "\(r.stderr)")
        }
    }
}
