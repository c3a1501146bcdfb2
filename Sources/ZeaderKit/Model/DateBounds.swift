import Feeds
import Foundation

/// The one range of dates Zeader stores and prints: from 0001-01-01T00:00:00Z up to, not
/// including, 10000-01-01T00:00:00Z — the years a `YYYY-MM-DDTHH:MM:SSZ` timestamp writes in
/// four digits, and those the feed parsers read.
///
/// Where a date comes from outside (a feed, a backup, newsboat's cache, a sync server) it is
/// checked once, where it enters: a date beyond the range (NaN, an infinity, 1e17 seconds)
/// is no date at all and becomes nil, so the item is listed by its other dates. It is not
/// moved to a bound, which would list it first or last as if the feed had meant it.
/// Printing is total on its own: ``clamped(_:)`` moves any `Date` into the range, so a
/// value that reached a store before these checks still prints as a valid timestamp.
///
/// ```swift
/// DateBounds.checked(Date(timeIntervalSince1970: 1e17))   // nil
/// DateBounds.date(secondsSince1970: 1_700_000_000)        // 2023-11-14T22:13:20Z
/// ```
public enum DateBounds {
    /// 0001-01-01T00:00:00Z, the first date of the range.
    ///
    /// ```swift
    /// JSONText.timestamp(DateBounds.earliest)   // "0001-01-01T00:00:00Z"
    /// ```
    public static let earliest = Date(timeIntervalSince1970: earliestSeconds)

    /// 9999-12-31T23:59:59Z, the last whole second of the range.
    ///
    /// ```swift
    /// JSONText.timestamp(DateBounds.latest)   // "9999-12-31T23:59:59Z"
    /// ```
    public static let latest = Date(timeIntervalSince1970: endSeconds - 1)

    /// Seconds since 1970 of 0001-01-01T00:00:00Z.
    static let earliestSeconds = TimeInterval(FeedDateParser.supportedSeconds.lowerBound)
    /// Seconds since 1970 of 10000-01-01T00:00:00Z, the first instant past the range.
    static let endSeconds = TimeInterval(FeedDateParser.supportedSeconds.upperBound)

    /// Whether `date` lies in the range (false for NaN).
    ///
    /// ```swift
    /// DateBounds.contains(Date())   // true
    /// ```
    public static func contains(_ date: Date) -> Bool {
        let seconds = date.timeIntervalSince1970
        return seconds >= earliestSeconds && seconds < endSeconds
    }

    /// `date` when it lies in the range, else nil: what a date from outside is stored as.
    ///
    /// ```swift
    /// item.published = DateBounds.checked(record.published)
    /// ```
    public static func checked(_ date: Date?) -> Date? {
        guard let date, contains(date) else { return nil }
        return date
    }

    /// The date `seconds` after 1970-01-01T00:00:00Z when it lies in the range, else nil.
    ///
    /// ```swift
    /// DateBounds.date(secondsSince1970: .infinity)   // nil
    /// ```
    public static func date(secondsSince1970 seconds: Double) -> Date? {
        checked(Date(timeIntervalSince1970: seconds))
    }

    /// `date` moved into the range, `margin` seconds inside each end when given: what the
    /// printing paths format, so that every `Date` prints. NaN becomes the earliest date.
    ///
    /// ```swift
    /// DateBounds.clamped(Date(timeIntervalSince1970: 9.3e18))   // 9999-12-31T23:59:59Z
    /// DateBounds.clamped(Date(timeIntervalSince1970: .infinity), margin: 86_400)   // 9999-12-30T23:59:59Z
    /// ```
    public static func clamped(_ date: Date, margin: TimeInterval = 0) -> Date {
        let seconds = date.timeIntervalSince1970
        let low = earliestSeconds + margin
        let high = endSeconds - 1 - margin
        if seconds >= low && seconds <= high { return date }
        return Date(timeIntervalSince1970: seconds > high ? high : low)
    }
}
