import Foundation
import LoopbackHTTPServer
import Synchronization

/// A Google Reader API on 127.0.0.1 whose answers a test sets, for what a real server does
/// not do on request: ids out of range, items listed twice, continuations that never end,
/// redirects. One feed (`feed/1`); every item in it, unread, none starred.
///
/// ```swift
/// let server = try FakeGReaderServer()
/// server.add(ids: [FakeGReaderServer.now + 1])
/// let sync = FeedSync(store: store)
/// try sync.addAccount(apiURL: server.apiURL, user: "alice", token: "t")
/// ```
final class FakeGReaderServer: Sendable {
    struct Item: Sendable {
        var id: UInt64
        var link: String?
        /// `Item <id>` when nil.
        var title: String? = nil
        /// 1700000000 when nil.
        var published: Int64? = nil
        /// Sent as the item's `guid` when set (FreshRSS sends none).
        var guid: String? = nil
        var read = false
        var starred = false
        /// The item's own labels, listed among its categories (after its feed's folders, as
        /// FreshRSS lists them) and changed by `edit-tag`'s `user/-/label/NAME`.
        var labels: [String] = []
    }

    struct State: Sendable {
        var items: [Item] = []
        /// Ids `stream/items/contents` lists besides the ones asked for (each time).
        var extraContents: [UInt64] = []
        /// Each item `stream/items/contents` gives is listed this many times.
        var contentsRepeat = 1
        /// Answers `stream/items/ids` in place of the items when set (the request's query).
        var idsOverride: (@Sendable ([String: String]) -> LoopbackHTTPServer.Reply)?
        var idsRequests = 0
        /// The subscriptions listed, as (stream id, URL), when set (else `feed/1` alone);
        /// `subscription/quickadd` then adds to them.
        var subscriptions: [(id: String, url: String)]?
        /// Every POST received, in order: its path after `reader/api/0/`, a space, its body
        /// (a quickadd's URL decoded, any other form as sent).
        var posts: [String] = []
        /// Paths (below the API) answered 404, as by a server without that call.
        var missing: Set<String> = []
        /// Each feed's labels (by stream id), as `subscription/edit`'s `a=` and `r=` leave
        /// them and `subscription/list` lists them: any number per feed.
        var labels: [String: [String]] = [:]
        /// Keep one folder per feed, as FreshRSS does: an edit's last `a=` replaces the
        /// labels, an edit with only `r=` leaves none.
        var oneFolder = false
    }

    /// The state the server's handler and the test share.
    final class Shared: Sendable {
        let state = Mutex(State())
    }

    let http: LoopbackHTTPServer
    let shared = Shared()

    /// The API URL to give ``FeedSync/addAccount(apiURL:user:token:)``.
    var apiURL: String { http.url("/api/greader.php").absoluteString }

    /// A plausible id now: FreshRSS's ids are microsecond times.
    static var now: UInt64 { UInt64(Date().timeIntervalSince1970 * 1_000_000) }

    init() throws {
        let shared = self.shared
        http = try LoopbackHTTPServer(handler: { request in Self.answer(request, shared) })
    }

    deinit { http.stop() }

    /// Adds unread items with `ids` to the feed (links `http://fake.example/<id>`).
    func add(ids: [UInt64], withLinks: Bool = true) {
        shared.state.withLock { $0.items += ids.map { Item(id: $0, link: withLinks ? "http://fake.example/\($0)" : nil) } }
    }

    func update(_ change: (inout State) -> Void) { shared.state.withLock { change(&$0) } }

    var idsRequests: Int { shared.state.withLock { $0.idsRequests } }

    // MARK: - Answers

