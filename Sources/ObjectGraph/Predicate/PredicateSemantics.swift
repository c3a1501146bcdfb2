import Foundation
import Synchronization

/// The comparison rules shared by the in-memory evaluator and the SQL functions, so that both
/// give the same answer: strings compare by Unicode scalars (UTF-8 bytes, SQLite's BINARY
/// collation), numbers numerically with bools as 0/1 and dates as seconds since 1970, and
/// values of different kinds in SQLite's order (numbers < strings < data).
enum PredicateSemantics {
    // MARK: Folding

    /// `s` folded as `[c]`, `[d]` or `[cd]` ask: `[d]` removes nonspacing and enclosing marks
    /// after canonical decomposition (é → e, Hangul syllables → jamo); `[c]` applies full Unicode
    /// case folding (uppercasing then lowercasing maps ß to ss, ς to σ, ﬃ to ffi, K to k).
    ///
    /// Folding works scalar by scalar (marks are dropped, so canonical reordering cannot
    /// matter), with ASCII handled inline and other scalars' foldings cached: SQL calls this
    /// once per row.
    static func fold(_ s: String, _ options: ComparisonOptions) -> String {
        if options.isEmpty { return s }
        if s.utf8.allSatisfy({ $0 < 0x80 }) { return options.contains(.caseInsensitive) ? s.lowercased() : s }
        return String(decoding: foldedUTF8(s, options), as: UTF8.self)
    }

    /// The UTF-8 bytes of `fold(s, options)`.
    static func foldedUTF8(_ s: String, _ options: ComparisonOptions) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        if options.isEmpty {
            out.append(contentsOf: s.utf8)
            return out
        }
        let caseInsensitive = options.contains(.caseInsensitive)
        for scalar in s.unicodeScalars {
            if scalar.isASCII {
                let byte = UInt8(scalar.value)
                out.append(caseInsensitive && byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
            } else {
                out.append(contentsOf: folded(scalar, options).utf8)
            }
        }
        return out
    }

    /// Removes diacritics only (`[d]`). `stripDiacritics("Café") == "Cafe"`
    static func stripDiacritics(_ s: String) -> String { fold(s, .diacriticInsensitive) }

    private static let foldingCache = Mutex<[UInt32: String]>([:])
    private static let foldingCacheLimit = 65_536

