import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing

@testable import ZeaderKit

@Suite("Killfile: ignore rules at refresh, on stored items, and removed again")
struct KillfileTests {
    @Test("a rule drops new items at import (tombstoned, uncounted); flagged and out-of-scope items stay")
    func atImport() throws {
        let store = try makeStore()
        let context = store.container.newBackgroundContext(name: "t")
        let rules = [
            try Killfile.compile(.init(scope: .tag("news"), predicateFormat: "title CONTAINS[cd] \"SPONSORED\"")),
            try Killfile.compile(.init(scope: .feed("https://other.example/feed"), predicateFormat: "author == \"spam\"")),
        ]
        try context.performAndWait {
            let server = try FeedSubscription.add(url: "https://example.org/feed", tags: ["News"], in: context)
            let items = [
                ParsedItem(id: "1", title: "Hello"), ParsedItem(id: "2", title: "A sponsored post"),
                ParsedItem(id: "3", title: "Spam", author: "spam"),
            ]
            let (new, _) = try ItemImport.upsert(items, into: server, in: context, now: Date(), ignoring: rules)
            #expect(new == 2)
            try context.save()
            #expect(server.totalCount == 2)
            #expect(server.unreadCount == 2)
            #expect(try RemovedItem.findAll(in: context).map(\.guid) == ["2"])
            // Seen again: still not stored, even without the rule (the tombstone holds).
            let (again, _) = try ItemImport.upsert(items, into: server, in: context, now: Date())
            #expect(again == 0)
        }
    }

    @Test("bad predicates are refused naming the rule")
    func badRule() {
        #expect(throws: ZeaderError.self) { try Killfile.compile(.init(scope: .all, predicateFormat: "title CONTAINS")) }
        #expect(throws: ZeaderError.self) { try Killfile.compile(.init(scope: .all, predicateFormat: "colour == 3")) }
        #expect(ZeaderError.invalidIgnoreRule("x").isUsageError)
    }

    @Test("zeader ignore add removes stored items; refresh keeps them out; remove brings them back; config rules")
    func commandLine() async throws {
        let routes = Routes()
        routes["/feed"] = .ok(
            rss(items: [("g1", "Swift news"), ("g2", "Sponsored: buy now"), ("g3", "More sponsored stuff"), ("g4", "Rust")]))
        try await withLoopbackServer(routes.handler) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            let feed = http.url("/feed").absoluteString
            _ = try zeader(["add", feed, "--db", db], in: dir)
            _ = try zeader(["refresh", "--db", db], in: dir)
            _ = try zeader(["flag", "g3", "--db", db], in: dir)

            var r = try zeader(["ignore", "add", "title CONTAINS[cd] \"sponsored\"", "--feed", feed, "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            // g3 is flagged: it stays.
            #expect(r.stdout == "added ignore \(feed) title CONTAINS[cd] \"sponsored\"; removed 1 stored item\n")
            r = try zeader(["list", "--db", db], in: dir)
            #expect(r.stdout.hasPrefix("3/3 "))
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.stdout.contains("0 new items"))
            r = try zeader(["ignore", "list", "--db", db], in: dir)
            #expect(r.stdout == "1  ignore \(feed) title CONTAINS[cd] \"sponsored\"\n")

            r = try zeader(["ignore", "remove", "1", "--db", db], in: dir)
            #expect(r.status == 0)
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.stdout.contains("1 new item"), "\(r.stdout)")
            r = try zeader(["ignore", "remove", "1", "--db", db], in: dir)
            #expect(r.status == 1)
            #expect(r.stderr == "zeader ignore remove: no stored ignore rule 1 (see `zeader ignore list`)\n")
            r = try zeader(["ignore", "add", "title CONTAINS", "--db", db], in: dir)
            #expect(r.status == 2)
            #expect(r.stderr.hasPrefix("zeader ignore add: invalid ignore rule: title CONTAINS: "))

            // A config rule: applied by the next refresh, listed as (config).
            let configDir = dir.appendingPathComponent("config/zeader")
            try FileManager.default.createDirectory(at: configDir, withIntermediateDirectories: true)
            try "ignore * title == \"Rust\"\n".write(
                to: configDir.appendingPathComponent("config"), atomically: true, encoding: .utf8)
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0)
            r = try zeader(["items", "--db", db], in: dir)
            #expect(!r.stdout.contains("Rust") && r.stdout.split(separator: "\n").count == 3)
            r = try zeader(["ignore", "list", "--db", db], in: dir)
            #expect(r.stdout == "-  ignore * title == \"Rust\"  (config)\n")
            try "ignore * title ==\n".write(to: configDir.appendingPathComponent("config"), atomically: true, encoding: .utf8)
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 1)
            #expect(r.stderr.contains("config:1: invalid ignore rule"))
        }
    }
}
