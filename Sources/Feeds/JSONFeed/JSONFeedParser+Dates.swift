import Foundation

extension JSONFeedParser {
    /// Reads an RFC 3339 date as JSON Feed uses them, with the variants seen in real
    /// feeds: fractional seconds of any length, `Z`/`z`, offsets `+01:00`, `+0100` or
    /// `+01`, a space or lower-case `t` between date and time, missing seconds, a missing
    /// zone (read as UTC), and a date alone (midnight UTC). Nil when it is none of these.
    ///
    /// ```swift
    /// JSONFeedParser.parseDate("2025-01-05T20:40:00-05:00")  // 2025-01-06 01:40:00 UTC
    /// JSONFeedParser.parseDate("2018-01-06T08:00")           // 2018-01-06 08:00:00 UTC
    /// ```
    static func parseDate(_ text: String) -> Date? {
        guard let date = parseAnyDate(text) else { return nil }
        let seconds = date.timeIntervalSince1970
        let range = FeedDateParser.supportedSeconds
        return seconds >= Double(range.lowerBound) && seconds < Double(range.upperBound) ? date : nil
    }

    /// ``parseDate(_:)`` before the range check: year 0000 and zone offsets can reach past it.
    private static func parseAnyDate(_ text: String) -> Date? {
        var scanner = JSONFeedDateScanner(Array(text.utf8))
        scanner.skipSpaces()
        guard let year = scanner.number(digits: 4), scanner.take("-"),
            let month = scanner.number(digits: 2), scanner.take("-"),
            let day = scanner.number(digits: 2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
        scanner.skipSpaces()
        if scanner.atEnd { return Date(timeIntervalSince1970: seconds) }
        _ = scanner.take("T") || scanner.take("t")
        scanner.skipSpaces()
        guard let hour = scanner.number(digits: 2), scanner.take(":"),
            let minute = scanner.number(digits: 2), hour <= 24, minute <= 59
        else { return nil }
        var second = 0.0
        if scanner.take(":") {
            guard let whole = scanner.number(digits: 2), whole <= 60 else { return nil }
            second = Double(whole)
            if scanner.take(".") || scanner.take(",") {
                var scale = 0.1
                var sawDigit = false
                while let digit = scanner.digit() {
                    second += Double(digit) * scale
                    scale /= 10
                    sawDigit = true
                }
                guard sawDigit else { return nil }
            }
        }
        seconds += Double(hour * 3600 + minute * 60) + second
        scanner.skipSpaces()
        if scanner.atEnd || scanner.take("Z") || scanner.take("z") || scanner.takeWord("UTC")
            || scanner.takeWord("GMT")
        {
            scanner.skipSpaces()
            return scanner.atEnd ? Date(timeIntervalSince1970: seconds) : nil
        }
        let sign: Double
        if scanner.take("+") {
            sign = 1
        } else if scanner.take("-") {
            sign = -1
        } else {
            return nil
        }
        guard let offsetHours = scanner.number(digits: 2), offsetHours <= 23 else { return nil }
        var offsetMinutes = 0
        _ = scanner.take(":")
        if let minutes = scanner.number(digits: 2) {
            guard minutes <= 59 else { return nil }
            offsetMinutes = minutes
        }
        scanner.skipSpaces()
        guard scanner.atEnd else { return nil }
        seconds -= sign * Double(offsetHours * 3600 + offsetMinutes * 60)
        return Date(timeIntervalSince1970: seconds)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// A cursor over the ASCII bytes of a date.
private struct JSONFeedDateScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index >= bytes.count }

    mutating func skipSpaces() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
    }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
        index += 1
        return true
    }

    mutating func takeWord(_ word: String) -> Bool {
        let wordBytes = Array(word.utf8)
        guard bytes.count - index >= wordBytes.count,
            Array(bytes[index..<(index + wordBytes.count)]) == wordBytes
        else { return false }
        index += wordBytes.count
        return true
    }

    mutating func digit() -> Int? {
        guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
        defer { index += 1 }
        return Int(bytes[index] - 0x30)
    }

    mutating func number(digits: Int) -> Int? {
        let start = index
        var value = 0
        for _ in 0..<digits {
            guard let next = digit() else {
                index = start
                return nil
            }
            value = value * 10 + next
        }
        return value
    }
}
