// zeader-bench reader-start: the reader's first screen as the feed count grows (issue 18,
// item 5).
//
//   zeader-bench reader-start-build PATH ITEMS FEEDS   a store of ITEMS items over FEEDS feeds
//                                                      (a fifth of them tagged `linux`)
//   zeader-bench reader-start PATH [ROUNDS]            open the store and run the reader's
//                                                      start (ReaderApp.start on a 120×40
//                                                      TestBackend: feed list and first frame)
//
// Prints the median and best wall time of open + start (to the first frame), of the start
// alone, the median of the start to the whole feed list read (FeedListWindow.swift), and the
// first row drawn, e.g. `reader-start 100 feeds: open+start 21.3 ms (best 20.1), start
// 4.2 ms (best 3.9)`. Same ITEMS at 100 and 2,000 feeds isolates the cost per feed.
import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit
import ZeaderTUI

func buildReaderStartStore(path: String, items: Int, feeds: Int) throws {
    try buildReaderMarkStore(path: path, count: items, servers: feeds)
    let store = try ZeaderStore.open(at: URL(fileURLWithPath: path))
    let ctx = store.container.newBackgroundContext(name: "tags")
    try ctx.performAndWait { () throws in
        for (n, server) in try FeedEditing.servers(in: ctx).enumerated() where n % 5 == 0 { server.tags = "linux" }
        try ctx.save()
    }
    try store.container.store.close()
}

func readerStartBenchmark(path: String, rounds: Int) throws {
    var total: [Double] = []
    var startOnly: [Double] = []
    var whole: [Double] = []
    var feeds = 0
    var firstLine = ""
    for _ in 0..<max(1, rounds) {
        let began = now()
        let store = try ZeaderStore.open(at: URL(fileURLWithPath: path))
        let queue = store.container.viewContext.queue
        let backend = TestBackend(width: 120, height: 40)
        let app = queue.sync {
            ReaderApp(model: ReaderModel(store: store), backend: backend, config: ReaderConfig(), queue: queue)
        }
        let opened = now()
        queue.sync { app.start() }
        let done = now()
        total.append(done - began)
        startOnly.append(done - opened)
        queue.sync {}  // the rest of the list, queued after the first frame
        whole.append(now() - opened)
        feeds = queue.sync { app.state.feedCount }
        firstLine = backend.screen?.line(1) ?? ""
        queue.sync { app.stop() }
        try store.container.store.close()
    }
    total.sort()
    startOnly.sort()
    whole.sort()
    print(
        String(
            format: "reader-start %d feeds: open+start %.1f ms (best %.1f), start %.1f ms (best %.1f), whole list %.1f ms",
            feeds, total[total.count / 2] * 1000, total[0] * 1000, startOnly[startOnly.count / 2] * 1000,
            startOnly[0] * 1000, whole[whole.count / 2] * 1000))
    print("  first row: \(firstLine.trimmingCharacters(in: .whitespaces))")
}
