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
/// `directory`, no ZEADER_DB unless given), `input` on its stdin (else /dev/null); through
/// `launcher` when given (its program and arguments, then the binary's path and `arguments`).
func zeader(
    _ arguments: [String], in directory: URL, environment extra: [String: String] = [:], input: Data? = nil,
    launcher: [String] = []
) throws -> CommandResult {
    let binary = try #require(zeaderBinary, "build the zeader executable first (swift build --product zeader)")
    let process = Process()
    if let program = launcher.first {
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = launcher.dropFirst() + [binary.path] + arguments
    } else {
        process.executableURL = binary
        process.arguments = arguments
    }
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
    let stdin = input.map { _ in Pipe() }
    process.standardInput = stdin ?? FileHandle.nullDevice
    try process.run()
    if let stdin, let input {
        // Written from another thread, so that a command that does not read it cannot block the test.
        DispatchQueue.global().async {
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
    }
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

/// Writes `text` as the config file the binary reads when run by ``zeader(_:in:environment:input:)``
/// in `directory` (`$XDG_CONFIG_HOME/zeader/config`); returns its URL.
@discardableResult
func writeConfig(_ text: String, in directory: URL) throws -> URL {
    let folder = directory.appendingPathComponent("config/zeader")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("config")
    try text.write(to: file, atomically: true, encoding: .utf8)
    return file
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
            // A feed URL that could never be one is the user's typing, on every command that names a feed.
            (["remove", "not a url"], 2, "invalid feed URL 'not a url': not an absolute URL"),
            (["remove", "FTP://x.example/feed"], 2, "unsupported scheme 'ftp'"),
            (["remove", "http://x.example/feed"], 1, "not subscribed: http://x.example/feed"),
            (["remove", "exec:true"], 1, "not subscribed: exec:true"),
            (["refresh", "gopher://x.example/"], 2, "unsupported scheme 'gopher'"),
            (["items", "--feed", "not a url"], 2, "invalid feed URL 'not a url'"),
            (["mark-read", "--feed", "http://"], 2, "invalid feed URL 'http://': no host"),
            (["tag", "not a url", "news"], 2, "invalid feed URL 'not a url'"),
            (["tag", "http://x.example/feed", "news"], 1, "not subscribed: http://x.example/feed"),
            (["rename", "not a url", "T"], 2, "invalid feed URL 'not a url'"),
            (["rename", "http://x.example/feed", "T"], 1, "not subscribed: http://x.example/feed"),
            (["trust", " \u{1B}[31mhttp://x.example/"], 2, "contains the control character U+001B"),
            (["trust", "http://x.example/feed"], 1, "not subscribed: http://x.example/feed"),
            (["flag", "--feed", "not a url"], 2, "invalid feed URL 'not a url'"),
            (["unflag", "g1", "--feed", "mailto:a@x.example"], 2, "unsupported scheme 'mailto'"),
            (["podcasts", "add", "g1", "--feed", "not a url"], 2, "invalid feed URL 'not a url'"),
            // Other arguments the user typed or left out.
            (["add", "--smart", "title ==", "--title", "T"], 2, "invalid --smart predicate"),
            (["add", "--smart", "read == NO"], 2, "--smart needs a --title"),
            (["flag"], 2, "give item ids, or --feed URL, or both"),
            (["ignore", "add", "title =="], 2, "invalid ignore rule"),
            (["podcasts", "download", "--jobs", "17"], 2, "--jobs must be between 1 and 16"),
            (
                ["sync", "add", "not a url", "--user", "a", "--password-command", "echo pw"], 2,
                "invalid sync API URL 'not a url'"
            ),
            (["sync", "add", "FTP://x.example/api", "--user", "a"], 2, "invalid sync API URL 'FTP://x.example/api'"),
            (["sync", "add", "https:///api/greader.php", "--user", "a"], 2, "invalid sync API URL"),
            (["sync", "add", "/api/greader.php", "--user", "a"], 2, "invalid sync API URL"),
            (
                ["sync", "add", "http://127.0.0.1:9/api/greader.php", "--user", "a", "--name", "Folder"], 2,
                "'Folder' cannot name an account: it stands for folder sync"
            ),
            // Things named that are not there, and failures.
            (["flag", "nosuchid"], 1, "no item with id 'nosuchid'"),
            (["ignore", "remove", "5"], 1, "no stored ignore rule 5"),
            (["ignore", "remove", "0"], 2, "ignore rules are numbered from 1, not 0"),
            (["flag", ""], 2, "invalid item id '': empty"),
            (["unflag", " \t"], 2, "invalid item id"),
            (["flag", "nosuchid", "GREADER:12x"], 2, "invalid item id 'GREADER:12x': greader: needs"),
            (["flag", "greader:0"], 2, "invalid item id 'greader:0'"),
            (["flag", "greader:18446744073709551616"], 2, "invalid item id"),
            (["flag", "greader:18446744073709551615"], 1, "no item with id 'greader:18446744073709551615'"),
            (["unflag", "tag:google.com,2005:reader/item/12"], 2, "16 hex digits"),
            (["podcasts", "add", ""], 2, "invalid item id '': empty"),
            (["podcasts", "remove", "greader:"], 2, "invalid item id 'greader:'"),
            (["podcasts", "play", " "], 2, "invalid item id ' ': empty"),
            (["podcasts", "play", "g1", "--feed", "not a url"], 2, "invalid feed URL 'not a url'"),
            (["podcasts", "play", "g1", "--feed", "http://x.example/feed"], 1, "'g1' is not in the podcast queue"),
            (["podcasts", "add", "nosuchid"], 1, "no item with id 'nosuchid'"),
            (["podcasts", "play", "nosuchid"], 1, "'nosuchid' is not in the podcast queue"),
            (["parse", "/nonexistent/feed.xml"], 1, "cannot read /nonexistent/feed.xml"),
            (["sync"], 1, "the sync failed: no sync account"),
            (["sync", "status"], 1, "no sync account"),
            (["sync", "remove"], 1, "no sync account"),
            (["sync", "login", "--password-command", "true"], 1, "--password-command printed no password"),
            (
                ["sync", "add", "http://127.0.0.1:9/api", "--user", "a", "--password-command", "exit 3"], 1,
                "--password-command failed (exit status 3)"
            ),
        ])
    func badArguments(arguments: [String], status: Int32, message: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try zeader(arguments + ["--db", dir.appendingPathComponent("z.sqlite").path], in: dir)
        #expect(r.status == status, "\(arguments): \(r.stderr)")
        #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test("cleanup --vacuum says what it gave back in the one byte-size format (kB, not KiB)")
    func vacuumSize() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try zeader(["cleanup", "--vacuum", "--db", dir.appendingPathComponent("z.sqlite").path], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let size = try #require(r.stdout.firstMatch(of: /vacuumed, (.+?) given back/)?.1, "\(r.stdout)")
        #expect(size.wholeMatch(of: /[0-9]+ bytes|[0-9]+\.[0-9] (kB|MB|GB)/) != nil, "\(r.stdout)")
    }

    @Test("import: a backup on stdin and --urls without a newsboat cache are the user's input, exit 2")
    func importMisuse() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite").path
        let backup = Data(#"{"format":"zeader-backup","version":2,"feeds":[],"items":[]}"#.utf8)
        var r = try zeader(["import", "-", "--db", db], in: dir, input: backup)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr == "zeader import: a JSON backup must be given as a file (it is read in place and can be resumed)\n")
        let opml = dir.appendingPathComponent("feeds.opml")
        try #"<opml version="2.0"><body/></opml>"#.write(to: opml, atomically: true, encoding: .utf8)
        r = try zeader(["import", opml.path, "--urls", opml.path, "--db", db], in: dir)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr == "zeader import: --urls and --queue go with a newsboat cache.db, and \(opml.path) is not one\n")
    }

    @Test("import of a file that is neither OPML nor a urls file names it, exit 2")
    func importGarbage() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bad.opml")
        try "<html><body>hello".write(to: file, atomically: true, encoding: .utf8)
        let r = try zeader(["import", file.path, "--db", dir.appendingPathComponent("z.sqlite").path], in: dir)
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("zeader import: \(file.path)"))
    }

    @Test("a file that is not what the command reads exits 2; one that cannot be read or is damaged exits 1")
    func filesOfAnotherKind() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite").path
        #expect(try zeader(["add", "http://x.example/feed", "--no-fetch", "--db", db], in: dir).status == 0)
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let url = dir.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return url.path
        }
        let binary = try write("photo.jpg", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0xFE, 0x80])
        let html = try write("page.html", Array("<!DOCTYPE html><HTML><body>hi</body></HTML>\n".utf8))
        let otherJSON = try write("other.json", Array(#"{"format":"something-else","feeds":[],"items":[]}"#.utf8))
        let notes = try write("notes.txt", Array("hello, no database here\n".utf8))
        let damaged = try write("cut.json", Array(#"{"format":"zeader-backup","version":2,"feeds":[{"url":"#.utf8))
        let cases: [([String], Int32, String)] = [
            (["import", binary], 2, "zeader import: \(binary): "),
            (["import", html], 2, "zeader import: \(html): not OPML"),
            (["import", otherJSON], 2, "not a Zeader backup"),
            // A Zeader store is an SQLite file, but no newsboat cache.
            (["import", db, "--db", dir.appendingPathComponent("other.sqlite").path], 2, "not a newsboat cache"),
            (["list", "--db", dir.path], 2, "is a folder; --db names the store's file"),
            (["list", "--db", notes], 2, "not an SQLite database"),
            // The reader, before it takes the terminal.
            (["--db", dir.path], 2, "zeader: the store \(dir.path) is a folder"),
            (["--db", notes], 2, "zeader: store: \(notes): not an SQLite database"),
            (["import", damaged], 1, "zeader import: \(damaged): "),
            (["import", dir.appendingPathComponent("missing.opml").path], 1, "cannot read"),
        ]
        for (arguments, status, message) in cases {
            let r = try zeader(arguments.contains("--db") ? arguments : arguments + ["--db", db], in: dir)
            #expect(r.status == status, "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(arguments): \(r.stderr)")
        }
        // Nothing it refused changed the file it named.
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "hello, no database here\n")
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
            "check", "cleanup", "ignore add", "ignore list", "ignore remove", "rule add", "rule list", "rule remove",
            "rule test", "extract",
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
        for section in ["EXIT STATUS", "FILES", "ENVIRONMENT", "EXAMPLES", "KEYS", "RULES"] {
            #expect(text.contains(".SH \(section)"))
        }
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
