import Foundation

/// Wraps `data` in a valid gzip stream using stored (uncompressed) deflate blocks: enough to
/// test that a `Content-Encoding: gzip` body arrives decoded, without a zlib dependency.
///
/// ```swift
/// let body = gzipStored(Data("<rss/>".utf8))
/// ```
func gzipStored(_ data: Data) -> Data {
    var out = Data([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])  // magic, deflate, no flags, mtime 0, OS unknown
    var offset = 0
    repeat {
        let length = min(65535, data.count - offset)
        let isLast = offset + length >= data.count
        out.append(isLast ? 1 : 0)  // BFINAL, BTYPE=00 (stored)
        out.append(UInt8(length & 0xff))
        out.append(UInt8(length >> 8))
        out.append(UInt8(~length & 0xff))
        out.append(UInt8((~length >> 8) & 0xff))
        out.append(data[data.startIndex + offset..<data.startIndex + offset + length])
        offset += length
    } while offset < data.count
    appendLittleEndian(crc32(data), to: &out)
    appendLittleEndian(UInt32(truncatingIfNeeded: data.count), to: &out)
    return out
}

private func appendLittleEndian(_ value: UInt32, to data: inout Data) {
    for shift in stride(from: 0, to: 32, by: 8) { data.append(UInt8((value >> UInt32(shift)) & 0xff)) }
}

private func crc32(_ data: Data) -> UInt32 {
    var crc: UInt32 = 0xffff_ffff
    for byte in data {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
    }
    return ~crc
}
