import Feeds
import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing

@testable import ZeaderKit

/// The Fever client against answers a real server does not give on request: a refused key,
/// ids out of range, pages that never end, feeds that are commands. And the protocol's
/// choice by URL, and its key.
@Suite("Fever client")
struct FeverClientTests {
    static let fetcher = FeedFetcher(configuration: FetcherConfiguration(version: "test"))

    /// A Fever server on 127.0.0.1 answering `answer(query)` (the query after `?api&`) to a
    /// request with the key `key`, and `auth: 0` to any other.
    static func server(key: String = "k", _ answer: @escaping @Sendable (String) -> String) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer(handler: { request in
            let body = String(decoding: request.body, as: UTF8.self)
            guard body == "api_key=\(key)" else { return .ok(#"{"api_version":3,"auth":0}"#, contentType: "application/json") }
            var query = request.path.split(separator: "?", maxSplits: 1).last.map(String.init) ?? ""
            if query.hasPrefix("api&") { query.removeFirst(4) }
            let reply = answer(query).dropFirst()
            return .ok(#"{"api_version":3,"auth":1"# + (reply == "}" ? "" : ",") + reply, contentType: "application/json")
        })
    }

    static var now: UInt64 { UInt64(Date().timeIntervalSince1970 * 1_000_000) }

    @Test func theKeyIsTheMD5OfUserColonPassword() {
        #expect(FeverAPIKey.md5Hex([]) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(
            FeverAPIKey.md5Hex(Array("The quick brown fox jumps over the lazy dog".utf8)) == "9e107d9d372bb6826bd81d3542a419d6")
        #expect(FeverAPIKey.make(user: "kevin", password: "freshrss") == "4a6911fb47a87a77f4de285f4fac856d")
        // Longer than one 64-byte block, and exactly at the padding's edge.
        #expect(FeverAPIKey.md5Hex(Array(repeating: UInt8(ascii: "a"), count: 56)) == "3b0c8ac703f828b04c6c197006d17218")
        #expect(FeverAPIKey.md5Hex(Array(repeating: UInt8(ascii: "a"), count: 200)) == "887f30b43b2867f4a9accceee7d16e6c")
    }

    @Test func theURLChoosesTheProtocol() {
        for url in [
            "https://rss.example.org/api/fever.php", "https://rss.example.org/api/FEVER.PHP", " https://a.example/fever.php/ ",
            "http://127.0.0.1:8080/p/api/fever.php",
        ] {
            #expect(SyncServiceKind(apiURL: url) == .fever, "\(url)")
        }
        for url in [
            "https://rss.example.org/api/greader.php", "https://fever.php.example.org/api/greader.php",
            "https://a.example/api/fever.php.bak", "not a url",
        ] {
            #expect(SyncServiceKind(apiURL: url) == .googleReader, "\(url)")
        }
        #expect(SyncServiceKind.fever.unsupported == [.subscribe, .unsubscribe, .rename, .move, .tagItems])
        #expect(SyncServiceKind.googleReader.unsupported.isEmpty)
    }

    @Test func aRefusedKeyIsALoginRefusedAndAPageIsNotTheAPI() async throws {
        let server = try Self.server(key: FeverAPIKey.make(user: "alice", password: "right")) { _ in "{}" }
        defer { server.stop() }
        let url = server.url("/api/fever.php").absoluteString
        do throws(SyncError) {
            _ = try await FeverClient.login(apiURL: url, user: "alice", password: "wrong", fetcher: Self.fetcher)
            Issue.record("a wrong password logged in")
        } catch {
            #expect(error == .loginRefused(user: "alice", url: url))
        }
        let key = try await FeverClient.login(apiURL: url, user: "alice", password: "right", fetcher: Self.fetcher)
        #expect(key == FeverAPIKey.make(user: "alice", password: "right"))
        // A key the server no longer takes, later: the token's error, not the login's.
        do throws(SyncError) {
            _ = try await FeverClient(apiURL: url, apiKey: "stale", fetcher: Self.fetcher).subscriptions()
            Issue.record("a stale key was taken")
        } catch {
            #expect(error == .tokenRejected(url: url))
        }
        let page = try LoopbackHTTPServer(handler: { _ in .ok("<html><body>Welcome</body></html>", contentType: "text/html") })
        defer { page.stop() }
        do throws(SyncError) {
            _ = try await FeverClient.login(
                apiURL: page.url("/fever.php").absoluteString, user: "alice", password: "x", fetcher: Self.fetcher)
            Issue.record("a web page was taken for the API")
        } catch {
            guard case .notTheAPI = error else {
                Issue.record("\(error)")
                return
            }
            #expect(error.description.contains("is not a Fever API"), "\(error)")
        }
    }

    @Test func feedsAndGroupsBecomeSubscriptionsWithLabels() async throws {
        let server = try Self.server { _ in
            #"{"feeds":[{"id":1,"title":"One &amp; two","url":"http://127.0.0.1/1.xml","site_url":"http://127.0.0.1/"},"#
                + #"{"id":"2","title":"Two","url":"exec:rm -rf ~"}],"#
                + #""groups":[{"id":1,"title":"Uncategorized"},{"id":5,"title":"R&amp;D"}],"#
                + #""feeds_groups":[{"group_id":5,"feed_ids":"1,2"},{"group_id":9,"feed_ids":"1"}]}"#
        }
        defer { server.stop() }
        let client = FeverClient(apiURL: server.url("/api/fever.php").absoluteString, apiKey: "k", fetcher: Self.fetcher)
        let feeds = try await client.subscriptions()
        #expect(
            feeds == [
                SyncSubscription(
                    id: "feed/1", title: "One &amp; two", url: "http://127.0.0.1/1.xml", siteURL: "http://127.0.0.1/",
                    labels: ["R&D"]),
                SyncSubscription(id: "feed/2", title: "Two", url: "exec:rm -rf ~", labels: ["R&D"]),
            ])
        #expect(client.requestCount == 1)
        // What cannot be pushed is refused, naming the service, without a request.
        do throws(SyncError) {
            _ = try await client.subscribe(url: "http://127.0.0.1/3.xml")
            Issue.record("Fever subscribed")
        } catch {
            #expect(error == .unsupported(service: .fever, .subscribe))
            #expect(error.description == "the Fever API cannot subscribe to feeds; make that change on the server itself")
        }
        #expect(client.requestCount == 1)
    }

