import Foundation
import ObjectGraph

/// A backup document read without parsing it all at once: the file is mapped, its
/// top-level keys located, and the elements of `feeds` and `items` found by a scan that
/// only tracks strings and nesting. Each record is parsed when it is asked for, so a
/// restore of a million items never holds more than one batch of them.
///
/// ```swift
/// let document = try BackupDocument(contentsOf: URL(fileURLWithPath: "backup.json"))
/// let first = try document.record(at: document.items[0], what: "item 1", path: "backup.json")
/// ```
struct BackupDocument: Sendable {
    /// Why a file is not a backup document.
    struct ReadError: Error, CustomStringConvertible {
        var description: String
        /// A JSON document that is not a Zeader backup at all (not a damaged one).
        var isAnotherKind = false
    }

    let data: Data
    /// Byte ranges of the elements of `feeds`, in order.
    let feeds: [Range<Int>]
    /// Byte ranges of the elements of `items`, in order.
    let items: [Range<Int>]
    var byteCount: Int { data.count }

    init(contentsOf url: URL) throws {
        try self.init(data: Data(contentsOf: url, options: .alwaysMapped))
    }

    init(data: Data) throws {
        self.data = data
        var feeds: [Range<Int>] = []
        var items: [Range<Int>] = []
        var format: String?
        var version: ImportValue?
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws in
            var scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self))
            // A UTF-8 byte order mark, as some editors save one (``FeedLibrary/looksLikeBackup(_:)`` allows it).
            if data.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.position = 3 }
            try scanner.expect(UInt8(ascii: "{"), "a JSON object")
            scanner.skipSpace()
            if scanner.peek == UInt8(ascii: "}") { return }
            while true {
                let keyStart = scanner.position
                try scanner.skipString()
                let key = try Self.decodeString(Data(raw[keyStart..<scanner.position]))
                try scanner.expect(UInt8(ascii: ":"), "':' after \"\(key)\"")
                scanner.skipSpace()
                switch key {
                case "feeds": feeds = try scanner.arrayElements(named: key)
                case "items": items = try scanner.arrayElements(named: key)
                case "format":
                    let start = scanner.position
                    try scanner.skipValue()
                    format = try? Self.decodeString(Data(raw[start..<scanner.position]))
                case "version":
                    let start = scanner.position
                    try scanner.skipValue()
                    version = try? ImportValue(json: Data(raw[start..<scanner.position]))
                default: try scanner.skipValue()
                }
                scanner.skipSpace()
                if scanner.peek == UInt8(ascii: ",") {
                    scanner.position += 1
                    scanner.skipSpace()
                    continue
                }
                try scanner.expect(UInt8(ascii: "}"), "',' or '}' after the value of \"\(key)\"")
                break
            }
        }
        guard format == FeedLibrary.backupFormat else {
            throw ReadError(
                description:
                    "not a Zeader backup (\"format\" is \(format.map { "\"\($0)\"" } ?? "missing"), expected \"\(FeedLibrary.backupFormat)\")",
                isAnotherKind: true
            )
        }
        if let version {
            // A missing version is the first one; any other than those this program reads
            // (``FeedLibrary/readableBackupVersions``) may mean fields it would misread, so
            // nothing is imported.
            let supported = FeedLibrary.backupVersion
            let readable = FeedLibrary.readableBackupVersions
            switch version {
            case .integer(let n) where readable.contains(n): break
            case .double(let n) where n.rounded() == n && readable.contains(Int64(exactly: n) ?? -1): break
            case .integer(let n) where n > supported:
                throw ReadError(
                    description:
                        "a Zeader backup of version \(n), newer than this zeader reads (version \(supported)); update zeader to import it"
                )
            default:
                throw ReadError(
                    description:
                        "a Zeader backup of unknown version \(Self.shown(version)) (this zeader reads version \(supported))")
            }
        }
        self.feeds = feeds
        self.items = items
    }

    /// A version value as the message names it.
    private static func shown(_ value: ImportValue) -> String {
        switch value {
        case .integer(let n): return String(n)
        case .double(let n): return String(n)
        case .string(let s): return "\"\(s.prefix(40))\""
        default: return String(value.description.prefix(40))
        }
    }

    /// The record at `range` as a dictionary; errors name `what` and the file.
    func record(at range: Range<Int>, what: String, path: String) throws(ZeaderError) -> [String: ImportValue] {
        let value: ImportValue
        do {
            value = try Self.decoder.decode(DecodedValue.self, from: data.subdata(in: range)).value
        } catch {
            throw ZeaderError.unreadableFile(path: path, reason: "\(what) (byte \(range.lowerBound)) is not valid JSON")
        }
        guard case .object(let record) = value else {
            throw ZeaderError.unreadableFile(path: path, reason: "\(what) (byte \(range.lowerBound)) is \(value), not an object")
        }
        return record
    }

    /// JSONDecoder straight into ``ImportValue``: about twice as fast as JSONSerialization
    /// and a conversion from `Any`, which a restore does once per record.
    struct DecodedValue: Decodable {
        let value: ImportValue

        init(from decoder: any Decoder) throws {
            if let container = try? decoder.container(keyedBy: AnyKey.self) {
                var members: [String: ImportValue] = [:]
                for key in container.allKeys {
                    members[key.stringValue] = try container.decode(DecodedValue.self, forKey: key).value
                }
                value = .object(members)
                return
            }
            if var container = try? decoder.unkeyedContainer() {
                var items: [ImportValue] = []
                while !container.isAtEnd { items.append(try container.decode(DecodedValue.self).value) }
                value = .array(items)
                return
            }
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                value = .null
            } else if let string = try? single.decode(String.self) {
                value = .string(string)
            } else if let bool = try? single.decode(Bool.self) {
                value = .bool(bool)
            } else if let integer = try? single.decode(Int64.self) {
                value = .integer(integer)
            } else {
                value = .double(try single.decode(Double.self))
            }
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static let decoder = JSONDecoder()

    static func decodeString(_ bytes: Data) throws -> String {
        guard case .string(let s) = try ImportValue(json: bytes) else { throw ReadError(description: "a key is not a string") }
        return s
    }

    /// A cursor over the bytes that knows just enough JSON to step over values.
    struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipSpace() {
            while let c = peek, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { position += 1 }
        }

        func failure(_ expected: String) -> ReadError {
            ReadError(
                description: position < bytes.count
                    ? "expected \(expected) at byte \(position)" : "expected \(expected), found the end of the file")
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws {
            skipSpace()
            guard peek == byte else { throw failure(what) }
            position += 1
        }

        mutating func skipString() throws {
            guard peek == UInt8(ascii: "\"") else { throw failure("a string") }
            position += 1
            while let c = peek {
                position += 1
                if c == UInt8(ascii: "\\") {
                    position += 1
                } else if c == UInt8(ascii: "\"") {
                    return
                }
            }
            throw failure("the end of a string")
        }

        /// Steps over one value (object, array, string or scalar) starting at `position`.
        mutating func skipValue() throws {
            guard let c = peek else { throw failure("a value") }
            if c == UInt8(ascii: "\"") { return try skipString() }
            if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                var depth = 0
                while let c = peek {
                    switch c {
                    case UInt8(ascii: "\""):
                        try skipString()
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            position += 1
                            return
                        }
                    default: break
                    }
                    position += 1
                }
                throw failure("the end of \(c == UInt8(ascii: "{") ? "an object" : "an array")")
            }
            let start = position
            while let c = peek, c != UInt8(ascii: ","), c != UInt8(ascii: "}"), c != UInt8(ascii: "]"), c > 0x20 {
                position += 1
            }
            if position == start { throw failure("a value") }
        }

        /// The byte ranges of the elements of the array starting at `position`.
        mutating func arrayElements(named name: String) throws -> [Range<Int>] {
            guard peek == UInt8(ascii: "[") else { throw failure("an array for \"\(name)\"") }
            position += 1
            var ranges: [Range<Int>] = []
            skipSpace()
            if peek == UInt8(ascii: "]") {
                position += 1
                return ranges
            }
            while true {
                skipSpace()
                let start = position
                try skipValue()
                ranges.append(start..<position)
                skipSpace()
                guard let c = peek else { throw failure("',' or ']' in \"\(name)\"") }
                position += 1
                if c == UInt8(ascii: "]") { return ranges }
                guard c == UInt8(ascii: ",") else {
                    position -= 1
                    throw failure("',' or ']' in \"\(name)\"")
                }
            }
        }
    }
}
