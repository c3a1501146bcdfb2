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

    /// The longest wait any `Retry-After` can cause, whatever the configuration says.
    static let longestRetryAfter: TimeInterval = 365 * 24 * 3600

    /// The date a `Retry-After` value points to: delay-seconds or an HTTP-date. A date in the
    /// past means "now"; anything beyond `maximum` seconds (itself at most a year) is
    /// shortened to it. Anything else, a negative or fractional number included, is `nil`.
    static func retryAfter(_ value: String, now: Date, maximum: TimeInterval) -> Date? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        let ceiling = maximum > 0 ? min(maximum, longestRetryAfter) : 0  // NaN and negatives: 0
        let delay: TimeInterval
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // More digits than a year has seconds: no need to read them.
            delay = trimmed.utf8.count > 12 ? ceiling : Double(trimmed) ?? ceiling
        } else if trimmed.utf8.count <= 64, let date = parseHTTPDate(trimmed) {
            delay = date.timeIntervalSince(now)
        } else {
            return nil
        }
        guard !delay.isNaN else { return nil }
        return now.addingTimeInterval(min(max(delay, 0), ceiling))
    }

    /// A `Content-Length` value as a number: digits only; more than `Int64` holds gives
    /// `Int64.max` (larger than any cap). `nil` when absent or not a number.
    static func contentLength(_ value: String?) -> Int64? {
        guard let value, !value.isEmpty,
            value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int64(value) ?? Int64.max
    }

    /// `value` if it can go into a request header as it is: no control characters (a line
    /// break would start a header of the server's choosing). `nil` otherwise.
    static func headerSafe(_ value: String) -> String? {
        value.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F } ? nil : value
    }

    /// The reason phrase of an HTTP status (RFC 9110), for messages.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 305: "Use Proxy"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 407: "Proxy Authentication Required"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 451: "Unavailable For Legal Reasons"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        case 100..<200: "Informational"
        case 200..<300: "Success"
        case 300..<400: "Redirection"
        case 400..<500: "Client Error"
        case 500..<600: "Server Error"
        default: "Unknown Status"
        }
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
