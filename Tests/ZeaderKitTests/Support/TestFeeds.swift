import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Synchronization

@testable import ZeaderKit

/// An RSS 2.0 document with one item per guid (title "Title <guid>" unless given).
func rss(title: String = "Test feed", items: [(guid: String, title: String)]) -> String {
    var xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>\(title)</title><link>http://example.org/</link>

        """
    for item in items {
        // The date depends on the guid only, so an item keeps its date wherever it is listed.
        let day = item.guid.unicodeScalars.reduce(0) { $0 + Int($1.value) } % 28 + 1
        xml += """
            <item><guid>\(item.guid)</guid><title>\(item.title)</title><link>http://example.org/\(item.guid)</link>
            <pubDate>\(day) Jan 2024 10:00:00 GMT</pubDate><description>About \(item.title)</description></item>

            """
    }
    return xml + "</channel></rss>\n"
}

func rss(title: String = "Test feed", guids: [String]) -> String {
    rss(title: title, items: guids.map { ($0, "Title \($0)") })
}

/// Replies chosen per path, changeable while the server runs.
final class Routes: Sendable {
    private let table = Mutex<[String: LoopbackHTTPServer.Reply]>([:])

    subscript(path: String) -> LoopbackHTTPServer.Reply? {
        get { table.withLock { $0[path] } }
        set { table.withLock { $0[path] = newValue } }
    }

    var handler: @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        { [self] request in self[request.path] ?? .status(404) }
    }
}

/// A fresh in-memory store.
func makeStore() throws -> ZeaderStore { try ZeaderStore.inMemory() }

/// The server with `url`, read on a fresh background context, as plain values.
func serverSummary(_ store: ZeaderStore, url: String) throws -> ServerSummary? {
    try FeedLibrary(store: store).servers().first { $0.url == url }
}

/// Every server's row, with the fields the tests look at.
struct ServerRow: Sendable {
    var url: String
    var etag: String?
    var lastModified: String?
    var disabled: Bool
    var retryAfter: Date?
    var lastError: String?
    var unread: Int64
    var total: Int64
}

func serverRows(_ store: ZeaderStore) throws -> [String: ServerRow] {
    let context = store.container.newBackgroundContext()
    return try context.performAndWait {
        var rows: [String: ServerRow] = [:]
        for s in try Server.findAll(in: context) {
            rows[s.url] = ServerRow(
                url: s.url, etag: s.etag, lastModified: s.lastModified, disabled: s.disabled, retryAfter: s.retryAfter,
                lastError: s.lastError, unread: s.unreadCount, total: s.totalCount)
        }
        return rows
    }
}

/// Counts FeedItem rows straight from SQL, grouped by (server, guid) to find duplicates.
func duplicateItemCount(_ store: ZeaderStore) throws -> Int {
    try FeedLibrary(store: store).items(ItemQuery()).reduce(into: [String: Int]()) {
        $0[$1.feed + "\u{0}" + $1.id, default: 0] += 1
    }
    .values.filter { $0 > 1 }.count
}

/// Options with short timeouts for tests.
func testOptions(jobs: Int = 4) -> RefreshOptions {
    var options = RefreshOptions(jobs: jobs)
    options.fetcherConfiguration.idleTimeout = 1
    options.fetcherConfiguration.totalTimeout = 3
    options.fetcherConfiguration.maxBodySize = 256 * 1024
    return options
}
