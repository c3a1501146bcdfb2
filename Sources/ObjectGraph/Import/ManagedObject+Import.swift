import Foundation

/// How `ManagedObject.importValues(from:options:)` reads a dictionary.
///
/// ```swift
/// var options = ImportOptions()
/// options.keyMap = ["id": "guid"]                 // source key → attribute
/// options.dates = .formatter(rfc822Formatter)     // instead of ISO 8601
/// options.onTypeError = .skip                      // report bad values instead of throwing
/// ```
public struct ImportOptions {
    /// How strings become dates.
    public enum DateStrategy {
        /// ISO 8601 / RFC 3339: `2024-05-01`, `2024-05-01T12:30:00Z`, with fractional seconds,
        /// a `±hh:mm` offset, or a space instead of `T`. Without an offset the time is UTC.
        case iso8601
        /// A `DateFormatter` (set its locale and time zone).
        case formatter(DateFormatter)
        /// Any function; nil means the string is not a date.
        case custom((String) -> Date?)
    }

    /// What numbers mean for date attributes.
    public enum NumericDateUnit {
        /// `1714557600` is 2024-05-01T10:00:00Z.
        case secondsSince1970
        /// `1714557600000` is 2024-05-01T10:00:00Z (JavaScript's `Date.now()`).
        case millisecondsSince1970
    }

    /// What happens when a value cannot be converted to its attribute's type.
    public enum TypeErrorHandling {
        /// Throw ``ObjectGraphError/typeMismatch(entity:key:expected:got:)`` (or
        /// ``ObjectGraphError/missingValue(entity:key:)`` for null on a required attribute)
        /// and change nothing (the default).
        case `throw`
        /// Leave that attribute as it was, set the others, and list the error in
        /// ``ImportReport/skipped``.
        case skip
    }

    /// How strings become dates (`options.dates = .formatter(rfc822)`); ISO 8601 by default.
    public var dates: DateStrategy = .iso8601
    /// What numbers mean for dates (`options.numericDates = .millisecondsSince1970`).
    public var numericDates: NumericDateUnit = .secondsSince1970
    /// Throw on the first bad value (default) or skip it (`options.onTypeError = .skip`).
    public var onTypeError: TypeErrorHandling = .throw
    /// Source keys that differ from attribute names: `["id": "guid"]`. Unmapped keys are
    /// matched to attributes by name.
    public var keyMap: [String: String] = [:]

    /// The defaults: ISO 8601 dates, numbers as seconds since 1970, type errors thrown.
    public init() {}
}

/// What an import did.
///
/// ```swift
/// let report = try item.importValues(from: record)
/// print(report.ignoredKeys)   // keys the entity does not have
/// ```
public struct ImportReport: Sendable, Equatable {
    /// Attributes that were set (sorted).
    public var setKeys: [String] = []
    /// Source keys that were not imported: unknown keys, relationships, derived counts (sorted).
    public var ignoredKeys: [String] = []
    /// Values left out under ``ImportOptions/TypeErrorHandling/skip``.
    public var skipped: [ObjectGraphError] = []
}

extension ManagedObject {
    /// Sets attributes from a JSON-like dictionary, safely:
    ///
    /// - only keys naming an attribute of the entity are used (through ``ImportOptions/keyMap``);
    ///   unknown keys, relationships and derived counts are ignored and listed in the report;
    /// - a key that is missing leaves its attribute as it is (`null` sets nil);
    /// - strings and numbers are converted by the attribute's type: `"42"` for an integer,
    ///   `3.5` for a string (`"3.5"`), `"true"`/`"yes"`/`1` for a bool, base-64 text for data;
    /// - dates come from strings through ``ImportOptions/dates`` (ISO 8601 by default) or
    ///   from numbers (seconds since 1970 by default);
    /// - a value that does not convert (or `null` for a required attribute) throws an error
    ///   naming the entity and the key before anything is changed, or, with
    ///   ``ImportOptions/TypeErrorHandling/skip``, is left out and reported.
    ///
    /// ```swift
    /// let item = try context.insertObject(entityName: "FeedItem")
    /// try item.importValues(from: ["guid": "a1", "read": "yes", "published": "2024-05-01T10:00:00Z"])
    /// ```
    @discardableResult
    public func importValues(from dictionary: [String: ImportValue], options: ImportOptions = ImportOptions())
        throws(ObjectGraphError) -> ImportReport
    {
        var report = ImportReport()
        var pending: [(index: Int, value: Value)] = []
        for (sourceKey, raw) in dictionary {
            let key = options.keyMap[sourceKey] ?? sourceKey
            guard let index = entity.attributeIndexByName[key] else {
                report.ignoredKeys.append(sourceKey)
                continue
            }
            let attribute = entity.attributes[index]
            if attribute.isDerivedCounter {
                report.ignoredKeys.append(sourceKey)
                continue
            }
            do throws(ObjectGraphError) {
                pending.append((index, try Self.convert(raw, for: attribute, entity: entity.name, options: options)))
            } catch {
                if case .skip = options.onTypeError {
                    report.skipped.append(error)
                } else {
                    throw error
                }
            }
        }
        for (index, value) in pending.sorted(by: { $0.index < $1.index }) {
            setAttributeValue(value, at: index)
            report.setKeys.append(entity.attributes[index].name)
        }
        report.ignoredKeys.sort()
        report.skipped.sort { $0.description < $1.description }
        return report
    }

