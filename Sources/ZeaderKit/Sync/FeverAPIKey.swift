import Foundation

/// The Fever API's login: the MD5 of `user:password` in lower-case hex, sent as `api_key`
/// with every request. Foundation on Linux has no MD5, and the key is all it is needed for.
///
/// ```swift
/// FeverAPIKey.make(user: "kevin", password: "freshrss")   // "4a6911fb47a87a77f4de285f4fac856d"
/// FeverAPIKey.md5Hex(Array("".utf8))                     // "d41d8cd98f00b204e9800998ecf8427e"
/// ```
public enum FeverAPIKey {
    /// The key of `user` with `password`.
    public static func make(user: String, password: String) -> String {
        md5Hex(Array("\(user):\(password)".utf8))
    }

    /// RFC 1321's MD5 of `message`, as 32 lower-case hex digits.
    public static func md5Hex(_ message: [UInt8]) -> String {
        var a0: UInt32 = 0x6745_2301
        var b0: UInt32 = 0xefcd_ab89
        var c0: UInt32 = 0x98ba_dcfe
        var d0: UInt32 = 0x1032_5476
        var bytes = message
        let bitLength = UInt64(message.count) &* 8
        bytes.append(0x80)
        while bytes.count % 64 != 56 { bytes.append(0) }
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        for chunk in stride(from: 0, to: bytes.count, by: 64) {
            var words = [UInt32](repeating: 0, count: 16)
            for index in 0..<16 {
                let base = chunk + index * 4
                words[index] =
                    UInt32(bytes[base]) | UInt32(bytes[base + 1]) << 8 | UInt32(bytes[base + 2]) << 16
                    | UInt32(bytes[base + 3]) << 24
            }
            var a = a0
            var b = b0
            var c = c0
            var d = d0
            for step in 0..<64 {
                var f: UInt32
                let g: Int
                switch step {
                case 0..<16:
                    f = (b & c) | (~b & d)
                    g = step
                case 16..<32:
                    f = (d & b) | (~d & c)
                    g = (5 * step + 1) % 16
                case 32..<48:
                    f = b ^ c ^ d
                    g = (3 * step + 5) % 16
                default:
                    f = c ^ (b | ~d)
                    g = (7 * step) % 16
                }
                f = f &+ a &+ constants[step] &+ words[g]
                a = d
                d = c
                c = b
                b = b &+ ((f << shifts[step]) | (f >> (32 - shifts[step])))
            }
            a0 = a0 &+ a
            b0 = b0 &+ b
            c0 = c0 &+ c
            d0 = d0 &+ d
        }
        var hex = ""
        for word in [a0, b0, c0, d0] {
            for shift in stride(from: 0, to: 32, by: 8) {
                let byte = UInt8(truncatingIfNeeded: word >> UInt32(shift))
                hex += String(byte >> 4, radix: 16) + String(byte & 0xf, radix: 16)
            }
        }
        return hex
    }

    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// floor(abs(sin(i + 1)) × 2^32).
    private static let constants: [UInt32] = (0..<64).map {
        UInt32(truncatingIfNeeded: Int64(abs(sin(Double($0 + 1))) * 4_294_967_296))
    }
}
