import Foundation

/// The growable byte buffer ``FeedXMLHandler`` gathers a field's text in: appends are a
/// capacity check and a `memcpy` (an `Array`'s generic `append(contentsOf:)` cost some 80
/// instructions a call, and libxml2 hands text over in many small runs: between any two
/// references, for one). Not copyable: it owns its memory, freed with it.
struct FeedCaptureBuffer: ~Copyable {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toAtLeast: count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if capacity - count < bytes.count { grow(toAtLeast: count + bytes.count) }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    mutating func append(contentsOf string: String) {
        var string = string
        string.withUTF8 { append(contentsOf: $0) }
    }

    mutating func removeAll() { count = 0 }

    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The bytes, to be changed in place (as ``FeedText/trimmedBytes(_:)`` strips control
    /// characters); the buffer still counts them all afterwards.
    func withUnsafeMutableBufferPointer<R>(_ body: (UnsafeMutableBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(start: base, count: count))
    }

    func contains(where predicate: (UInt8) -> Bool) -> Bool {
        withUnsafeBufferPointer { $0.contains(where: predicate) }
    }

    /// A copy of the bytes.
    var array: [UInt8] { withUnsafeBufferPointer { Array($0) } }

    private mutating func grow(toAtLeast needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.initialize(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }
}