    /// Sets attributes from a dictionary as `JSONSerialization` returns it (see
    /// the `[String: ImportValue]` variant for the rules). A value of a
    /// kind JSON does not have is a type error.
    ///
    /// ```swift
    /// let record = try JSONSerialization.jsonObject(with: data) as! [String: Any]
    /// try item.importValues(from: record)
    /// ```
    @discardableResult
    public func importValues(from dictionary: [String: Any], options: ImportOptions = ImportOptions())
        throws(ObjectGraphError) -> ImportReport
    {
        var converted: [String: ImportValue] = [:]
        var unconvertible: [ObjectGraphError] = []
        for (key, value) in dictionary {
            if let v = ImportValue(any: value) {
                converted[key] = v
            } else if let attribute = entity.attribute(named: options.keyMap[key] ?? key) {
                let error = ObjectGraphError.typeMismatch(
                    entity: entity.name, key: key, expected: attribute.type.rawValue, got: "\(type(of: value))")
                if case .throw = options.onTypeError { throw error }
                unconvertible.append(error)
            }
        }
        var report = try importValues(from: converted, options: options)
        report.skipped += unconvertible
        return report
    }

    /// Converts one imported value for `attribute`.
    static func convert(_ raw: ImportValue, for attribute: AttributeDescription, entity: String, options: ImportOptions)
        throws(ObjectGraphError) -> Value
    {
        let mismatch = ObjectGraphError.typeMismatch(
            entity: entity, key: attribute.name, expected: attribute.type.rawValue, got: raw.description)
        if case .null = raw {
            guard attribute.isOptional else { throw .missingValue(entity: entity, key: attribute.name) }
            return .null
        }
        switch attribute.type {
        case .string:
            switch raw {
            case .string(let s): return .string(s)
            case .integer(let i): return .string(String(i))
            case .double(let d):
                if d.isFinite, d.rounded() == d, let i = Int64(exactly: d) { return .string(String(i)) }
                return .string(String(d))
            case .bool(let b): return .string(b ? "true" : "false")
            default: throw mismatch
            }
        case .integer:
            // From 2^53 on a double no longer tells which integer it stands for
            // ("-9223372036854775809" reads as -2^63), so only smaller ones are taken.
            func exactInteger(_ d: Double) -> Int64? {
                abs(d) < Self.exactIntegerBound ? Int64(exactly: d) : nil
            }
            switch raw {
            case .integer(let i): return .integer(i)
            case .double(let d):
                guard let i = exactInteger(d) else { throw mismatch }
                return .integer(i)
            case .bool(let b): return .integer(b ? 1 : 0)
            case .string(let s):
                let t = s.trimmingCharacters(in: .whitespaces)
                if let i = Int64(t) { return .integer(i) }
                if let d = Double(t), let i = exactInteger(d) { return .integer(i) }
                throw mismatch
            default: throw mismatch
            }
        case .double:
            switch raw {
            case .integer(let i): return .double(Double(i))
            case .double(let d) where d.isFinite: return .double(d)  // SQLite would store NaN as NULL
            case .string(let s):
                guard let d = Double(s.trimmingCharacters(in: .whitespaces)), d.isFinite else { throw mismatch }
                return .double(d)
            default: throw mismatch
            }
        case .bool:
            switch raw {
            case .bool(let b): return .bool(b)
            case .integer(let i) where i == 0 || i == 1: return .bool(i == 1)
            case .double(let d) where d == 0 || d == 1: return .bool(d == 1)
            case .string(let s):
                switch s.trimmingCharacters(in: .whitespaces).lowercased() {
                case "true", "yes", "y", "1": return .bool(true)
                case "false", "no", "n", "0": return .bool(false)
                default: throw mismatch
                }
            default: throw mismatch
            }
        case .date:
            switch raw {
            case .integer(let i): return .date(date(fromNumber: Double(i), options))
            case .double(let d) where d.isFinite: return .date(date(fromNumber: d, options))
            case .string(let s):
                let date: Date?
                switch options.dates {
                case .iso8601: date = ISO8601Parser.date(from: s)
                case .formatter(let formatter): date = formatter.date(from: s)
                case .custom(let parse): date = parse(s)
                }
                guard let date else { throw mismatch }
                return .date(date)
            default: throw mismatch
            }
        case .data:
            guard case .string(let s) = raw, let data = Data(base64Encoded: s) else { throw mismatch }
            return .data(data)
        }
    }

