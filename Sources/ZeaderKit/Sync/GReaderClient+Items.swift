import Feeds
import Foundation

// Items: `stream/items/contents` and the two forms of an item id.
extension GReaderClient {
    /// One item of `stream/items/contents`.
    public struct Item: Sendable, Decodable {
        public var id: String
        /// The entry's own guid, where the server sends one (FreshRSS's `stream/items/contents`
        /// does not): the first identity a feed's history is matched by (``ItemIdentity``).
        public var guid: String?
        public var title: String?
        public var published: Int64?
        public var updated: Int64?
        public var author: String?
        public var canonical: [Link]?
        public var alternate: [Link]?
        public var categories: [String]?
        public var origin: Origin?
        public var summary: Content?
        public var content: Content?

        public struct Link: Sendable, Decodable { public var href: String? }
        public struct Origin: Sendable, Decodable { public var streamId: String? }
        public struct Content: Sendable, Decodable { public var content: String? }

        /// The item's id as a decimal number (servers give `tag:google.com,2005:reader/item/<hex>`).
        public var decimalID: String? { GReaderClient.decimalID(id) }
        public var link: String? { (canonical ?? []).first?.href ?? (alternate ?? []).first?.href }
        public var isRead: Bool { categories?.contains { $0.hasSuffix("/state/com.google/read") } ?? false }
        public var isStarred: Bool { categories?.contains { $0.hasSuffix("/state/com.google/starred") } ?? false }
    }

    /// The long form's hex tail as a decimal number; a decimal id as it is.
    static func decimalID(_ id: String) -> String? {
        if isDecimal(id) { return id }
        return hexTail(id).map { String($0) }
    }

    /// An item id in either form as a number.
    static func number(_ id: String) -> UInt64? {
        isDecimal(id) ? UInt64(id) : hexTail(id)
    }

    /// Digits only, with no leading zero (the long form's tail can be all digits too, but
    /// is 16 characters with leading zeros). Looks at the UTF-8 bytes: this runs for every
    /// item a sync pulls (docs/PERFORMANCE.md, "Tuning in the code").
    private static func isDecimal(_ id: String) -> Bool {
        let bytes = id.utf8
        guard let first = bytes.first, first != UInt8(ascii: "0") || bytes.count == 1 else { return false }
        return bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The hex digits after the last `/` as a number (by bytes: this runs for every item a
    /// sync pulls; docs/PERFORMANCE.md, "Tuning in the code").
    private static func hexTail(_ id: String) -> UInt64? {
        let bytes = id.utf8
        let start = bytes.lastIndex(of: UInt8(ascii: "/")).map(bytes.index(after:)) ?? bytes.startIndex
        var value: UInt64 = 0
        var digits = 0
        for byte in bytes[start...] {
            guard let digit = JSONCursor.hexDigit(byte) else { return nil }
            guard value >> 60 == 0 else { return nil }  // more than 64 bits
            value = value << 4 | UInt64(digit)
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// `stream/items/contents` of the items `ids` (decimal).
    public func items(_ ids: [String]) async throws(SyncError) -> [Item] {
        guard !ids.isEmpty else { return [] }
        let data = try await post("reader/api/0/stream/items/contents", ids.map { ("i", $0) })
        guard let items = ItemContentsScanner.scan(data) else {
            throw .badResponse(request: "stream/items/contents", reason: "not a JSON list of items")
        }
        // Ids enter here and in itemIDs: one out of range is refused, never stored.
        let ceiling = Self.itemIDCeiling(now: Date())
        return items.filter { item in Self.number(item.id).map { $0 >= 1 && $0 <= ceiling } ?? false }
    }
}
