import Foundation

extension ObjectPredicate {
    /// The predicate as a format string that parses back to an equal predicate (within the
    /// ``Limits``; a predicate built in code nested deeper than ``Limits/nestingDepth`` prints
    /// as a short placeholder instead of recursing that deep).
    ///
    /// ```swift
    /// let p = try ObjectPredicate(format: "read = no && title contains[cd] 'swift'")
    /// print(p.predicateFormat)   // read == NO AND title CONTAINS[cd] "swift"
    /// ```
    public var predicateFormat: String { PredicateFormatter.format(self) }

    /// Same as ``predicateFormat``. `print(predicate)`
    public var description: String { predicateFormat }
}

extension PredicateOperand: CustomStringConvertible {
    /// The expression in format-string syntax. `PredicateOperand.constant("a").description == "\"a\""`
    public var description: String { PredicateFormatter.format(self) }
}

enum PredicateFormatter {
    /// Object references print as `CAST(12, "ObjectID:Server")`.
    static let objectIDCastPrefix = "ObjectID:"

    static func format(_ predicate: ObjectPredicate) -> String {
        guard predicate.depth <= ObjectPredicate.Limits.nestingDepth else {
            return "<a predicate nested \(predicate.depth) levels deep>"
        }
        switch predicate.node {
        case .constant(let b): return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .and(let parts): return parts.map(grouped).joined(separator: " AND ")
        case .or(let parts): return parts.map(grouped).joined(separator: " OR ")
        case .not(let inner): return "NOT " + grouped(inner)
        case .comparison(let c): return format(c)
        }
    }

    /// Compound predicates in parentheses, so precedence never depends on the reader.
    static func grouped(_ predicate: ObjectPredicate) -> String {
        switch predicate.node {
        case .and, .or: return "(" + format(predicate) + ")"
        default: return format(predicate)
        }
    }

    static func format(_ c: PredicateComparison) -> String {
        var text = c.modifier == .direct ? "" : c.modifier.rawValue + " "
        text += format(c.left) + " " + c.op.rawValue
        if !c.options.isEmpty {
            text +=
                "[" + (c.options.contains(.caseInsensitive) ? "c" : "")
                + (c.options.contains(.diacriticInsensitive) ? "d" : "") + "]"
        }
        return text + " " + format(c.right)
    }

    static func format(_ e: PredicateOperand) -> String {
        switch e {
        case .keyPath(let path):
            return path.split(separator: ".", omittingEmptySubsequences: false).map { segment in
                let s = String(segment)
                if s.hasPrefix("@") || (isPlainName(s) && !predicateReservedWords.contains(s.uppercased())) { return s }
                return "#" + s
            }.joined(separator: ".")
        case .constant(let v): return format(v)
        case .objectReference(let entity, let rawValue):
            return "CAST(\(rawValue), \(quote(objectIDCastPrefix + entity)))"
        case .aggregate(let members): return "{" + members.map(format).joined(separator: ", ") + "}"
        }
    }

    static func isPlainName(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return s.unicodeScalars.allSatisfy {
            $0 == "_" || $0.properties.isAlphabetic || $0.properties.numericType != nil
        }
    }

    static func format(_ v: Value) -> String {
        switch v {
        case .null: return "nil"
        case .integer(let i): return String(i)
        case .double(let d): return format(d)
        case .string(let s): return quote(s)
        case .bool(let b): return b ? "YES" : "NO"
        case .date(let d): return "CAST(\(format(d.timeIntervalSinceReferenceDate)), \"NSDate\")"
        case .data(let d): return "CAST(\(quote(d.base64EncodedString())), \"NSData\")"
        }
    }

    static func format(_ d: Double) -> String {
        if d.isNaN { return "CAST(\"nan\", \"NSNumber\")" }
        if d.isInfinite { return d < 0 ? "-1e999" : "1e999" }
        return String(d)
    }

    /// `s` cut to its first `limit` Unicode scalars, with "…" where it was cut, for error
    /// messages that must stay short whatever the input.
    static func abbreviated(_ s: String, limit: Int = 60) -> String {
        var scalars = s.unicodeScalars.makeIterator()
        var out = String.UnicodeScalarView()
        for _ in 0..<limit {
            guard let scalar = scalars.next() else { return s }
            out.append(scalar)
        }
        return scalars.next() == nil ? s : String(out) + "…"
    }

    /// `s` in double quotes with `"`, `\` and control characters escaped.
    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format {
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
