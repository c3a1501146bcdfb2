import Foundation
import ObjectGraph

// MARK: - Translation to ObjectGraph

extension NewsboatFilter {
    /// The filter as a predicate over FeedItem (its `content` read through the item's body),
    /// with `age` counted back from `now`. Every attribute newsboat documents is translated,
    /// or refused with ``NewsboatFilterError/noEquivalent(attribute:reason:)``.
    ///
    /// - `=~`/`!~`: newsboat's case-insensitive search anywhere in the value, as `MATCHES[c]`
    ///   with the pattern wrapped in `.*(?:…).*` (ICU's syntax, which reads POSIX extended
    ///   expressions the same way for what filters use); ObjectGraph bounds its time.
    /// - `#`/`!#`: a word of the value; a tag of the feed (`tags`, ignoring case as Zeader's
    ///   tags do); every letter given among the item's flags (`flags`).
    /// - `age` (whole days since the item's date) becomes a comparison of `sortDate` with
    ///   dates counted from `now`; `date` compares with a day written `YYYY-MM-DD`.
    ///
    /// ```swift
    /// let p = try NewsboatFilter("age < 7 and title =~ \"linux\"").predicate(now: Date())
    /// let items = try context.fetch(FetchRequest<FeedItem>(predicate: p))
    /// ```
    public func predicate(now: Date) throws(NewsboatFilterError) -> ObjectPredicate {
        let predicate = ZeaderModel.itemPredicate(try translate(expression, now: now))
        guard Self.depth(of: predicate) <= ObjectPredicate.Limits.predicateDepth else {
            throw .tooManyLevels(limit: ObjectPredicate.Limits.predicateDepth)
        }
        return predicate
    }

    /// The filter as a predicate over Server, for the feed list: newsboat's feed attributes
    /// (`feedtitle`, `rssurl`, `feedlink`, `tags`, `unread_count`, `total_count`) only; an
    /// article's attribute is refused with
    /// ``NewsboatFilterError/articleAttributeInFeedList(attribute:position:)``.
    ///
    /// ```swift
    /// let busy = try NewsboatFilter("unread_count > 10 and tags # \"tech\"").serverPredicate(now: Date())
    /// ```
    public func serverPredicate(now: Date) throws(NewsboatFilterError) -> ObjectPredicate {
        var pending = [expression]
        while let next = pending.popLast() {
            switch next {
            case .and(let parts), .or(let parts): pending += parts
            case .comparison(let c):
                if Self.attributes[c.attribute] != nil, !Self.feedAttributes.contains(c.attribute) {
                    throw .articleAttributeInFeedList(attribute: c.attribute, position: c.position)
                }
            }
        }
        let predicate = try translate(expression, now: now).replacingKeyPaths {
            $0.hasPrefix("server.") ? String($0.dropFirst(7)) : $0
        }
        guard Self.depth(of: predicate) <= ObjectPredicate.Limits.predicateDepth else {
            throw .tooManyLevels(limit: ObjectPredicate.Limits.predicateDepth)
        }
        return predicate
    }

    /// newsboat's attributes of a feed (its manual's "feed, article" rows).
    static let feedAttributes: Set<String> = [
        "feedtitle", "description", "feedlink", "feeddate", "rssurl", "unread_count", "total_count", "tags", "feedindex",
    ]

    func translate(_ expression: Expression, now: Date) throws(NewsboatFilterError) -> ObjectPredicate {
        switch expression {
        case .and(let parts):
            var translated: [ObjectPredicate] = []
            for part in parts { translated.append(try translate(part, now: now)) }
            return .and(translated)
        case .or(let parts):
            var translated: [ObjectPredicate] = []
            for part in parts { translated.append(try translate(part, now: now)) }
            return .or(translated)
        case .comparison(let comparison):
            return try Self.translate(comparison, now: now)
        }
    }

    /// Levels of NOT, AND and OR, as ObjectGraph bounds them.
    static func depth(of predicate: ObjectPredicate) -> Int {
        switch predicate.node {
        case .constant, .comparison: return 1
        case .not(let inner): return 1 + depth(of: inner)
        case .and(let parts), .or(let parts): return 1 + (parts.map(depth(of:)).max() ?? 0)
        }
    }

    /// What each of newsboat's attributes is in Zeader's model.
    enum Attribute {
        /// A string attribute at this key path of FeedItem.
        case text(String)
        case tags
        case flags
        case unread
        case age
        case date
        /// A whole number at this key path.
        case count(String)
        case noEquivalent(NewsboatFilterError.NoEquivalentReason)
    }

