import Foundation
import ObjectGraph

/// A filter in newsboat's filter language (`query:` feeds, `ignore-article`, `define-filter`,
/// `highlight-article`, the `F` prompt), parsed. It is never evaluated itself:
/// ``predicate(now:)`` translates it to an ObjectGraph predicate over FeedItem, the one
/// implementation every filter of Zeader runs through.
///
/// The grammar is newsboat's: `ATTRIBUTE OPERATOR VALUE` comparisons (`=`, `==`, `!=`, `=~`,
/// `!~`, `#`, `!#`, `<`, `>`, `<=`, `>=`, `between`), joined by `and` and `or` (lower case, `and`
/// binding tighter) and grouped by parentheses; values are double-quoted strings, whole
/// numbers or ranges (`0:7`). Hostile text is bounded (length, nesting, comparisons, literal
/// and pattern sizes): past a bound the filter is refused with an error naming it.
///
/// ```swift
/// let filter = try NewsboatFilter("unread = \"yes\" and tags # \"tech\"")
/// let predicate = try filter.predicate(now: Date())   // read == NO AND server.tags MATCHES[c] …
/// ```
public struct NewsboatFilter: Sendable, Equatable {
    /// The filter as written.
    public let text: String
    let expression: Expression

    /// Parses `text`; throws ``NewsboatFilterError`` naming the position of a syntax error or
    /// the bound it passes.
    ///
    /// ```swift
    /// let filter = try NewsboatFilter("age between 0:7")
    /// ```
    public init(_ text: String) throws(NewsboatFilterError) {
        guard text.unicodeScalars.count <= Limits.textLength else {
            throw .tooLong(limit: Limits.textLength)
        }
        var parser = Parser(text: text)
        self.text = text
        self.expression = try parser.parseFilter()
    }

    /// The bounds on a filter's text, below those of ObjectGraph's own format strings.
    ///
    /// ```swift
    /// if text.count > NewsboatFilter.Limits.textLength { print("too long") }
    /// ```
    public enum Limits {
        /// The longest filter, in Unicode scalars.
        public static let textLength = 16_384
        /// The deepest nesting of parentheses (redundant ones included; the predicate's own
        /// levels of and/or are bounded by ObjectGraph's ``ObjectGraph/ObjectPredicate/Limits/predicateDepth``).
        public static let nesting = 50
        /// The most comparisons in one filter.
        public static let comparisons = 200
        /// The longest string value, in Unicode scalars.
        public static let literalLength = 4_096
    }

    /// One node of a parsed filter.
    indirect enum Expression: Sendable, Equatable {
        case and([Expression])
        case or([Expression])
        case comparison(Comparison)
    }

    /// `ATTRIBUTE OPERATOR VALUE`, with where the attribute starts (for errors).
    struct Comparison: Sendable, Equatable {
        var attribute: String
        var op: Operator
        var value: Literal
        var position: Int
    }

    /// newsboat's comparison operators.
    enum Operator: String, Sendable, Equatable, CaseIterable {
        case equal = "="
        case notEqual = "!="
        case matches = "=~"
        case notMatches = "!~"
        case contains = "#"
        case notContains = "!#"
        case less = "<"
        case greater = ">"
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case between
    }

    /// A value: a string (as written between the quotes), a whole number, or a range.
    enum Literal: Sendable, Equatable {
        case string(String)
        case number(Int64)
        case range(Int64, Int64)
    }
}

// MARK: - Parsing

extension NewsboatFilter {
    /// A recursive-descent parser over the text's Unicode scalars; positions are scalar offsets.
    struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0
        var depth = 0
        var comparisons = 0

        init(text: String) { scalars = Array(text.unicodeScalars) }

        mutating func parseFilter() throws(NewsboatFilterError) -> Expression {
            let expression = try parseOr()
            skipBlanks()
            guard index == scalars.count else { throw syntax("'and', 'or' or the end of the filter") }
            return expression
        }

        mutating func parseOr() throws(NewsboatFilterError) -> Expression {
            var parts = [try parseAnd()]
            while takeWord("or") { parts.append(try parseAnd()) }
            return parts.count == 1 ? parts[0] : .or(parts)
        }

