import Feeds
import Foundation

/// The downloaded images on disk, `$XDG_CACHE_HOME/zeader/images` (else `~/.cache/zeader/images`),
/// kept under a size cap by removing the least recently used first. Each file starts with its
/// URL's line, checked on reading, so two URLs with the same hash never show each other's picture.
///
/// ```swift
/// let cache = PictureDiskCache(directory: PictureDiskCache.defaultDirectory(), capacity: 50_000_000)
/// cache.store(data, for: url); cache.data(for: url)
/// ```
public struct PictureDiskCache: Sendable {
    public let directory: URL
    public let capacity: Int64

    public init(directory: URL, capacity: Int64) {
        self.directory = directory
        self.capacity = capacity
    }

    /// `$XDG_CACHE_HOME/zeader/images`, else `~/.cache/zeader/images`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base =
            environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".cache")
        return base.appendingPathComponent("zeader/images", isDirectory: true)
    }

    /// Where `url`'s bytes are kept: a 64-bit FNV-1a hash of it names the file.
    func file(for url: String) -> URL {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in url.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return directory.appendingPathComponent(String(hash, radix: 16) + ".img")
    }

    /// The stored bytes of `url`, or nil; a hit counts as a use.
    public func data(for url: String) -> Data? {
        guard capacity > 0, let stored = try? Data(contentsOf: file(for: url)),
            let newline = stored.firstIndex(of: 0x0A), stored[..<newline].elementsEqual(url.utf8)
        else { return nil }
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file(for: url).path)
        return stored[(newline + 1)...]
    }

    /// Keeps `data` for `url`, then trims the folder to ``capacity``; failures only lose the copy.
    public func store(_ data: Data, for url: String) {
        guard capacity > 0, Int64(data.count) <= capacity, !url.contains("\n") else { return }
        try? FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try? (Data(url.utf8) + [0x0A] + data).write(to: file(for: url), options: .atomic)
        trim()
    }

    /// Removes the least recently used files until the folder holds at most ``capacity`` bytes.
    public func trim() {
        let keys: [URLResourceKey] = [.contentModificationDateKey, .fileSizeKey]
        guard
            let files = try? FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: keys)
        else { return }
        var entries = files.filter { $0.pathExtension == "img" }.map { url in
            let values = try? url.resourceValues(forKeys: Set(keys))
            return (url, values?.contentModificationDate ?? .distantPast, Int64(values?.fileSize ?? 0))
        }
        var total = entries.reduce(0) { $0 + $1.2 }
        entries.sort { $0.1 < $1.1 }
        for (url, _, size) in entries where total > capacity {
            try? FileManager.default.removeItem(at: url)
            total -= size
        }
    }
}

/// The encoded pictures the article view draws, by URL and box, within a byte budget (least
/// recently used out first), and the pictures that could not be shown, with why.
///
/// ```swift
/// var cache = EncodedPictures(budget: 16 << 20)
/// cache.insert(bytes, for: key)
/// ```
public struct EncodedPictures: Sendable {
    /// A picture as it is asked for: its URL, its box, the protocol, and for a sixel or
    /// iTerm2 picture partly on screen, the rows of its box that show.
    public struct Key: Hashable, Sendable {
        public var url: String
        public var columns: Int
        public var rows: Int
        public var display: PictureProtocol
        /// The box's rows this encoding holds; nil: all of them.
        public var part: Range<Int>?

        public init(url: String, columns: Int, rows: Int, display: PictureProtocol, part: Range<Int>? = nil) {
            self.url = url
            self.columns = columns
            self.rows = rows
            self.display = display
            self.part = part
        }

        /// The whole picture's key.
        var whole: Key { Key(url: url, columns: columns, rows: rows, display: display) }
    }

    public let budget: Int
    private var entries: [Key: [UInt8]] = [:]
    private var order: [Key] = []
    private(set) var bytes = 0
    /// Pictures that ended as their alt text: not asked for again while the reader runs.
    public var failed: Set<Key> = []
    /// Pictures being fetched or encoded.
    public var loading: Set<Key> = []

    public init(budget: Int) { self.budget = budget }

    public func picture(for key: Key) -> [UInt8]? { entries[key] }

    public mutating func insert(_ picture: [UInt8], for key: Key) {
        guard picture.count <= budget else {
            failed.insert(key)
            return
        }
        if let old = entries[key] {
            bytes -= old.count
            order.removeAll { $0 == key }
        }
        entries[key] = picture
        order.append(key)
        bytes += picture.count
        while bytes > budget, let oldest = order.first {
            order.removeFirst()
            bytes -= entries.removeValue(forKey: oldest)?.count ?? 0
        }
    }
}
