import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Synchronization
import Testing

@testable import ZeaderKit

/// Tiny Tiny RSS's client against a stand-in (``TTRSSStandIn``): its JSON shapes, its
/// sessions, what it cannot push, and answers a real server does not give (wrong types, huge
/// numbers, missing fields), each one clear ``SyncError`` with nothing stored lost.
@Suite("Tiny Tiny RSS client")
struct TTRSSClientTests {
    static let fetcher = FeedFetcher(configuration: FetcherConfiguration(version: "test"))

    /// A store with an account on `server`, synced through the real client.
    static func device(_ server: TTRSSStandIn) async throws -> (ZeaderStore, FeedSync, URL) {
        let directory = try temporaryDirectory()
        let store = try ZeaderStore.open(at: directory.appendingPathComponent("z.sqlite"))
        let sync = FeedSync(store: store, fetcher: fetcher)
        let token = try await TTRSSClient.login(apiURL: server.apiURL, user: "alice", password: "right", fetcher: fetcher)
        try sync.addAccount(apiURL: server.apiURL, user: "alice", token: token, service: .ttrss)
        return (store, sync, directory)
    }

    /// Title, read, flagged of every stored item.
    static func stored(_ store: ZeaderStore) throws -> [String: (read: Bool, flagged: Bool)] {
        let context = store.container.newBackgroundContext()
        return try context.performAndWait {
            var items: [String: (read: Bool, flagged: Bool)] = [:]
            for item in try FeedItem.findAll(in: context) { items[item.title ?? ""] = (item.read, item.flagged) }
            return items
        }
    }

    static func item(_ title: String, in store: ZeaderStore) throws -> ObjectID {
        let context = store.container.newBackgroundContext()
        return try context.performAndWait {
            try #require(try FeedItem.findFirst(byAttribute: "title", value: .string(title), in: context)).objectID
        }
    }

    @Test func theURLChoosesTheProtocol() {
        for url in [
            "https://rss.example.org/tt-rss/api/", "https://rss.example.org/tt-rss/api", "https://a.example/API/",
            " http://127.0.0.1:8080/api// ", "https://a.example/tt-rss/api/index.php",
        ] {
            #expect(SyncServiceKind(apiURL: url) == .ttrss, "\(url)")
        }
        for url in ["https://rss.example.org/api/greader.php", "https://a.example/apis/", "https://api.example.org/"] {
            #expect(SyncServiceKind(apiURL: url) == .googleReader, "\(url)")
        }
        #expect(SyncServiceKind(apiURL: "https://a.example/api/fever.php") == .fever)
        #expect(SyncServiceKind(rawValue: "ttrss") == .ttrss)
        #expect(SyncServiceKind.ttrss.unsupported == [.rename, .move, .tagItems])
        #expect(TTRSSClient.endpoint("https://a.example/tt-rss/api") == "https://a.example/tt-rss/api/")
        #expect(TTRSSClient.endpoint("https://a.example/tt-rss/api/index.php") == "https://a.example/tt-rss/api/index.php")
    }

    @Test func theTokenKeepsTheSessionAndTheCredentials() {
        let token = TTRSSToken(session: "abc", user: "al ice&=", password: "p%w\nd")
        #expect(TTRSSToken(decoding: token.encoded) == token)
        #expect(!token.encoded.contains("\n"))
        #expect(TTRSSToken(decoding: "bare") == TTRSSToken(session: "bare", user: nil, password: nil))
    }

    @Test func aRequestIsOneJSONObjectWhateverItsStringsHold() throws {
        let parameters: [String: any Sendable] = [
            "op": "getHeadlines", "sid": "s\"e\\s/s\u{1}\n\u{2028}é", "feed_id": -4, "since_id": UInt64(1_234_567_890_123),
            "show_content": true, "mode": Int64(2), "password": "",
        ]
        let body = try #require(TTRSSClient.requestBody(parameters))
        #expect(body.hasPrefix(#"{"feed_id":-4,"mode":2,"op":"getHeadlines","password":"","#))
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        #expect(decoded.count == parameters.count)
        #expect(decoded["sid"] as? String == "s\"e\\s/s\u{1}\n\u{2028}é")
        #expect((decoded["feed_id"] as? NSNumber)?.intValue == -4)
        #expect((decoded["since_id"] as? NSNumber)?.uint64Value == 1_234_567_890_123)
        #expect((decoded["show_content"] as? NSNumber)?.boolValue == true)
        // A kind of value no call sends is refused, not written as something else.
        #expect(TTRSSClient.requestBody(["limit": 1.5]) == nil)
        #expect(TTRSSClient.requestBody([:]) == "{}")
    }

