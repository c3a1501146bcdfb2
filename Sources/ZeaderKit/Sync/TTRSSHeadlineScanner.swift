import Foundation

/// Reads a Tiny Tiny RSS answer of headlines (`getHeadlines`, `getArticle`:
/// `{"seq":0,"status":0,"content":[{"id":8,"feed_id":1,"title":…},…]}`) straight from its
/// bytes into the ``TTRSSClient/Envelope`` JSONDecoder would make: no tree of the document, no
/// keyed container per row, and with `idsOnly` no string at all, every member but `id` and
/// `feed_id` skipped (a sync lists every unread item only for its id;
/// docs/PERFORMANCE.md, "Sync").
///
/// Rows are read as leniently as ``TTRSSClient/Headline`` reads them (a member of another
/// kind reads as missing). What it cannot read exactly as JSONDecoder would gives nil and the
/// caller decodes the answer with JSONDecoder, which then gives what it always gave: a status
/// other than 0, content that is not a list of objects, a number with a sign, fraction or
/// exponent where a number is kept, a key given twice, or anything not well-formed.
///
/// ```swift
/// let answer = TTRSSHeadlineScanner.scan(Data(#"{"status":0,"content":[{"id":8,"feed_id":1}]}"#.utf8), idsOnly: true)
/// // answer == .content([Headline with id 8 and feedID 1])
/// ```
enum TTRSSHeadlineScanner {
    typealias Headline = TTRSSClient.Headline

    static func scan(_ data: Data, idsOnly: Bool) -> TTRSSClient.Envelope<[Headline]>? {
        data.withUnsafeBytes { raw in
            var cursor = JSONCursor(raw.bindMemory(to: UInt8.self))
            var status: FeverNumber?
            var rows: [Headline]?
            var seen = FeverAnswerScanner.Members()
            let read = cursor.object(exact: true) { cursor, key in
                switch key {
                case "status":
                    return seen.first(0) && FeverAnswerScanner.number(&cursor, into: &status)
                case "content":
                    guard seen.first(1), cursor.skipSpaceAndPeek() == UInt8(ascii: "[") else { return false }
                    var list: [Headline] = []
                    let read = cursor.array { cursor in
                        guard let row = self.row(&cursor, idsOnly: idsOnly) else { return false }
                        list.append(row)
                        return true
                    }
                    rows = list
                    return read
                default:
                    return cursor.skipExact(depth: 1)
                }
            }
            guard read, cursor.atEnd(), status?.value == 0, let rows else { return nil }
            return .content(rows)
        }
    }

    private static func row(_ cursor: inout JSONCursor, idsOnly: Bool) -> Headline? {
        var row = Headline()
        var seen = FeverAnswerScanner.Members()
        let read = cursor.object(exact: true) { cursor, key in
            switch key {
            case "id": return seen.first(0) && number(&cursor, into: &row.id)
            case "feed_id": return seen.first(1) && number(&cursor, into: &row.feedID)
            default: break
            }
            if idsOnly { return cursor.skipExact(depth: 2) }
            switch key {
            case "title": return seen.first(2) && string(&cursor, into: &row.title)
            case "link": return seen.first(3) && string(&cursor, into: &row.link)
            case "author": return seen.first(4) && string(&cursor, into: &row.author)
            case "content": return seen.first(5) && string(&cursor, into: &row.content)
            case "updated": return seen.first(6) && number(&cursor, into: &row.updated)
            case "unread": return seen.first(7) && flag(&cursor, into: &row.unread)
            case "marked": return seen.first(8) && flag(&cursor, into: &row.marked)
            default: return cursor.skipExact(depth: 2)
            }
        }
        return read ? row : nil
    }

    /// A number as ``FeverNumber`` reads it, a value of another kind as missing; false for a
    /// number with a sign, fraction or exponent.
    private static func number(_ cursor: inout JSONCursor, into value: inout UInt64?) -> Bool {
        value = nil
        switch cursor.skipSpaceAndPeek() ?? 0 {
        case UInt8(ascii: "\""), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "n"):
            var number: FeverNumber?
            guard FeverAnswerScanner.number(&cursor, into: &number) else { return false }
            value = number?.value
            return true
        default:
            return cursor.skipExact(depth: 2)
        }
    }

    /// A string, a value of another kind as missing.
    private static func string(_ cursor: inout JSONCursor, into value: inout String?) -> Bool {
        if cursor.atString() {
            value = cursor.exactString()
            return value != nil
        }
        value = nil
        return cursor.skipExact(depth: 2)
    }

    /// A yes or no as ``TTRSSFlag`` reads it: a boolean, 1 or 0, `t`, `true`, `1`, `f`…; a
    /// value of another kind as missing; false for a number with a fraction or exponent.
    private static func flag(_ cursor: inout JSONCursor, into value: inout Bool?) -> Bool {
        value = nil
        switch cursor.skipSpaceAndPeek() ?? 0 {
        case UInt8(ascii: "\""):
            guard let text = cursor.exactString() else { return false }
            switch text.lowercased() {
            case "t", "true", "1": value = true
            case "f", "false", "0", "": value = false
            default: break
            }
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            switch cursor.number() {
            case .unsigned(let number): value = number == 1 ? true : number == 0 ? false : nil
            case .negative(let number) where number != 0: value = nil
            default: return false
            }
            return true
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            value = cursor.skipSpaceAndPeek() == UInt8(ascii: "t")
            return cursor.skipExact(depth: 2)
        default:
            return cursor.skipExact(depth: 2)
        }
    }
}

extension TTRSSClient.Headline {
    /// A row with nothing read yet.
    init() {}
}
