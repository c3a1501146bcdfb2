import Foundation

/// When a change was made, as a hybrid logical clock stamps it: the wall clock in
/// milliseconds, a counter that orders changes within one millisecond (or while the wall
/// clock lags behind a time already seen), and the device that made it. Timestamps are
/// totally ordered — milliseconds, then counter, then device — so every device picks the
/// same winner between two changes, whatever order it learns of them in.
///
/// Written as `millis.counter.device`, the numbers in base 36:
///
/// ```swift
/// let stamp = HybridTimestamp(millis: 1_765_000_000_000, counter: 2, device: "laptop")
/// stamp.text                                   // "mitvfg1s.2.laptop"
/// HybridTimestamp(text: stamp.text) == stamp   // true
/// ```
public struct HybridTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970 on the device's clock (or a later time it had seen).
    public var millis: Int64
    /// Orders the changes of one millisecond.
    public var counter: Int
    /// The device that made the change (a ``FolderSyncDevice`` id).
    public var device: String

    /// The latest time a timestamp may carry: the year 9999. Later ones are damage, and
    /// taking them would leave every device's clock stuck there.
    public static let latestMillis: Int64 = 253_402_300_799_999
    /// The largest counter: more changes than this within one millisecond are damage.
    public static let largestCounter = 1 << 40

    public init(millis: Int64, counter: Int, device: String) {
        self.millis = millis
        self.counter = counter
        self.device = device
    }

    /// Reads ``text``'s form; nil for anything else (a damaged line, an impossible time).
    public init?(text: String) {
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let millis = Int64(parts[0], radix: 36), let counter = Int(parts[1], radix: 36),
            (0...Self.latestMillis).contains(millis), (0...Self.largestCounter).contains(counter),
            FolderSyncDevice.isValidID(String(parts[2]))
        else { return nil }
        self.init(millis: millis, counter: counter, device: String(parts[2]))
    }

    /// The written form: `millis.counter.device`, numbers in base 36.
    public var text: String { "\(String(millis, radix: 36)).\(String(counter, radix: 36)).\(device)" }

    public var description: String { text }

    /// The wall-clock time of the change.
    public var date: Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.millis, lhs.counter, lhs.device) < (rhs.millis, rhs.counter, rhs.device)
    }
}

/// A device's hybrid logical clock: stamps its own changes later than every change it has
/// made or seen, so a change made after reading another device's always wins over it,
/// even when this device's wall clock is behind.
///
/// ```swift
/// var clock = HybridClock(device: "laptop")
/// let first = clock.stamp(now: 1_000)
/// clock.observe(HybridTimestamp(millis: 5_000, counter: 0, device: "phone"))
/// let second = clock.stamp(now: 1_001)   // later than the stamp it saw
/// ```
public struct HybridClock: Sendable {
    /// The device whose changes this clock stamps.
    public let device: String
    /// The latest timestamp made or seen.
    public private(set) var latest: HybridTimestamp

    public init(device: String, latest: HybridTimestamp? = nil) {
        self.device = device
        self.latest = latest ?? HybridTimestamp(millis: 0, counter: 0, device: device)
    }

    /// A timestamp for a change made now, later than every one made or seen.
    public mutating func stamp(now: Int64) -> HybridTimestamp {
        let wall = min(max(now, 0), HybridTimestamp.latestMillis)
        if wall > latest.millis {
            latest = HybridTimestamp(millis: wall, counter: 0, device: device)
        } else if latest.counter >= HybridTimestamp.largestCounter, latest.millis < HybridTimestamp.latestMillis {
            latest = HybridTimestamp(millis: latest.millis + 1, counter: 0, device: device)
        } else {
            latest = HybridTimestamp(millis: latest.millis, counter: latest.counter + 1, device: device)
        }
        return latest
    }

    /// A timestamp for a change made at `date`.
    public mutating func stamp(at date: Date = Date()) -> HybridTimestamp {
        stamp(now: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// Takes in another device's timestamp, so this device's next change comes after it.
    public mutating func observe(_ other: HybridTimestamp) {
        if (other.millis, other.counter) > (latest.millis, latest.counter) {
            latest = HybridTimestamp(millis: other.millis, counter: other.counter, device: device)
        }
    }
}

extension HybridTimestamp: Codable {
    /// Decodes ``text``'s form, refusing any other.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let stamp = HybridTimestamp(text: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a timestamp: \(text)"))
        }
        self = stamp
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
