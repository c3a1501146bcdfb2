import Foundation

/// Parsing and formatting of the few header values the fetcher interprets.
enum HTTPHeaderValues {
    /// Parses an HTTP-date in any of the three forms RFC 9110 §5.6.7 requires recipients to
    /// accept: IMF-fixdate, obsolete RFC 850, and asctime.
    static func parseHTTPDate(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // Formatters are made per call: this runs once per 429/503 or file fetch, and a
        // shared DateFormatter would need a lock on platforms where it is not thread-safe.
        for pattern in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = pattern
            if let date = formatter.date(from: trimmed) { return date }
        }
        return nil
    }

    /// Formats a date as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func formatHTTPDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// The date a `Retry-After` value points to: delay-seconds or an HTTP-date. A date in the
    /// past means "now"; anything beyond `maximum` seconds is shortened to it.
    static func retryAfter(_ value: String, now: Date, maximum: TimeInterval) -> Date? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        let delay: TimeInterval
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCIIDigit) {
            delay = Double(trimmed) ?? maximum  // too many digits for Double: clamp below
        } else if let date = parseHTTPDate(trimmed) {
            delay = date.timeIntervalSince(now)
        } else {
            return nil
        }
        return now.addingTimeInterval(min(max(delay, 0), maximum))
    }

    /// Splits `Content-Type: text/xml; charset="ISO-8859-1"` into the lowercased media type
    /// and the charset (unquoted, lowercased).
    static func contentType(_ value: String?) -> (mediaType: String?, charset: String?) {
        guard let value else { return (nil, nil) }
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        let mediaType = parts.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        var charset: String?
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else {
                continue
            }
            var raw = pair[1].trimmingCharacters(in: .whitespaces)
            if raw.count >= 2, raw.hasPrefix("\""), raw.hasSuffix("\"") { raw = String(raw.dropFirst().dropLast()) }
            if !raw.isEmpty { charset = raw.lowercased() }
        }
        return (mediaType?.isEmpty == false ? mediaType : nil, charset)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
