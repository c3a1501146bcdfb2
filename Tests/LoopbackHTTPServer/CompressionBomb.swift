import Foundation

/// Compressed streams of zeros that decode to far more than they weigh, written by hand
/// (no zlib here): one fixed-Huffman deflate block holding a literal 0 and then copies of
/// 258 bytes at distance 1, 13 bits each, about 160:1. Eight copies take 104 bits, 13 bytes,
/// so from its third byte on the stream repeats a 13-byte period: an endless bomb costs
/// nothing to send, and a finite one of any size is built by repeating the period.
///
/// ```swift
/// let body = CompressionBomb.finite(.gzip, periods: 8_000)   // 104 KB → about 16.5 MB
/// ```
public enum CompressionBomb {
    /// The `Content-Encoding` the stream is wrapped for.
    public enum Encoding: String, Sendable, CaseIterable {
        /// A gzip member (RFC 1952).
        case gzip
        /// A zlib stream (RFC 1950), which is what HTTP calls `deflate`.
        case deflate
    }

    /// Decoded bytes per period.
    public static let decodedBytesPerPeriod = 8 * 258

    /// The start of an endless bomb and the period to repeat after it, forever.
    public static func endlessStream(_ encoding: Encoding) -> (prefix: [UInt8], period: [UInt8]) {
        let block = deflateBlock(copies: 9)
        return (container(encoding) + block[0..<2], Array(block[2..<15]))
    }

    /// A complete bomb: `periods` × 2,064 decoded bytes, plus 259. Its checksum trailer is
    /// zeros: a client that decodes it all has already failed the test.
    public static func finite(_ encoding: Encoding, periods: Int) -> Data {
        let block = deflateBlock(copies: 9)  // the prefix, one period, and the tail after it
        var bytes = container(encoding) + block[0..<2]
        let period = block[2..<15]
        bytes.reserveCapacity(bytes.count + period.count * max(1, periods) + 16)
        for _ in 0..<max(1, periods) { bytes += period }
        bytes += block[15...]
        bytes += encoding == .gzip ? [UInt8](repeating: 0, count: 8) : [0, 0, 0, 0]
        return Data(bytes)
    }

    private static func container(_ encoding: Encoding) -> [UInt8] {
        switch encoding {
        case .gzip: [0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0xFF]  // deflate, no name, no time, Unix
        case .deflate: [0x78, 0x01]  // 32 KiB window, no dictionary; (0x7801 % 31 == 0)
        }
    }

    /// A final fixed-Huffman block: literal 0, `copies` × (length 258, distance 1), end.
    private static func deflateBlock(copies: Int) -> [UInt8] {
        var writer = BitWriter()
        writer.write(1, bits: 1)  // BFINAL
        writer.write(1, bits: 2)  // BTYPE 01: fixed Huffman codes
        writer.writeCode(0x30, bits: 8)  // literal 0
        for _ in 0..<copies {
            writer.writeCode(0xC5, bits: 8)  // length code 285: 258 bytes, no extra bits
            writer.writeCode(0, bits: 5)  // distance code 0: distance 1
        }
        writer.writeCode(0, bits: 7)  // end of block (256)
        return writer.bytes
    }

    /// Deflate's bit order: fields least significant bit first, Huffman codes most
    /// significant bit first.
    private struct BitWriter {
        var bytes: [UInt8] = []
        private var used = 0

        mutating func write(_ value: UInt32, bits: Int) {
            for index in 0..<bits { push(value >> UInt32(index) & 1) }
        }

        mutating func writeCode(_ code: UInt32, bits: Int) {
            for index in stride(from: bits - 1, through: 0, by: -1) { push(code >> UInt32(index) & 1) }
        }

        private mutating func push(_ bit: UInt32) {
            if used % 8 == 0 { bytes.append(0) }
            bytes[bytes.count - 1] |= UInt8(bit) << UInt8(used % 8)
            used += 1
        }
    }
}