    @Test func loginErrorsAreOneClearErrorEach() async throws {
        let server = try TTRSSStandIn()
        let url = server.apiURL
        do throws(SyncError) {
            _ = try await TTRSSClient.login(apiURL: url, user: "alice", password: "wrong", fetcher: Self.fetcher)
            Issue.record("a wrong password logged in")
        } catch {
            #expect(error == .loginRefused(user: "alice", url: url))
        }
        server.state.withLock { $0.apiEnabled = false }
        do throws(SyncError) {
            _ = try await TTRSSClient.login(apiURL: url, user: "alice", password: "right", fetcher: Self.fetcher)
            Issue.record("a user without API access logged in")
        } catch {
            #expect(error == .apiAccessDisabled(service: .ttrss, url: url))
            #expect(error.description.contains("Enable API"), "\(error)")
        }
        let page = try LoopbackHTTPServer(handler: { _ in .ok("<html><body>Welcome</body></html>", contentType: "text/html") })
        defer { page.stop() }
        let pageURL = page.url("/api/").absoluteString
        do throws(SyncError) {
            _ = try await TTRSSClient.login(apiURL: pageURL, user: "alice", password: "right", fetcher: Self.fetcher)
            Issue.record("a web page was taken for the API")
        } catch {
            guard case .notTheAPI(pageURL, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(error.description.contains("Tiny Tiny RSS"), "\(error)")
        }
        do throws(SyncError) {
            _ = try await TTRSSClient.login(apiURL: "ftp://a.example/api/", user: "alice", password: "x", fetcher: Self.fetcher)
            Issue.record("an ftp URL was taken")
        } catch {
            #expect(error == .invalidAPIURL("ftp://a.example/api/"))
        }
    }

    @Test func anExpiredSessionLogsInAgainOnceAndIsKept() async throws {
        let server = try TTRSSStandIn()
        server.addFeed(id: 1, url: "http://127.0.0.1:9/a.xml", articles: [1])
        let (store, sync, directory) = try await Self.device(server)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await sync.sync()
        let before = try #require(
            SyncTokenFile(storeURL: directory.appendingPathComponent("z.sqlite"), account: "127.0.0.1").read())
        server.expireSessions()
        let ops = server.ops.count
        // The first call meets NOT_LOGGED_IN: one login, then the call again.
        let report = try await sync.sync()
        #expect(Array(server.ops[ops..<ops + 3]) == ["getFeeds", "login", "getFeeds"])
        #expect(report.requests == 6)
        let after = try #require(
            SyncTokenFile(storeURL: directory.appendingPathComponent("z.sqlite"), account: "127.0.0.1").read())
        #expect(TTRSSToken(decoding: after).session != TTRSSToken(decoding: before).session)
        #expect(TTRSSToken(decoding: after).password == "right")
        // The new session is used by the next sync: no login.
        #expect(try await sync.sync().requests == 4)
        #expect(try Self.stored(store)["Title 1"] != nil)

        // A session refused again right after the new login: no loop, the token's error.
        server.expireSessions()
        server.replace("getFeeds", with: #"{"seq":0,"status":1,"content":{"error":"NOT_LOGGED_IN"}}"#)
        await #expect(throws: ZeaderError.sync(.tokenRejected(url: server.apiURL))) { try await sync.sync() }
        #expect(server.ops.suffix(3) == ["getFeeds", "login", "getFeeds"])
        // A token without credentials (a bare session) cannot log in again.
        let bare = TTRSSClient(apiURL: server.apiURL, token: "gone", fetcher: Self.fetcher)
        server.replace("getFeeds", with: nil)
        await #expect(throws: SyncError.tokenRejected(url: server.apiURL)) { try await bare.subscriptions() }
    }

