import Foundation

/// A set of server item ids as compact text for store metadata: sorted, each the
/// difference from the one before, in base 36, comma-separated (FreshRSS's ids are
/// microsecond times, close together: their differences are short).
///
/// ```swift
/// let text = SyncIDList.encode([31, 7])          // "7,o"
/// let ids = SyncIDList.decode(text)              // [7, 31]
/// ```
public enum SyncIDList {
    public static func encode(_ ids: Set<UInt64>) -> String {
        var text = ""
        text.reserveCapacity(ids.count * 8)
        var previous: UInt64 = 0
        for id in ids.sorted() {
            if !text.isEmpty { text += "," }
            text += String(id - previous, radix: 36)
            previous = id
        }
        return text
    }

    /// The ids, or nil when `text` is not such a list.
    public static func decode(_ text: String) -> Set<UInt64>? {
        var ids = Set<UInt64>()
        var previous: UInt64 = 0
        for part in text.split(separator: ",", omittingEmptySubsequences: false) where !text.isEmpty {
            guard let delta = UInt64(part, radix: 36) else { return nil }
            let (id, overflow) = previous.addingReportingOverflow(delta)
            if overflow { return nil }
            ids.insert(id)
            previous = id
        }
        return ids
    }
}
