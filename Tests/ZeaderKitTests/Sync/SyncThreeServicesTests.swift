import Foundation
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

/// One store with a Google Reader API account, a Fever account, a Tiny Tiny RSS account and
/// a local feed, synced through the binary against servers on 127.0.0.1: each account gets
/// its own feeds and items, and one server stopped leaves the others syncing.
@Suite("Three services and local feeds in one store")
struct SyncThreeServicesTests {
    static let password = "right"
    static let feverFeed = "http://127.0.0.1:9/fever.xml"
    static let ttrssFeed = "http://127.0.0.1:9/ttrss.xml"
    static let localFeed = "exec:printf local"

    /// A Fever server with one feed of two unread items (ids 11 and 12), for `alice`.
    static func feverServer() throws -> LoopbackHTTPServer {
        let key = FeverAPIKey.make(user: "alice", password: password)
        return try FeverClientTests.server(key: key) { query in
            if query.contains("feeds") {
                return #"{"feeds":[{"id":1,"title":"Fever feed","url":"\#(feverFeed)","site_url":"http://127.0.0.1:9/"}],"#
                    + #""groups":[],"feeds_groups":[]}"#
            }
            if query.contains("unread_item_ids") { return #"{"unread_item_ids":"11,12"}"# }
            if query.contains("saved_item_ids") { return #"{"saved_item_ids":""}"# }
            if query.contains("items") {
                let since = query.split(separator: "&").first { $0.hasPrefix("since_id=") }
                    .flatMap { UInt64($0.dropFirst("since_id=".count)) }
                let items = [11, 12].filter { since == nil || UInt64($0) > since! }.map { id in
                    #"{"id":\#(id),"feed_id":1,"title":"Fever \#(id)","author":"","html":"<p>\#(id)</p>","#
                        + #""url":"http://127.0.0.1:9/f/\#(id)","is_saved":0,"is_read":0,"created_on_time":1700000000}"#
                }
                return #"{"items":[\#(items.joined(separator: ","))],"total_items":2}"#
            }
            return "{}"
        }
    }

    @Test("each account syncs its own feeds; one server stopped, the others sync and the failure names its account")
    func threeServicesAtOnce() async throws {
        let greader = try FakeGReaderServer()
        greader.add(ids: [FakeGReaderServer.now + 1])
        let fever = try Self.feverServer()
        defer { fever.stop() }
        let ttrss = try TTRSSStandIn()
        ttrss.addFeed(id: 7, url: Self.ttrssFeed, articles: [71, 72, 73])
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("z.sqlite").path
        func run(_ arguments: [String]) async throws -> CommandResult {
            try await waitingOffThePool {
                try zeader(["--db", db] + arguments, in: directory, environment: ["ZEADER_SYNC_PASSWORD": Self.password])
            }
        }
        var r = try await run(["add", "--no-fetch", Self.localFeed])
        #expect(r.status == 0, "\(r.stderr)")
        for (name, api) in [
            ("reader", greader.apiURL), ("fever", fever.url("/api/fever.php").absoluteString), ("tt", ttrss.apiURL),
        ] {
            r = try await run(["sync", "add", api, "--user", "alice", "--name", name])
            #expect(r.status == 0, "\(r.stderr)")
        }
        r = try await run(["sync", "status", "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(list.map { $0["name"] as? String } == ["fever", "reader", "tt"])
        #expect(list.map { $0["service"] as? String } == ["fever", "greader", "ttrss"])

        r = try await run(["sync"])
        #expect(r.status == 0, "\(r.stderr)")
        for name in ["reader", "fever", "tt"] { #expect(r.stdout.contains("\(name): synced:"), "\(r.stdout)") }
        r = try await run(["list", "--json"])
        let feeds = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        let totals = Dictionary(feeds.map { ($0["url"] as? String ?? "", $0["total"] as? Int ?? -1) }) { a, _ in a }
        #expect(totals["http://fake.example/one.xml"] == 1, "\(totals)")
        #expect(totals[Self.feverFeed] == 2, "\(totals)")
        #expect(totals[Self.ttrssFeed] == 3, "\(totals)")
        #expect(totals[Self.localFeed] == 0, "\(totals)")
        let store = try ZeaderStore.open(at: URL(fileURLWithPath: db))
        let context = store.container.newBackgroundContext()
        try context.performAndWait { () throws -> Void in
            func account(_ url: String) throws -> String? {
                try Server.findFirst(byAttribute: "url", value: .string(url), in: context)?.account
            }
            #expect(try account("http://fake.example/one.xml") == "reader")
            #expect(try account(Self.feverFeed) == "fever")
            #expect(try account(Self.ttrssFeed) == "tt")
            #expect(try account(Self.localFeed) == nil)
        }
        try store.container.store.close()

        // The TT-RSS server stopped: the other two sync, the exit status is 1 and one line names it.
        ttrss.server.stop()
        greader.add(ids: [FakeGReaderServer.now + 2])
        r = try await run(["sync"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("reader: synced:") && r.stdout.contains("fever: synced:"), "\(r.stdout)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("tt: "), "\(r.stderr)")
        #expect(r.stderr.contains("Tiny Tiny RSS") || r.stderr.contains("cannot reach"), "\(r.stderr)")
        r = try await run(["list", "--json"])
        let after = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        let newTotals = Dictionary(after.map { ($0["url"] as? String ?? "", $0["total"] as? Int ?? -1) }) { a, _ in a }
        #expect(newTotals["http://fake.example/one.xml"] == 2, "\(newTotals)")
        #expect(newTotals[Self.ttrssFeed] == 3, "\(newTotals)")
    }
}
