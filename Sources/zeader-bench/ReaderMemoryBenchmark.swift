// zeader-bench reader-memory [ROUNDS [FEEDS [ITEMS]]]: the reader's memory over repeated
// refreshes. A ReaderApp (on a backend that draws nowhere) refreshes FEEDS file:// feeds of
// ITEMS items ROUNDS times through its own path: `R` → FeedRefresher (ZeaderKit's use case)
// → saves merged into the view context → the app's observer reloads and redraws. Between
// rounds a tenth of the feeds gain a new item (and drop their oldest), so that every
// refresh saves, merges and redraws. Prints RSS after a warm-up, every 50 rounds and at the
// end, and the growth.
import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit
import ZeaderTUI

/// A terminal backend that draws nowhere and keeps no frames.
final class NullBackend: TerminalBackend {
    var size: (width: Int, height: Int) = (120, 40)
    private(set) var frames = 0
    func draw(_ buffer: ScreenBuffer) { frames += 1 }
    func readKeys() -> [Key] { [] }
    func updateSize() {}
    func suspend() {}
    func resume() {}
    func end() {}
    func signal(_ sequence: String) {}
}

/// One feed file of the corpus: items `first..<first + count`, newest last.
func writeCorpusFeed(_ url: URL, feed: Int, first: Int, count: Int) throws {
    var xml =
        "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Feed \(feed)</title><link>http://example.org/\(feed)</link>\n"
    for n in first..<(first + count) {
        xml +=
            "<item><guid>f\(feed)-\(n)</guid><title>Item \(n) of feed \(feed)</title><link>http://example.org/\(feed)/\(n)</link>"
        xml += "<pubDate>\(Date(timeIntervalSince1970: 1_700_000_000 + Double(n) * 3600).formatted(.dateTime))</pubDate>"
        xml +=
            "<description>Text of item \(n): " + String(repeating: "words and more words ", count: 20) + "</description></item>\n"
    }
    xml += "</channel></rss>\n"
    try xml.write(to: url, atomically: true, encoding: .utf8)
}

func readerMemoryBenchmark(rounds: Int, feeds: Int, items: Int) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-reader-memory-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    var firsts = [Int](repeating: 0, count: feeds)
    var urls: [URL] = []
    for feed in 0..<feeds {
        let url = directory.appendingPathComponent("feed\(feed).xml")
        try writeCorpusFeed(url, feed: feed, first: 0, count: items)
        urls.append(url)
    }
    let store = try ZeaderStore.open(at: directory.appendingPathComponent("store.sqlite"))
    let library = FeedLibrary(store: store)
    for url in urls { try library.add(url: url.absoluteString) }

    let queue = store.container.viewContext.queue
    let model = ReaderModel(store: store)
    let backend = NullBackend()
    let refresher = FeedRefresher(store: store, options: RefreshOptions(jobs: 8))
    let app = queue.sync {
        ReaderApp(model: model, backend: backend, config: ReaderConfig(), queue: queue, refresher: refresher, fetcher: nil)
    }
    queue.sync { app.start() }
    // The first feed's items on screen, as a reader usually has.
    queue.sync { app.handle(.enter) }

    func refreshOnce() {
        queue.sync { app.perform(.refreshAll) }
        while queue.sync(execute: { app.state.refreshProgress != nil }) { usleep(2_000) }
    }
    func changeSomeFeeds(round: Int) throws {
        for k in 0..<max(1, feeds / 10) {
            let feed = (round * 7 + k * 13) % feeds
            firsts[feed] += 1
            try writeCorpusFeed(urls[feed], feed: feed, first: firsts[feed], count: items)
        }
    }

    let start = Date()
    for round in 0..<5 {  // warm-up: the first store of every item, caches filled
        try changeSomeFeeds(round: round)
        refreshOnce()
    }
    let startRSS = memory().rss
    print(String(format: "reader-memory: %d feeds of %d items; after 5 warm-up refreshes RSS %.1f MB", feeds, items, startRSS))
    for round in 1...rounds {
        try changeSomeFeeds(round: round + 5)
        refreshOnce()
        if round % 50 == 0 || round == rounds {
            print(String(format: "  after %d refreshes: RSS %.1f MB", round, memory().rss))
        }
    }
    let endRSS = memory().rss
    let stored = try library.items(ItemQuery()).count
    print(
        String(
            format:
                "reader-memory: %d refreshes in %.0f s, %d frames drawn, %d items stored; RSS %.1f → %.1f MB, growth %+.1f MB (%+.1f KB per refresh); peak %.1f MB",
            rounds, Date().timeIntervalSince(start), queue.sync { backend.frames }, stored, startRSS, endRSS, endRSS - startRSS,
            (endRSS - startRSS) * 1024 / Double(rounds), memory().peak))
    queue.sync { app.stop() }
}
