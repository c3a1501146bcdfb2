import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Synchronization
import Testing

@testable import ZeaderKit

@Suite("Refresh pipeline")
struct RefreshPipelineTests {
    @Test("an item seen again is updated in place, keeps its read flag, and is never stored twice")
    func upsertKeepsReadFlags() async throws {
        let routes = Routes()
        routes["/feed"] = .ok(rss(guids: ["a", "b", "c"]))
        try await withLoopbackServer(routes.handler) { http in
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            let url = http.url("/feed").absoluteString
            try library.add(url: url)
            let refresher = FeedRefresher(store: store, options: testOptions())
            let first = try await refresher.refresh()
            #expect(first.progress.newItems == 3)
            #expect(first.failures.isEmpty)

            try library.markRead(feed: nil)
            routes["/feed"] = .ok(rss(items: [("b", "B changed"), ("c", "Title c"), ("d", "Title d"), ("d", "Dup d")]))
            let second = try await refresher.refresh()
            #expect(second.progress.newItems == 1)
            #expect(second.progress.updatedItems == 1)

            let items = try library.items(ItemQuery())
            #expect(items.count == 4)
            #expect(try duplicateItemCount(store) == 0)
            let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
            #expect(byID["b"]?.read == true)
            #expect(byID["b"]?.title == "B changed")
            #expect(byID["d"]?.read == false)
            #expect(byID["d"]?.title == "Title d")
            let row = try #require(try serverRows(store)[url])
            #expect(row.unread == 1)
            #expect(row.total == 4)
        }
    }