    @Test func feedsItemsAndStatesRoundTripAndANoOpSyncIsFourRequests() async throws {
        let server = try TTRSSStandIn()
        server.addFeed(id: 1, url: "http://127.0.0.1:9/a.xml", articles: [1, 2])
        server.addFeed(id: 2, url: "http://127.0.0.1:9/b.xml", articles: [3])
        let (store, sync, directory) = try await Self.device(server)
        defer { try? FileManager.default.removeItem(at: directory) }
        var report = try await sync.sync()
        #expect(report.feedsAdded == 2)
        #expect(report.newItems == 3)
        // Nothing new and no category: feeds, new items, unread ids, starred ids.
        report = try await sync.sync()
        #expect(report.requests == 4, "\(server.ops)")

        // Read and starred on the server: pulled.
        server.state.withLock {
            $0.articles[0].unread = false
            $0.articles[2].marked = true
        }
        _ = try await sync.sync()
        var items = try Self.stored(store)
        #expect(items["Title 1"]?.read == true)
        #expect(items["Title 3"]?.flagged == true)

        // Read, unread and starred here: pushed with updateArticle's fields and modes.
        let context = store.container.newBackgroundContext()
        let two = try Self.item("Title 2", in: store)
        let one = try Self.item("Title 1", in: store)
        try context.performAndWait {
            _ = try ItemMarking.setRead([two], true, in: context)
            _ = try ItemMarking.setRead([one], false, in: context)
            _ = try ItemMarking.setFlagged([two], true, in: context)
        }
        _ = try await sync.sync()
        #expect(server.article(2)?.unread == false)
        #expect(server.article(1)?.unread == true)
        #expect(server.article(2)?.marked == true)
        let updates = server.state.withLock { $0.updates.map { "\($0.field)/\($0.mode)/\($0.ids)" } }
        #expect(Set(updates) == ["2/0/[2]", "2/1/[1]", "0/1/[2]"], "\(updates)")
        items = try Self.stored(store)
        #expect(items["Title 2"]?.read == true && items["Title 2"]?.flagged == true)

        // With a category: its title is the feed's tag, and getCategories one more request.
        server.addFeed(id: 3, url: "http://127.0.0.1:9/c.xml", category: "news", articles: [4])
        _ = try await sync.sync()
        report = try await sync.sync()
        #expect(report.requests == 5, "\(server.ops)")
        let reading = store.container.newBackgroundContext()
        let tags = try reading.performAndWait {
            try Server.findAll(in: reading).first { $0.url == "http://127.0.0.1:9/c.xml" }?.tags
        }
        #expect(tags == "news")
    }

    @Test("new items listed with their contents are not asked for again by id, nor decoded twice")
    func newItemsAreListedOnce() async throws {
        let server = try TTRSSStandIn()
        server.addFeed(id: 1, url: "http://127.0.0.1:9/a.xml", articles: Array(1...2_500))
        let client = TTRSSClient(
            apiURL: server.apiURL,
            token: try await TTRSSClient.login(apiURL: server.apiURL, user: "alice", password: "right", fetcher: Self.fetcher),
            fetcher: Self.fetcher)
        let ids = try await client.newItemIDs(after: nil)
        // Ascending, though listed newest first: a feed's articles together for the saves.
        #expect(ids == Array(1...2_500))
        let items = try await client.items(ids)
        #expect(items.count == 2_500)
        #expect(items.allSatisfy { $0.html == "<p>About \($0.id)</p>" })
        // 13 pages of 200, every one with contents: nothing left for getArticle.
        #expect(server.ops.filter { $0 == "getHeadlines" }.count == 13)
        #expect(!server.ops.contains("getArticle"))
    }

