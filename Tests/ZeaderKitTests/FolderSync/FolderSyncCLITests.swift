import Foundation
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

/// Two devices — two stores in two homes — and one shared folder, driven through the
/// `zeader` binary against a loopback feed server: what one device changes reaches the
/// other through `zeader refresh` on each.
@Suite("Folder sync through the binary", .serialized)
struct FolderSyncCLITests {
    /// One device: its home (XDG dirs) and its store.
    struct Device {
        let home: URL
        var db: String { home.appendingPathComponent("z.sqlite").path }

        @discardableResult
        func run(_ arguments: [String], expect status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation)
            throws -> CommandResult
        {
            let result = try zeader(["--db", db] + arguments, in: home)
            #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
            return result
        }

        func items() throws -> [[String: Any]] {
            let out = try run(["items", "--json"]).stdout
            return try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
        }

        func feeds() throws -> [[String: Any]] {
            let out = try run(["list", "--json"]).stdout
            return try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
        }

        func feed(_ url: String) throws -> [String: Any]? { try feeds().first { $0["url"] as? String == url } }
    }

    /// Two devices sharing `folder`, in `base`.
    static func devices(in base: URL) throws -> (Device, Device, folder: URL) {
        let folder = base.appendingPathComponent("Shared")
        let a = Device(home: base.appendingPathComponent("a"))
        let b = Device(home: base.appendingPathComponent("b"))
        for url in [folder, a.home, b.home] {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        return (a, b, folder)
    }

    @Test("read marks, subscriptions, titles, tags and unsubscriptions travel both ways")
    func bothWays() async throws {
        let routes = Routes()
        routes["/a"] = .ok(rss(title: "Feed A", guids: ["a1", "a2"]))
        routes["/b"] = .ok(rss(title: "Feed B", guids: ["b1"]))
        routes["/c"] = .ok(rss(title: "Feed C", guids: ["c1", "c2"]))
        try await withLoopbackServer(routes.handler) { http in
            let base = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: base) }
            let (a, b, folder) = try Self.devices(in: base)
            let feedA = http.url("/a").absoluteString
            let feedB = http.url("/b").absoluteString
            let feedC = http.url("/c").absoluteString

            try a.run(["add", feedA, "--title", "My A", "--tag", "news"])
            try a.run(["refresh"])
            let added = try a.run(["sync", "add", "folder:\(folder.path)"])
            #expect(added.stdout.hasPrefix("folder sync added: \(folder.path) (this device: "))
            try b.run(["sync", "add", "folder:\(folder.path)"])
            let first = try b.run(["refresh"])
            #expect(first.stdout.contains("folder sync: "))
            #expect(try b.feed(feedA)?["title"] as? String == "My A")
            #expect(try b.feed(feedA)?["tags"] as? [String] == ["news"])
            #expect(try b.items().count == 2)
            #expect(try b.items().allSatisfy { $0["read"] as? Bool == false })

            // Read on A (a batch update: mark-read) reaches B.
            try a.run(["mark-read", "--feed", feedA])
            try a.run(["refresh"])
            try b.run(["refresh"])
            #expect(try b.items().allSatisfy { $0["read"] as? Bool == true })

            // A feed B never fetched: its items take A's marks when B's refresh stores them.
            try a.run(["add", feedC])
            try a.run(["refresh"])
            try a.run(["flag", "c2", "--feed", feedC])
            try a.run(["mark-read", "--feed", feedC])
            try a.run(["refresh"])
            try b.run(["refresh"])
            let itemsOfC = try b.items().filter { $0["feed"] as? String == feedC }
            #expect(itemsOfC.count == 2)
            #expect(itemsOfC.allSatisfy { $0["read"] as? Bool == true })
            #expect(itemsOfC.first { $0["id"] as? String == "c2" }?["flagged"] as? Bool == true)

            // B subscribes, tags and unflags; A follows.
            try b.run(["add", feedB])
            try b.run(["tag", feedA, "tech"])
            try b.run(["unflag", "c2", "--feed", feedC])
            try b.run(["refresh"])
            try a.run(["refresh"])
            #expect(try a.feed(feedB) != nil)
            #expect(try a.feed(feedA)?["tags"] as? [String] == ["news", "tech"])
            #expect(try a.items().first { $0["id"] as? String == "c2" }?["flagged"] as? Bool == false)

            // A untags and unsubscribes; B follows.
            try a.run(["tag", "--remove", feedA, "news"])
            try a.run(["remove", feedB])
            try a.run(["refresh"])
            try b.run(["refresh"])
            #expect(try b.feed(feedB) == nil)
            #expect(try b.feed(feedA)?["tags"] as? [String] == ["tech"])

            // Nothing left to send: a quiet run sends nothing.
            #expect(try a.run(["sync"]).stdout.hasPrefix("folder sync: 0 changes sent"))
            #expect(try a.run(["sync", "status"]).stdout.contains("other devices: "))
        }
    }

    @Test("another device's command and file feeds are refused, named once each by sync status")
    func hostileEntries() async throws {
        let base = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: base) }
        let (a, _, folder) = try Self.devices(in: base)
        try a.run(["sync", "add", "folder:\(folder.path)"])
        let marker = base.appendingPathComponent("ran")
        let evil = folder.appendingPathComponent("zeader-sync/evil1")
        try FileManager.default.createDirectory(at: evil, withIntermediateDirectories: true)
        let lines = [
            #"{"feed":"exec:touch \#(marker.path)","op":"sub","t":"mitvfg1s.0.evil1","v":true}"#,
            #"{"feed":"EXEC:touch \#(marker.path)","op":"sub","t":"mitvfg1s.1.evil1","v":true}"#,
            #"{"feed":"filter:touch \#(marker.path):https://a.example/","op":"sub","t":"mitvfg1s.2.evil1","v":true}"#,
            #"{"feed":"file:///etc/passwd","op":"sub","t":"mitvfg1s.3.evil1","v":true}"#,
            #"{"name":"All","op":"smart","t":"mitvfg1s.4.evil1","v":"title ==== 1"}"#,
            #"{"op":"sub","t":"mitvfg1s.5.evil1","v":true"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(
            to: evil.appendingPathComponent("log-1.jsonl"), atomically: true, encoding: .utf8)

        let sync = try a.run(["sync"])
        #expect(sync.stderr.contains("refused a subscription from device evil1: exec:touch"))
        #expect(sync.stderr.contains("damaged line skipped: zeader-sync/evil1/log-1.jsonl:6"))
        try a.run(["refresh"])
        #expect(try a.feeds().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: marker.path))

        let status = try a.run(["sync", "status"]).stdout
        for url in ["exec:touch", "EXEC:touch", "filter:touch", "file:///etc/passwd"] {
            #expect(
                status.components(separatedBy: "\n").filter { $0.contains("from device evil1: \(url)") }.count == 1,
                "\(url) in \(status)")
        }
        #expect(status.contains("refused smart feed 'All' from device evil1: "))
        #expect(status.contains("damaged line skipped: zeader-sync/evil1/log-1.jsonl:6"))
        let json = try a.run(["sync", "status", "--json"]).stdout
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["devices"] as? [String] == ["evil1"])
        #expect((object["refused"] as? [String])?.count == 5)
        #expect((object["damagedLines"] as? [[String: Any]])?.first?["line"] as? Int == 6)
    }

    @Test("sync add folder: refuses a missing folder; sync remove folder turns it off")
    func setUpAndRemove() throws {
        let base = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: base) }
        let (a, _, folder) = try Self.devices(in: base)
        let missing = try a.run(["sync", "add", "folder:\(base.path)/nowhere"], expect: 2)
        #expect(missing.stderr == "zeader sync: sync folder \(base.path)/nowhere is missing or not a folder\n")
        try a.run(["sync", "add", "folder:\(folder.path)", "--user", "x"], expect: 2)
        try a.run(["sync", "add", "folder:\(folder.path)"])
        let other = base.appendingPathComponent("Other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let twice = try a.run(["sync", "add", "folder:\(other.path)"], expect: 2)
        #expect(twice.stderr.contains("syncs through \(folder.path) already"))
        #expect(try a.run(["sync", "remove", "folder"]).stdout.hasPrefix("folder sync removed"))
        try a.run(["sync", "status", "folder"], expect: 2)
        #expect(!FileManager.default.fileExists(atPath: a.db + ".folder-sync"))
    }
}