    static func query(_ text: Substring) -> [(String, String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    }

    static func json(_ text: String) -> LoopbackHTTPServer.Reply { .ok(text, contentType: "application/json") }

    static func answer(_ request: LoopbackHTTPServer.Request, _ shared: Shared) -> LoopbackHTTPServer.Reply {
        let prefix = "/api/greader.php/"
        guard request.path.hasPrefix(prefix) else { return .status(404) }
        let rest = request.path.dropFirst(prefix.count)
        let path = rest.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        let pairs = rest.firstIndex(of: "?").map { query(rest[rest.index(after: $0)...]) } ?? []
        var parameters: [String: String] = [:]
        for (name, value) in pairs { parameters[name] = value }
        switch path {
        case "accounts/ClientLogin": return .ok("SID=x\nLSID=x\nAuth=alice/token\n", contentType: "text/plain")
        case "reader/api/0/token": return .ok("action-token\n", contentType: "text/plain")
        case "reader/api/0/subscription/list":
            guard let listed = shared.state.withLock({ $0.subscriptions }) else {
                return json(#"{"subscriptions":[{"id":"feed/1","title":"One","url":"http://fake.example/one.xml"}]}"#)
            }
            let labels = shared.state.withLock { $0.labels }
            let entries = listed.map { feed in
                let categories = (labels[feed.id] ?? []).map { #"{"id":"user/-/label/\#($0)","label":"\#($0)"}"# }
                return #"{"id":"\#(feed.id)","title":"\#(feed.id)","url":"\#(feed.url)","#
                    + #""categories":[\#(categories.joined(separator: ","))]}"#
            }
            return json(#"{"subscriptions":[\#(entries.joined(separator: ","))]}"#)
        case "reader/api/0/subscription/quickadd":
            let body = String(decoding: request.body, as: UTF8.self)
            let url = query(Substring(body)).first { $0.0 == "quickadd" }?.1 ?? ""
            let id = shared.state.withLock { state -> String? in
                state.posts.append("subscription/quickadd " + url)
                guard state.subscriptions != nil else { return nil }
                let id = "feed/\(state.subscriptions!.count + 100)"
                state.subscriptions!.append((id, url))
                return id
            }
            return id.map { json(#"{"streamId":"\#($0)"}"#) } ?? json(#"{"error":"cannot subscribe"}"#)
        case "reader/api/0/stream/items/ids": return ids(parameters, shared)
        case "reader/api/0/stream/items/contents":
            let asked = query(Substring(String(decoding: request.body, as: UTF8.self))).filter { $0.0 == "i" }.compactMap {
                UInt64($0.1)
            }
            return contents(asked, shared)
        default:
            let body = String(decoding: request.body, as: UTF8.self)
            let missing = shared.state.withLock { state in
                if request.method == "POST", path.hasPrefix("reader/api/0/") {
                    state.posts.append(String(path.dropFirst("reader/api/0/".count)) + " " + body)
                }
                if path == "reader/api/0/subscription/edit" { editLabels(query(Substring(body)), &state) }
                if path == "reader/api/0/edit-tag" { editItemLabels(query(Substring(body)), &state) }
                return state.missing.contains(path)
            }
            return missing ? .status(404) : .ok("OK", contentType: "text/plain")
        }
    }

    /// `subscription/edit`'s labels: every `a=` added, every `r=` removed (`+` is a space).
    static func editLabels(_ form: [(String, String)], _ state: inout State) {
        guard let stream = form.first(where: { $0.0 == "s" })?.1 else { return }
        func label(_ value: String) -> String? {
            value.hasPrefix("user/-/label/")
                ? String(value.dropFirst("user/-/label/".count)).replacingOccurrences(of: "+", with: " ") : nil
        }
        var labels = state.labels[stream] ?? []
        if state.oneFolder {
            let added = form.filter { $0.0 == "a" }.compactMap { label($0.1) }
            if let last = added.last {
                state.labels[stream] = [last]
            } else if form.contains(where: { $0.0 == "r" }) {
                state.labels[stream] = []
            }
            return
        }
        for (name, value) in form {
            guard let label = label(value) else { continue }
            if name == "a", !labels.contains(label) { labels.append(label) }
            if name == "r" { labels.removeAll { $0 == label } }
        }
        state.labels[stream] = labels
    }

    /// `edit-tag`'s item labels: an `a=` or `r=` of `user/-/label/NAME` on every `i=`.
    static func editItemLabels(_ form: [(String, String)], _ state: inout State) {
        let ids = Set(form.filter { $0.0 == "i" }.compactMap { UInt64($0.1) })
        for (name, value) in form where (name == "a" || name == "r") && value.hasPrefix("user/-/label/") {
            let label = String(value.dropFirst("user/-/label/".count)).replacingOccurrences(of: "+", with: " ")
            for index in state.items.indices where ids.contains(state.items[index].id) {
                state.items[index].labels.removeAll { $0 == label }
                if name == "a" { state.items[index].labels.append(label) }
            }
        }
    }

    static func ids(_ parameters: [String: String], _ shared: Shared) -> LoopbackHTTPServer.Reply {
        let (override, items) = shared.state.withLock { state in
            state.idsRequests += 1
            return (state.idsOverride, state.items)
        }
        if let override { return override(parameters) }
        if parameters["s"]?.hasSuffix("/starred") == true {
            let refs = items.filter(\.starred).map { #"{"id":"\#($0.id)"}"# }.joined(separator: ",")
            return json(#"{"itemRefs":[\#(refs)]}"#)
        }
        // Every item is in feed/1: another feed's stream is empty.
        if let stream = parameters["s"], stream.hasPrefix("feed/"), stream != "feed/1" { return json(#"{"itemRefs":[]}"#) }
        let excludeRead = parameters["xt"]?.hasSuffix("/read") == true
        // `ot` in seconds, as FreshRSS reads it: items that arrived since then.
        let since = parameters["ot"].flatMap(UInt64.init).map { $0.multipliedReportingOverflow(by: 1_000_000) }
        let listed = items.filter { item in
            if excludeRead && item.read { return false }
            guard let since else { return true }
            return since.overflow ? false : item.id >= since.partialValue
        }
        let refs = listed.map { #"{"id":"\#($0.id)"}"# }.joined(separator: ",")
        return json(#"{"itemRefs":[\#(refs)]}"#)
    }

    static func contents(_ asked: [UInt64], _ shared: Shared) -> LoopbackHTTPServer.Reply {
        let (items, extra, times, folders) = shared.state.withLock {
            ($0.items, $0.extraContents, $0.contentsRepeat, $0.labels["feed/1"] ?? [])
        }
        var entries: [String] = []
        for id in asked + extra {
            guard let item = items.first(where: { $0.id == id }) else { continue }
            let hex = String(item.id, radix: 16)
            let longID = String(repeating: "0", count: max(0, 16 - hex.count)) + hex
            let link = item.link.map { #","alternate":[{"href":"\#($0)"}]"# } ?? ""
            let guid = item.guid.map { #","guid":"\#($0)""# } ?? ""
            let states = ["reading-list"] + (item.read ? ["read"] : []) + (item.starred ? ["starred"] : [])
            let categories =
                (states.map { "user/-/state/com.google/" + $0 } + (folders + item.labels).map { "user/-/label/" + $0 })
                .map { #""\#($0)""# }.joined(separator: ",")
            let title = item.title ?? "Item \(item.id)"
            let entry =
                #"{"id":"tag:google.com,2005:reader/item/\#(longID)","title":"\#(title)","#
                + #""published":\#(item.published ?? 1_700_000_000),"origin":{"streamId":"feed/1"}\#(link)\#(guid),"#
                + #""categories":[\#(categories)]}"#
            entries += Array(repeating: entry, count: times)
        }
        return json(#"{"items":[\#(entries.joined(separator: ","))]}"#)
    }
}