        mutating func parseAnd() throws(NewsboatFilterError) -> Expression {
            var parts = [try parseTerm()]
            while takeWord("and") { parts.append(try parseTerm()) }
            return parts.count == 1 ? parts[0] : .and(parts)
        }

        mutating func parseTerm() throws(NewsboatFilterError) -> Expression {
            skipBlanks()
            if peek == "(" {
                guard depth < Limits.nesting else { throw .tooDeep(limit: Limits.nesting) }
                index += 1
                depth += 1
                let inner = try parseOr()
                skipBlanks()
                guard peek == ")" else { throw syntax("')'") }
                index += 1
                depth -= 1
                return inner
            }
            return .comparison(try parseComparison())
        }

        mutating func parseComparison() throws(NewsboatFilterError) -> Comparison {
            skipBlanks()
            let start = index
            let name = identifier()
            guard !name.isEmpty else { throw syntax("an attribute such as title, unread or tags") }
            comparisons += 1
            guard comparisons <= Limits.comparisons else { throw .tooManyComparisons(limit: Limits.comparisons) }
            skipBlanks()
            let op = try parseOperator()
            skipBlanks()
            let value = try parseLiteral()
            var isRange: Bool {
                if case .range = value { return true }
                return false
            }
            // A range goes with `between` only, and `between` with a range only.
            if op == .between, !isRange { throw .betweenNeedsRange(attribute: name, position: start) }
            if op != .between, isRange { throw .rangeNeedsBetween(attribute: name, position: start) }
            return Comparison(attribute: name, op: op, value: value, position: start)
        }

        mutating func parseOperator() throws(NewsboatFilterError) -> Operator {
            // Longest first: `!=~` is newsboat's old spelling of `!~`.
            let spellings: [(String, Operator)] = [
                ("!=~", .notMatches), ("==", .equal), ("=~", .matches), ("!=", .notEqual), ("!~", .notMatches),
                ("!#", .notContains), ("<=", .lessOrEqual), (">=", .greaterOrEqual), ("=", .equal), ("#", .contains),
                ("<", .less), (">", .greater),
            ]
            for (spelling, op) in spellings where has(spelling) {
                index += spelling.unicodeScalars.count
                return op
            }
            if takeWord("between") { return .between }
            throw syntax("an operator (=, !=, =~, !~, #, !#, <, >, <=, >=, between)")
        }

        mutating func parseLiteral() throws(NewsboatFilterError) -> Literal {
            let start = index
            if peek == "\"" {
                index += 1
                var text = String.UnicodeScalarView()
                while index < scalars.count, scalars[index] != "\"" {
                    // A backslash keeps the character after it inside the string (`\"`); both are
                    // kept, so that a regular expression's escapes reach it unchanged.
                    if scalars[index] == "\\", index + 1 < scalars.count {
                        text.append(scalars[index])
                        index += 1
                    }
                    text.append(scalars[index])
                    index += 1
                    guard text.count <= Limits.literalLength else { throw .literalTooLong(limit: Limits.literalLength) }
                }
                guard index < scalars.count else { throw .unterminatedString(position: start) }
                index += 1
                return .string(String(text))
            }
            guard let first = try number() else { throw syntax("a value: \"text\", a whole number or a range such as 0:7") }
            if peek == ":" {
                index += 1
                guard let second = try number() else { throw syntax("the end of the range (a whole number)") }
                return .range(first, second)
            }
            return .number(first)
        }

        /// A whole number, optionally negative; nil when none starts here.
        mutating func number() throws(NewsboatFilterError) -> Int64? {
            let start = index
            if peek == "-" { index += 1 }
            let digitsStart = index
            while let c = peek, ("0"..."9").contains(c) { index += 1 }
            guard index > digitsStart else {
                index = start
                return nil
            }
            let text = String(String.UnicodeScalarView(scalars[start..<index]))
            guard let value = Int64(text) else { throw .numberOutOfRange(String(text.prefix(40)), position: start) }
            return value
        }

