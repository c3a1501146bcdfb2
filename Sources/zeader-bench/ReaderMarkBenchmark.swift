// zeader-bench mark: the reader's `C` (mark everything read) and `z` (its undo) as the
// reader runs them: `ReaderModel.markRead(nil)` → `ItemMarking.markRead(.all)` on the view
// context of a Zeader store (its model, its derived counts and its full-text index), then
// `ReaderModel.undo()` and `redo()`, each followed by the reads of the redraw the bus
// notification asks for (the feed list and the visible item rows).
import Feeds
import Foundation
import ObjectGraph
import ZeaderKit
import ZeaderTUI

func readerMarkBenchmark(count: Int, servers: Int) throws {
    let url = tempStore("mark")
    defer {
        removeStore(url)
        for version in 1...2 {
            try? FileManager.default.removeItem(atPath: MigrationPlan.backupPath(forStoreAt: url.path, version: version))
        }
    }
    // The store is built by another process, so that this one's memory is a reader's.
    let built = try Subprocess.run([CommandLine.arguments[0], "mark-build", url.path, String(count), String(servers)])
    guard built.termination == .exited(0) else { throw CocoaError(.fileWriteUnknown) }

    let store = try ZeaderStore.open(at: url)
    let model = ReaderModel(store: store)
    let view = model.context
    let notifications = NotificationCounter()
    let token = store.container.bus.observeObjectsDidChange(in: view) { _ in notifications.increment() }
    defer { token.cancel() }
    // What the reader holds: the feed list, and the first screen of the newest items.
    /// The feed list's total unread count, after reading what a redraw reads (the feed
    /// rows, and the rows of the 50 newest items).
    func redraw() throws -> Int {
        let rows = try model.feedRows()
        _ = try ItemOrder.itemIDs(limit: 50, in: view).compactMap { model.itemRow($0) }
        return rows.reduce(0) { $0 + $1.unread }
    }
    let unreadBefore = try view.performAndWait { try redraw() }
    print("The reader's C and z: \(count) items over \(servers) feeds, \(unreadBefore) unread; view context with undo manager")

    func step(_ label: String, expectUnread: Int, _ body: () throws -> Int) throws {
        let base = memory().rss
        let before = notifications.value
        resetPeakMemory()
        let ((changed, unread), timing) = try measure { () throws -> (Int, Int) in
            let changed = try view.performAndWait(body)
            return (changed, try view.performAndWait { try redraw() })
        }
        let peak = memory().peak
        let exact = try view.performAndWait { () throws -> Bool in
            let stored = try view.count(for: FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "read == NO")))
            let perFeed = try FeedEditing.servers(in: view).allSatisfy { server in
                Int(server.unreadCount)
                    == (try view.count(
                        for: FetchRequest<FeedItem>(
                            predicate: try ObjectPredicate(format: "server == %@ AND read == NO", server.objectID))))
            }
            return stored == unread && perFeed
        }
        print(
            String(
                format:
                    "%@ %6d items  %7.3f s wall  %7.3f s CPU  peak RSS %6.1f MiB (%.1f MiB before)  unread %d, counts exact: %@, bus notifications: %d",
                label.padding(toLength: 10, withPad: " ", startingAt: 0), changed, timing.wall, timing.cpu, peak, base, unread,
                exact && unread == expectUnread ? "yes" : "NO", notifications.value - before))
    }
    try step("C", expectUnread: 0) { try model.markRead(nil) }
    try step("z (undo)", expectUnread: unreadBefore) {
        guard try model.undo() == "Mark All Read" else {
            print("undo: not the step of C")
            return 0
        }
        return try view.count(for: FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "read == NO")))
    }
    try step("redo", expectUnread: 0) {
        guard try model.redo() == "Mark All Read" else {
            print("redo: not the step of C")
            return 0
        }
        return unreadBefore
    }
}

/// Builds the store of ``readerMarkBenchmark(count:servers:)`` at `path` (run in a child
/// process): `count` items over `servers` feeds, every third item read (100,000 items:
/// 66,667 unread), with titles, authors and summaries for the search index.
func buildReaderMarkStore(path: String, count: Int, servers: Int) throws {
    let store = try ZeaderStore.open(at: URL(fileURLWithPath: path))
    store.container.automaticallyMergesChangesIntoViewContext = false
    let ctx = store.container.newBackgroundContext(name: "build")
    let words = ["swift", "linux", "kernel", "release", "café", "terminal", "reader", "network", "parser", "weekend"]
    try ctx.performAndWait { () throws in
        var feeds: [Server] = []
        for s in 0..<servers {
            let server = ctx.insert(Server.self)
            server.url = "https://feed\(s).example/rss"
            server.title = "Feed \(s)"
            server.displayOrder = Int64(s)
            feeds.append(server)
        }
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for i in 0..<count {
            let item = ctx.insert(FeedItem.self)
            item.guid = "guid-\(i)"
            item.title = "Item \(i) about \(words[i % words.count]) and \(words[(i / 7) % words.count])"
            item.author = "Author \(i % 97)"
            item.summary = "A summary of item \(i): \(words[(i / 3) % words.count]) \(words[(i / 11) % words.count]) news."
            item.link = "https://feed\(i % servers).example/\(i)"
            item.published = start.addingTimeInterval(Double(i))
            item.firstSeen = item.published
            item.sortDate = item.published
            item.read = i % 3 == 2
            item.server = feeds[i % servers]
            if (i + 1) % 10_000 == 0 {
                try ctx.save()
                ctx.reset()
                feeds = try FeedEditing.servers(in: ctx)
            }
        }
        try ctx.save()
    }
    try store.container.store.close()
}
