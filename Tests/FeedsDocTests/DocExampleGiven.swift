import Feeds
import Foundation
import Testing

// The context the Feeds library's doc-comment examples take for granted (see
// Tests/ObjectGraphDocTests/DocExampleGiven.swift for the convention): the values they use
// without declaring them. scripts/extract-doc-examples.py passes each given an example mentions
// as a parameter of the same name and type.

/// What an example calls a subscription (`server`): the fields a feed reader keeps per feed.
final class Subscription {
    var url = "https://example.org/feed"
    var etag: String? = "\"v1\""
    var lastModified: String?
    var lastError: String?
}

/// Where an example hands fetched outcomes (`pipeline`).
actor Pipeline {
    private(set) var handled = 0
    func handle(_ outcome: FetchOutcome, for request: FeedRequest) { handled += 1 }
}

/// Fresh givens for one example: a small RSS feed (`bytes`, `body`, `feed`, `item`), an OPML
/// document, an HTML page, URLs under a temporary directory, and a fetcher nothing makes fetch.
final class DocExampleGiven {
    // MARK: - Givens
    let bytes: Data
    let body: Data
    let data: Data
    let json: Data
    let feed: ParsedFeed
    let item: ParsedItem
    let feedURL: URL
    let url: URL
    let pageURL: URL
    let episodeURL: URL
    let folder: URL
    let fileURL: URL
    let path: String
    let html: String
    let opml: String
    let error: FetchError
    let outcome: FetchOutcome
    let progress: DownloadProgress
    let server: Subscription
    let fetcher: FeedFetcher
    let request: FeedRequest
    let requests: [FeedRequest]
    let pipeline: Pipeline
    let jobs: Int
    let log: (String) -> Void
    let write: (UnsafeRawBufferPointer) -> Void
    let work: @Sendable () -> Void
    // MARK: - End of givens

    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("feeds-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let rss = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>Example</title><link>https://example.org/</link>
            <item><guid>a1</guid><title>Café &amp; swift</title><link>https://example.org/a1</link>
            <description>&lt;p&gt;Hello &lt;b&gt;world&lt;/b&gt;&lt;/p&gt;</description></item>
            </channel></rss>
            """
        bytes = Data(rss.utf8)
        body = bytes
        data = bytes
        json = Data(#"{"version": "https://jsonfeed.org/version/1.1", "title": "J", "items": [{"id": "1", "title": "Hi"}]}"#.utf8)
        feedURL = URL(string: "https://example.org/feed")!
        url = feedURL
        pageURL = URL(string: "https://blog.example/")!
        episodeURL = URL(string: "https://example.org/episode.mp3")!
        folder = directory
        feed = try FeedParser.parse(data: bytes, url: feedURL)
        item = feed.items[0]
        opml = """
            <?xml version="1.0"?><opml version="2.0"><head><title>Feeds</title></head><body>
            <outline text="News"><outline text="Tech"><outline type="rss" text="Example"
            xmlUrl="https://example.org/feed"/></outline></outline></body></opml>
            """
        fileURL = directory.appendingPathComponent("feeds.opml")
        try Data(opml.utf8).write(to: fileURL)
        let urls = directory.appendingPathComponent("urls")
        try Data("https://example.org/feed tech \"~Example\"\n".utf8).write(to: urls)
        path = urls.path
        html = #"<html><head><link rel="alternate" type="application/rss+xml" href="/feed" title="Blog"></head></html>"#
        error = .httpStatus(404, url: feedURL)
        outcome = .failed(error)
        progress = DownloadProgress(received: 512, total: 1024)
        server = Subscription()
        fetcher = FeedFetcher(configuration: FetcherConfiguration(version: "0.1.0"))
        request = FeedRequest(url: feedURL)
        requests = [request]
        pipeline = Pipeline()
        jobs = 4
        log = { print($0) }
        write = { _ in }
        work = {}
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// One generated example: its id (file stem and documented symbol), where it is written, and
/// the function that runs it with fresh givens.
struct DocExample: Sendable, CustomTestStringConvertible {
    enum Body: Sendable {
        case sync(@Sendable (DocExampleGiven) throws -> Void)
        case async(@Sendable (DocExampleGiven) async throws -> Void)
    }

    let id: String
    let origin: String
    let body: Body

    init(id: String, origin: String, run: @escaping @Sendable (DocExampleGiven) throws -> Void) {
        (self.id, self.origin, body) = (id, origin, .sync(run))
    }

    init(id: String, origin: String, runAsync: @escaping @Sendable (DocExampleGiven) async throws -> Void) {
        (self.id, self.origin, body) = (id, origin, .async(runAsync))
    }

    var testDescription: String { id }
}
