import Foundation

/// MD5 (RFC 1321) as lowercase hex: what a test server needs to check an HTTP Digest login.
///
/// ```swift
/// md5Hex("")   // "d41d8cd98f00b204e9800998ecf8427e"
/// ```
func md5Hex(_ text: String) -> String {
    let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]
    let constants: [UInt32] = (0..<64).map { UInt32(truncatingIfNeeded: Int64(abs(sin(Double($0 + 1))) * 4_294_967_296)) }
    var message = Array(text.utf8)
    let bitLength = UInt64(message.count) * 8
    message.append(0x80)
    while message.count % 64 != 56 { message.append(0) }
    for shift in stride(from: 0, to: 64, by: 8) { message.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
    var (a0, b0, c0, d0): (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
    for chunk in stride(from: 0, to: message.count, by: 64) {
        let words = (0..<16).map { i in
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(message[chunk + i * 4 + $1]) << UInt32($1 * 8) }
        }
        var (a, b, c, d) = (a0, b0, c0, d0)
        for i in 0..<64 {
            var f: UInt32
            let g: Int
            switch i {
            case 0..<16: (f, g) = ((b & c) | (~b & d), i)
            case 16..<32: (f, g) = ((d & b) | (~d & c), (5 * i + 1) % 16)
            case 32..<48: (f, g) = (b ^ c ^ d, (3 * i + 5) % 16)
            default: (f, g) = (c ^ (b | ~d), (7 * i) % 16)
            }
            f = f &+ a &+ constants[i] &+ words[g]
            (a, d, c) = (d, c, b)
            b = b &+ (f << shifts[i] | f >> (32 - shifts[i]))
        }
        (a0, b0, c0, d0) = (a0 &+ a, b0 &+ b, c0 &+ c, d0 &+ d)
    }
    return [a0, b0, c0, d0].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32($0 * 8)) } }
        .map { String(format: "%02x", $0) }.joined()
}

/// The value of `name` in an HTTP Digest `Authorization` header (`username="alice", nc=00000001`).
func digestField(_ header: String, _ name: String) -> String? {
    for part in header.dropFirst("Digest ".count).split(separator: ",") {
        let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard pair.count == 2, pair[0] == name else { continue }
        return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }
    return nil
}
