import Foundation

/// The feed fuzzers' random source and byte mutations, for the ZeaderKit fuzzers.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum FuzzMutation {
    static let tokens: [[UInt8]] = [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "null", "1e999", "-", "\u{0}", "\u{FEFF}",
    ].map { Array($0.utf8) }

    /// A few random edits: bytes flipped, inserted, deleted, tokens inserted, slices doubled.
    static func mutate(_ input: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...8, using: &rng) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &rng)
            case 1: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: position)
            case 2 where !bytes.isEmpty:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...32, using: &rng)))
            case 3: bytes.insert(contentsOf: tokens.randomElement(using: &rng)!, at: position)
            default:
                if bytes.count > 16 {
                    let end = min(bytes.count, position + Int.random(in: 1...128, using: &rng))
                    bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0..<bytes.count, using: &rng))
                }
            }
        }
        return bytes
    }
}
