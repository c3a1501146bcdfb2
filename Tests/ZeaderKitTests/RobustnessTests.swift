import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

/// Issue 12, items 5-7 on the application side: many processes on one store, damaged and
/// read-only stores, and the limits with clear errors.
@Suite("Robustness: shared, read-only and damaged stores; limits", .serialized)
struct RobustnessTests {
    /// `count` RSS files of `items` items each in a new folder; their file:// URLs.
    func fileFeeds(count: Int, items: Int, in directory: URL) throws -> [String] {
        try (0..<count).map { n in
            let url = directory.appendingPathComponent("feed\(n).xml")
            try rss(title: "Feed \(n)", guids: (0..<items).map { "f\(n)-\($0)" }).write(
                to: url, atomically: true, encoding: .utf8)
            return url.absoluteString
        }
    }

    @Test("two refreshes of the same feeds at once into one file store both succeed, each item stored once")
    func concurrentRefreshes() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let feedCount = 30
        let itemCount = 40
        let urls = try fileFeeds(count: feedCount, items: itemCount, in: directory)
        let dbURL = directory.appendingPathComponent("store.sqlite")
        let first = try ZeaderStore.open(at: dbURL)
        for url in urls { try FeedLibrary(store: first).add(url: url) }
        // A second stack on the same file: its own connections, as a second process has.
        let second = try ZeaderStore.open(at: dbURL)
        for round in 0..<3 {
            async let a = FeedRefresher(store: first, options: testOptions(jobs: 8)).refresh()
            async let b = FeedRefresher(store: second, options: testOptions(jobs: 8)).refresh()
            let (ra, rb) = try await (a, b)
            let problems = (ra.results + rb.results).compactMap { $0.status.isFailure ? "\($0.url): \($0.status)" : nil }
            #expect(problems.isEmpty, "round \(round): \(problems.prefix(3))")
            #expect(ra.progress.failed == 0 && rb.progress.failed == 0)
        }
        #expect(try FeedLibrary(store: first).items(ItemQuery()).count == feedCount * itemCount)
        #expect(try duplicateItemCount(first) == 0)
        let rows = try serverRows(second)
        #expect(rows.count == feedCount)
        #expect(rows.values.allSatisfy { $0.lastError == nil && $0.total == Int64(itemCount) })
    }

    @Test("a refresh into a read-only store stops with the store's one error (as the reader shows it), not one per feed")
    func refreshIntoReadOnlyStore() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let urls = try fileFeeds(count: 20, items: 3, in: directory)
        let dbURL = directory.appendingPathComponent("store.sqlite")
        let writable = try ZeaderStore.open(at: dbURL)
        for url in urls { try FeedLibrary(store: writable).add(url: url) }
        let readOnly = try ZeaderStore.open(at: dbURL, readOnly: true)
        #expect(readOnly.isReadOnly && !writable.isReadOnly)
        #expect(try FeedLibrary(store: readOnly).servers().count == 20)
        await #expect(throws: ZeaderError.store(.readOnlyStore(path: dbURL.path))) {
            try await FeedRefresher(store: readOnly, options: testOptions(jobs: 2)).refresh()
        }
        #expect(throws: ZeaderError.store(.readOnlyStore(path: dbURL.path))) {
            try FeedLibrary(store: readOnly).add(url: "http://x.example/")
        }
    }

    @Test("a --where query past its time limit stops with one clear error; other queries have no limit")
    func whereTimeLimit() throws {
        let store = try makeStore()
        let url = "http://example.org/feed"
        try FeedLibrary(store: store).add(url: url)
        let context = store.container.newBackgroundContext()
        try context.performAndWait { () throws in
            let server = try #require(try Server.findFirst(byAttribute: "url", value: .string(url), in: context))
            for n in 0..<5 {
                let item = context.insert(FeedItem.self)
                item.guid = "\(n)"
                item.title = String(repeating: "a", count: 30) + "b"
                item.sortDate = Date(timeIntervalSince1970: Double(n))
                item.server = server
            }
            try context.save()
        }
        let library = FeedLibrary(store: store)
        var query = ItemQuery(wherePredicate: "title MATCHES '(a|aa)+'")
        query.whereTimeLimit = .zero
        #expect(throws: ZeaderError.predicateTimedOut(seconds: 0)) { try library.items(query) }
        // With --search, the predicate is checked on the matches in memory, under the same limit.
        query.search = "aaa"
        #expect(throws: ZeaderError.predicateTimedOut(seconds: 0)) { try library.items(query) }
        query.whereTimeLimit = .seconds(10)
        query.wherePredicate = "title MATCHES 'a+b'"
        #expect(try library.items(query).count == 5)
        #expect(
            ZeaderError.predicateTimedOut(seconds: 10).description
                == "the --where predicate took longer than 10 s and was stopped")
        // The same budget does not apply to a query the user did not write.
        var plain = ItemQuery()
        plain.whereTimeLimit = .zero
        #expect(try library.items(plain).count == 5)
        // ObjectGraph's own default is no limit.
        #expect(ObjectGraph.FetchRequest<FeedItem>().timeLimit == nil)
        #expect(UserPredicate.timeLimit == .seconds(10))
    }

    @Test("lastError is one line of at most 500 characters, from the message and from a refresh")
    func lastErrorCapped() throws {
        let huge = "near \"" + String(repeating: "SELECT ?, ", count: 150_000) + "\"\nsecond line\u{1B}[31m"
        let capped = Messages.lastError(huge)
        #expect(capped.count == Messages.lastErrorLength)
        #expect(capped.hasSuffix("…"))
        #expect(!capped.unicodeScalars.contains { $0.properties.generalCategory == .control })
        #expect(Messages.lastError("one\n\n two\tthree\u{1B}") == "one two three")
        #expect(Messages.lastError("short") == "short")

        let store = try makeStore()
        let url = "http://example.org/feed"
        try FeedLibrary(store: store).add(url: url)
        let context = store.container.newBackgroundContext(name: "import")
        let importer = FeedImporter(context: context)
        let id = try context.performAndWait {
            try #require(try Server.findFirst(byAttribute: "url", value: .string(url), in: context)).objectID
        }
        let result = context.performAndWait { importer.apply(.failed(.invalidURL(huge)), to: id) }
        #expect(result.status.isFailure)
        let stored = try #require(try serverRows(store)[url]?.lastError)
        #expect(stored.count <= Messages.lastErrorLength && !stored.contains("\n"))
    }

    @Test("a backup of another version is refused with a clear message; version 1 and none are read")
    func backupVersions() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = FeedLibrary(store: try makeStore())
        func restore(_ json: String) throws -> BackupRestoreReport {
            let file = directory.appendingPathComponent("backup-\(UUID().uuidString).json")
            try json.write(to: file, atomically: true, encoding: .utf8)
            return try library.restoreBackup(from: file)
        }
        let feeds = #""feeds":[{"url":"http://a.example/feed"}],"items":[{"feed":"http://a.example/feed","guid":"1"}]"#
        #expect {
            try restore(#"{"format":"zeader-backup","version":99,"# + feeds + "}")
        } throws: { error in
            guard case .unreadableFile(_, let reason) = error as? ZeaderError else { return false }
            return reason.contains("version 99, newer than this zeader reads (version \(FeedLibrary.backupVersion))")
        }
        #expect {
            try restore(#"{"format":"zeader-backup","version":"two","# + feeds + "}")
        } throws: { error in
            guard case .unreadableFile(_, let reason) = error as? ZeaderError else { return false }
            return reason.contains("unknown version \"two\"")
        }
        #expect(try restore(#"{"format":"zeader-backup","version":1,"# + feeds + "}").itemsAdded == 1)
        #expect(try restore(#"{"format":"zeader-backup","# + feeds + "}").itemsUpdated == 1)
        var out = ""
        try library.exportBackup { out += $0 }
        #expect(out.hasPrefix(#"{"format":"zeader-backup","version":2,"#))
        #expect(try restore(#"{"format":"zeader-backup","version":2,"# + feeds + "}").itemsUpdated == 1)
        #expect {
            try restore(#"{"format":"zeader-backup","version":0,"# + feeds + "}")
        } throws: { error in
            guard case .unreadableFile(_, let reason) = error as? ZeaderError else { return false }
            return reason.contains("unknown version 0")
        }
    }

    @Test("URL schemes are case-insensitive; control characters in a URL are refused")
    func urlChecks() throws {
        #expect(try FeedSubscription.validatedURL("HTTP://Example.org/feed") == "http://Example.org/feed")
        #expect(try FeedSubscription.validatedURL(" HttpS://example.org/a:b ") == "https://example.org/a:b")
        #expect(try FeedSubscription.validatedURL("FILE:///srv/feed.xml") == "file:///srv/feed.xml")
        for bad in [
            "http://example.org/\u{1B}[31mred", "http://example.org/a\nb", "http://exa\u{7}mple.org/",
            "http://example.org/\u{85}x",
        ] {
            #expect {
                try FeedSubscription.validatedURL(bad)
            } throws: { error in
                guard case .invalidURL(_, let reason) = error as? ZeaderError else { return false }
                return reason.contains("control character")
            }
        }
        let store = try makeStore()
        try FeedLibrary(store: store).add(url: "HTTP://Example.org/feed")
        #expect(try FeedLibrary(store: store).servers().map(\.url) == ["http://Example.org/feed"])
    }
}

