import Foundation

/// Parses the dates feeds carry: RFC 822/2822 with its real-world variants and
/// RFC 3339 / ISO 8601 / W3C-DTF.
///
/// Dates without a zone are read as UTC. Two-digit years 00–49 are 20xx, 50–99 are 19xx.
///
/// ```swift
/// FeedDateParser.date(from: "Wed, 6 Apr 2022 21:07:47 +0000")   // 2022-04-06T21:07:47Z
/// FeedDateParser.date(from: "2015-09-08T07:21:41.000-07:00")    // 2015-09-08T14:21:41Z
/// ```
public enum FeedDateParser {
    /// The date written in `string`, whichever of the supported syntaxes it uses; `nil`
    /// when it cannot be read.
    ///
    /// ```swift
    /// let when = FeedDateParser.date(from: "Sun, 12 August 2012")
    /// ```
    public static func date(from string: String) -> Date? {
        var bytes = Array(string.utf8)
        return bytes.withUnsafeMutableBufferPointer { date(fromUTF8: UnsafeBufferPointer($0)) }
    }

    /// Same as ``date(from:)`` on UTF-8 bytes, without building a `String`.
    static func date(fromUTF8 input: UnsafeBufferPointer<UInt8>) -> Date? {
        var start = 0
        var end = input.count
        while start < end, input[start] <= 0x20 { start += 1 }
        while end > start, input[end - 1] <= 0x20 { end -= 1 }
        guard end - start >= 4 else { return nil }
        let trimmed = UnsafeBufferPointer(rebasing: input[start..<end])
        let seconds: Int64?
        if isDigit(trimmed[0]) && isDigit(trimmed[1]) && isDigit(trimmed[2]) && isDigit(trimmed[3]) {
            seconds = iso8601(trimmed) ?? rfc822(trimmed)
        } else {
            seconds = rfc822(trimmed) ?? iso8601(trimmed)
        }
        guard let seconds, supportedSeconds.contains(seconds) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The dates Zeader keeps, in seconds since 1970: 0001-01-01T00:00:00Z up to, not
    /// including, 10000-01-01T00:00:00Z (four-digit years in UTC). A date a zone offset
    /// moves past either end is no date. ZeaderKit's `DateBounds` applies the same range to
    /// every other way a date enters.
    package static let supportedSeconds: Range<Int64> = -62_135_596_800..<253_402_300_800

    // MARK: - ISO 8601 / RFC 3339 / W3C-DTF

    /// `YYYY[-MM[-DD]]`, `YYYYMMDD`, then `T`/space `hh:mm[:ss[.fff]]` (or `hhmmss`), then
    /// `Z`, `±hh`, `±hhmm`, `±hh:mm`, `UTC`/`GMT`. Also `YYYY/M/D h:mm[:ss]`.
    static func iso8601(_ s: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        let n = s.count
        func number(_ maxDigits: Int) -> (value: Int, digits: Int)? {
            var value = 0
            var digits = 0
            while i < n, digits < maxDigits, isDigit(s[i]) {
                value = value * 10 + Int(s[i] - 48)
                digits += 1
                i += 1
            }
            return digits == 0 ? nil : (value, digits)
        }
        guard let year = number(4), year.digits == 4 else { return nil }
        var month = 1
        var day = 1
        var hour = 0
        var minute = 0
        var second = 0
        if i < n, s[i] == 0x2D || s[i] == 0x2F {  // - or /
            let separator = s[i]
            i += 1
            guard let m = number(2) else { return nil }
            month = m.value
            if i < n, s[i] == separator {
                i += 1
                guard let d = number(2) else { return nil }
                day = d.value
            }
        } else if i + 4 <= n, let m = number(2), m.digits == 2, let d = number(2), d.digits == 2 {
            month = m.value  // basic format YYYYMMDD
            day = d.value
        }
        if i < n, s[i] == 0x54 || s[i] == 0x74 || s[i] == 0x20 {  // T, t, space
            i += 1
            while i < n, s[i] == 0x20 { i += 1 }
            guard let h = number(2) else { return nil }
            hour = h.value
            if i < n, s[i] == 0x3A { i += 1 }
            if let m = number(2) {
                minute = m.value
                if i < n, s[i] == 0x3A { i += 1 }
                if let sec = number(2) { second = sec.value }
                if i < n, s[i] == 0x2E || s[i] == 0x2C {  // fraction: . or ,
                    i += 1
                    while i < n, isDigit(s[i]) { i += 1 }
                }
            }
        }
        while i < n, s[i] == 0x20 { i += 1 }
        var offset = 0
        if i < n {
            switch s[i] {
            case 0x5A, 0x7A:  // Z z
                i += 1
            case 0x2B, 0x2D:  // + -
                let sign = s[i] == 0x2D ? -1 : 1
                i += 1
                guard let hh = number(2) else { return nil }
                var mm = 0
                if hh.digits == 2 {
                    if i < n, s[i] == 0x3A { i += 1 }
                    if let m = number(2) { mm = m.value }
                }
                guard let zone = zoneSeconds(hours: hh.value, minutes: mm) else { return nil }
                offset = sign * zone
            default:
                let rest = UnsafeBufferPointer(rebasing: s[i..<n])
                guard let zone = zoneOffset(rest) else { return nil }
                offset = zone
                i = n
            }
        }
        while i < n, s[i] == 0x20 { i += 1 }
        guard i == n else { return nil }
        return epochSeconds(
            year: year.value, month: month, day: day, hour: hour, minute: minute, second: second,
            offset: offset)
    }

    // MARK: - RFC 822 and its variants

    /// Reads tokens in any order: day names (any language, ignored), month names
    /// (English, full or abbreviated; common Romance/Germanic abbreviations), day and
    /// year numbers, `h:mm[:ss]`, and a zone (`GMT`, `EST`, `+0100`, `-00:00`, military letters).
    static func rfc822(_ s: UnsafeBufferPointer<UInt8>) -> Int64? {
        var day: Int?
        var month: Int?
        var year: Int?
        var yearDigits = 0
        var hour = 0
        var minute = 0
        var second = 0
        var sawTime = false
        var offset: Int?
        var i = 0
        let n = s.count
        while i < n {
            let c = s[i]
            if c == 0x20 || c == 0x2C || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x2E && !sawTime {
                i += 1
                continue
            }
            if isDigit(c) {
                let tokenStart = i
                var value = 0
                while i < n, isDigit(s[i]) {
                    value = accumulate(value, s[i])
                    i += 1
                }
                let digits = i - tokenStart
                if i < n, s[i] == 0x3A, !sawTime {  // time h:mm[:ss]
                    hour = value
                    i += 1
                    var m = 0
                    var mDigits = 0
                    while i < n, isDigit(s[i]) {
                        m = accumulate(m, s[i])
                        i += 1
                        mDigits += 1
                    }
                    guard mDigits > 0 else { return nil }
                    minute = m
                    if i < n, s[i] == 0x3A {
                        i += 1
                        var sec = 0
                        while i < n, isDigit(s[i]) {
                            sec = accumulate(sec, s[i])
                            i += 1
                        }
                        second = sec
                        if i < n, s[i] == 0x2E {  // fractional seconds
                            i += 1
                            while i < n, isDigit(s[i]) { i += 1 }
                        }
                    }
                    sawTime = true
                } else if digits == 4 && year == nil && (day != nil || month == nil || true) && value > 31 {
                    year = value
                    yearDigits = 4
                } else if day == nil && digits <= 2 && value >= 1 && value <= 31 {
                    day = value
                } else if year == nil && (digits == 2 || digits == 4) {
                    year = value
                    yearDigits = digits
                } else {
                    return nil
                }
                continue
            }
            if c == 0x2D, i > 0, isLetter(s[i - 1]) || isDigit(s[i - 1]) {  // 10-Jun-03: a separator
                i += 1
                continue
            }
            if c == 0x2B || c == 0x2D {  // numeric zone
                let sign = c == 0x2D ? -1 : 1
                i += 1
                var value = 0
                var digits = 0
                while i < n, isDigit(s[i]) || s[i] == 0x3A {
                    if s[i] != 0x3A {
                        value = accumulate(value, s[i])
                        digits += 1
                    }
                    i += 1
                }
                let hours: Int
                let minutes: Int
                switch digits {
                case 3, 4: (hours, minutes) = (value / 100, value % 100)
                case 1, 2: (hours, minutes) = (value, 0)
                default: return nil
                }
                guard let zone = zoneSeconds(hours: hours, minutes: minutes) else { return nil }
                offset = sign * zone
                continue
            }
            if isLetter(c) {
                let tokenStart = i
                while i < n, isLetter(s[i]) || s[i] >= 0x80 { i += 1 }
                let word = UnsafeBufferPointer(rebasing: s[tokenStart..<i])
                if month == nil, let m = monthNumber(word) {
                    month = m
                } else if let zone = zoneOffset(word) {
                    offset = zone
                } else if isDayName(word) {
                    // ignored wherever it appears
                } else if word.count == 1 && (word[0] | 0x20) == 0x74 {
                    // a stray "T" between date and time
                } else if word.count == 2 && (word[0] | 0x20) == 0x61 || (word[0] | 0x20) == 0x70 && word.count == 2 {
                    // AM / PM
                    let pm = (word[0] | 0x20) == 0x70
                    if sawTime {
                        if pm && hour < 12 { hour += 12 }
                        if !pm && hour == 12 { hour = 0 }
                    }
                } else {
                    // unknown word (a foreign day name, "at", etc.): ignore short ones
                    if word.count > 12 { return nil }
                }
                continue
            }
            if c >= 0x80 {  // non-ASCII day/month names we do not know
                while i < n, s[i] >= 0x80 || isLetter(s[i]) { i += 1 }
                continue
            }
            // other punctuation: ( ) / etc.
            i += 1
        }
        guard let day, let month, var year else { return nil }
        if yearDigits == 2 { year += year < 50 ? 2000 : 1900 }
        return epochSeconds(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            offset: offset ?? 0)
    }

    // MARK: - Tables

    private static func lowerWord(_ word: UnsafeBufferPointer<UInt8>, prefix: Int) -> UInt32 {
        var key: UInt32 = 0
        for index in 0..<min(prefix, word.count) { key = key << 8 | UInt32(word[index] | 0x20) }
        return key
    }

    private static func code(_ text: StaticString) -> UInt32 {
        var key: UInt32 = 0
        text.withUTF8Buffer { for byte in $0 { key = key << 8 | UInt32(byte) } }
        return key
    }

    /// Months by their first three letters (English, and the usual French, Spanish,
    /// Italian, German, Dutch and Portuguese abbreviations that do not clash).
    static func monthNumber(_ word: UnsafeBufferPointer<UInt8>) -> Int? {
        guard word.count >= 3 else { return nil }
        switch lowerWord(word, prefix: 3) {
        case code("jan"), code("gen"), code("ene"): return 1
        case code("feb"), code("fev"), code("fév"): return 2
        case code("mar"), code("mär"), code("maa"): return 3
        case code("apr"), code("avr"), code("abr"): return 4
        case code("may"), code("mai"), code("mag"), code("mei"): return 5
        case code("jui"): return word.count >= 4 && (word[3] | 0x20) == 0x6E ? 6 : 7  // juin, juillet
        case code("jun"), code("giu"): return 6
        case code("jul"), code("lug"): return 7
        case code("aug"), code("ago"), code("aoû"), code("aou"): return 8
        case code("sep"), code("set"): return 9
        case code("oct"), code("ott"), code("okt"), code("out"): return 10
        case code("nov"): return 11
        case code("dec"), code("dic"), code("dez"), code("déc"): return 12
        default: return nil
        }
    }

    static func isDayName(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        guard word.count >= 2 else { return false }
        switch lowerWord(word, prefix: 3) {
        case code("mon"), code("tue"), code("wed"), code("thu"), code("fri"), code("sat"), code("sun"),
            code("lun"), code("mer"), code("gio"), code("ven"), code("sab"), code("dom"),  // it
            code("mie"), code("jue"), code("vie"),  // es
            code("jeu"), code("sam"), code("dim"),  // fr
            code("die"), code("mit"), code("don"), code("fre"), code("son"),  // de
            code("seg"), code("ter"), code("qua"), code("qui"), code("sex"), code("sáb"):  // pt
            return true
        default:
            return lowerWord(word, prefix: 2) == code("ma") || lowerWord(word, prefix: 2) == code("di")
                || lowerWord(word, prefix: 2) == code("mo") || lowerWord(word, prefix: 2) == code("do")
                || lowerWord(word, prefix: 2) == code("fr") || lowerWord(word, prefix: 2) == code("sa")
                || lowerWord(word, prefix: 2) == code("so")
        }
    }

    /// Offsets in seconds for named zones (RFC 822's, common North American, European,
    /// Asian and Australian abbreviations, and military letters except J).
    static func zoneOffset(_ word: UnsafeBufferPointer<UInt8>) -> Int? {
        if word.count == 1 {
            let letter = word[0] | 0x20
            switch letter {
            case 0x7A: return 0  // Z
            case 0x61...0x69: return -Int(letter - 0x60) * 3600  // A-I: -1..-9 (RFC 822 sign as written)
            case 0x6B...0x6D: return -Int(letter - 0x61) * 3600  // K-M: -10..-12
            case 0x6E...0x79: return Int(letter - 0x6D) * 3600  // N-Y: +1..+12
            default: return nil
            }
        }
        guard word.count <= 5 else { return nil }
        var key: UInt64 = 0
        for byte in word { key = key << 8 | UInt64(byte | 0x20) }
        func k(_ text: StaticString) -> UInt64 {
            var value: UInt64 = 0
            text.withUTF8Buffer { for byte in $0 { value = value << 8 | UInt64(byte) } }
            return value
        }
        let hours: Double
        switch key {
        case k("gmt"), k("ut"), k("utc"), k("wet"), k("z"): hours = 0
        case k("est"): hours = -5
        case k("edt"): hours = -4
        case k("cst"): hours = -6
        case k("cdt"): hours = -5
        case k("mst"): hours = -7
        case k("mdt"): hours = -6
        case k("pst"): hours = -8
        case k("pdt"): hours = -7
        case k("akst"): hours = -9
        case k("akdt"): hours = -8
        case k("hst"): hours = -10
        case k("ast"): hours = -4
        case k("adt"): hours = -3
        case k("nst"): hours = -3.5
        case k("ndt"): hours = -2.5
        case k("bst"), k("cet"), k("met"), k("west"): hours = 1
        case k("cest"), k("mest"), k("eet"), k("sast"): hours = 2
        case k("eest"), k("msk"): hours = 3
        case k("ist"): hours = 5.5
        case k("ict"), k("wib"): hours = 7
        case k("hkt"), k("sgt"), k("awst"), k("pht"): hours = 8
        case k("jst"), k("kst"): hours = 9
        case k("acst"): hours = 9.5
        case k("aest"): hours = 10
        case k("acdt"): hours = 10.5
        case k("aedt"): hours = 11
        case k("nzst"): hours = 12
        case k("nzdt"): hours = 13
        default: return nil
        }
        return Int(hours * 3600)
    }

    // MARK: - Arithmetic

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Numbers in a date are read with this ceiling: any field of more digits is out of
    /// range anyway, and a run of 19 or more digits must not overflow `Int`.
    static let numberCeiling = 1_000_000_000

    /// `value * 10 + digit`, saturating at ``numberCeiling``.
    @inline(__always)
    static func accumulate(_ value: Int, _ digit: UInt8) -> Int {
        value >= numberCeiling ? numberCeiling : value * 10 + Int(digit - 48)
    }

    /// A numeric zone's offset in seconds, nil when it is not a real one (beyond ±23:59 or
    /// minutes past 59).
    static func zoneSeconds(hours: Int, minutes: Int) -> Int? {
        guard (0...23).contains(hours), (0...59).contains(minutes) else { return nil }
        return hours * 3600 + minutes * 60
    }

    @inline(__always)
    static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    /// Seconds since 1970 for a civil date and time at `offset` seconds east of UTC, or
    /// `nil` when a field is out of range.
    static func epochSeconds(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offset: Int
    ) -> Int64? {
        guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
            (0...24).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
    }
}
