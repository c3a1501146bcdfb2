/// A set of primary keys as a bitmap in pages of 4,096 keys: one bit per key where keys
/// are dense (stores number their rows from 1), so remembering every item a whole-store
/// command has seen costs an eighth of a byte per item, not a hash-set entry (16-32 B),
/// and keys far apart cost a page each rather than the span between them.
///
/// ```swift
/// var seen = KeyBitmap()
/// seen.insert(42)
/// seen.contains(42)   // true
/// ```
struct KeyBitmap {
    private static let pageBits: Int64 = 4_096
    private static let wordsPerPage = Int(pageBits / 64)
    private var pages: [Int64: [UInt64]] = [:]

    /// Adds `key`.
    ///
    /// ```swift
    /// seen.insert(item.objectID.primaryKey ?? 0)
    /// ```
    mutating func insert(_ key: Int64) {
        let (page, word, bit) = Self.position(key)
        pages[page, default: Array(repeating: 0, count: Self.wordsPerPage)][word] |= bit
    }

    /// Whether `key` was added.
    ///
    /// ```swift
    /// if !seen.contains(key) { write(row) }
    /// ```
    func contains(_ key: Int64) -> Bool {
        let (page, word, bit) = Self.position(key)
        guard let words = pages[page] else { return false }
        return words[word] & bit != 0
    }

    private static func position(_ key: Int64) -> (page: Int64, word: Int, bit: UInt64) {
        let page = key >= 0 ? key / pageBits : (key + 1) / pageBits - 1  // floor division, negative keys too
        let offset = Int(key - page * pageBits)
        return (page, offset / 64, 1 << UInt64(offset % 64))
    }
}