    @Test("a body cut off before its Content-Length keeps the items that arrived whole and records why")
    func cutOffBodyKeepsWhatParsed() async throws {
        let whole = Data(rss(guids: ["a", "b", "c"]).utf8)
        // Cut inside the third item: the first two arrived whole.
        let cut = whole.prefix(upTo: try #require(whole.range(of: Data("<item><guid>c".utf8))).lowerBound)
        try await withLoopbackServer({ _ in
            .declaring("\(whole.count)", body: cut, headers: [("ETag", "\"v1\"")])
        }) { http in
            let store = try makeStore()
            let url = http.url("/feed").absoluteString
            try FeedLibrary(store: store).add(url: url)
            let summary = try await FeedRefresher(store: store, options: testOptions()).refresh()
            #expect(summary.progress.newItems == 2)
            let row = try #require(try serverRows(store)[url])
            #expect(row.total == 2)
            #expect(row.etag == nil)  // the next refresh downloads the whole feed again
            let lastError = try #require(row.lastError)
            #expect(lastError.hasPrefix(url) && lastError.contains("body cut off") && lastError.contains("stored"))
        }
    }

    @Test("ETag and Last-Modified are stored and sent back; a 304 stores nothing new")
    func conditionalGet() async throws {
        let routes = Routes()
        let body = Data(rss(guids: ["1", "2"]).utf8)
        let requests = Mutex<[LoopbackHTTPServer.Request]>([])
        try await withLoopbackServer({ request in
            requests.withLock { $0.append(request) }
            if request.headers["if-none-match"] == "\"v1\"" { return .status(304) }
            return .respond(
                status: 200,
                headers: [
                    ("ETag", "\"v1\""), ("Last-Modified", "Mon, 01 Jan 2024 10:00:00 GMT"),
                    ("Content-Type", "application/rss+xml"),
                ],
                body: body)
        }) { http in
            _ = routes
            let store = try makeStore()
            let url = http.url("/feed").absoluteString
            try FeedLibrary(store: store).add(url: url)
            let refresher = FeedRefresher(store: store, options: testOptions())
            _ = try await refresher.refresh()
            let row = try #require(try serverRows(store)[url])
            #expect(row.etag == "\"v1\"")
            #expect(row.lastModified == "Mon, 01 Jan 2024 10:00:00 GMT")
            let second = try await refresher.refresh()
            #expect(second.results.map(\.status) == [.notModified])
            let sent = requests.withLock { $0 }
            #expect(sent.count == 2)
            #expect(sent.last?.headers["if-none-match"] == "\"v1\"")
            #expect(sent.last?.headers["if-modified-since"] == "Mon, 01 Jan 2024 10:00:00 GMT")
            #expect(try serverRows(store)[url]?.total == 2)
            // newsboat's always-download: the feed is fetched whole, without its validators.
            var options = testOptions()
            options.alwaysDownload = [url]
            let always = try await FeedRefresher(store: store, options: options).refresh()
            #expect(always.results.map(\.status) != [.notModified])
            let last = try #require(requests.withLock { $0.last })
            #expect(last.headers["if-none-match"] == nil && last.headers["if-modified-since"] == nil)
            #expect(try serverRows(store)[url]?.total == 2)
        }
    }

    @Test("good feeds refresh while 301, 404, 410, 429, 500, a stall, an endless body and a bad feed are recorded")
    func mixedOutcomes() async throws {
        let routes = Routes()
        routes["/good1"] = .ok(rss(guids: ["g1", "g2"]))
        routes["/good2"] = .ok(rss(guids: ["h1"]))
        routes["/old"] = .redirect(301, to: "/new")
        routes["/new"] = .ok(rss(guids: ["m1"]))
        routes["/missing"] = .status(404)
        routes["/gone"] = .status(410)
        routes["/busy"] = .status(429, headers: [("Retry-After", "3600")])
        routes["/broken"] = .status(500)
        routes["/stall"] = .stall(seconds: 10)
        routes["/huge"] = .endless()
        routes["/html"] = .ok("<html><body>not a feed</body></html>", contentType: "text/html")
        try await withLoopbackServer(routes.handler) { http in
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            let paths = ["/good1", "/old", "/missing", "/gone", "/busy", "/broken", "/stall", "/huge", "/html", "/good2"]
            for path in paths { try library.add(url: http.url(path).absoluteString) }
            let events = Mutex<[RefreshEvent]>([])
            let summary = try await FeedRefresher(store: store, options: testOptions()).refresh { event in
                events.withLock { $0.append(event) }
            }
            let u = { (path: String) in http.url(path).absoluteString }
            let rows = try serverRows(store)
            #expect(rows[u("/good1")]?.total == 2)
            #expect(rows[u("/good2")]?.total == 1)
            #expect(rows[u("/good1")]?.lastError == nil)
            #expect(rows[u("/old")] == nil)
            #expect(rows[u("/new")]?.total == 1)
            #expect(summary.results.first { $0.url == u("/old") }?.movedTo == u("/new"))
            #expect(rows[u("/missing")]?.lastError?.contains("HTTP 404") == true)
            #expect(rows[u("/missing")]?.lastError?.contains(u("/missing")) == true)
            #expect(rows[u("/broken")]?.lastError?.contains("HTTP 500") == true)
            #expect(rows[u("/gone")]?.disabled == true)
            let retry = try #require(rows[u("/busy")]?.retryAfter)
            #expect(retry > Date().addingTimeInterval(3000))
            #expect(rows[u("/stall")]?.lastError?.contains("timed out") == true)
            #expect(rows[u("/huge")]?.lastError?.contains("larger than") == true)
            #expect(rows[u("/html")]?.lastError != nil)
            #expect(rows[u("/html")]?.etag == nil)
            #expect(summary.progress.total == 10)
            #expect(summary.progress.failed == 6)  // 404, 410, 500, stall, huge, html
            #expect(summary.progress.deferred == 1)
            #expect(summary.progress.updated == 3)
            let all = events.withLock { $0 }
            #expect(all.filter { if case .started = $0 { return true } else { return false } }.count == 10)
            #expect(all.filter { if case .failed = $0 { return true } else { return false } }.count == 6)
            #expect(all.last?.progress.completed == 10)
        }
    }

    @Test("a deferred feed is not fetched before its Retry-After, a disabled one not at all unless named")
    func deferredAndDisabledAreSkipped() async throws {
        let routes = Routes()
        routes["/busy"] = .status(503, headers: [("Retry-After", "3600")])
        routes["/gone"] = .status(410)
        try await withLoopbackServer(routes.handler) { http in
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            try library.add(url: http.url("/busy").absoluteString)
            try library.add(url: http.url("/gone").absoluteString)
            let refresher = FeedRefresher(store: store, options: testOptions())
            _ = try await refresher.refresh()
            #expect(http.requests.count == 2)
            let second = try await refresher.refresh()
            #expect(http.requests.count == 2)  // busy deferred without a request, gone skipped
            #expect(second.progress.total == 1)
            #expect(second.progress.deferred == 1)
            routes["/gone"] = .ok(rss(guids: ["back"]))
            let named = try await refresher.refresh(urls: [http.url("/gone").absoluteString])
            #expect(named.progress.newItems == 1)
            #expect(try serverRows(store)[http.url("/gone").absoluteString]?.disabled == false)
        }
    }

    @Test("refreshing a URL that is not subscribed throws, naming it")
    func unknownFeed() async throws {
        let store = try makeStore()
        await #expect(throws: ZeaderError.notSubscribed("http://nowhere.invalid/feed")) {
            _ = try await FeedRefresher(store: store).refresh(urls: ["http://nowhere.invalid/feed"])
        }
    }

    @Test("a redirect to a feed already subscribed keeps the old URL and says why")
    func redirectToExistingFeed() async throws {
        let routes = Routes()
        routes["/old"] = .redirect(301, to: "/new")
        routes["/new"] = .ok(rss(guids: ["x"]))
        try await withLoopbackServer(routes.handler) { http in
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            try library.add(url: http.url("/old").absoluteString)
            try library.add(url: http.url("/new").absoluteString)
            let summary = try await FeedRefresher(store: store, options: testOptions()).refresh()
            let rows = try serverRows(store)
            #expect(rows.count == 2)
            #expect(rows[http.url("/old").absoluteString]?.lastError?.contains("already subscribed") == true)
            #expect(summary.progress.failed == 1)
        }
    }