    /// The folding of one non-ASCII scalar, computed once.
    static func folded(_ scalar: Unicode.Scalar, _ options: ComparisonOptions) -> String {
        let key = scalar.value | UInt32(options.rawValue) << 21
        if let cached = foldingCache.withLock({ $0[key] }) { return cached }
        var text = String(scalar)
        if options.contains(.diacriticInsensitive) { text = removingMarks(text.decomposedStringWithCanonicalMapping) }
        if options.contains(.caseInsensitive) {
            text = text.uppercased().lowercased()
            // Case mappings can bring marks back (İ → i + U+0307).
            if options.contains(.diacriticInsensitive) {
                text = removingMarks(text.decomposedStringWithCanonicalMapping)
            }
        }
        foldingCache.withLock { cache in
            if cache.count < foldingCacheLimit { cache[key] = text }
        }
        return text
    }

    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// `s` without nonspacing and enclosing marks.
    static func removingMarks(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isMark) else { return s }
        var out = String.UnicodeScalarView()
        for scalar in s.unicodeScalars where !isMark(scalar) { out.append(scalar) }
        return String(out)
    }

    // MARK: Ordering and equality

    /// Orders two non-nil values; `nil` when either is nil (such comparisons are false).
    static func compare(_ a: Value, _ b: Value, _ options: ComparisonOptions) -> ComparisonResult? {
        switch (a, b) {
        case (.null, _), (_, .null): return nil
        case (.string(let x), .string(let y)):
            return compareBytes(fold(x, options).utf8, fold(y, options).utf8)
        case (.data(let x), .data(let y)):
            return compareBytes(x, y)
        default:
            break
        }
        switch (integerValue(a), integerValue(b)) {
        case (let x?, let y?): return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        default: break
        }
        if let x = a.numericValue, let y = b.numericValue {
            return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        }
        // Different kinds: SQLite orders numbers < text < blobs.
        let (ra, rb) = (kindRank(a), kindRank(b))
        return ra < rb ? .orderedAscending : ra > rb ? .orderedDescending : .orderedSame
    }

    /// Core Data equality: nil equals only nil.
    static func equals(_ a: Value, _ b: Value, _ options: ComparisonOptions) -> Bool {
        if a.isNull || b.isNull { return a.isNull && b.isNull }
        return compare(a, b, options) == .orderedSame
    }

    static func integerValue(_ v: Value) -> Int64? {
        switch v {
        case .integer(let i): return i
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    static func kindRank(_ v: Value) -> Int {
        switch v {
        case .null: return 0
        case .integer, .double, .bool, .date: return 1
        case .string: return 2
        case .data: return 3
        }
    }

    static func compareBytes<A: Sequence<UInt8>, B: Sequence<UInt8>>(_ a: A, _ b: B) -> ComparisonResult {
        var ia = a.makeIterator()
        var ib = b.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case (let x?, let y?):
                if x != y { return x < y ? .orderedAscending : .orderedDescending }
            }
        }
    }

    // MARK: String operators

    /// BEGINSWITH, ENDSWITH, CONTAINS, LIKE or MATCHES on two strings. As in Foundation, an
    /// empty search string is found nowhere.
    ///
    /// Throws ``PredicateEvaluationError`` for an invalid or too long regular expression, and
    /// ``ObjectGraphError/timeLimitExceeded(entity:seconds:)`` when MATCHES, LIKE or CONTAINS
    /// runs past the current ``QueryDeadline`` (or, outside a fetch, ``ObjectPredicate/Limits/timeLimit``).
    static func stringOperation(
        _ op: ComparisonOperator, _ options: ComparisonOptions, _ subject: String, _ pattern: String
    ) throws -> Bool {
        if op == .matches { return try regexMatches(subject, pattern, options) }
        let s = foldedUTF8(subject, options)
        let p = foldedUTF8(pattern, options)
        switch op {
        case .beginsWith: return !p.isEmpty && s.starts(with: p)
        case .endsWith: return !p.isEmpty && s.count >= p.count && s[(s.count - p.count)...].elementsEqual(p)
        case .contains: return try !p.isEmpty && containsBytes(s, p)
        case .like: return try like(s, p)
        default:
            throw PredicateEvaluationError(message: "\(op.rawValue) is not a string operator")
        }
    }

    /// UTF-8 is self-synchronizing: a byte match of a valid needle starts on a scalar boundary.
    /// Checks the deadline as it goes: a long needle of repeated bytes costs its length at each
    /// position of a long haystack.
    static func containsBytes(_ haystack: [UInt8], _ needle: [UInt8]) throws(ObjectGraphError) -> Bool {
        guard needle.count <= haystack.count else { return false }
        let first = needle[0]
        var i = 0
        let last = haystack.count - needle.count
        var ticker = DeadlineTicker()
        while i <= last {
            if haystack[i] == first {
                if haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
                try ticker.tick(needle.count)
            }
            i += 1
        }
        return false
    }

    /// Whole-string wildcard match over UTF-8: `*` any run, `?` one Unicode scalar, `\` escapes.
    /// The wildcards are ASCII, and a literal scalar's lead byte never matches inside another
    /// scalar, so matching bytes matches scalars. Backtracking to the last `*` costs up to the
    /// product of the lengths, so the deadline is checked as it goes.
    static func like(_ s: [UInt8], _ p: [UInt8]) throws(ObjectGraphError) -> Bool {
        /// The length of the UTF-8 sequence starting with `lead`.
        func width(_ lead: UInt8) -> Int {
            lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        }
        var si = 0
        var pi = 0
        var starPattern = -1
        var starSubject = 0
        var ticker = DeadlineTicker()
        while si < s.count {
            try ticker.tick()
            if pi < p.count {
                let c = p[pi]
                if c == UInt8(ascii: "*") {
                    starPattern = pi
                    starSubject = si
                    pi += 1
                    continue
                }
                if c == UInt8(ascii: "?") {
                    si += width(s[si])
                    pi += 1
                    continue
                }
                let literal = c == UInt8(ascii: "\\") && pi + 1 < p.count ? pi + 1 : pi
                if p[literal] == s[si] {
                    si += 1
                    pi = literal + 1
                    continue
                }
            }
            guard starPattern >= 0 else { return false }
            starSubject += width(s[starSubject])
            si = starSubject
            pi = starPattern + 1
        }
        while pi < p.count && p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.count
    }

    // MARK: Regular expressions

    private static let regexCache = Mutex<[RegexKey: NSRegularExpression]>([:])

    private struct RegexKey: Hashable {
        var pattern: String
        var caseInsensitive: Bool
    }

    /// The compiled, whole-string form of `pattern`; cached because SQL calls it once per row.
    static func regex(_ pattern: String, caseInsensitive: Bool) throws(PredicateEvaluationError) -> NSRegularExpression {
        let length = pattern.unicodeScalars.count
        guard length <= ObjectPredicate.Limits.patternLength else {
            throw PredicateEvaluationError(
                message:
                    "the MATCHES pattern is \(length) characters long, more than the limit of \(ObjectPredicate.Limits.patternLength)"
            )
        }
        let key = RegexKey(pattern: pattern, caseInsensitive: caseInsensitive)
        if let cached = regexCache.withLock({ $0[key] }) { return cached }
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        do {
            // Validate the pattern alone first, so wrapping cannot change its meaning silently.
            // (ICU rejects an empty pattern; wrapped, it matches the empty string only.)
            if !pattern.isEmpty { _ = try NSRegularExpression(pattern: pattern, options: options) }
            var body = pattern
            // An unterminated \Q…\E quote would swallow the closing anchor.
            if let quote = body.range(of: "\\Q", options: .backwards),
                body.range(of: "\\E", options: .backwards).map({ $0.lowerBound < quote.lowerBound }) ?? true
            {
                body += "\\E"
            }
            let compiled = try NSRegularExpression(pattern: "\\A(?:" + body + ")\\z", options: options)
            regexCache.withLock { cache in
                if cache.count > 256 { cache.removeAll() }
                cache[key] = compiled
            }
            return compiled
        } catch {
            throw PredicateEvaluationError(
                message:
                    "\(PredicateFormatter.quote(PredicateFormatter.abbreviated(pattern))) is not a valid ICU regular expression")
        }
    }

    /// Whether the whole of `subject` matches `pattern`, by ICU through NSRegularExpression.
    /// A pattern can backtrack exponentially (`(a|aa)+` against a long run of `a`s and a `b`),
    /// so the match asks ICU for progress reports (`.reportProgress`, ICU's match callback)
    /// and stops at the current deadline.
    static func regexMatches(_ subject: String, _ pattern: String, _ options: ComparisonOptions) throws -> Bool {
        var s = subject
        var p = pattern
        if options.contains(.diacriticInsensitive) {
            s = stripDiacritics(s)
            p = stripDiacritics(p)
        }
        let expression = try regex(p, caseInsensitive: options.contains(.caseInsensitive))
        let range = NSRange(location: 0, length: (s as NSString).length)
        var matched = false
        var deadline: QueryDeadline?
        var stoppedByDeadline = false
        expression.enumerateMatches(in: s, options: [.reportProgress], range: range) { result, _, stop in
            if result != nil {
                matched = true
                stop.pointee = true
                return
            }
            if deadline == nil { deadline = QueryDeadline.currentOrDefault() }
            if deadline!.hasPassed() {
                stoppedByDeadline = true
                stop.pointee = true
            }
        }
        if stoppedByDeadline, let deadline { try deadline.check() }
        return matched
    }
}

/// A predicate could not be evaluated (an invalid regular expression, a key path that is not
/// what the predicate expects).
///
/// ```swift
/// do { _ = try predicate.evaluate(with: object) }
/// catch let e as PredicateEvaluationError { print(e.message) }
/// ```
public struct PredicateEvaluationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, naming the key path or pattern.
    public var message: String
    /// Creates an error. `PredicateEvaluationError(message: "bad regex")`
    public init(message: String) { self.message = message }
    public var description: String { "cannot evaluate predicate: \(message)" }
}