        /// An attribute name: letters, digits and `_`, starting with a letter.
        mutating func identifier() -> String {
            let start = index
            guard let first = peek, first.properties.isAlphabetic, first.isASCII else { return "" }
            while let c = peek, c.isASCII, c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" {
                index += 1
            }
            return String(String.UnicodeScalarView(scalars[start..<index]))
        }

        /// Takes `word` (case-sensitive, as newsboat writes it) when it stands alone here.
        mutating func takeWord(_ word: String) -> Bool {
            skipBlanks()
            guard has(word) else { return false }
            let end = index + word.unicodeScalars.count
            if end < scalars.count, scalars[end].properties.isAlphabetic || scalars[end] == "_" { return false }
            index = end
            return true
        }

        func has(_ text: String) -> Bool {
            var i = index
            for scalar in text.unicodeScalars {
                guard i < scalars.count, scalars[i] == scalar else { return false }
                i += 1
            }
            return true
        }

        var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        mutating func skipBlanks() {
            while let c = peek, c.properties.isWhitespace { index += 1 }
        }

        func syntax(_ expected: String) -> NewsboatFilterError {
            let found: String
            if let c = peek {
                let rest = String(String.UnicodeScalarView(scalars[index..<min(scalars.count, index + 12)]))
                found = c.properties.isWhitespace ? "a blank" : "'\(NewsboatFilterError.shown(rest))'"
            } else {
                found = "the end of the filter"
            }
            return .syntax(position: index, expected: expected, found: found)
        }
    }
}

extension NewsboatFilter {
    /// Whether text neither language reads was meant as a newsboat filter, so that its error
    /// is newsboat's: it holds an operator only newsboat has (`=~`, `!~`, `#`), or starts with
    /// an attribute only newsboat has (`unread`, `age`, `tags`…).
    ///
    /// ```swift
    /// NewsboatFilter.looksLikeNewsboat("unread=yes")          // true
    /// NewsboatFilter.looksLikeNewsboat("read == NO AND titel")  // false
    /// ```
    public static func looksLikeNewsboat(_ text: String) -> Bool {
        if text.contains("=~") || text.contains("!~") || text.contains("#") { return true }
        let start = text.drop { $0 == "(" || $0.isWhitespace }
        let word = String(start.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
        return attributes[word] != nil && !["title", "link", "author", "content", "guid"].contains(word)
    }

    /// The start of the current hour: the `now` of filters read where the user wrote them.
    ///
    /// ```swift
    /// let p = try NewsboatFilter("age < 1").predicate(now: NewsboatFilter.currentHour())
    /// ```
    public static func currentHour(_ date: Date = Date()) -> Date {
        Date(timeIntervalSinceReferenceDate: (date.timeIntervalSinceReferenceDate / 3_600).rounded(.down) * 3_600)
    }
}

extension NewsboatFilter {
    /// What is wrong with `text` as a filter over items, in words; nil when ObjectGraph's
    /// language reads it (as a valid predicate over FeedItem) or newsboat's translates it.
    /// Text newsboat's grammar reads gets newsboat's error, other text ObjectGraph's.
    ///
    /// ```swift
    /// NewsboatFilter.problem(in: "feedindex < 3")   // "newsboat filter: newsboat's 'feedindex' …"
    /// NewsboatFilter.problem(in: "read == NO")      // nil
    /// ```
    public static func problem(in text: String) -> String? {
        if ZeaderModel.isValidItemPredicate(text) { return nil }
        switch Result(catching: { () throws(NewsboatFilterError) in try NewsboatFilter(text) }) {
        case .success(let filter):
            do {
                _ = try filter.predicate(now: Date())
                return nil
            } catch { return error.description }
        case .failure(let error) where looksLikeNewsboat(text):
            return error.description
        case .failure:
            break
        }
        do {
            let predicate = try ZeaderModel.itemPredicate(ObjectPredicate(format: text))
            try predicate.validate(for: try ZeaderModel.current.entity(named: "FeedItem"), in: ZeaderModel.current)
            return nil
        } catch { return "\(error)" }
    }
}