    /// newsboat's attributes (its manual's table), articles' and feeds'.
    static let attributes: [String: Attribute] = [
        "title": .text("title"), "link": .text("link"), "author": .text("author"), "content": .text("content"),
        "guid": .text("guid"), "enclosure_url": .text("enclosureURL"), "enclosure_type": .text("enclosureType"),
        "feedtitle": .text("server.title"), "feedlink": .text("server.siteLink"), "rssurl": .text("server.url"),
        "flags": .flags, "tags": .tags, "unread": .unread, "age": .age, "date": .date,
        "unread_count": .count("server.unreadCount"), "total_count": .count("server.totalCount"),
        "articleindex": .noEquivalent(.listPosition), "feedindex": .noEquivalent(.listPosition),
        "description": .noEquivalent(.notStored), "feeddate": .noEquivalent(.notStored),
    ]

    static let textOperators = "=, !=, =~, !~, # or !#"
    static let numberOperators = "=, !=, <, >, <=, >= or between"

    static func translate(_ c: Comparison, now: Date) throws(NewsboatFilterError) -> ObjectPredicate {
        guard let attribute = attributes[c.attribute] else { throw .unknownAttribute(c.attribute, position: c.position) }
        func notApplicable(_ expected: String) -> NewsboatFilterError {
            .operatorNotApplicable(attribute: c.attribute, op: c.op.rawValue, expected: expected)
        }
        let ordering: Set<Operator> = [.less, .greater, .lessOrEqual, .greaterOrEqual, .between]
        switch attribute {
        case .text, .tags, .flags:
            if ordering.contains(c.op) { throw notApplicable(textOperators) }
        case .unread, .age, .date, .count, .noEquivalent: break
        }
        switch attribute {
        case .noEquivalent(let reason):
            throw .noEquivalent(attribute: c.attribute, reason: reason)
        case .text(let key):
            return try text(key, c, notApplicable)
        case .tags:
            return try tags(c, notApplicable)
        case .flags:
            return try flags(c, notApplicable)
        case .unread:
            guard c.op == .equal || c.op == .notEqual else { throw notApplicable("= or != with \"yes\" or \"no\"") }
            guard case .string(let word) = c.value, let unread = ["yes": true, "no": false][word.lowercased()] else {
                throw .invalidValue(attribute: c.attribute, value: c.value.text, expected: "\"yes\" or \"no\"")
            }
            return .comparison("read", .equalTo, .bool(unread == (c.op == .notEqual)))
        case .age:
            return try age(c, now: now, notApplicable)
        case .date:
            return try date(c, notApplicable)
        case .count(let key):
            return try number(key, c, notApplicable)
        }
    }

    // MARK: Strings

    static func text(
        _ key: String, _ c: Comparison, _ notApplicable: (String) -> NewsboatFilterError
    ) throws(NewsboatFilterError) -> ObjectPredicate {
        guard case .some(let value) = c.value.stringValue else {
            throw .invalidValue(attribute: c.attribute, value: c.value.text, expected: "a \"string\"")
        }
        switch c.op {
        case .equal, .notEqual:
            let value = unescaped(value)
            // newsboat reads a missing value as "": `content = ""` is an item without content.
            let equal: ObjectPredicate =
                value.isEmpty
                ? .comparison(key, .equalTo, .null) || .comparison(key, .equalTo, .string(""))
                : .comparison(key, .equalTo, .string(value))
            return c.op == .equal ? equal : !equal
        case .matches, .notMatches:
            let found = ObjectPredicate.comparison(
                key, .matches, .string(try searchPattern(value)), options: .caseInsensitive)
            return c.op == .matches ? found : !found
        case .contains, .notContains:
            let word = NSRegularExpression.escapedPattern(for: unescaped(value))
            let found: ObjectPredicate =
                word.isEmpty ? .false : .comparison(key, .matches, .string("(?s)(?:.*\\s)?" + word + "(?:\\s.*)?"))
            return c.op == .contains ? found : !found
        case .less, .greater, .lessOrEqual, .greaterOrEqual, .between:
            throw notApplicable(textOperators)
        }
    }

    /// newsboat's `=~`: the pattern found anywhere in the value (dot matching newlines, as
    /// POSIX's does), checked by ICU here so a bad one is named before any query runs.
    static func searchPattern(_ pattern: String) throws(NewsboatFilterError) -> String {
        let translated = POSIXPattern.icu(pattern)
        var body = translated
        // An unterminated \Q…\E quote would swallow the wrapper's closing part.
        if let quote = body.range(of: "\\Q", options: .backwards),
            body.range(of: "\\E", options: .backwards).map({ $0.lowerBound < quote.lowerBound }) ?? true
        {
            body += "\\E"
        }
        let wrapped = "(?s).*(?:" + body + ").*"
        guard wrapped.unicodeScalars.count <= ObjectPredicate.Limits.patternLength else {
            throw .invalidRegex(
                pattern: pattern, reason: "longer than \(ObjectPredicate.Limits.patternLength - 12) characters")
        }
        do {
            if !pattern.isEmpty { _ = try NSRegularExpression(pattern: translated, options: [.caseInsensitive]) }
            _ = try NSRegularExpression(pattern: wrapped, options: [.caseInsensitive])
        } catch {
            throw .invalidRegex(pattern: pattern, reason: "ICU cannot compile it")
        }
        return wrapped
    }

