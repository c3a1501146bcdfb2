import Foundation

/// An item's own tags (``FeedItem/tags``) as a sync service's labels on the item (the Google
/// Reader API's `user/-/label/NAME` on an item, sent with `edit-tag`, listed among the item's
/// `categories`): which categories are item labels, what a push sends and what a pull keeps.
///
/// A sync keeps each synced item's labels as it last left them on the server (by the item's
/// server id, in store metadata): a push sends the tags added and removed here since, so that a
/// tag changed by hand, by a rule, by undo or by a restore is pushed alike, and a pull merges
/// a pulled item's labels with its tags as ``SyncLabels`` merges a feed's.
///
/// ```swift
/// ItemLabels.labels(inCategories: ["user/-/state/com.google/read", "user/-/label/later"], folders: [])   // ["later"]
/// ItemLabels.changes(tags: "later,work", kept: ["later", "old"])   // (add: ["work"], remove: ["old"])
/// ```
public enum ItemLabels {
    /// The item labels among `categories`: `user/<id>/label/NAME` (the user's own, `-` or a
    /// number), cleaned as tags are (``FeedTags/clean(_:)``). States (`user/-/state/…`) are not
    /// labels; nor is a label naming one of the item's feed's `folders` (any case): a server
    /// lists the feed's folder on each of its items, and it is the feed's tag, not the item's.
    ///
    /// ```swift
    /// ItemLabels.labels(inCategories: ["user/-/label/Tech", "user/-/label/later"], folders: ["tech"])   // ["later"]
    /// ```
    public static func labels(inCategories categories: [String], folders: [String]) -> [String] {
        labels(inCategories: categories, lowercasedFolders: Set(folders.map { $0.lowercased() }))
    }

    /// ``labels(inCategories:folders:)`` with the folders lowercased once: a pull asks this
    /// for every item, and most categories are states or the feed's folder.
    static func labels(inCategories categories: [String], lowercasedFolders folders: Set<String>) -> [String] {
        var seen = Set<String>()
        var labels: [String] = []
        for category in categories {
            // Read from the bytes, not split: most categories are states, and every item has some.
            let bytes = category.utf8
            guard bytes.starts(with: "user/".utf8) else { continue }
            let id = bytes.index(bytes.startIndex, offsetBy: 5)
            guard let slash = bytes[id...].firstIndex(of: UInt8(ascii: "/")), slash > id,
                !category[id..<slash].contains(where: \.isWhitespace)
            else { continue }
            let kind = bytes[bytes.index(after: slash)...]
            guard kind.starts(with: "label/".utf8),
                let label = FeedTags.clean(String(category[bytes.index(kind.startIndex, offsetBy: 6)...]))
            else { continue }
            let key = label.lowercased()
            guard !folders.contains(key), seen.insert(key).inserted else { continue }
            labels.append(label)
        }
        return labels
    }

    /// What a push sends for an item whose tags are `tags` (as stored) and whose labels the
    /// last sync left as `kept`: the tags it lacks there, and the labels no longer tags here
    /// (compared ignoring case, as tags are).
    ///
    /// ```swift
    /// ItemLabels.changes(tags: nil, kept: ["later"])   // (add: [], remove: ["later"])
    /// ```
    public static func changes(tags: String?, kept: [String]) -> (add: [String], remove: [String]) {
        let local = FeedTags.list(tags)
        let localLowercased = Set(local.map { $0.lowercased() })
        let keptLowercased = Set(kept.map { $0.lowercased() })
        return (
            local.filter { !keptLowercased.contains($0.lowercased()) },
            kept.filter { !localLowercased.contains($0.lowercased()) }
        )
    }

    /// Store metadata: each synced item's labels as the last sync left them on the server, by
    /// the item's server id (``SyncLabels/encode(_:)``'s JSON); an item without labels is left out.
    static let keptKey = "zeader.sync.itemLabels"
}
