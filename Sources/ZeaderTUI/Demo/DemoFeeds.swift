import Feeds
import Foundation
import ObjectGraph
import ZeaderKit

/// The offline demo: the feeds of `Resources/demo` (compiled in), parsed into a store,
/// with a smart feed, a few items already read, and a killfile rule (``killfileExample``)
/// that hides Zeader News's sponsored post, as an `ignore` line of the config file would.
///
/// ```swift
/// let store = try ZeaderStore.inMemory()
/// try DemoFeeds.load(into: store)
/// ```
public enum DemoFeeds {
    /// Parses every demo feed and saves it into `store` as subscriptions with items.
    public static func load(into store: ZeaderStore) throws {
        let rules = [try Killfile.compile(killfileExample)]
        let context = store.container.newBackgroundContext(name: "demo")
        try context.performAndWait {
            for (order, file) in files.enumerated() {
                let url = "file:///usr/share/zeader/demo/\(file.name)"
                let feed = try FeedParser.parse(data: Data(file.text.utf8), url: URL(string: url))
                let fetched = Date(timeIntervalSince1970: 1_795_248_000)  // 2026-11-21 08:00 UTC
                let server = try FeedSubscription.add(url: url, in: context)
                server.displayOrder = Int64(order)
                ItemImport.updateDetails(of: server, from: feed)
                _ = try ItemImport.upsert(feed.items, into: server, in: context, now: fetched, ignoring: rules)
                server.lastRefresh = fetched
            }
            let smart = context.insert(SmartFeed.self)
            smart.title = "Unread about Swift"
            smart.predicateFormat = #"read == NO AND (title CONTAINS[cd] "swift" OR summary CONTAINS[cd] "swift")"#
            try context.save()
            // One item already read, so both kinds show.
            for item in try context.fetch(
                FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "guid == %@", "zeader-undo")))
            {
                item.read = true
            }
            try context.save()
        }
    }

    /// The demo's killfile: `ignore * title BEGINSWITH[c] "Sponsored"`.
    public static let killfileExample = Killfile.Rule(scope: .all, predicateFormat: #"title BEGINSWITH[c] "Sponsored""#)
}
