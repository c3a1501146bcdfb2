import Foundation
import ObjectGraph

/// The id commands print for an item and take back: for an item the sync account has
/// (``FeedItem/syncID``) `greader:` and the server's item id in decimal, the same on every
/// device of the account whatever guid each device stored; for any other item its guid.
/// Commands that take ids accept both, and the server's id in its long form
/// (`tag:google.com,2005:reader/item/` and 16 hex digits).
///
/// ```swift
/// ItemID.printed(guid: "https://example.org/1", syncID: "1700000000000042")   // "greader:1700000000000042"
/// ItemID.serverID("GREADER:1700000000000042")                                  // "1700000000000042"
/// ```
public enum ItemID {
    /// The prefix of a synced item's id, as a sync stores it as a guid of an item with no link.
    public static let syncPrefix = "greader:"

    /// The id `zeader items --json` prints for an item with this guid and server id.
    ///
    /// ```swift
    /// ItemID.printed(guid: "a", syncID: nil)   // "a"
    /// ```
    public static func printed(guid: String, syncID: String?) -> String {
        syncID.map { syncPrefix + $0 } ?? guid
    }

    private static let longFormPrefix = "tag:google.com,2005:reader/item/"

    /// The server's decimal item id that `id` names (`greader:42`, the long form), or nil when
    /// it names none. The prefixes ignore case and surrounding white space, as a user types
    /// or pastes them; the number must be one a server could give (1 to 2⁶⁴ − 1).
    ///
    /// ```swift
    /// ItemID.serverID("tag:google.com,2005:reader/item/000000000000002a")   // "42"
    /// ItemID.serverID("https://example.org/1")                              // nil
    /// ```
    public static func serverID(_ id: String) -> String? {
        let text = id.trimmingCharacters(in: .whitespacesAndNewlines)
        let lowered = text.lowercased()
        if lowered.hasPrefix(syncPrefix) {
            let digits = text.dropFirst(syncPrefix.count)
            // Leading zeros are the same number; the stored form has none.
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let number = UInt64(digits),
                number > 0
            else { return nil }
            return String(number)
        }
        if lowered.hasPrefix(longFormPrefix) {
            let hex = text.dropFirst(longFormPrefix.count)
            guard hex.count == 16, let number = UInt64(hex, radix: 16), number > 0 else { return nil }
            return String(number)
        }
        return nil
    }

    /// Why an id can name no item at all, whatever the store holds.
    ///
    /// ```swift
    /// if ItemID.problem(with: "greader:x") == .notAServerNumber { print("not a server's id") }
    /// ```
    public enum Problem: Sendable, Equatable {
        /// Nothing but white space.
        case empty
        /// `greader:` without a number a server could give (1 to 2⁶⁴ − 1).
        case notAServerNumber
        /// The long form without 16 hex digits of a number a server could give.
        case notSixteenHexDigits
    }

    /// Why `id` names no item whatever the store holds (empty, a `greader:` or long-form id
    /// without its number), or nil for an id that could name one.
    ///
    /// ```swift
    /// ItemID.problem(with: " ")            // .empty
    /// ItemID.problem(with: "greader:42")   // nil
    /// ```
    public static func problem(with id: String) -> Problem? {
        let text = id.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return .empty }
        guard serverID(text) == nil else { return nil }
        let lowered = text.lowercased()
        if lowered.hasPrefix(syncPrefix) { return .notAServerNumber }
        if lowered.hasPrefix(longFormPrefix) { return .notSixteenHexDigits }
        return nil
    }

    /// The items `ids` name: a guid equal to one of them, or a server id one of them names.
    ///
    /// ```swift
    /// let request = FetchRequest<FeedItem>(predicate: ItemID.predicate(["greader:42", "a-guid"]))
    /// ```
    public static func predicate(_ ids: [String]) -> ObjectPredicate {
        let byGuid = ObjectPredicate.comparison(.keyPath("guid"), .in, .aggregate(ids.map { .constant(.string($0)) }))
        let serverIDs = ids.compactMap(serverID)
        guard !serverIDs.isEmpty else { return byGuid }
        return byGuid || .comparison(.keyPath("syncID"), .in, .aggregate(serverIDs.map { .constant(.string($0)) }))
    }

    /// The first of `ids` that names none of `items` (read on their context's queue), one that
    /// could name no item (``problem(with:)``) before the others; else nil.
    ///
    /// ```swift
    /// if let missing = ItemID.firstUnmatched(ids, in: items) { throw ZeaderError.noSuchItem(id: missing, feed: nil) }
    /// ```
    public static func firstUnmatched(_ ids: [String], in items: [FeedItem]) -> String? {
        var guids = Set<String>()
        var serverIDs = Set<String>()
        for item in items {
            guids.insert(item.guid)
            if let id = item.syncID { serverIDs.insert(id) }
        }
        let unmatched = ids.filter { id in !guids.contains(id) && !(serverID(id).map(serverIDs.contains) ?? false) }
        // A typing error is said before an id that is merely not stored.
        return unmatched.first { problem(with: $0) != nil } ?? unmatched.first
    }
}
