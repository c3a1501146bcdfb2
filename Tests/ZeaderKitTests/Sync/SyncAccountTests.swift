import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing

@testable import ZeaderKit

/// The account's login goes only to its server's origin, logging in again keeps the queue,
/// removing never drops unpushed changes silently, and every error says what to do next.
@Suite("Sync: the account, its login and its errors")
struct SyncAccountTests {
    static let fetcher = FeedFetcher(configuration: FetcherConfiguration(version: "test"))

    // MARK: - Credentials stay with their origin

    @Test(arguments: [301, 302, 303, 307, 308])
    func aLoginRedirectedToAnotherOriginSendsThePasswordNowhere(status: Int) async throws {
        try await withLoopbackServer({ _ in .ok("Auth=stolen\n", contentType: "text/plain") }) { elsewhere in
            let target = elsewhere.url("/api/greader.php/accounts/ClientLogin")
            try await withLoopbackServer({ _ in .redirect(status, to: target.absoluteString) }) { origin in
                do throws(SyncError) {
                    _ = try await GReaderClient.login(
                        apiURL: origin.url("/api/greader.php").absoluteString, user: "alice", password: "secret",
                        fetcher: Self.fetcher)
                    Issue.record("logged in through a redirect")
                } catch {
                    #expect(error == .redirectedElsewhere(request: "ClientLogin", to: "http://127.0.0.1:\(elsewhere.port)"))
                    #expect(error.description.contains("another origin, http://127.0.0.1:\(elsewhere.port)"))
                }
                #expect(elsewhere.requests.isEmpty)
            }
        }
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func anAPICallRedirectedToAnotherOriginCarriesNoToken(status: Int) async throws {
        try await withLoopbackServer({ _ in .ok(#"{"subscriptions":[]}"#, contentType: "application/json") }) { elsewhere in
            try await withLoopbackServer({ request in
                .redirect(status, to: "http://127.0.0.1:\(elsewhere.port)\(request.path)")
            }) { origin in
                let client = GReaderClient(
                    apiURL: origin.url("/api/greader.php").absoluteString, token: "alice/secret", fetcher: Self.fetcher)
                await #expect(
                    throws: SyncError.redirectedElsewhere(request: "subscription/list", to: "http://127.0.0.1:\(elsewhere.port)")
                ) { _ = try await client.subscriptions() }
                // A POST (with the action token) is not replayed there either.
                await #expect(throws: SyncError.self) {
                    try await client.setState(.read, true, ids: ["1"])
                }
                #expect(elsewhere.requests.isEmpty)
            }
        }
    }

    // MARK: - The site's URL instead of the API's

    /// What a web site (or a server without the API) answers a login with.
    static let siteAnswers: [(String, LoopbackHTTPServer.Reply, String)] = [
        ("HTML", .ok("<!DOCTYPE html><html><body>Log in</body></html>", contentType: "text/html; charset=utf-8"), "an HTML page"),
        ("HTML labelled as text", .ok("\u{FEFF}\n  <html><head></head></html>", contentType: "text/plain"), "an HTML page"),
        ("404", .status(404), "HTTP 404"), ("405", .status(405), "HTTP 405"), ("410", .status(410), "HTTP 410"),
    ]

    @Test(arguments: 0..<siteAnswers.count)
    func aSiteURLInsteadOfTheAPIURLSaysWhichURLToGive(index: Int) async throws {
        let (_, reply, saw) = Self.siteAnswers[index]
        try await withLoopbackServer({ _ in reply }) { site in
            let url = site.url("/").absoluteString
            do throws(SyncError) {
                _ = try await GReaderClient.login(apiURL: url, user: "alice", password: "secret", fetcher: Self.fetcher)
                Issue.record("logged in to a site")
            } catch {
                guard case .notTheAPI(_, let answered) = error else {
                    Issue.record("not recognised as a site: \(error)")
                    return
                }
                #expect(answered == saw)
                #expect(error.description.contains("/api/greader.php"))
                #expect(error.description.contains("Google Reader API URL"))
                #expect(!error.description.contains("Auth="))
            }
        }
    }

    @Test func aLoginAnswerWithoutATokenThatIsNoPageIsStillABadResponse() async throws {
        _ = try await withLoopbackServer({ _ in .ok("SID=x\n", contentType: "text/plain") }) { server in
            await #expect(throws: SyncError.badResponse(request: "ClientLogin", reason: "no Auth= line")) {
                _ = try await GReaderClient.login(
                    apiURL: server.url("/api/greader.php").absoluteString, user: "alice", password: "secret",
                    fetcher: Self.fetcher)
            }
        }
    }

    // MARK: - Logging in again, removing

