/// One line of a response's head as libcurl hands it to the header callback, read from its
/// bytes: every response of every fetch and sync request passes through here, line by line.
///
/// - A status line (`HTTP/1.1 200 OK`, `HTTP/2 304`) gives its code, 0 when it has none.
/// - A field line gives its name in ASCII lower case and its value, both without the blanks
///   (space, tab) around them; the first colon ends the name.
/// - The blank line ends the head. Anything else (no colon) is ignored.
///
/// Blanks are HTTP's own (space, tab, CR, LF, and the vertical tab and form feed a lax server
/// may send): a value's other characters are kept as sent, invalid UTF-8 repaired.
///
/// ```swift
/// HTTPHeaderLine(Array("Content-Type: text/xml\r\n".utf8))   // .field(name: "content-type", value: "text/xml")
/// ```
enum HTTPHeaderLine: Equatable {
    case status(Int)
    case field(name: String, value: String)
    case end
    case ignored

    init(_ bytes: UnsafeRawBufferPointer) {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, Self.isBlank(bytes[start]) { start += 1 }
        while end > start, Self.isBlank(bytes[end - 1]) { end -= 1 }
        guard start < end else {
            self = .end
            return
        }
        let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        if line.starts(with: Self.statusPrefix) {
            self = .status(Self.statusCode(line))
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            var nameEnd = colon
            while nameEnd > 0, Self.isBlank(line[nameEnd - 1]) { nameEnd -= 1 }
            var valueStart = colon + 1
            while valueStart < line.count, Self.isBlank(line[valueStart]) { valueStart += 1 }
            let name = String(decoding: line[..<nameEnd].lazy.map(Self.asciiLowercased), as: UTF8.self)
            let value = String(decoding: UnsafeRawBufferPointer(rebasing: line[valueStart...]), as: UTF8.self)
            self = .field(name: name, value: value)
        } else {
            self = .ignored
        }
    }

    init(_ bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { HTTPHeaderLine($0) }
    }

    private static let statusPrefix = Array("HTTP/".utf8)

    /// The second word of a status line as a number, else 0 (`HTTP/1.1 abc`, `HTTP/1.1`).
    private static func statusCode(_ line: UnsafeRawBufferPointer) -> Int {
        var index = 0
        while index < line.count, line[index] != UInt8(ascii: " ") { index += 1 }
        while index < line.count, line[index] == UInt8(ascii: " ") { index += 1 }
        var code = 0
        var digits = 0
        while index < line.count, line[index] != UInt8(ascii: " ") {
            let byte = line[index]
            // Three digits in practice; more than four is no status code (and cannot overflow).
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 4 else { return 0 }
            code = code * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        return digits == 0 ? 0 : code
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
