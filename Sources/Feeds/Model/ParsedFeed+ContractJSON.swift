import Foundation

extension ParsedFeed {
    /// The feed as the JSON object `zeader parse` prints (the contract in
    /// docs/ARCHITECTURE.md, "Contracts the code keeps"): keys
    /// `format`, `title`, `link`, `items` (each `id`, `title`, `link`, `author`,
    /// `published`, `updated`, `summary`, `content`), always present, `null` when absent;
    /// dates as `YYYY-MM-DDTHH:MM:SSZ` in UTC. One line, UTF-8, ending in a newline.
    ///
    /// ```swift
    /// FileHandle.standardOutput.write(feed.contractJSON())
    /// ```
    public func contractJSON() -> Data {
        var data = Data()
        writeContractJSON { data.append(contentsOf: $0) }
        return data
    }

    /// Writes ``contractJSON()`` in pieces of about 1 MB to `sink`, so that a large feed
    /// is never held twice in memory.
    ///
    /// ```swift
    /// var json = Data()
    /// feed.writeContractJSON { chunk in json.append(contentsOf: chunk) }
    /// ```
    public func writeContractJSON(_ sink: (UnsafeRawBufferPointer) -> Void) {
        contractJSONHead().withUnsafeBytes { sink($0) }
        var out: [UInt8] = []
        out.reserveCapacity(Self.flushSize + 64 * 1024)
        ContractJSONWriter.items(items[...], first: true, to: &out) { buffer in
            if buffer.count >= Self.flushSize {
                buffer.withUnsafeBytes { sink($0) }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        out.withUnsafeBytes { sink($0) }
        Self.contractJSONTail.withUnsafeBytes { sink($0) }
    }

    /// The contract JSON up to the items: `{"format":…,"title":…,"link":…,"items":[`.
    func contractJSONHead() -> [UInt8] {
        var head: [UInt8] = []
        head.append(contentsOf: #"{"format":"#.utf8)
        ContractJSONWriter.string(format.rawValue, to: &head)
        head.append(contentsOf: #","title":"#.utf8)
        ContractJSONWriter.string(title, to: &head)
        head.append(contentsOf: #","link":"#.utf8)
        ContractJSONWriter.string(link, to: &head)
        head.append(contentsOf: #","items":["#.utf8)
        return head
    }

    /// What follows the last item.
    static let contractJSONTail: [UInt8] = Array("]}\n".utf8)

    /// Pieces handed to the sink are about this large.
    static let flushSize = 1 << 20
}

/// JSON encoding of strings and dates into a byte buffer, for ``ParsedFeed/contractJSON()``.
enum ContractJSONWriter {
    /// Appends the JSON objects of `items` (comma-separated, with a leading comma unless
    /// `first`), calling `flush` after each item so the caller can hand pieces on.
    static func items(
        _ items: ArraySlice<ParsedItem>, first: Bool, to out: inout [UInt8], flush: (inout [UInt8]) -> Void
    ) {
        for index in items.indices {
            if index > items.startIndex || !first { out.append(UInt8(ascii: ",")) }
            item(items[index], contentUTF8: nil, to: &out)
            flush(&out)
        }
    }

    /// Appends the JSON object of `item` (what ``ContractJSONItemWriter`` does with each
    /// item the parser finishes); with `contentUTF8`, its `content` is those UTF-8 bytes
    /// (the same JSON as for `String(decoding: contentUTF8, as: UTF8.self)`) and
    /// `item.content` is not read.
    static func item(_ item: ParsedItem, contentUTF8: UnsafeBufferPointer<UInt8>?, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"id":"#.utf8)
        string(item.id, to: &out)
        out.append(contentsOf: #","title":"#.utf8)
        string(item.title, to: &out)
        out.append(contentsOf: #","link":"#.utf8)
        string(item.link, to: &out)
        out.append(contentsOf: #","author":"#.utf8)
        string(item.author, to: &out)
        out.append(contentsOf: #","published":"#.utf8)
        date(item.published, to: &out)
        out.append(contentsOf: #","updated":"#.utf8)
        date(item.updated, to: &out)
        out.append(contentsOf: #","summary":"#.utf8)
        string(item.summary, to: &out)
        out.append(contentsOf: #","content":"#.utf8)
        if let contentUTF8 {
            utf8(contentUTF8, to: &out)
        } else {
            string(item.content, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func string(_ value: String?, to out: inout [UInt8]) {
        guard var value else {
            out.append(contentsOf: "null".utf8)
            return
        }
        value.withUTF8 { _ = escaped($0, validating: false, to: &out) }
    }

    /// Appends UTF-8 `bytes` as a JSON string: the same as ``string(_:to:)`` of
    /// `String(decoding: bytes, as: UTF8.self)`, which it falls back to when the bytes are
    /// not valid UTF-8 (it then repairs them).
    static func utf8(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        let mark = out.count
        if escaped(bytes, validating: true, to: &out) { return }
        out.removeSubrange(mark...)
        string(String(decoding: bytes, as: UTF8.self), to: &out)
    }

    /// Appends `bytes` quoted and escaped. With `validating`, stops and returns false at
    /// the first byte that is not part of valid UTF-8 (leaving `out` partly written).
    private static func escaped(_ bytes: UnsafeBufferPointer<UInt8>, validating: Bool, to out: inout [UInt8]) -> Bool {
        out.append(UInt8(ascii: "\""))
        defer { out.append(UInt8(ascii: "\"")) }
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        let highBits: UInt64 = validating ? 0x8080_8080_8080_8080 : 0
        var runStart = 0
        var index = 0
        while index < count {
            // Sixteen bytes at a time while none needs a look (the usual case).
            while index + 16 <= count {
                let low = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self))
                if escapeFlags(low) | escapeFlags(high) | (low | high) & highBits != 0 { break }
                index += 16
            }
            if index == count { break }
            if index + 8 <= count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let flags = escapeFlags(word) | word & highBits
                if flags == 0 {
                    index += 8
                    continue
                }
                index += flags.trailingZeroBitCount >> 3  // the first byte to look at
            }
            let byte = bytes[index]
            if byte >= 0x80 {
                if validating {
                    let length = FeedXMLEncoding.utf8SequenceLength(bytes, at: index)
                    if length == 0 { return false }
                    index += length
                } else {
                    index += 1
                }
                continue
            }
            index += 1
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            let at = index - 1
            if at > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<at])) }
            switch byte {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case 0x0D: out.append(contentsOf: [0x5C, 0x72])
            default:
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
            }
            runStart = index
        }
        if count > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count])) }
        return true
    }

    /// The high bit of each byte of `word` that may be a control character, `"` or `\\`.
    /// The lowest flagged byte (of a little-endian load: the first in memory) is exact;
    /// bytes after it may be flagged wrongly (a borrow), which the byte-by-byte check
    /// then dismisses.
    @inline(__always)
    private static func escapeFlags(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let below20 = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        return below20 | ((quote &- ones) & ~quote & highs) | ((backslash &- ones) & ~backslash & highs)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` in UTC, or `null`.
    static func date(_ value: Date?, to out: inout [UInt8]) {
        guard let value else {
            out.append(contentsOf: "null".utf8)
            return
        }
        out.append(UInt8(ascii: "\""))
        appendISO8601(value, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `date` as `YYYY-MM-DDTHH:MM:SSZ` in UTC, digit by digit (no intermediate
    /// strings: two dates per item).
    static func appendISO8601(_ date: Date, to out: inout [UInt8]) {
        let (year, month, day, secondOfDay) = civil(date)
        func digits(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        if year < 0 || year > 9999 {
            out.append(contentsOf: iso8601(date).utf8)
            return
        }
        digits(year, 4)
        out.append(UInt8(ascii: "-"))
        digits(month, 2)
        out.append(UInt8(ascii: "-"))
        digits(day, 2)
        out.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        out.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        out.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        out.append(UInt8(ascii: "Z"))
    }

    /// Year, month, day and second of the day of `date` in UTC (seconds rounded down).
    private static func civil(_ date: Date) -> (year: Int64, month: Int64, day: Int64, secondOfDay: Int64) {
        // Any Date prints: one outside the parsers' range (built by hand) takes its nearest end.
        let range = FeedDateParser.supportedSeconds
        let raw = floor(date.timeIntervalSince1970)
        let seconds =
            raw >= Double(range.upperBound)
            ? range.upperBound - 1 : raw >= Double(range.lowerBound) ? Int64(raw) : range.lowerBound
        var days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        // Howard Hinnant's civil_from_days.
        days += 719468
        let era = (days >= 0 ? days : days - 146096) / 146097
        let doe = days - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, secondOfDay)
    }

    /// `date` as `YYYY-MM-DDTHH:MM:SSZ` in UTC (seconds rounded down).
    static func iso8601(_ date: Date) -> String {
        let (year, month, day, secondOfDay) = civil(date)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600))"
            + ":\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }
}