    @Test("saves reach the view context through DidSave merges")
    func viewContextSeesRefresh() async throws {
        let routes = Routes()
        routes["/feed"] = .ok(rss(guids: ["1", "2", "3"]))
        try await withLoopbackServer(routes.handler) { http in
            let store = try makeStore()
            let url = http.url("/feed").absoluteString
            try FeedLibrary(store: store).add(url: url)
            let view = store.container.viewContext
            let before = try view.performAndWait {
                try Server.findFirst(byAttribute: "url", value: .string(url), in: view)?.unreadCount
            }
            #expect(before == 0)
            let saves = Mutex(0)
            let token = store.container.bus.observeDidSave(excluding: nil) { _ in saves.withLock { $0 += 1 } }
            defer { token.cancel() }
            _ = try await FeedRefresher(store: store, options: testOptions()).refresh()
            let after = try view.performAndWait {
                (
                    try Server.findFirst(byAttribute: "url", value: .string(url), in: view)?.unreadCount,
                    try view.count(for: FetchRequest<FeedItem>())
                )
            }
            #expect(after.0 == 3)
            #expect(after.1 == 3)
            #expect(saves.withLock { $0 } >= 1)
        }
    }

    @Test("jobs bounds the feeds fetched at once")
    func jobsBoundConcurrency() async throws {
        let gauge = ConcurrencyGauge()
        try await withLoopbackServer(gauge: gauge, { request in .delayed(seconds: 0.2, .ok(rss(guids: [request.path]))) }) {
            http in
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            for i in 0..<8 { try library.add(url: http.url("/f\(i)").absoluteString) }
            let summary = try await FeedRefresher(store: store, options: testOptions(jobs: 2)).refresh()
            #expect(summary.progress.newItems == 8)
            #expect(gauge.maximum <= 2)
            #expect(gauge.maximum >= 1)
        }
    }

    @Test("a temporary redirect keeps the stored URL; a file feed refreshes, then costs nothing while unchanged")
    func temporaryRedirectAndFiles() async throws {
        let routes = Routes()
        routes["/feed"] = .redirect(302, to: "/elsewhere")
        routes["/elsewhere"] = .ok(rss(guids: ["t1"]))
        try await withLoopbackServer(routes.handler) { http in
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            try library.add(url: http.url("/feed").absoluteString)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-\(UUID().uuidString).xml")
            try rss(guids: ["f1", "f2"]).write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            try library.add(url: file.absoluteString)
            let refresher = FeedRefresher(store: store, options: testOptions())
            let first = try await refresher.refresh()
            #expect(first.progress.newItems == 3)
            #expect(first.results.allSatisfy { $0.movedTo == nil })
            #expect(try serverRows(store)[http.url("/feed").absoluteString]?.total == 1)
            let second = try await refresher.refresh(urls: [file.absoluteString])
            #expect(second.results.map(\.status) == [.notModified])
        }
    }

    @Test("a chain of 301s stores the final URL, a redirect loop is recorded, a gzip body is decoded")
    func redirectChainsLoopsAndGzip() async throws {
        let routes = Routes()
        routes["/one"] = .redirect(301, to: "/two")
        routes["/two"] = .redirect(308, to: "/three")
        routes["/three"] = .ok(rss(guids: ["c1"]))
        routes["/loop-a"] = .redirect(301, to: "/loop-b")
        routes["/loop-b"] = .redirect(301, to: "/loop-a")
        routes["/gzip"] = .respond(
            status: 200, headers: [("Content-Type", "application/rss+xml"), ("Content-Encoding", "gzip")],
            body: try gzip(Data(rss(guids: ["z1", "z2"]).utf8)))
        try await withLoopbackServer(routes.handler) { http in
            let store = try makeStore()
            let library = FeedLibrary(store: store)
            for path in ["/one", "/loop-a", "/gzip"] { try library.add(url: http.url(path).absoluteString) }
            let summary = try await FeedRefresher(store: store, options: testOptions()).refresh()
            let rows = try serverRows(store)
            #expect(rows[http.url("/three").absoluteString]?.total == 1)
            #expect(rows[http.url("/one").absoluteString] == nil)
            #expect(rows[http.url("/loop-a").absoluteString]?.lastError?.contains("redirect loop") == true)
            #expect(rows[http.url("/gzip").absoluteString]?.total == 2)
            #expect(summary.progress.failed == 1)
        }
    }
}

/// `data` compressed by the system's gzip.
func gzip(_ data: Data) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-c"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(data)
    try input.fileHandleForWriting.close()
    let compressed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return compressed
}