    static func store() throws -> (FeedSync, URL) {
        let directory = try temporaryDirectory()
        let store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let server = context.insert(Server.self)
            server.url = "http://127.0.0.1:1/feed.xml"
            try context.save()
        }
        return (FeedSync(store: store), directory)
    }

    @Test func addingTheSameAccountAgainLogsInAgainAndKeepsTheQueue() throws {
        let (sync, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = "http://127.0.0.1:9/api/greader.php"
        #expect(try sync.addAccount(apiURL: url, user: "alice", token: "one") == .added(name: "127.0.0.1"))
        #expect(try sync.status()?.pending == 1)
        // The URL as the user may type it again: a trailing slash.
        #expect(try sync.addAccount(apiURL: url + "/", user: "alice", token: "two") == .loggedInAgain(name: "127.0.0.1"))
        #expect(try sync.status()?.pending == 1)
        let token = try String(contentsOf: directory.appendingPathComponent("z.sqlite.sync.127.0.0.1"), encoding: .utf8)
        #expect(token.contains("two"))
        // Another user is another account beside it, its feeds its own.
        #expect(try sync.addAccount(apiURL: url, user: "bob", token: "three") == .added(name: "127.0.0.1-2"))
        #expect(try FeedSync(store: sync.store, account: "127.0.0.1-2").status()?.pending == 0)
    }

    @Test func removingWithUnpushedChangesIsRefusedUnlessForcedAndSaysHowMany() throws {
        let (sync, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(at: directory) }
        try sync.addAccount(apiURL: "http://127.0.0.1:9/api/greader.php", user: "alice", token: "t")
        do {
            try sync.removeAccount()
            Issue.record("removed with a change not pushed")
        } catch {
            #expect(error.description.contains("1 change made here not yet pushed"), "\(error)")
            #expect(error.description.contains("--force"))
        }
        #expect(try sync.status()?.pending == 1)
        #expect(try sync.removeAccount(force: true) == 1)
        #expect(try sync.status() == nil)
    }

    @Test("zeader sync add again logs in again; sync remove refuses with unpushed changes, --force drops them")
    func theCommandLine() async throws {
        let server = try FakeGReaderServer()
        let (sync, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = sync.store.url!.path
        let environment = ["ZEADER_SYNC_PASSWORD": "secret"]
        func run(_ arguments: [String]) async throws -> CommandResult {
            try await waitingOffThePool {
                try zeader(["--db", db] + arguments, in: directory, environment: environment)
            }
        }
        var r = try await run(["sync", "add", server.apiURL, "--user", "alice"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await run(["sync", "add", server.apiURL, "--user", "alice"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("logged in again"))
        // The command line's add leaves the local feed local; moved, it is a change to push.
        r = try await run(["sync", "move", "http://127.0.0.1:1/feed.xml", "127.0.0.1"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await run(["sync", "remove"])
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("1 change made here not yet pushed"), "\(r.stderr)")
        #expect(try sync.status()?.pending == 1)
        r = try await run(["sync", "remove", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("1 change not pushed dropped"), "\(r.stdout)")
        #expect(try sync.status() == nil)
    }

    // MARK: - Every error names the next step

    @Test func everySyncErrorNamesTheNextStep() {
        let url = URL(string: "http://127.0.0.1:1/api")!
        let errors: [SyncError] = [
            .unreachable(.transport(url: url, message: "cannot connect to host")),
            .loginRefused(user: "alice", url: url.absoluteString), .tokenRejected(url: url.absoluteString),
            .server(status: 500, request: "subscription/list"), .badResponse(request: "stream/items/ids", reason: "x"),
            .redirectedElsewhere(request: "ClientLogin", to: "https://elsewhere.example"),
            .pagination(request: "stream/items/ids", .repeatedContinuation("c")),
            .pagination(request: "stream/items/ids", .tooManyPages(limit: 3)),
            .pagination(request: "stream/items/ids", .tooManyIDs(limit: 3)),
            .pagination(request: "stream/items/ids", .continuationTooLong(limit: 3)), .noAccount,
            .noToken(path: "/tmp/z.sync"), .accountExists(url: url.absoluteString, user: "alice"),
            .unpushedChanges(count: 2), .inMemoryStore, .cannotWriteToken(path: "/tmp/z.sync", reason: "denied"),
            .notTheAPI(url: url.absoluteString, saw: "an HTML page"),
        ]
        let nextSteps = [
            "`zeader sync", "run `zeader", "check", "report it", "--db PATH", "log in again", "give the Google Reader API URL",
        ]
        for error in errors {
            #expect(nextSteps.contains { error.description.contains($0) }, "\(error)")
            #expect(!error.description.contains("`zeader sync add`"), "sends the user to add: \(error)")
        }
        #expect(SyncError.tokenRejected(url: "u").description.contains("`zeader sync login`"))
        #expect(SyncError.noToken(path: "p").description.contains("`zeader sync login`"))
    }
}
