import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing

@testable import ZeaderKit

/// The built `zeader` binary: next to the test bundle (`.build/debug`), else found from
/// this file's path.
let zeaderBinary: URL? = {
    let bundle = Bundle.main.bundleURL
    let candidates = [
        bundle.appendingPathComponent("zeader"), bundle.deletingLastPathComponent().appendingPathComponent("zeader"),
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/zeader"),
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
}()

struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the binary with `arguments` in an environment of its own (HOME and XDG dirs inside
/// `directory`, no ZEADER_DB unless given).
func zeader(_ arguments: [String], in directory: URL, environment extra: [String: String] = [:]) throws -> CommandResult {
    let binary = try #require(zeaderBinary, "build the zeader executable first (swift build --product zeader)")
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    var environment = [
        "HOME": directory.path, "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
        "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path, "PATH": "/usr/bin:/bin",
    ]
    environment.merge(extra) { $1 }
    process.environment = environment
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both pipes concurrently with the process, so a large output cannot block it.
    let stderrData = Mutex(Data())
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        let data = err.fileHandleForReading.readDataToEndOfFile()
        stderrData.withLock { $0 = data }
        group.leave()
    }
    let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return CommandResult(
        status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
        stderr: String(decoding: stderrData.withLock { $0 }, as: UTF8.self))
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite("zeader command line, end to end", .serialized)
struct CLITests {
    @Test("add, list, refresh, items, mark-read, export, import, remove against a loopback server")
    func everyCommand() async throws {
        let routes = Routes()
        routes["/a"] = .ok(rss(title: "Feed A", guids: ["a1", "a2"]))
        routes["/b"] = .ok(rss(title: "Feed \u{1B}[31mB", items: [("b1", "Café déjà vu"), ("b2", "Other")]))
        routes["/bad"] = .status(404)
        try await withLoopbackServer(routes.handler) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            let a = http.url("/a").absoluteString
            let b = http.url("/b").absoluteString
            let bad = http.url("/bad").absoluteString

            var r = try zeader(["--db", db, "add", a, "--title", "My A"], in: dir)
            #expect(r.status == 0)
            #expect(r.stdout == "added \(a)\n")
            r = try zeader(["add", b, "--db", db], in: dir)
            #expect(r.status == 0)
            r = try zeader(["add", a, "--db", db], in: dir)
            #expect(r.status == 1)
            #expect(r.stderr == "zeader add: already subscribed: \(a)\n")

            r = try zeader(["--db", db, "refresh", "--jobs", "2"], in: dir)
            #expect(r.status == 0)
            #expect(r.stdout.hasPrefix("2 feeds: 2 updated, 0 unchanged, 0 failed; 4 new items in "))
            #expect(r.stderr.isEmpty)  // not a terminal: no progress bar

            r = try zeader(["list", "--json", "--db", db], in: dir)
            #expect(r.status == 0)
            let list = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
            #expect(list.map { $0["url"] as? String } == [a, b])
            #expect(list.first?["title"] as? String == "My A")
            #expect((list.last?["title"] as? String)?.hasPrefix("Feed ") == true)
            #expect(!r.stdout.contains("\u{1B}") && !r.stdout.contains("\\u001b"))
            #expect(list.map { $0["unread"] as? Int } == [2, 2])
            #expect(list.map { $0["total"] as? Int } == [2, 2])
            #expect(list[0]["lastError"] is NSNull)
            r = try zeader(["list", "--db", db], in: dir)
            #expect(r.stdout.contains("2/2  My A  <\(a)>"))
            #expect(!r.stdout.contains("\u{1B}"))

            r = try zeader(["items", "--db", db, "--json"], in: dir)
            let items = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
            #expect(items.count == 4)
            #expect(
                Set(items.map { $0.keys.sorted() }.first ?? []).isSuperset(of: [
                    "feed", "id", "title", "link", "author", "published", "read",
                ]))
            r = try zeader(["items", "--db", db, "--search", "CAFE deja", "--json"], in: dir)
            let found = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
            #expect(found.map { $0["id"] as? String } == ["b1"])
            #expect(found.first?["feed"] as? String == b)
            r = try zeader(["items", "--db", db, "--feed", a, "--limit", "1"], in: dir)
            #expect(r.stdout.split(separator: "\n").count == 1)
            r = try zeader(["items", "--db", db, "--where", "title BEGINSWITH \"Title a\""], in: dir)
            #expect(r.stdout.split(separator: "\n").count == 2)

            r = try zeader(["mark-read", "--db", db, "--feed", a], in: dir)
            #expect(r.stdout == "marked 2 items read\n")
            r = try zeader(["items", "--db", db, "--unread", "--json"], in: dir)
            #expect((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [Any])?.count == 2)
            r = try zeader(["mark-read", "--all"], in: dir, environment: ["ZEADER_DB": db])
            #expect(r.stdout == "marked 2 items read\n")

            r = try zeader(["add", bad, "--db", db], in: dir)
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 1)
            #expect(r.stderr.contains("zeader refresh: \(bad): HTTP 404"))
            #expect(r.stdout.contains("2 unchanged, 1 failed") || r.stdout.contains("1 failed"))
            r = try zeader(["list", "--db", db, "--json"], in: dir)
            #expect(r.stdout.contains("HTTP 404"))

            r = try zeader(["export", "--db", db], in: dir)
            #expect(r.status == 0)
            #expect(r.stdout.contains("<opml version=\"2.0\">"))
            #expect(r.stdout.contains("xmlUrl=\"\(b)\""))
            let opml = dir.appendingPathComponent("feeds.opml")
            try r.stdout.write(to: opml, atomically: true, encoding: .utf8)
            let db2 = dir.appendingPathComponent("z2.sqlite").path
            r = try zeader(["import", opml.path, "--db", db2], in: dir)
            #expect(r.stdout == "imported 3 feeds from \(opml.path)\n")
            r = try zeader(["--db", db2, "import", opml.path], in: dir)
            #expect(r.stdout == "imported 0 feeds from \(opml.path) (3 already subscribed)\n")
            let urls = dir.appendingPathComponent("urls")
            try "\(a) tag\nhttp://new.example/feed\n".write(to: urls, atomically: true, encoding: .utf8)
            r = try zeader(["import", urls.path, "--db", db2], in: dir)
            #expect(r.stdout.hasPrefix("imported 1 feed from"))

            r = try zeader(["remove", a, "--db", db], in: dir)
            #expect(r.stdout == "removed \(a) (2 items)\n")
            r = try zeader(["remove", a, "--db", db], in: dir)
            #expect(r.status == 1)
            #expect(r.stderr == "zeader remove: not subscribed: \(a)\n")

            // The default store follows XDG_DATA_HOME.
            r = try zeader(["add", a], in: dir)
            #expect(r.status == 0)
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("data/zeader/zeader.sqlite").path))
        }
    }

    @Test(
        "bad arguments exit 2 with one clear message; failures exit 1",
        arguments: [
            (["refresh", "--jobs", "0"], Int32(2), "--jobs must be between 1 and 64"),
            (["refresh", "--jobs", "x"], 2, "--jobs"),
            (["add", "ftp://example.org/feed"], 2, "unsupported scheme 'ftp'"),
            (["add"], 2, "Missing expected argument"),
            (["items", "--where", "title =="], 2, "invalid --where predicate"),
            (["items", "--where", "nosuchkey == 1"], 2, "nosuchkey"),
            (["items", "--limit", "0"], 2, "--limit must be at least 1"),
            (["items", "--feed", "http://nowhere.example/"], 1, "not subscribed: http://nowhere.example/"),
            (["mark-read"], 2, "give exactly one of --feed URL and --all"),
            (["mark-read", "--all", "--feed", "http://x/"], 2, "give exactly one of --feed URL and --all"),
            (["import", "/nonexistent/feeds.opml"], 1, "cannot read /nonexistent/feeds.opml"),
            (["refresh", "http://nowhere.example/"], 1, "not subscribed: http://nowhere.example/"),
            (["nosuchcommand"], 2, "nosuchcommand"),
            (["list", "--bogus"], 2, "--bogus"),
        ])
    func badArguments(arguments: [String], status: Int32, message: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try zeader(arguments + ["--db", dir.appendingPathComponent("z.sqlite").path], in: dir)
        #expect(r.status == status, "\(arguments): \(r.stderr)")
        #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test("import of a file that is neither OPML nor a urls file names it")
    func importGarbage() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bad.opml")
        try "<html><body>hello".write(to: file, atomically: true, encoding: .utf8)
        let r = try zeader(["import", file.path, "--db", dir.appendingPathComponent("z.sqlite").path], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("zeader import: \(file.path)"))
    }

    @Test("--help and --version exit 0")
    func helpAndVersion() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var r = try zeader(["--version"], in: dir)
        #expect(r.status == 0)
        #expect(r.stdout == zeaderVersion + "\n")
        r = try zeader(["items", "--help"], in: dir)
        #expect(r.status == 0)
        #expect(r.stdout.contains("--search"))
    }
}