    @Test func subscribeAndUnsubscribeReachTheServerAndRenameIsRefusedNamingIt() async throws {
        let server = try TTRSSStandIn()
        let client = TTRSSClient(
            apiURL: server.apiURL,
            token: try await TTRSSClient.login(apiURL: server.apiURL, user: "alice", password: "right", fetcher: Self.fetcher),
            fetcher: Self.fetcher)
        let id = try await client.subscribe(url: "http://127.0.0.1:9/new.xml")
        #expect(id == "feed/1")
        #expect(try await client.subscribe(url: "http://127.0.0.1:9/new.xml") == "feed/1")
        do throws(SyncError) {
            _ = try await client.subscribe(url: "gopher://127.0.0.1/x")
            Issue.record("a feed the server cannot fetch was taken")
        } catch {
            guard case .badResponse("subscribeToFeed", let reason, .ttrss) = error else { throw error }
            #expect(reason.contains("could not fetch gopher://127.0.0.1/x: could not fetch"), "\(reason)")
        }
        try await client.unsubscribe(id)
        // Gone already: done.
        try await client.unsubscribe(id)
        #expect(server.state.withLock { $0.feeds.isEmpty })
        await #expect(throws: SyncError.unsupported(service: .ttrss, .rename)) { try await client.rename(id, title: "x") }
        await #expect(throws: SyncError.unsupported(service: .ttrss, .move)) {
            try await client.move(id, title: nil, add: ["a"], remove: [])
        }
        #expect(
            Messages.syncUnsupported(.ttrss, .rename, url: "http://127.0.0.1:9/new.xml")
                == "Tiny Tiny RSS's API cannot rename feeds: http://127.0.0.1:9/new.xml; the change stays on this device")
        // Marking a feed read up to a time: no such call (the engine pushes item by item).
        await #expect(throws: SyncError.server(status: 400, request: "catchupFeed")) {
            try await client.markAllRead(feed: id, olderThan: 1)
        }
    }

    // MARK: - Hostile answers

    /// `getHeadlines` answers whose shape is wrong as a whole: refused with one error naming
    /// the call.
    static let brokenHeadlines: [String] = [
        #"{"seq":0,"status":0,"content":"oops"}"#,
        #"{"seq":0,"status":0,"content":{"id":1}}"#,
        #"{"seq":0,"status":0}"#,
        #"{"seq":0,"content":[]}"#,
        #"{"seq":0,"status":"zero","content":[]}"#,
        #"{"seq":0,"status":1,"content":{"error":"INCORRECT_USAGE"}}"#,
        #"{"seq":0,"status":1,"content":"\u001b[31m"}"#,
        "[1,2,3]",
        "<html>not json</html>",
        "",
        String(repeating: "[", count: 10_000),
    ]

    @Test(arguments: brokenHeadlines)
    func aBrokenAnswerIsOneErrorAndLosesNothing(body: String) async throws {
        let server = try TTRSSStandIn()
        server.addFeed(id: 1, url: "http://127.0.0.1:9/a.xml", articles: [1, 2])
        let (store, sync, directory) = try await Self.device(server)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await sync.sync()
        let context = store.container.newBackgroundContext()
        let one = try Self.item("Title 1", in: store)
        try context.performAndWait { _ = try ItemMarking.setRead([one], true, in: context) }
        let before = try Self.stored(store)
        server.replace("getHeadlines", with: body)
        let failure: ZeaderError? = await {
            do {
                _ = try await sync.sync()
                return nil
            } catch {
                return error as? ZeaderError
            }
        }()
        guard case .sync(let error) = failure else {
            Issue.record("a broken answer was taken: \(body.prefix(60)), \(String(describing: failure))")
            return
        }
        let line = error.description
        #expect(!line.contains("\n") && !line.contains("\u{1b}"), "\(line)")
        #expect(line.contains("getHeadlines"), "\(line)")
        #expect(try Self.stored(store).mapValues { "\($0)" } == before.mapValues { "\($0)" })
        // The mark made here was pushed before the pull failed, and the next sync is whole.
        #expect(server.article(1)?.unread == false)
        server.replace("getHeadlines", with: nil)
        _ = try await sync.sync()
        #expect(try Self.stored(store)["Title 1"]?.read == true)
    }

    /// Rows with fields of the wrong type, huge or negative numbers, fields missing: a row
    /// without a usable id or feed is left out, every other field read as missing.
    @Test func oddRowsAreLeftOutOrReadLeniently() async throws {
        let server = try TTRSSStandIn()
        server.addFeed(id: 1, url: "http://127.0.0.1:9/a.xml", articles: [])
        let (store, sync, directory) = try await Self.device(server)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rows = [
            #"{"id":1e30,"feed_id":1,"title":"huge id"}"#,
            #"{"id":-5,"feed_id":1,"title":"negative id"}"#,
            #"{"id":"abc","feed_id":1,"title":"text id"}"#,
            #"{"feed_id":1,"title":"no id"}"#,
            #"{"id":18446744073709551615,"feed_id":1,"title":"max id"}"#,
            #"{"id":7,"title":"no feed"}"#,
            #"{"id":8,"feed_id":{"x":1},"title":"object feed"}"#,
            #"7"#,
            #"null"#,
            #"{"id":"10","feed_id":"1","title":["not","text"],"unread":"f","marked":"t","updated":1e300,"link":5,"content":{}}"#,
            #"{"id":11,"feed_id":1,"title":"Fine","unread":0,"marked":1,"updated":-3,"author":null}"#,
        ]
        server.replace(
            "getHeadlines -4 all_articles", with: #"{"seq":0,"status":0,"content":["# + rows.joined(separator: ",") + "]}")
        // The starred list agrees with the rows (the unread one, empty, does too).
        server.replace(
            "getHeadlines -1 all_articles",
            with: #"{"seq":0,"status":0,"content":[{"id":10,"feed_id":1,"marked":true},{"id":11,"feed_id":1,"marked":1}]}"#)
        let report = try await sync.sync()
        #expect(report.newItems == 2)
        let items = try Self.stored(store)
        #expect(items["Fine"]?.read == true && items["Fine"]?.flagged == true)
        // The row of odd types: kept by its id, with what could be read (a title from its link).
        #expect(items.count == 2, "\(items.keys)")
        #expect(items.values.filter { $0.read && $0.flagged }.count == 2)
    }

    @Test func aServerGoneMidSyncKeepsWhatWasNotPushed() async throws {
        let server = try TTRSSStandIn()
        server.addFeed(id: 1, url: "http://127.0.0.1:9/a.xml", articles: [1, 2])
        let (store, sync, directory) = try await Self.device(server)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await sync.sync()
        let context = store.container.newBackgroundContext()
        let one = try Self.item("Title 1", in: store)
        let two = try Self.item("Title 2", in: store)
        try context.performAndWait {
            _ = try ItemMarking.setRead([one], true, in: context)
            _ = try ItemMarking.setFlagged([two], true, in: context)
        }
        // The star's request fails (the server answers 503 from there on): the read mark went
        // through, the star stays queued.
        let gate = try LoopbackHTTPServer(handler: { _ in .status(503) })
        defer { gate.stop() }
        let failing = FeedSync(
            store: store, fetcher: Self.fetcher,
            service: { _, token in
                FailingAfter(TTRSSClient(apiURL: server.apiURL, token: token, fetcher: Self.fetcher), calls: 1, to: gate)
            })
        await #expect(throws: ZeaderError.self) { try await failing.sync() }
        #expect(try sync.status()?.pending ?? 0 >= 1)
        _ = try await sync.sync()
        #expect(try sync.status()?.pending == 0)
        #expect(server.article(1)?.unread == false)
        #expect(server.article(2)?.marked == true)
    }
}

/// A service whose `mark` calls fail after the first `calls` (the server going away mid-push).
final class FailingAfter: SyncService, Sendable {
    let base: TTRSSClient
    let calls: Int
    let marks = Mutex(0)
    let gate: LoopbackHTTPServer

    init(_ base: TTRSSClient, calls: Int, to gate: LoopbackHTTPServer) {
        self.base = base
        self.calls = calls
        self.gate = gate
    }

    var requestCount: Int { base.requestCount }
    func subscriptions() async throws(SyncError) -> [SyncSubscription] { try await base.subscriptions() }
    func subscribe(url: String) async throws(SyncError) -> String { try await base.subscribe(url: url) }
    func unsubscribe(_ feedID: String) async throws(SyncError) { try await base.unsubscribe(feedID) }
    func rename(_ feedID: String, title: String) async throws(SyncError) { try await base.rename(feedID, title: title) }
    func move(_ feedID: String, title: String?, add: [String], remove: [String]) async throws(SyncError) {
        try await base.move(feedID, title: title, add: add, remove: remove)
    }
    func newItemIDs(after newest: UInt64?) async throws(SyncError) -> [UInt64] { try await base.newItemIDs(after: newest) }
    func itemIDs(_ list: SyncItemList) async throws(SyncError) -> [UInt64] { try await base.itemIDs(list) }
    func newestItemIDs(feed feedID: String, count: Int) async throws(SyncError) -> [UInt64] {
        try await base.newestItemIDs(feed: feedID, count: count)
    }
    func items(_ ids: [UInt64]) async throws(SyncError) -> [SyncItem] { try await base.items(ids) }
    func setLabel(_ label: String, _ on: Bool, ids: [UInt64]) async throws(SyncError) {
        try await base.setLabel(label, on, ids: ids)
    }
    func mark(_ state: SyncItemState, _ on: Bool, ids: [UInt64]) async throws(SyncError) {
        let count = marks.withLock {
            $0 += 1
            return $0
        }
        guard count <= calls else {
            // The same client pointed at a server that answers 503.
            let gone = TTRSSClient(apiURL: gate.url("/api/").absoluteString, token: "x", fetcher: base.fetcher)
            try await gone.mark(state, on, ids: ids)
            return
        }
        try await base.mark(state, on, ids: ids)
    }
    func markAllRead(feed feedID: String?, olderThan: UInt64) async throws(SyncError) {
        try await base.markAllRead(feed: feedID, olderThan: olderThan)
    }
}
