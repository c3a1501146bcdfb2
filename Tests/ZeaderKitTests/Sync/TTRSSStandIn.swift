import Foundation
import LoopbackHTTPServer
import Synchronization

/// A tiny stand-in for Tiny Tiny RSS's JSON API on 127.0.0.1, answering as the real one does
/// (one user `alice`, password `right`; sessions; feeds, categories, articles) so that its
/// answers can be replaced by ones a real server does not give (``replace(_:with:)``).
///
/// ```swift
/// let server = try TTRSSStandIn()
/// server.addFeed(id: 1, url: "http://127.0.0.1:9/a.xml", category: "news", articles: [1, 2])
/// let token = try await TTRSSClient.login(apiURL: server.apiURL, user: "alice", password: "right", fetcher: fetcher)
/// ```
final class TTRSSStandIn: Sendable {
    struct Article {
        var id: UInt64
        var feed: UInt64
        var unread = true
        var marked = false
    }

    struct State {
        var sessions: Set<String> = []
        var nextSession = 0
        var apiEnabled = true
        var feeds: [(id: UInt64, url: String, category: UInt64)] = []
        var categories: [UInt64: String] = [:]
        var articles: [Article] = []
        /// The `op` of every request, in order.
        var ops: [String] = []
        /// Raw bodies answered in place of the real answer, by `op`.
        var replaced: [String: String] = [:]
        /// The `updateArticle` calls: field, mode, ids.
        var updates: [(field: Int, mode: Int, ids: [UInt64])] = []
    }

    /// The state, shared with the server's handler.
    final class Shared: Sendable {
        private let lock = Mutex(State())

        func withLock<R: Sendable>(_ body: (inout State) -> R) -> R {
            lock.withLock { body(&$0) }
        }
    }

    let state = Shared()
    let server: LoopbackHTTPServer

    /// The API's URL (`…/tt-rss/api/`).
    var apiURL: String { server.url("/tt-rss/api/").absoluteString }