    @Test func itemIDsOutOfRangeAreDroppedAndEndlessPagesStop() async throws {
        let now = Self.now
        let server = try Self.server { query in
            if query.hasPrefix("unread_item_ids") {
                return #"{"unread_item_ids":"1,\#(now),18446744073709551615,x,\#(now - 5)"}"#
            }
            // Every page gives the same item: a server that never ends its pages.
            return
                #"{"items":[{"id":"\#(now - 10)","feed_id":1,"title":"T","is_read":0,"is_saved":1,"created_on_time":1700000000},"#
                + #"{"id":"99999999999999999999","feed_id":1}]}"#
        }
        defer { server.stop() }
        let client = FeverClient(apiURL: server.url("/api/fever.php").absoluteString, apiKey: "k", fetcher: Self.fetcher)
        #expect(try await client.itemIDs(.unread) == [1, now, now - 5])
        do throws(SyncError) {
            _ = try await client.newItemIDs(after: nil)
            Issue.record("endless pages ended")
        } catch {
            guard case .pagination(_, .repeatedContinuation) = error else {
                Issue.record("\(error)")
                return
            }
        }
        #expect(client.requestCount < 5)
        let items = try await client.items([now - 10])
        #expect(items.map(\.id) == [now - 10])
        #expect(items.first?.isStarred == true && items.first?.isRead == false)
        #expect(items.first?.published == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(items.first?.feedID == "feed/1")
    }

    @Test("new items are listed with their contents once: none asked for again by id")
    func newItemsAreListedOnce() async throws {
        let base = Self.now - 10_000_000
        let seen = LockedQueries()
        let server = try Self.server { query in
            seen.append(query)
            // `items=&since_id=N`: the 50 items after N, of 2,500.
            guard let since = query.split(separator: "=").last.flatMap({ UInt64($0) }), query.hasPrefix("items=&since_id=")
            else { return "{}" }
            let ids = since < base ? Array(base + 1...base + 50) : Array((since + 1)..<min(since + 51, base + 2_501))
            let items = ids.map { #"{"id":"\#($0)","feed_id":1,"title":"T\#($0)","html":"<p>\#($0)</p>","is_read":0}"# }
            return #"{"items":["# + items.joined(separator: ",") + "]}"
        }
        defer { server.stop() }
        let client = FeverClient(apiURL: server.url("/api/fever.php").absoluteString, apiKey: "k", fetcher: Self.fetcher)
        let ids = try await client.newItemIDs(after: nil)
        #expect(ids.count == 2_500)
        let items = try await client.items(ids)
        #expect(items.count == 2_500)
        #expect(items.allSatisfy { $0.html == "<p>\($0.id)</p>" })
        #expect(seen.all.count == 51)  // 50 pages and the empty one that ends them
        #expect(!seen.all.contains { $0.contains("with_ids") })
    }

    @Test func anIDListPastTheBoundStops() async throws {
        let ids = (1...50).map { String($0) }.joined(separator: ",")
        let server = try Self.server { _ in #"{"saved_item_ids":"\#(ids)"}"# }
        defer { server.stop() }
        let client = FeverClient(
            apiURL: server.url("/api/fever.php").absoluteString, apiKey: "k", fetcher: Self.fetcher,
            limits: .init(maxIDs: 10))
        do throws(SyncError) {
            _ = try await client.itemIDs(.starred)
            Issue.record("a list past the bound was taken")
        } catch {
            #expect(error == .pagination(request: "saved_item_ids", .tooManyIDs(limit: 10)))
        }
    }

    @Test func marksAreOneRequestPerItemAndMarkAllIsRoundedUpToTheSecond() async throws {
        let seen = LockedQueries()
        let server = try Self.server { query in
            seen.append(query)
            return "{}"
        }
        defer { server.stop() }
        let client = FeverClient(apiURL: server.url("/api/fever.php").absoluteString, apiKey: "k", fetcher: Self.fetcher)
        try await client.mark(.read, true, ids: [7, 8])
        try await client.mark(.starred, false, ids: [9])
        try await client.markAllRead(feed: "feed/3", olderThan: 1_700_000_000_000_001)
        try await client.markAllRead(feed: nil, olderThan: 1_700_000_000_000_000)
        #expect(
            seen.all == [
                "mark=item&as=read&id=7", "mark=item&as=read&id=8", "mark=item&as=unsaved&id=9",
                "mark=feed&as=read&id=3&before=1700000001", "mark=group&as=read&id=0&before=1700000000",
            ])
    }
}

/// Queries a test server saw, in order.
final class LockedQueries: Sendable {
    private let queries = Mutex<[String]>([])
    func append(_ query: String) { queries.withLock { $0.append(query) } }
    var all: [String] { queries.withLock { $0 } }
}