@Suite("man page")
struct ManPageTests {
    let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("man/zeader.1")

    @Test("documents every command and option, and exit statuses 0, 1 and 2")
    func completeness() throws {
        let text = try String(contentsOf: page, encoding: .utf8)
        for command in [
            "refresh", "add", "remove", "list", "items", "mark\\-read", "import", "export", "parse", "tag", "flag", "unflag",
            "check", "cleanup", "ignore add", "ignore list", "ignore remove", "extract",
        ] {
            #expect(
                text.contains(".B \(command)") || text.contains(".BR \(command)") || text.contains(".BI \(command)"), "\(command)"
            )
        }
        for option in [
            "\\-\\-jobs", "\\-\\-title", "\\-\\-json", "\\-\\-feed", "\\-\\-unread", "\\-\\-search", "\\-\\-where",
            "\\-\\-limit", "\\-\\-all", "\\-\\-tag", "\\-\\-flagged", "\\-\\-remove", "\\-\\-db", "\\-\\-base\\-url",
            "\\-\\-urls", "\\-\\-vacuum", "\\-\\-html", "\\-\\-max\\-items", "\\-\\-keep\\-days", "ZEADER_DB",
            "XDG_DATA_HOME",
        ] {
            #expect(text.contains(option), "\(option)")
        }
        for section in ["EXIT STATUS", "FILES", "ENVIRONMENT", "EXAMPLES", "KEYS"] { #expect(text.contains(".SH \(section)")) }
    }

    @Test("groff -ww -z reports nothing")
    func groffClean() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/groff")
        process.arguments = ["-ww", "-z", "-man", page.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: output, as: UTF8.self) == "")
    }
}
