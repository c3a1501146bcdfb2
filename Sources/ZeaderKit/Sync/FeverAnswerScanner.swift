import Foundation

/// Reads a Fever answer (`{"auth":1,"items":[{"id":"12","feed_id":3,"title":…},…]}`, or an id
/// list) straight from its bytes into the ``FeverClient/Answer`` JSONDecoder would make: no
/// tree of the document, no keyed container per item, a string made only for a member kept
/// (a first sync reads every item in pages of 50; docs/PERFORMANCE.md, "Sync").
///
/// It reads only what it can read exactly as JSONDecoder does: a member of another kind than
/// the type's (`"title":7`), a number with a sign, fraction or exponent, a key given twice,
/// an item without an id, `feeds` or `groups` (one answer a sync), or anything not
/// well-formed gives nil, and the caller decodes the answer with JSONDecoder, which then
/// gives what it always gave, its error included.
///
/// ```swift
/// let answer = FeverAnswerScanner.scan(Data(#"{"auth":1,"items":[{"id":"12","is_read":0}]}"#.utf8))
/// // answer?.items?.first?.id.value == 12
/// ```
enum FeverAnswerScanner {
    static func scan(_ data: Data) -> FeverClient.Answer? {
        data.withUnsafeBytes { raw in
            var cursor = JSONCursor(raw.bindMemory(to: UInt8.self))
            var answer = FeverClient.Answer()
            var seen = Members()
            let read = cursor.object(exact: true) { cursor, key in
                switch key {
                case "auth":
                    guard seen.first(0) else { return false }
                    if cursor.takeNull() { return true }
                    guard case .unsigned(let value) = cursor.number(), value <= UInt64(Int.max) else { return false }
                    answer.auth = Int(value)
                    return true
                case "items":
                    guard seen.first(1) else { return false }
                    if cursor.takeNull() { return true }
                    var items: [FeverClient.Item] = []
                    let read = cursor.array { cursor in
                        guard let item = self.item(&cursor) else { return false }
                        items.append(item)
                        return true
                    }
                    answer.items = items
                    return read
                case "unread_item_ids": return seen.first(2) && string(&cursor, into: &answer.unreadItemIDs)
                case "saved_item_ids": return seen.first(3) && string(&cursor, into: &answer.savedItemIDs)
                case "feeds", "groups", "feeds_groups": return false
                default: return cursor.skipExact(depth: 1)
                }
            }
            return read && cursor.atEnd() ? answer : nil
        }
    }

    /// The members an object has given, to refuse one given twice (which JSONDecoder reads
    /// its own way).
    struct Members {
        var bits: UInt16 = 0

        /// Whether member `index` comes for the first time; it is then marked.
        mutating func first(_ index: Int) -> Bool {
            let bit = UInt16(1) << index
            defer { bits |= bit }
            return bits & bit == 0
        }
    }

    private static func item(_ cursor: inout JSONCursor) -> FeverClient.Item? {
        var item = FeverClient.Item(id: FeverNumber(value: nil))
        var seen = Members()
        let read = cursor.object(exact: true) { cursor, key in
            switch key {
            case "id":
                var id: FeverNumber?
                guard seen.first(0), number(&cursor, into: &id), let id else { return false }
                item.id = id
                return true
            case "feed_id": return seen.first(1) && number(&cursor, into: &item.feedID)
            case "title": return seen.first(2) && string(&cursor, into: &item.title)
            case "author": return seen.first(3) && string(&cursor, into: &item.author)
            case "html": return seen.first(4) && string(&cursor, into: &item.html)
            case "url": return seen.first(5) && string(&cursor, into: &item.url)
            case "is_saved": return seen.first(6) && number(&cursor, into: &item.isSaved)
            case "is_read": return seen.first(7) && number(&cursor, into: &item.isRead)
            case "created_on_time": return seen.first(8) && number(&cursor, into: &item.createdOnTime)
            default: return cursor.skipExact(depth: 2)
            }
        }
        // JSONDecoder refuses an item without an id: so does the caller's decode.
        return read && seen.bits & 1 != 0 ? item : nil
    }

    /// A `String?` member: nil for null; false for a value of another kind.
    static func string(_ cursor: inout JSONCursor, into value: inout String?) -> Bool {
        if cursor.takeNull() {
            value = nil
            return true
        }
        value = cursor.exactString()
        return value != nil
    }

    /// A ``FeverNumber`` member as it decodes a whole number or a string; nil for null; false
    /// for a number with a sign, fraction or exponent, or a value of another kind.
    static func number(_ cursor: inout JSONCursor, into value: inout FeverNumber?) -> Bool {
        if cursor.takeNull() {
            value = nil
            return true
        }
        if cursor.atString() {
            guard let text = cursor.exactString() else { return false }
            value = FeverNumber(value: UInt64(text))
            return true
        }
        guard case .unsigned(let number) = cursor.number() else { return false }
        value = FeverNumber(value: number)
        return true
    }
}

extension FeverNumber {
    init(value: UInt64?) { self.value = value }
}
