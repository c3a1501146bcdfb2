import Foundation

/// Reads a `stream/items/ids` answer (`{"itemRefs":[{"id":"123",…},…],"continuation":"…"}`)
/// straight from its bytes: the ids as numbers and the continuation, with no JSON tree and
/// no string per id: JSONDecoder's map of the document and a heap string per id would be
/// most of a sync's peak heap (docs/PERFORMANCE.md, "Tuning in the code").
///
/// Other members and the members of each ref are skipped, whatever they hold. An id in
/// neither the decimal nor the long hex form, or above `ceiling`, or 0, is left out, as
/// ``GReaderClient/items(_:)`` does. Past `keepingAtMost` ids the rest are read but not
/// kept (`overflowed`): one page cannot hold more than its list may. A document that is not
/// well-formed JSON of that shape gives nil.
///
/// ```swift
/// let page = ItemRefScanner.scan(Array(#"{"itemRefs":[{"id":"31"}],"continuation":"c2"}"#.utf8))
/// // page?.ids == [31], page?.continuation == "c2"
/// ```
struct ItemRefScanner {
    struct Page: Equatable {
        var ids: [UInt64] = []
        var continuation: String?
        /// More ids than `keepingAtMost` were listed.
        var overflowed = false
    }

    /// What a page may hold.
    struct Bounds {
        var keepingAtMost = Int.max
        var ceiling = UInt64.max
    }

    /// The page in `data` (read in place).
    static func scan(_ data: Data, keepingAtMost: Int = .max, ceiling: UInt64 = .max) -> Page? {
        data.withUnsafeBytes { raw in
            var cursor = JSONCursor(raw.bindMemory(to: UInt8.self))
            return document(&cursor, Bounds(keepingAtMost: keepingAtMost, ceiling: ceiling))
        }
    }

    static func scan(_ bytes: [UInt8], keepingAtMost: Int = .max, ceiling: UInt64 = .max) -> Page? {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = JSONCursor(buffer)
            return document(&cursor, Bounds(keepingAtMost: keepingAtMost, ceiling: ceiling))
        }
    }

    private static func document(_ cursor: inout JSONCursor, _ bounds: Bounds) -> Page? {
        var page = Page()
        let read = cursor.object { cursor, key in
            switch key {
            case "itemRefs":
                return cursor.takeNull() || refs(&cursor, into: &page, bounds)
            case "continuation":
                if cursor.takeNull() { return true }
                page.continuation = cursor.string()
                return page.continuation != nil
            default:
                return cursor.skipValue(depth: 0)
            }
        }
        return read && cursor.atEnd() ? page : nil
    }

    private static func refs(_ cursor: inout JSONCursor, into page: inout Page, _ bounds: Bounds) -> Bool {
        cursor.array { cursor in
            cursor.object { cursor, key in
                guard key == "id" else { return cursor.skipValue(depth: 1) }
                guard let id = cursor.string() else { return false }
                guard let number = GReaderClient.number(id), number >= 1, number <= bounds.ceiling else { return true }
                if page.ids.count < bounds.keepingAtMost { page.ids.append(number) } else { page.overflowed = true }
                return true
            }
        }
    }
}
