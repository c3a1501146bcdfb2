import Foundation
import ObjectGraph

/// Tags on feeds and flags on items (model version 2).
extension FeedLibrary {
    /// Adds `add` to the tags of the feed `url` and takes `remove` away (ignoring case).
    /// Returns the feed's tags afterwards, sorted.
    ///
    /// ```swift
    /// try library.tag(url: "https://lwn.net/headlines/rss", add: ["linux", "news"])
    /// try library.tag(url: "https://lwn.net/headlines/rss", remove: ["news"])   // ["linux"]
    /// ```
    @discardableResult
    public func tag(url: String, add: [String] = [], remove: [String] = []) throws(ZeaderError) -> [String] {
        try withContext { context in
            try FeedEditing.tag(try FeedEditing.server(url: url, in: context).objectID, add: add, remove: remove, in: context)
        }
    }

    /// Every tag in use, sorted, with the number of feeds carrying it.
    ///
    /// ```swift
    /// for (tag, feeds) in try library.tags() { print(tag, feeds) }
    /// ```
    public func tags() throws(ZeaderError) -> [(tag: String, feeds: Int)] {
        let all = try servers().flatMap(\.tags)
        var counts: [String: (tag: String, feeds: Int)] = [:]
        for tag in all { counts[tag.lowercased(), default: (tag, 0)].feeds += 1 }
        return counts.values.sorted { ($0.tag.lowercased(), $0.tag) < ($1.tag.lowercased(), $1.tag) }
    }

    /// Flags (or, with `flagged: false`, unflags) items: those `ids` name (``ItemID``: the guid, or a synced item's `greader:` id) (in
    /// the feed `feed` when given), or every item of `feed` when `ids` is empty. Returns how
    /// many items changed. An id that matches no item is an error naming it, and nothing
    /// is changed.
    ///
    /// ```swift
    /// try library.setFlag(true, ids: ["tag:example.org,2024:42"])
    /// try library.setFlag(false, feed: "https://example.org/feed.xml")   // unflag a whole feed
    /// ```
    @discardableResult
    public func setFlag(_ flagged: Bool, ids: [String] = [], feed: String? = nil) throws(ZeaderError) -> Int {
        guard !ids.isEmpty || feed != nil else {
            throw ZeaderError.noItemsNamed(flagging: flagged)
        }
        defer { store.checkpoint() }
        return try withContext { context in
            var predicate = ObjectPredicate.true
            if let feed {
                guard try Server.findFirst(byAttribute: "url", value: .string(feed), in: context) != nil else {
                    throw ZeaderError.missingFeed(feed)
                }
                predicate = .comparison(.keyPath("server.url"), .equalTo, .constant(.string(feed)))
            }
            if !ids.isEmpty {
                predicate = predicate && ItemID.predicate(ids)
            }
            let items = try context.fetch(FetchRequest<FeedItem>(predicate: predicate))
            if let missing = ItemID.firstUnmatched(ids, in: items) {
                throw ZeaderError.missingItem(missing, feed: feed)
            }
            return try ItemMarking.setFlagged(items.map(\.objectID), flagged, in: context)
        }
    }
}