/// The command line against read-only and damaged stores.
@Suite("zeader on read-only and damaged stores", .serialized)
struct StoreDamageCLITests {
    /// A file store with `feeds` feeds of `items` items each, made by `zeader import` of a
    /// backup (the process ends, so nothing is left in a WAL file).
    func makeStoreFile(at url: URL, feeds: Int = 3, items: Int = 200) throws {
        var json = #"{"format":"zeader-backup","version":1,"feeds":["#
        json += (0..<feeds).map { #"{"url":"http://feed\#($0).example/rss","title":"Feed \#($0)"}"# }.joined(separator: ",")
        json += #"],"items":["#
        var records: [String] = []
        for feed in 0..<feeds {
            for n in 0..<items {
                // A marker the full-text index does not keep verbatim (it lowercases and splits),
                // in the item's row (its summary) and in its content's row (model version 4).
                records.append(
                    #"{"feed":"http://feed\#(feed).example/rss","guid":"\#(feed)-\#(n)","title":"Item \#(n)","summary":"PAYLOAD-\#(n)-\#(String(repeating: "y", count: 200))","content":"PAYLOAD-\#(n)-\#(String(repeating: "x", count: 300))","published":"2024-01-01T00:00:00Z"}"#
                )
            }
        }
        json += records.joined(separator: ",") + "]}"
        let backup = url.deletingLastPathComponent().appendingPathComponent("seed-\(UUID().uuidString).json")
        try json.write(to: backup, atomically: true, encoding: .utf8)
        let r = try zeader(["--db", url.path, "import", backup.path], in: url.deletingLastPathComponent())
        #expect(r.status == 0, "\(r.stderr)")
        try FileManager.default.removeItem(at: backup)
    }

    /// Overwrites the first bytes (the page header) of every `stride`th table-leaf page that
    /// holds `marker`, and returns how many pages were damaged.
    func damagePages(of url: URL, containing marker: String, stride: Int) throws -> Int {
        var data = try Data(contentsOf: url)
        let rawSize = Int(data[16]) << 8 | Int(data[17])
        let pageSize = rawSize == 1 ? 65_536 : rawSize
        let needle = Data(marker.utf8)
        var found = 0
        var damaged = 0
        for page in 1..<(data.count / pageSize) {  // page 1 (the schema) is left alone
            let start = page * pageSize
            guard data[start] == 0x0D, data[start..<(start + pageSize)].range(of: needle) != nil else { continue }
            found += 1
            if found % stride == 0 {
                data.replaceSubrange(start..<(start + 3), with: [0x07, 0xFF, 0xFF])
                damaged += 1
            }
        }
        try data.write(to: url)
        return damaged
    }

    @Test("a read-only store can be listed and read; every write command refuses it with one line")
    func readOnlyStore() throws {
        let directory = try temporaryDirectory()
        defer {
            chmod(directory.path, 0o755)
            try? FileManager.default.removeItem(at: directory)
        }
        let db = directory.appendingPathComponent("store.sqlite")
        try makeStoreFile(at: db, feeds: 2, items: 5)
        chmod(db.path, 0o444)
        chmod(directory.path, 0o555)
        // root may write any file: run as nobody then.
        let asUser: [String] = geteuid() == 0 ? ["--reuid=65534", "--regid=65534", "--clear-groups"] : []
        func run(_ arguments: [String]) throws -> CommandResult {
            let binary = try #require(zeaderBinary)
            if asUser.isEmpty { return try zeader(["--db", db.path] + arguments, in: directory) }
            return try zeaderVia("/usr/bin/setpriv", asUser + [binary.path, "--db", db.path] + arguments, in: directory)
        }
        var r = try run(["list"])
        #expect(r.status == 0 && r.stdout.contains("feed0.example"), "\(r.stderr)")
        r = try run(["items", "--json"])
        #expect(r.status == 0 && r.stdout.contains("Item 4"), "\(r.stderr)")
        let refusal = "the store \(db.path) is read-only: it can be listed and read, not changed\n"
        for command in [
            ["add", "http://new.example/rss"], ["remove", "http://feed0.example/rss"], ["mark-read", "--all"], ["refresh"],
            ["tag", "http://feed0.example/rss", "news"], ["flag", "--feed", "http://feed0.example/rss"],
            ["import", db.path],
        ] {
            r = try run(command)
            #expect(r.status == 1 && r.stderr == "zeader \(command[0]): " + refusal, "\(command): \(r.stderr)")
        }
        r = try run(["check"])
        #expect(r.status == 0 && r.stdout == "ok: \(db.path)\n", "\(r.stderr)")
    }

    @Test("damaged pages: commands stop with one line, check reports, export --json salvages and import rebuilds")
    func damagedStore() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("store.sqlite")
        try makeStoreFile(at: db)
        var r = try zeader(["--db", db.path, "check"], in: directory)
        #expect(r.status == 0 && r.stdout == "ok: \(db.path)\n")

        // Items only: the feeds survive, some items do not.
        #expect(try damagePages(of: db, containing: "PAYLOAD-", stride: 4) >= 2)
        r = try zeader(["--db", db.path, "check"], in: directory)
        #expect(r.status == 1 && r.stderr.hasPrefix("zeader check: the store \(db.path) is damaged"), "\(r.stderr)")
        #expect(!r.stdout.isEmpty && !r.stdout.hasPrefix("ok"))
        for command in [["items", "--json"], ["mark-read", "--all"]] {
            r = try zeader(["--db", db.path] + command, in: directory)
            #expect(r.status == 1, "\(command)")
            #expect(r.stderr.hasPrefix("zeader \(command[0]): the store \(db.path) is damaged ("), "\(command): \(r.stderr)")
            #expect(r.stderr.contains("zeader export --json") && r.stderr.split(separator: "\n").count == 1)
        }
        r = try zeader(["--db", db.path, "export", "--json"], in: directory)
        #expect(r.status == 1)
        #expect(r.stderr.contains("zeader export: skipped unreadable item rows"), "\(r.stderr)")
        #expect(r.stderr.contains("salvaged 3 feeds and "))
        let backup = directory.appendingPathComponent("backup.json")
        try Data(r.stdout.utf8).write(to: backup)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let items = try #require(object["items"] as? [[String: Any]])
        let guids = items.compactMap { $0["guid"] as? String }
        #expect(Set(guids).count == guids.count)  // each once
        #expect(guids.count > 300 && guids.count < 600, "\(guids.count)")
        let rebuilt = directory.appendingPathComponent("rebuilt.sqlite")
        r = try zeader(["--db", rebuilt.path, "import", backup.path], in: directory)
        #expect(r.status == 0 && r.stdout.contains("restored 3 feeds and \(guids.count) items"), "\(r.stderr)")
        r = try zeader(["--db", rebuilt.path, "check"], in: directory)
        #expect(r.status == 0)

        // The feeds' table too: every command stops.
        #expect(try damagePages(of: db, containing: "http://feed0.example", stride: 1) >= 1)
        for command in [
            ["list"], ["add", "http://new.example/rss", "--no-fetch"], ["mark-read", "--all"], ["export"], ["refresh"], ["items"],
        ] {
            r = try zeader(["--db", db.path] + command, in: directory)
            #expect(
                r.status == 1 && r.stderr.hasPrefix("zeader \(command[0]): the store \(db.path) is damaged ("),
                "\(command): \(r.stderr)")
        }
    }
}

