import Foundation

/// Reads a `stream/items/contents` answer (`{"items":[{"id":…,"title":…,"summary":{"content":…},…}]}`)
/// straight from its bytes into ``GReaderClient/Item``s: a string is made only for a
/// member an item keeps, and the document is never held as a tree, as JSONDecoder's map
/// of each page and keyed container per object would be (docs/PERFORMANCE.md, "Tuning
/// in the code").
///
/// Members an item does not keep are skipped, whatever they hold; a member of the wrong
/// kind (a number where a title goes) counts as absent, and an item without an id is left
/// out. A document that is not well-formed JSON, or whose `items` is not a list of
/// objects, gives nil.
///
/// ```swift
/// let items = ItemContentsScanner.scan(Data(#"{"items":[{"id":"31","title":"Hello"}]}"#.utf8))
/// // items?.first?.title == "Hello"
/// ```
enum ItemContentsScanner {
    static func scan(_ data: Data) -> [GReaderClient.Item]? {
        data.withUnsafeBytes { raw in
            var cursor = JSONCursor(raw.bindMemory(to: UInt8.self))
            var items: [GReaderClient.Item] = []
            let read = cursor.object { cursor, key in
                guard key == "items" else { return cursor.skipValue(depth: 0) }
                if cursor.takeNull() { return true }
                return cursor.array { cursor in
                    guard let item = self.item(&cursor) else { return false }
                    if let item = item.value { items.append(item) }
                    return true
                }
            }
            return read && cursor.atEnd() ? items : nil
        }
    }

    /// Boxes "an object that was read" apart from "the item it held" (none without an id).
    private struct Read<T> { var value: T? }

    private static func item(_ cursor: inout JSONCursor) -> Read<GReaderClient.Item>? {
        var id: String?
        var item = GReaderClient.Item(id: "")
        let read = cursor.object { cursor, key in
            switch key {
            case "id": return optionalString(&cursor, into: &id)
            case "title": return optionalString(&cursor, into: &item.title)
            case "guid": return optionalString(&cursor, into: &item.guid)
            case "author": return optionalString(&cursor, into: &item.author)
            case "published": return cursor.integer(into: &item.published)
            case "updated": return cursor.integer(into: &item.updated)
            case "canonical": return links(&cursor, into: &item.canonical)
            case "alternate": return links(&cursor, into: &item.alternate)
            case "categories":
                guard cursor.skipSpaceAndPeek() == UInt8(ascii: "[") else { return cursor.skipValue(depth: 2) }
                var categories: [String] = []
                let read = cursor.array { cursor in
                    if cursor.atString() {
                        guard let category = cursor.string() else { return false }
                        categories.append(category)
                        return true
                    }
                    return cursor.skipValue(depth: 3)
                }
                item.categories = categories
                return read
            case "origin":
                var streamID: String?
                let read = member("streamId", of: &cursor) { optionalString(&$0, into: &streamID) }
                if let streamID { item.origin = .init(streamId: streamID) }
                return read
            case "summary":
                var content: String?
                let read = member("content", of: &cursor) { optionalString(&$0, into: &content) }
                if let content { item.summary = .init(content: content) }
                return read
            case "content":
                var content: String?
                let read = member("content", of: &cursor) { optionalString(&$0, into: &content) }
                if let content { item.content = .init(content: content) }
                return read
            default:
                return cursor.skipValue(depth: 2)
            }
        }
        guard read else { return nil }
        guard let id, !id.isEmpty else { return Read(value: nil) }
        item.id = id
        return Read(value: item)
    }

    /// A string member: its value, or nil for null or a value of another kind (skipped).
    private static func optionalString(_ cursor: inout JSONCursor, into value: inout String?) -> Bool {
        if cursor.atString() {
            value = cursor.string()
            return value != nil
        }
        value = nil
        return cursor.skipValue(depth: 3)
    }

    /// One member `name` of an object value (the others skipped); a value that is not an
    /// object is skipped.
    private static func member(_ name: StaticString, of cursor: inout JSONCursor, _ read: (inout JSONCursor) -> Bool) -> Bool {
        guard cursor.skipSpaceAndPeek() == UInt8(ascii: "{") else { return cursor.skipValue(depth: 2) }
        return cursor.object { cursor, key in key == name ? read(&cursor) : cursor.skipValue(depth: 3) }
    }

    /// `[{"href":…},…]`: the links; anything else is skipped.
    private static func links(_ cursor: inout JSONCursor, into links: inout [GReaderClient.Item.Link]?) -> Bool {
        guard cursor.skipSpaceAndPeek() == UInt8(ascii: "[") else { return cursor.skipValue(depth: 2) }
        var list: [GReaderClient.Item.Link] = []
        let read = cursor.array { cursor in
            var href: String?
            guard member("href", of: &cursor, { optionalString(&$0, into: &href) }) else { return false }
            list.append(.init(href: href))
            return true
        }
        links = list
        return read
    }
}
