import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of one response body as they arrive: one `malloc` block that doubles when full
/// (up to `limit`), so a body of n bytes costs O(n) copying in all, and whose storage is
/// handed to `Data` at the end without a copy.
///
/// ```swift
/// var buffer = BodyBuffer(limit: 16 << 20)
/// guard buffer.append(bytes, count: n) else { /* out of memory */ }
/// let body = buffer.takeData()
/// ```
struct BodyBuffer: ~Copyable {
    /// The first allocation; small feeds fit in it.
    static let initialCapacity = 64 * 1024

    private var storage: UnsafeMutableRawPointer?
    private var capacity = 0
    /// Bytes held.
    private(set) var count = 0
    /// The capacity never grows past this (the body cap): memory stays bounded by the cap.
    let limit: Int

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    deinit { free(storage) }

    /// Appends `length` bytes. Returns `false`, keeping what it held, when the bytes would
    /// pass `limit` or memory runs out.
    mutating func append(_ bytes: UnsafeRawPointer, count length: Int) -> Bool {
        guard length > 0 else { return true }
        let (needed, overflow) = count.addingReportingOverflow(length)
        guard !overflow, needed <= limit else { return false }
        if needed > capacity {
            var grown = max(capacity, min(Self.initialCapacity, limit))
            while grown < needed {
                let (doubled, overflow) = grown.multipliedReportingOverflow(by: 2)
                grown = overflow ? limit : min(doubled, limit)
            }
            // realloc of a large (mmap-backed) block moves pages with mremap, not memcpy.
            guard let moved = realloc(storage, grown) else { return false }
            storage = moved
            capacity = grown
        }
        (storage! + count).copyMemory(from: bytes, byteCount: length)
        count = needed
        return true
    }

    /// Frees the storage now (a redirect's body, an aborted transfer).
    mutating func removeAll() {
        free(storage)
        storage = nil
        capacity = 0
        count = 0
    }

    /// The bytes as `Data` that owns the storage; the buffer is empty afterwards.
    mutating func takeData() -> Data {
        guard let storage, count > 0 else {
            removeAll()
            return Data()
        }
        let data = Data(bytesNoCopy: storage, count: count, deallocator: .free)
        self.storage = nil
        capacity = 0
        count = 0
        return data
    }
}