/// The command line's side of the URL rules.
@Suite("zeader add: URL schemes and control characters")
struct AddURLCLITests {
    @Test("an escape or a line break in an added URL is refused in one line, printed without it; HTTP:// subscribes as http")
    func controlCharacters() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("store.sqlite").path
        for bad in ["http://example.org/\u{1B}[31mred", "http://example.org/a\nb"] {
            let r = try zeader(["--db", db, "add", bad], in: directory)
            #expect(r.status == 2)
            let first = try #require(r.stderr.split(separator: "\n").first)
            #expect(first.contains("contains the control character U+00"), "\(r.stderr)")
            #expect(!r.stderr.unicodeScalars.contains("\u{1B}"))
        }
        var r = try zeader(["--db", db, "add", "HTTP://Example.org/feed", "--no-fetch"], in: directory)
        #expect(r.status == 0 && r.stdout == "added http://Example.org/feed\n", "\(r.stderr)")
        r = try zeader(["--db", db, "list", "--json"], in: directory)
        #expect(r.stdout.contains("\"url\":\"http://Example.org/feed\""))
    }
}

/// Runs `tool` with `arguments` (the zeader binary among them) in the environment `zeader` uses.
func zeaderVia(_ tool: String, _ arguments: [String], in directory: URL) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.environment = [
        "HOME": directory.path, "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
        "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path, "PATH": "/usr/bin:/bin",
    ]
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(
        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: stderr, as: UTF8.self))
}