    /// A string value as compared with `=` and `#`: `\"` and `\\` stand for `"` and `\`.
    static func unescaped(_ value: String) -> String {
        guard value.contains("\\") else { return value }
        var result = ""
        var escaping = false
        for c in value {
            if escaping || c != "\\" {
                result.append(c)
                escaping = false
            } else {
                escaping = true
            }
        }
        if escaping { result.append("\\") }
        return result
    }

    static func tags(_ c: Comparison, _ notApplicable: (String) -> NewsboatFilterError) throws(NewsboatFilterError)
        -> ObjectPredicate
    {
        guard case .some(let value) = c.value.stringValue else {
            throw .invalidValue(attribute: c.attribute, value: c.value.text, expected: "a \"tag\"")
        }
        switch c.op {
        case .contains, .notContains:
            // Stored tags are joined by commas, which a tag never holds (FeedTags).
            let found: ObjectPredicate =
                FeedTags.clean(unescaped(value)).map {
                    .comparison(
                        "server.tags", .matches,
                        .string("(?:.*,)?" + NSRegularExpression.escapedPattern(for: $0) + "(?:,.*)?"), options: .caseInsensitive)
                } ?? .false
            return c.op == .contains ? found : !found
        case .equal, .notEqual:
            let wanted = FeedTags.normalized(unescaped(value).split(separator: " ").map(String.init))
            let equal: ObjectPredicate = .comparison(
                "server.tags", .equalTo, wanted.map(Value.string) ?? .null, options: .caseInsensitive)
            return c.op == .equal ? equal : !equal
        case .matches, .notMatches:
            return try text("server.tags", c, notApplicable)
        case .less, .greater, .lessOrEqual, .greaterOrEqual, .between:
            throw notApplicable(textOperators)
        }
    }

    static func flags(_ c: Comparison, _ notApplicable: (String) -> NewsboatFilterError) throws(NewsboatFilterError)
        -> ObjectPredicate
    {
        guard case .some(let value) = c.value.stringValue else {
            throw .invalidValue(attribute: c.attribute, value: c.value.text, expected: "letters A-Z and a-z")
        }
        switch c.op {
        case .contains, .notContains, .equal, .notEqual:
            guard let letters = try? ItemFlagLetters.normalized(value) else {
                throw .invalidValue(attribute: c.attribute, value: value, expected: "letters A-Z and a-z")
            }
            let found: ObjectPredicate
            if c.op == .contains || c.op == .notContains {
                // Every letter given is among the item's, whatever the others.
                found =
                    letters.isEmpty ? .false : .and(letters.map { .comparison("flagLetters", .contains, .string(String($0))) })
            } else {
                found =
                    letters.isEmpty
                    ? .comparison("flagLetters", .equalTo, .null) || .comparison("flagLetters", .equalTo, .string(""))
                    : .comparison("flagLetters", .equalTo, .string(letters))
            }
            return c.op == .contains || c.op == .equal ? found : !found
        case .matches, .notMatches:
            return try text("flagLetters", c, notApplicable)
        case .less, .greater, .lessOrEqual, .greaterOrEqual, .between:
            throw notApplicable(textOperators)
        }
    }

    // MARK: Numbers and dates

    static func number(
        _ key: String, _ c: Comparison, _ notApplicable: (String) -> NewsboatFilterError
    ) throws(NewsboatFilterError) -> ObjectPredicate {
        if case .range(let low, let high) = c.value {
            return .comparison(key, .between, values: [.integer(min(low, high)), .integer(max(low, high))])
        }
        guard let n = c.value.integerValue else {
            throw .invalidValue(attribute: c.attribute, value: c.value.text, expected: "a whole number")
        }
        let op: ComparisonOperator
        switch c.op {
        case .equal: op = .equalTo
        case .notEqual: op = .notEqualTo
        case .less: op = .lessThan
        case .greater: op = .greaterThan
        case .lessOrEqual: op = .lessThanOrEqualTo
        case .greaterOrEqual: op = .greaterThanOrEqualTo
        case .matches, .notMatches, .contains, .notContains, .between: throw notApplicable(numberOperators)
        }
        return .comparison(key, op, .integer(n))
    }

