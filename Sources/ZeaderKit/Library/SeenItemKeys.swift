import Foundation

/// The items one import has met, by a 32-bit hash of feed and guid. A file may list an item
/// again anywhere (newsboat keys items by its own id; a hand-edited backup may repeat one), and
/// an item stored by an earlier part of the same run must be found, not inserted twice: four
/// bytes an item rather than its guid. A hash met before only makes the item looked up, so a
/// collision costs a query, never an item.
///
/// ```swift
/// var seen = SeenItemKeys()
/// if seen.insert(feed: url, guid: guid) { /* look the item up, pending changes included */ }
/// ```
struct SeenItemKeys {
    private var hashes = Set<UInt32>()

    /// Records the item; true when its hash was met before (the item may be stored).
    mutating func insert(feed: String, guid: String) -> Bool {
        var hasher = Hasher()
        hasher.combine(feed)
        hasher.combine(guid)
        return !hashes.insert(UInt32(truncatingIfNeeded: hasher.finalize())).inserted
    }
}
