// zeader-bench views: the reader's list operations (issue 14's views) timed as the reader
// runs them, key press to drawn buffer (ReaderApp.handle on a TestBackend), on a Zeader
// store of N items over S feeds: hide/show read feeds (l), hide/show read items (L), sort
// (g t, g d), filter (F …), n across feeds, on one feed's list and on a smart feed listing
// every item. The goal is 50 ms each at 100,000 items.
import Dispatch
import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit
import ZeaderTUI

func readerViewsBenchmark(count: Int, servers: Int) throws {
    let url = tempStore("views")
    defer { removeStore(url) }
    try buildReaderMarkStore(path: url.path, count: count, servers: servers)
    let store = try ZeaderStore.open(at: url)
    let config = try ReaderConfig.parse("smart-feed Everything TRUEPREDICATE", file: "bench")
    let model = ReaderModel(store: store, smartFeeds: config.smartFeeds)
    let backend = TestBackend(width: 120, height: 40)
    let queue = store.container.viewContext.queue
    let app = ReaderApp(model: model, backend: backend, config: config, queue: queue)
    queue.sync { app.start() }
    print(
        "The reader's list operations: \(count) items over \(servers) feeds (key press to drawn screen, best of 3; the verdict is on wall time)"
    )

    /// Times `keys` (best of 3), each round from the feed list after `setup` (untimed); a
    /// toggle (`l`, `L`) is pressed again after each round, untimed, to undo it.
    func time(_ label: String, setup: [Key] = [], _ keys: [Key]) {
        var best = Double.infinity
        var bestCPU = Double.infinity
        var listed = 0
        for _ in 0..<3 {
            queue.sync {
                while app.state.screens.count > 1 { app.handle(.character("q")) }
                for key in setup { app.handle(key) }
            }
            let (start, startCPU) = (now(), cpuTime())
            queue.sync { for key in keys { app.handle(key) } }
            best = min(best, now() - start)
            bestCPU = min(bestCPU, cpuTime() - startCPU)
            listed = queue.sync { app.state.screen == .feeds ? app.state.feeds.count : app.state.items?.ids.count ?? 0 }
            if keys.count == 1, [Key.character("l"), .character("L")].contains(keys[0]) {
                queue.sync { app.handle(keys[0]) }
            }
        }
        let verdict = best * 1000 <= 50 ? "ok" : "OVER 50 ms"
        print(
            String(
                format: "  %@ %7.1f ms wall %7.1f ms CPU  %@  (%d rows listed)",
                label.padding(toLength: 44, withPad: " ", startingAt: 0), best * 1000, bestCPU * 1000, verdict, listed))
    }
    let oneFeed: [Key] = [.character("g"), .character("n"), .home, .enter]
    let everything: [Key] = [.character("g"), .character("n"), .end, .enter]
    time("l  hide read feeds (feed list)", [.character("l")])
    time("g t  sort feeds by title", [.character("g"), .character("t")])
    time("g u  sort feeds by unread count", [.character("g"), .character("u")])
    time("g n  user order", [.character("g"), .character("n")])
    time("ENTER  open a feed", setup: [.home], [.enter])
    time("L  hide read items (one feed)", setup: oneFeed, [.character("L")])
    time("g t  sort one feed by title", setup: oneFeed, [.character("g"), .character("t")])
    time("g d  by date", setup: oneFeed, [.character("g"), .character("d")])
    time("ENTER  open the smart feed of every item", setup: [.character("g"), .character("n"), .end], [.enter])
    time("L  hide read items (every item)", setup: everything, [.character("L")])
    time("g t  sort every item by title", setup: everything, [.character("g"), .character("t")])
    time("g a  by author", setup: everything, [.character("g"), .character("a")])
    time("g d  by date", setup: everything, [.character("g"), .character("d")])
    let filter: [Key] = [.character("F")] + "title CONTAINS[c] \"kernel\"".map { .character($0) }
    time("F  filter every item (title CONTAINS)", setup: everything + filter, [.enter])
    time("^F  clear the filter", setup: everything + filter + [.enter], [.control("f")])
    time("n  next unread", setup: everything, [.character("n")])
    time("^K  random unread", [.control("k")])
}