    init() throws {
        let state = self.state
        server = try LoopbackHTTPServer(handler: { request in
            let object = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] ?? [:]
            let body = state.withLock { Self.answer(object, &$0) }
            return .ok(body, contentType: "text/json")
        })
    }

    deinit { server.stop() }

    /// Adds a feed (in `category` when given) with articles `ids`, unread.
    func addFeed(id: UInt64, url: String, category: String? = nil, articles ids: [UInt64]) {
        state.withLock { state in
            var categoryID: UInt64 = 0
            if let category {
                categoryID = state.categories.first { $0.value == category }?.key ?? UInt64(state.categories.count + 1)
                state.categories[categoryID] = category
            }
            state.feeds.append((id, url, categoryID))
            state.articles += ids.map { Article(id: $0, feed: id) }
        }
    }

    /// Answers `op` with `body` from now on (nil: the real answer again); `op` may name the
    /// feed and view too (`getHeadlines -4 all_articles`).
    func replace(_ op: String, with body: String?) {
        state.withLock { $0.replaced[op] = body }
    }

    /// Forgets every session, as an expired one is forgotten.
    func expireSessions() { state.withLock { $0.sessions = [] } }

    var ops: [String] { state.withLock { $0.ops } }

    func article(_ id: UInt64) -> Article? { state.withLock { state in state.articles.first { $0.id == id } } }

    private static func wrap(_ content: Any, status: Int = 0) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: ["seq": 0, "status": status, "content": content])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    private static func error(_ name: String) -> String { wrap(["error": name], status: 1) }

    private static func number(_ value: Any?) -> Int? {
        if let value = value as? Int { return value }
        if let value = value as? String { return Int(value) }
        return nil
    }

    private static func answer(_ request: [String: Any], _ state: inout State) -> String {
        let op = request["op"] as? String ?? ""
        state.ops.append(op)
        let view = "\(op) \(number(request["feed_id"]).map(String.init) ?? "") \(request["view_mode"] as? String ?? "")"
        if let body = state.replaced[view] ?? state.replaced[op] { return body }
        if op == "login" {
            guard request["user"] as? String == "alice", request["password"] as? String == "right" else {
                return error("LOGIN_ERROR")
            }
            guard state.apiEnabled else { return error("API_DISABLED") }
            state.nextSession += 1
            let session = "s\(state.nextSession)"
            state.sessions.insert(session)
            return wrap(["session_id": session, "api_level": 15])
        }
        guard let session = request["sid"] as? String, state.sessions.contains(session) else { return error("NOT_LOGGED_IN") }
        switch op {
        case "getFeeds":
            return wrap(
                state.feeds.map { feed in
                    ["id": feed.id, "feed_url": feed.url, "title": "Feed \(feed.id)", "cat_id": feed.category, "unread": 0]
                })
        case "getCategories":
            return wrap(state.categories.map { ["id": String($0.key), "title": $0.value, "unread": 0] })
        case "getHeadlines":
            let feed = number(request["feed_id"]) ?? 0
            let since = UInt64(number(request["since_id"]) ?? 0)
            let limit = min(number(request["limit"]) ?? 200, 200)
            let skip = number(request["skip"]) ?? 0
            let mode = request["view_mode"] as? String ?? "all_articles"
            let rows = state.articles.filter { article in
                (feed == -4 || (feed == -1 && article.marked) || UInt64(max(feed, 0)) == article.feed)
                    && article.id > since && (mode != "unread" || article.unread)
            }
            .sorted { $0.id > $1.id }.dropFirst(skip).prefix(limit)
            return wrap(rows.map { row($0, content: request["show_content"] as? Bool == true) })
        case "getArticle":
            let ids = Set(((request["article_id"] as? String) ?? "").split(separator: ",").compactMap { UInt64($0) })
            return wrap(state.articles.filter { ids.contains($0.id) }.map { row($0, content: true) })
        case "updateArticle":
            let ids = ((request["article_ids"] as? String) ?? "").split(separator: ",").compactMap { UInt64($0) }
            let field = number(request["field"]) ?? -1
            let mode = number(request["mode"]) ?? -1
            state.updates.append((field, mode, ids))
            for index in state.articles.indices where ids.contains(state.articles[index].id) {
                if field == 2 { state.articles[index].unread = mode == 1 }
                if field == 0 { state.articles[index].marked = mode == 1 }
            }
            return wrap(["status": "OK", "updated": ids.count])
        case "subscribeToFeed":
            let url = request["feed_url"] as? String ?? ""
            if let known = state.feeds.first(where: { $0.url == url }) {
                return wrap(["status": ["code": 0, "feed_id": known.id]])
            }
            guard url.hasPrefix("http") else { return wrap(["status": ["code": 5, "message": "could not fetch"]]) }
            let id = (state.feeds.map(\.id).max() ?? 0) + 1
            state.feeds.append((id, url, 0))
            return wrap(["status": ["code": 1, "feed_id": id]])
        case "unsubscribeFeed":
            let id = UInt64(number(request["feed_id"]) ?? 0)
            guard state.feeds.contains(where: { $0.id == id }) else { return error("FEED_NOT_FOUND") }
            state.feeds.removeAll { $0.id == id }
            state.articles.removeAll { $0.feed == id }
            return wrap(["status": "OK"])
        default:
            return error("UNKNOWN_METHOD")
        }
    }

    private static func row(_ article: Article, content: Bool) -> [String: Any] {
        var row: [String: Any] = [
            "id": article.id, "guid": "{\"ver\":2}", "unread": article.unread, "marked": article.marked,
            "updated": 1_795_392_000 + Int(article.id) * 60, "title": "Title \(article.id)",
            "link": "http://127.0.0.1/\(article.feed)/\(article.id)", "feed_id": String(article.feed), "author": "",
        ]
        if content { row["content"] = "<p>About \(article.id)</p>" }
        return row
    }
}
