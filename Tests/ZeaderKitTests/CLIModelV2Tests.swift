import Foundation
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
        r = try zeader(["--db", db, "add", "http://new.example/feed", "--tag", "linux", "--tag", "x"], in: dir)
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
}