    /// 2^53: every integer below it has a double of its own; 2^53 + 1 already reads as 2^53.
    static let exactIntegerBound: Double = 9_007_199_254_740_992

    private static func date(fromNumber n: Double, _ options: ImportOptions) -> Date {
        switch options.numericDates {
        case .secondsSince1970: return Date(timeIntervalSince1970: n)
        case .millisecondsSince1970: return Date(timeIntervalSince1970: n / 1000)
        }
    }
}

/// A small, allocation-free ISO 8601 / RFC 3339 parser: Foundation's formatters are slow on
/// Linux and not `Sendable`, and imports parse a date per record.
enum ISO8601Parser {
    /// `YYYY-MM-DD`, optionally followed by `T` or a space, `hh:mm[:ss[.fff…]]`, and `Z`,
    /// `±hh:mm` or `±hhmm` (none: UTC).
    static func date(from string: String) -> Date? {
        var s = string
        return s.withUTF8 { bytes -> Date? in
            var i = 0
            func digits(_ n: Int) -> Int? {
                guard i + n <= bytes.count else { return nil }
                var v = 0
                for k in 0..<n {
                    let c = bytes[i + k]
                    guard c >= 48, c <= 57 else { return nil }
                    v = v * 10 + Int(c - 48)
                }
                i += n
                return v
            }
            func expect(_ c: UInt8) -> Bool {
                guard i < bytes.count, bytes[i] == c else { return false }
                i += 1
                return true
            }
            guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2),
                (1...12).contains(month), day >= 1, day <= daysInMonth(year, month)
            else { return nil }
            var seconds = 0.0
            var offset = 0
            if i < bytes.count {
                guard bytes[i] == 84 || bytes[i] == 116 || bytes[i] == 32 else { return nil }  // T t space
                i += 1
                guard let hour = digits(2), expect(58), let minute = digits(2), hour < 24, minute < 60 else { return nil }
                var second = 0
                if expect(58) {
                    guard let s = digits(2), s <= 60 else { return nil }
                    second = s
                }
                seconds = Double(hour * 3600 + minute * 60 + second)
                if expect(46) || expect(44) {  // . or ,
                    var scale = 0.1
                    var fraction = 0.0
                    let start = i
                    while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
                        fraction += Double(bytes[i] - 48) * scale
                        scale /= 10
                        i += 1
                    }
                    guard i > start else { return nil }
                    seconds += fraction
                }
                if i < bytes.count {
                    if bytes[i] == 90 || bytes[i] == 122 {  // Z z
                        i += 1
                    } else if bytes[i] == 43 || bytes[i] == 45 {  // + -
                        let sign = bytes[i] == 45 ? -1 : 1
                        i += 1
                        guard let oh = digits(2), oh < 24 else { return nil }
                        _ = expect(58)
                        guard let om = digits(2), om < 60 else { return nil }
                        offset = sign * (oh * 3600 + om * 60)
                    } else {
                        return nil
                    }
                }
            }
            guard i == bytes.count else { return nil }
            let days = daysFromCivil(year, month, day)
            return Date(timeIntervalSince1970: Double(days * 86400 - offset) + seconds)
        }
    }

    static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}
