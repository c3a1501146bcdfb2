import Foundation
import ZeaderKit

/// newsboat's `datetime-format`: a strftime(3) pattern for the item list's dates (`%D` of
/// `articlelist-format`), in the local time zone, with newsboat's own `%L` ("3 days ago").
///
/// ```swift
/// let format = DateTimeFormat("%b %d")
/// format.string(from: Date(timeIntervalSince1970: 0), timeZone: TimeZone(identifier: "UTC")!)  // "Jan 01"
/// ```
public struct DateTimeFormat: Equatable, Sendable {
    /// newsboat's default.
    public static let newsboatDefault = DateTimeFormat("%b %d")
    /// The longest date Zeader prints: a pattern that makes more is cut there.
    static let longestOutput = 256

    public let pattern: String

    public init(_ pattern: String) { self.pattern = pattern }

    /// `date` in this pattern and `timeZone` (`nil`: the local time zone, as ``LocalTime``
    /// finds it); `now` gives `%L`'s age in days.
    public func string(from date: Date, timeZone: TimeZone? = nil, now: Date = Date()) -> String {
        let days = max(0, Int(now.timeIntervalSince(date) / 86_400))
        // `%L` is newsboat's, not strftime's: replaced first, its `%` escaped for strftime.
        var pattern = ""
        var characters = self.pattern.makeIterator()
        while let character = characters.next() {
            guard character == "%" else {
                pattern.append(character)
                continue
            }
            guard let next = characters.next() else {
                pattern += "%%"
                break
            }
            if next == "L" {
                pattern += (days == 1 ? "1 day ago" : "\(days) days ago")
            } else {
                pattern += "%" + String(next)
            }
        }
        // Kept a day inside the years 1 to 9999, so that any time zone has a four-digit year.
        let shown = DateBounds.clamped(date, margin: 86_400)
        var parts: tm
        if let timeZone {
            let offset = timeZone.secondsFromGMT(for: shown)
            var seconds = time_t(shown.timeIntervalSince1970) + time_t(offset)
            parts = tm()
            gmtime_r(&seconds, &parts)
            parts.tm_gmtoff = offset
        } else {
            parts = LocalTime.parts(of: shown)
        }
        var buffer = [CChar](repeating: 0, count: Self.longestOutput + 1)
        let count = pattern.withCString { strftime(&buffer, buffer.count, $0, &parts) }
        // strftime gives 0 both for an empty result and for one too long for the buffer.
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
