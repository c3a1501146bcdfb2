import Foundation

/// Reads a `stream/items/ids` answer (`{"itemRefs":[{"id":"123",…},…],"continuation":"…"}`)
/// straight from its bytes: the ids as numbers and the continuation, with no JSON tree and
/// no string per id. A list of 20,000 ids is 600 KB of JSON; decoding it with JSONDecoder
/// held about 2.7 MB (its map of the document and a heap string per 16-digit id), which
/// was most of a sync's peak heap.
///
/// Other members and the members of each ref are skipped, whatever they hold. An id in
/// neither the decimal nor the long hex form is left out, as ``GReaderClient/number(_:)``
/// does. A document that is not well-formed JSON of that shape gives nil.
///
/// ```swift
/// let page = ItemRefScanner.scan(Array(#"{"itemRefs":[{"id":"31"}],"continuation":"c2"}"#.utf8))
/// // page?.ids == [31], page?.continuation == "c2"
/// ```
struct ItemRefScanner {
    struct Page: Equatable {
        var ids: [UInt64] = []
        var continuation: String?
    }

    private let bytes: [UInt8]
    private var at = 0
    /// Nesting allowed in skipped values (hostile input cannot recurse without bound).
    private static let maxDepth = 64

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    static func scan(_ bytes: [UInt8]) -> Page? {
        var scanner = ItemRefScanner(bytes)
        return scanner.document()
    }

    private mutating func document() -> Page? {
        var page = Page()
        guard take(UInt8(ascii: "{")) else { return nil }
        if take(UInt8(ascii: "}")) { return finished(page) }
        repeat {
            guard let key = string() else { return nil }
            guard take(UInt8(ascii: ":")) else { return nil }
            switch key {
            case "itemRefs":
                if takeNull() { break }
                guard refs(into: &page.ids) else { return nil }
            case "continuation":
                if takeNull() { break }
                guard let value = string() else { return nil }
                page.continuation = value
            default:
                guard skipValue(depth: 0) else { return nil }
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { return nil }
        return finished(page)
    }

    private mutating func finished(_ page: Page) -> Page? {
        skipSpace()
        return at == bytes.count ? page : nil
    }

    private mutating func refs(into ids: inout [UInt64]) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        repeat {
            guard take(UInt8(ascii: "{")) else { return false }
            if take(UInt8(ascii: "}")) { continue }
            repeat {
                guard let key = string(), take(UInt8(ascii: ":")) else { return false }
                if key == "id" {
                    guard let id = string() else { return false }
                    if let number = GReaderClient.number(id) { ids.append(number) }
                } else if !skipValue(depth: 1) {
                    return false
                }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]"))
    }

    // MARK: - JSON pieces

    private mutating func skipSpace() {
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 {
            at += 1
        }
    }

    /// Skips space, then takes `byte` if it is next.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard at < bytes.count, bytes[at] == byte else { return false }
        at += 1
        return true
    }

    private mutating func takeNull() -> Bool {
        skipSpace()
        guard bytes[at...].starts(with: "null".utf8) else { return false }
        at += 4
        return true
    }

    /// A string; its escapes decoded (by JSONDecoder, for the rare string that has any).
    private mutating func string() -> String? {
        skipSpace()
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return nil }
        let start = at
        at += 1
        var escaped = false
        while at < bytes.count {
            switch bytes[at] {
            case UInt8(ascii: "\""):
                at += 1
                if !escaped { return String(decoding: bytes[(start + 1)..<(at - 1)], as: UTF8.self) }
                return try? JSONDecoder().decode(String.self, from: Data(bytes[start..<at]))
            case UInt8(ascii: "\\"):
                escaped = true
                at += 2
            case 0..<0x20:
                return nil  // a control character must be escaped
            default:
                at += 1
            }
        }
        return nil
    }

    private mutating func skipValue(depth: Int) -> Bool {
        skipSpace()
        guard at < bytes.count, depth < Self.maxDepth else { return false }
        switch bytes[at] {
        case UInt8(ascii: "\""):
            return string() != nil
        case UInt8(ascii: "{"):
            at += 1
            if take(UInt8(ascii: "}")) { return true }
            repeat {
                guard string() != nil, take(UInt8(ascii: ":")), skipValue(depth: depth + 1) else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            at += 1
            if take(UInt8(ascii: "]")) { return true }
            repeat {
                guard skipValue(depth: depth + 1) else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]"))
        default:
            // A number or a literal: the bytes up to the next delimiter.
            let start = at
            while at < bytes.count, !",}] \n\r\t".utf8.contains(bytes[at]) { at += 1 }
            let word = bytes[start..<at]
            if word.elementsEqual("true".utf8) || word.elementsEqual("false".utf8) || word.elementsEqual("null".utf8) {
                return true
            }
            return !word.isEmpty && word.allSatisfy { "0123456789+-.eE".utf8.contains($0) }
        }
    }
}
