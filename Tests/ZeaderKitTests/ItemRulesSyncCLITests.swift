import Foundation
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

/// Rules that act, on `zeader sync` against a Google Reader API on 127.0.0.1: each action
/// on the items the sync pulls, as on a refresh.
@Suite("Rules that act on zeader sync")
struct ItemRulesSyncCLITests {
    @Test("each action on zeader sync: marks and tags reach the server, notify and exec run, ignore keeps out, full-article")
    func everyActionOnSync() async throws {
        let pages = try LoopbackHTTPServer(handler: { request in
            request.path == "/3.html" ? .ok(storyPage("3"), contentType: "text/html") : .status(404)
        })
        defer { pages.stop() }
        let server = try FakeGReaderServer()
        let newest = FakeGReaderServer.now
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bot = "$(touch \(dir.path)/pwned) bot"
        server.update {
            $0.items = [
                .init(id: newest, link: "http://fake.example/1", title: "Release 2.0", labels: ["old"]),
                .init(id: newest - 1, link: "http://fake.example/2", title: "Sponsored"),
                .init(id: newest - 2, link: pages.url("/3.html").absoluteString, title: "Plain"),
                .init(id: newest - 3, link: "http://fake.example/4", title: bot),
            ]
        }
        let db = dir.appendingPathComponent("z.sqlite").path
        let notified = dir.appendingPathComponent("notified.txt")
        let ran = dir.appendingPathComponent("ran.txt")
        try writeExecutableScript("printf '%s\\n' \"$@\" >> '\(notified.path)'", to: dir.appendingPathComponent("notify.sh"))
        try writeExecutableScript(
            "printf '<%s>' \"$@\" >> '\(ran.path)'; echo >> '\(ran.path)'", to: dir.appendingPathComponent("run.sh"))
        try writeConfig(
            """
            notify-program \(dir.path)/notify.sh
            rule title BEGINSWITH "Release" -> mark-read notify tag Releases untag OLD
            rule read == YES -> flag
            rule title ENDSWITH "bot" -> exec \(dir.path)/run.sh %i "%t"
            rule title CONTAINS "Sponsored" -> ignore
            rule title == "Plain" -> full-article

            """, in: dir)
        var r = try zeader(
            ["sync", "add", server.apiURL, "--user", "alice", "--db", db], in: dir, environment: ["ZEADER_SYNC_PASSWORD": "pw"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try zeader(["sync", "--db", db], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        for rule in [
            #"rule 'title BEGINSWITH "Release" -> mark-read notify tag Releases untag OLD' on "Release 2.0""#,
            #"rule 'read == YES -> flag' on "Release 2.0""#, #"rule 'title == "Plain" -> full-article' on "Plain""#,
        ] {
            #expect(r.stderr.contains(rule), "\(r.stderr)")
        }

        r = try zeader(["items", "--json", "--db", db], in: dir)
        let items = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        let byTitle = Dictionary(uniqueKeysWithValues: items.map { ($0["title"] as? String ?? "", $0) })
        #expect(Set(byTitle.keys) == ["Release 2.0", "Plain", bot])
        let release = byTitle["Release 2.0"]
        #expect(release?["read"] as? Bool == true && release?["flagged"] as? Bool == true)
        #expect(release?["tags"] as? [String] == ["Releases"])
        #expect(byTitle["Plain"]?["read"] as? Bool == false)
        #expect(try String(contentsOf: ran, encoding: .utf8) == "<http://fake.example/4><\(bot)>\n")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("pwned").path))
        #expect(try String(contentsOf: notified, encoding: .utf8).contains("Release 2.0\n"))
        r = try zeader(["items", "--search", "zeppelinfield", "--db", db], in: dir)
        #expect(r.stdout.contains("Plain"), "\(r.stdout)")

        // The server has the marks and the tags, so the next sync keeps them; nothing fires again.
        let released = server.shared.state.withLock { $0.items.first { $0.id == newest } }
        #expect(released?.labels == ["Releases"])
        let forms = server.shared.state.withLock { $0.posts }.filter { $0.hasPrefix("edit-tag ") }.map {
            FakeGReaderServer.query(Substring($0.dropFirst("edit-tag ".count)))
        }
        for state in ["read", "starred"] {
            #expect(forms.contains { $0.contains { $0 == ("a", "user/-/state/com.google/" + state) } }, "\(forms)")
        }
        server.update { state in
            for index in state.items.indices where state.items[index].id == newest {
                state.items[index].read = true
                state.items[index].starred = true
            }
        }
        try FileManager.default.removeItem(at: ran)
        r = try zeader(["sync", "--db", db], in: dir)
        #expect(r.status == 0 && !r.stderr.contains("rule '"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: ran.path))
        r = try zeader(["items", "--json", "--where", #"tags CONTAINS "Releases""#, "--db", db], in: dir)
        #expect(r.stdout.contains("Release 2.0"), "\(r.stdout)")
    }
}
