import Testing

@testable import ZeaderKit

/// The export's record of items written: exactly the keys inserted, dense or far apart.
@Suite struct KeyBitmapTests {
    @Test func holdsExactlyTheInsertedKeys() {
        var bitmap = KeyBitmap()
        var inserted = Set<Int64>()
        let keys: [Int64] = [
            0, 1, 63, 64, 65, 4_095, 4_096, 4_097, 8_191, -1, -64, -4_096, -4_097, 1 << 40, Int64.max, Int64.min,
        ]
        var generator = SystemRandomNumberGenerator()
        for key in keys + (0..<2_000).map({ _ in Int64.random(in: -10_000...100_000, using: &generator) }) {
            bitmap.insert(key)
            inserted.insert(key)
        }
        for key in keys + Array(-10_100...100_100) {
            #expect(bitmap.contains(Int64(key)) == inserted.contains(Int64(key)), "\(key)")
        }
    }
}
