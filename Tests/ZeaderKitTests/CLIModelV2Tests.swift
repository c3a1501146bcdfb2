import Foundation
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

@Suite("zeader command line: tags, flags, backups, a version 1 store", .serialized)
struct CLIModelV2Tests {
    @Test("a v1 store is migrated on open; tag, list --tag, flag, items --flagged, export --json and import")
    func tagsFlagsAndBackups() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("z.sqlite").path
        let fixture = try #require(Bundle.module.url(forResource: "Fixtures/zeader-v1", withExtension: "sqlite"))
        try FileManager.default.copyItem(at: fixture, to: URL(fileURLWithPath: db))

        var r = try zeader(["list", "--json", "--db", db], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: db + ".v1.bak"))
        let feeds = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [[String: Any]]
        #expect(feeds.count == 4 && feeds.allSatisfy { ($0["tags"] as? [String]) == [] })
        let first = feeds[0]["url"] as! String

        r = try zeader(["tag", first, "Linux", "news", "--db", db], in: dir)
        #expect(r.status == 0 && r.stdout == "Linux\nnews\n", "\(r.stderr)")
        r = try zeader(["--db", db, "tag", first, "NEWS", "--remove"], in: dir)
        #expect(r.stdout == "Linux\n")
        r = try zeader(["--db", db, "add", "http://new.example/feed", "--tag", "linux", "--tag", "x", "--no-fetch"], in: dir)
        #expect(r.status == 0)
        r = try zeader(["--db", db, "list", "--tag", "linux"], in: dir)
        #expect(r.stdout.split(separator: "\n").count == 2 && r.stdout.contains("  [Linux]\n"))
        r = try zeader(["--db", db, "tag"], in: dir)
        #expect(r.stdout == "2  Linux\n1  x\n")

        r = try zeader(["--db", db, "items", "--tag", "linux", "--json"], in: dir)
        let items = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [[String: Any]]
        #expect(items.count == 6 && items.allSatisfy { $0["flagged"] as? Bool == false })
        let id = items[0]["id"] as! String
        r = try zeader(["--db", db, "flag", id, "--feed", first], in: dir)
        #expect(r.status == 0 && r.stdout == "flagged 1 item\n", "\(r.stderr)")
        r = try zeader(["--db", db, "items", "--flagged"], in: dir)
        #expect(r.stdout.split(separator: "\n").count == 1 && r.stdout.contains("* "))
        r = try zeader(["--db", db, "flag"], in: dir)
        #expect(r.status == 2 && r.stderr.contains("give item ids, or --feed URL"))
        r = try zeader(["--db", db, "unflag", "no-such-id"], in: dir)
        #expect(r.status == 1 && r.stderr == "zeader unflag: no item with id 'no-such-id'\n")

        r = try zeader(["--db", db, "export", "--json"], in: dir)
        #expect(r.status == 0)
        let backup = dir.appendingPathComponent("backup.json")
        try Data(r.stdout.utf8).write(to: backup)
        let restoredDB = dir.appendingPathComponent("restored.sqlite").path
        r = try zeader(["--db", restoredDB, "import", backup.path], in: dir)
        #expect(r.status == 0 && r.stdout == "restored 5 feeds and 24 items from \(backup.path)\n", "\(r.stderr)")
        let again = try zeader(["--db", restoredDB, "export", "--json"], in: dir)
        #expect(again.stdout == (try String(contentsOf: backup, encoding: .utf8)))

        r = try zeader(["--db", db, "export"], in: dir)
        #expect(r.stdout.contains("category=\"/Linux\""))
    }

    @Test("a restore killed with SIGKILL resumes after its last saved batch; every item ends up stored once")
    func killedRestoreResumes() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let count = 20_000
        var text = #"{"format":"zeader-backup","version":1,"feeds":[{"url":"http://a.example/feed","title":"A"}],"items":["#
        for n in 0..<count {
            text += n == 0 ? "\n" : ",\n"
            text +=
                #"{"feed":"http://a.example/feed","guid":"g\#(n)","title":"Item \#(n)","summary":"\#(String(repeating: "lorem ipsum ", count: 20))","read":\#(n % 2 == 0),"flagged":false,"firstSeen":"2024-06-01T10:00:00Z"}"#
        }
        text += "\n]}\n"
        let backup = dir.appendingPathComponent("backup.json")
        try Data(text.utf8).write(to: backup)
        let db = dir.appendingPathComponent("z.sqlite")

        let binary = try #require(zeaderBinary)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--db", db.path, "import", backup.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill it once a few batches have gone through the write-ahead log (opening the store
        // to look would compete with the import for it).
        let wal = db.path + "-wal"
        // Watched, and killed, from a thread of its own (`waitingOffThePool`) that looks every
        // 10 ms whatever the test pool is doing: a test task's sleep ends only when a pool
        // thread is free (on a busy run, after the import has finished), and a pool thread
        // blocked in a loop here is held from every other test for the seconds it takes.
        try await waitingOffThePool {
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning, Date() < deadline {
                let size = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
                if size > 3_000_000 { break }
                Thread.sleep(forTimeInterval: 0.01)
            }
            // Only while it runs: once it has ended and been reaped its pid may be another's.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the import finished before it could be killed")
        let markerKey = "objectgraph.import.zeader.restore:\(backup.path):\(text.utf8.count)"
        let savedBeforeKill = try #require(
            try ZeaderStore.open(at: db).container.store.metadata(forKey: markerKey).flatMap { Int($0) },
            "no batch was saved before the kill")
        #expect(savedBeforeKill > 0 && savedBeforeKill < count)
        #expect(try FeedLibrary(store: try ZeaderStore.open(at: db)).servers().map(\.total) == [savedBeforeKill])

        let r = try zeader(["--db", db.path, "import", backup.path], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let resumed = try #require(r.stdout.firstMatch(of: /resumed after (\d+) items/).flatMap { Int($0.1) })
        #expect(resumed == savedBeforeKill)
        let library = FeedLibrary(store: try ZeaderStore.open(at: db))
        let servers = try library.servers()
        #expect(servers.map(\.total) == [count])
        #expect(servers.map(\.unread) == [count / 2])
        #expect(try library.items(ItemQuery(wherePredicate: "guid == \"g19999\"")).count == 1)
    }
}
