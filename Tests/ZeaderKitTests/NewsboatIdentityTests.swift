import Foundation
import GRDB
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

/// Items newsboat knew without a guid of their feed's, and titles it stored in the wrong
/// encoding: the import keeps an identity a refresh finds, and corrects the text.
@Suite("newsboat import: items without guids, mojibake", .serialized)
struct NewsboatIdentityTests {
    /// d.xml (UTF-8 under an ISO-8859-1 declaration) and e.xml (true Latin-1), as served
    /// when `Fixtures/newsboat-noguid-cache.db` was made by `make-noguid-cache.sh`.
    func routes() throws -> Routes {
        let routes = Routes()
        for name in ["d", "e"] {
            let file = try #require(Bundle.module.url(forResource: "Fixtures/newsboat/\(name)", withExtension: "xml"))
            routes["/\(name).xml"] = .respond(
                status: 200, headers: [("Content-Type", "application/rss+xml")], body: try Data(contentsOf: file))
        }
        return routes
    }

    static let correctTitles: Set<String> = [
        "Café crème", "Second über", "Ünïcode title only", "Smart \u{2019}quotes\u{2019} \u{2014} dash",
        "Shared link één", "Shared link twéé", "Café Ã© as written", "Garçon",
    ]

    @Test("import then refresh: every item once, titles, authors and feed titles corrected, flags kept")
    func importThenRefresh() async throws {
        try await withLoopbackServer(try routes().handler) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let base = http.url("").absoluteString
            let cache = try await newsboatFixtureCache("newsboat-noguid-cache", in: dir, base: base)
            let db = dir.appendingPathComponent("z.sqlite").path
            var r = try zeader(["import", cache.path, "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            let imported = try items(db, in: dir)
            #expect(imported.count == 8)
            #expect(Set(imported.compactMap { $0["title"] as? String }) == Self.correctTitles)
            #expect(imported.contains { $0["author"] as? String == "José" })
            r = try zeader(["list", "--db", db], in: dir)
            #expect(r.stdout.contains("Feed D été"), "\(r.stdout)")

            // Flag one of each kind of identity: the refresh must find these very items.
            for title in ["Café crème", "Second über", "Ünïcode title only", "Shared link één"] {
                let id = try #require(imported.first { $0["title"] as? String == title }?["id"] as? String)
                r = try zeader(["flag", id, "--db", db], in: dir)
                #expect(r.status == 0, "\(r.stderr)")
            }

            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("0 new items"), "\(r.stdout)")
            let refreshed = try items(db, in: dir)
            #expect(refreshed.count == 8, "\(refreshed.compactMap { $0["title"] as? String })")
            #expect(Set(refreshed.compactMap { $0["title"] as? String }) == Self.correctTitles)
            #expect(refreshed.filter { $0["flagged"] as? Bool == true }.count == 4)

            // A second refresh finds them again under the ids the first one gave.
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.stdout.contains("0 new items"), "\(r.stdout)")
            #expect(try items(db, in: dir).count == 8)
        }
    }

    @Test(
        "mojibake is undone only where the whole text reads as UTF-8 again",
        arguments: [
            ("CafÃ© crÃ¨me", "Café crème"),
            ("Smart \u{E2}\u{80}\u{99}q\u{E2}\u{80}\u{99}", "Smart \u{2019}q\u{2019}"),
            ("Smart â€™quotesâ€™ â€” dash", "Smart \u{2019}quotes\u{2019} \u{2014} dash"),  // read as Windows-1252
            ("Ã\u{9C}ber", "Über"),
            ("Café Ã© as written", "Café Ã© as written"),  // é alone is not UTF-8: real Latin-1 text
            ("Garçon", "Garçon"),
            ("plain ASCII", "plain ASCII"),
            ("日本 Ã©", "日本 Ã©"),  // characters Latin-1 cannot hold: not mojibake
            ("", ""),
        ])
    func repair(_ stored: String, _ expected: String) {
        #expect(NewsboatCache.repairedText(stored) == expected)
    }

    func items(_ db: String, in dir: URL) throws -> [[String: Any]] {
        let r = try zeader(["items", "--db", db, "--json"], in: dir)
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
    }
    @Test("the urls file imported first, then the cache: the cache's titles fill the feeds that had none")
    func urlsThenCacheKeepsTitles() async throws {
        try await withLoopbackServer(try routes().handler) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let base = http.url("").absoluteString
            let cache = try await newsboatFixtureCache("newsboat-noguid-cache", in: dir, base: base)
            let urls = dir.appendingPathComponent("urls")
            try "\(base)/d.xml\n\(base)/e.xml \"~My E\"\n".write(to: urls, atomically: true, encoding: .utf8)
            let db = dir.appendingPathComponent("z.sqlite").path
            var r = try zeader(["import", urls.path, "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            r = try zeader(["import", cache.path, "--urls", urls.path, "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            r = try zeader(["list", "--db", db], in: dir)
            #expect(r.stdout.contains("Feed D été  <"), "\(r.stdout)")
            #expect(r.stdout.contains("My E  <"), "\(r.stdout)")  // the user's own title stays
        }
    }

}