    /// The most days `age` may count: DateBounds' ten thousand years.
    static let maximumAge: Int64 = 3_660_000

    static func age(
        _ c: Comparison, now: Date, _ notApplicable: (String) -> NewsboatFilterError
    ) throws(NewsboatFilterError) -> ObjectPredicate {
        func days(_ n: Int64) throws(NewsboatFilterError) -> Int64 {
            guard abs(n) <= maximumAge else {
                throw .invalidValue(attribute: c.attribute, value: String(n), expected: "a number of days up to \(maximumAge)")
            }
            return n
        }
        /// The date `n` whole days before `now`: an item is `n` days old or more when its date is on or before it.
        func daysAgo(_ n: Int64) -> Value { .date(now.addingTimeInterval(-Double(n) * 86_400)) }
        func olderOrSame(_ n: Int64) -> ObjectPredicate { .comparison("sortDate", .lessThanOrEqualTo, daysAgo(n)) }
        func younger(_ n: Int64) -> ObjectPredicate { .comparison("sortDate", .greaterThan, daysAgo(n)) }
        if case .range(let a, let b) = c.value {
            let (low, high) = (try days(min(a, b)), try days(max(a, b)))
            return olderOrSame(low) && younger(high + 1)
        }
        guard let raw = c.value.integerValue else {
            throw .invalidValue(attribute: c.attribute, value: c.value.text, expected: "a whole number of days")
        }
        let n = try days(raw)
        switch c.op {
        case .less: return younger(n)
        case .lessOrEqual: return younger(n + 1)
        case .greater: return olderOrSame(n + 1)
        case .greaterOrEqual: return olderOrSame(n)
        case .equal: return olderOrSame(n) && younger(n + 1)
        case .notEqual: return !(olderOrSame(n) && younger(n + 1))
        case .matches, .notMatches, .contains, .notContains, .between: throw notApplicable(numberOperators)
        }
    }

    static func date(_ c: Comparison, _ notApplicable: (String) -> NewsboatFilterError) throws(NewsboatFilterError)
        -> ObjectPredicate
    {
        let expected = "=, !=, <, >, <= or >= with a day written \"YYYY-MM-DD\""
        guard case .string(let text) = c.value else {
            throw .invalidValue(attribute: c.attribute, value: c.value.text, expected: "a day written \"YYYY-MM-DD\"")
        }
        guard let day = Self.day(text) else {
            throw .invalidValue(attribute: c.attribute, value: text, expected: "a day written \"YYYY-MM-DD\"")
        }
        let (start, end) = (Value.date(day.start), Value.date(day.end))
        switch c.op {
        case .less: return .comparison("sortDate", .lessThan, start)
        case .lessOrEqual: return .comparison("sortDate", .lessThan, end)
        case .greater: return .comparison("sortDate", .greaterThanOrEqualTo, end)
        case .greaterOrEqual: return .comparison("sortDate", .greaterThanOrEqualTo, start)
        case .equal: return .comparison("sortDate", .greaterThanOrEqualTo, start) && .comparison("sortDate", .lessThan, end)
        case .notEqual:
            return !(.comparison("sortDate", .greaterThanOrEqualTo, start) && .comparison("sortDate", .lessThan, end))
        case .matches, .notMatches, .contains, .notContains, .between: throw notApplicable(expected)
        }
    }

    /// The local day `YYYY-MM-DD` names, from its first instant to the next day's.
    static func day(_ text: String) -> (start: Date, end: Date)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let dayOfMonth = Int(parts[2]),
            (1...9999).contains(year), (1...12).contains(month), (1...31).contains(dayOfMonth)
        else { return nil }
        let calendar = Calendar(identifier: .gregorian)
        guard let start = calendar.date(from: DateComponents(year: year, month: month, day: dayOfMonth)),
            calendar.component(.day, from: start) == dayOfMonth,
            let end = calendar.date(byAdding: .day, value: 1, to: start)
        else { return nil }
        return (start, end)
    }
}

extension NewsboatFilter.Literal {
    /// A string value, or a number's digits (newsboat compares strings with numbers as text).
    var stringValue: String? {
        switch self {
        case .string(let s): return s
        case .number(let n): return String(n)
        case .range: return nil
        }
    }

    /// A number, or a string holding one.
    var integerValue: Int64? {
        switch self {
        case .number(let n): return n
        case .string(let s): return Int64(s.trimmingCharacters(in: .whitespaces))
        case .range: return nil
        }
    }

    /// As written, for messages.
    var text: String {
        switch self {
        case .string(let s): return s
        case .number(let n): return String(n)
        case .range(let a, let b): return "\(a):\(b)"
        }
    }
}
