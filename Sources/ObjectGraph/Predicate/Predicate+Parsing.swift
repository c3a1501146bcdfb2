import Foundation

extension ObjectPredicate {
    /// Parses a Core Data predicate format string, substituting `arguments` for `%@` (a value;
    /// `%d`, `%i`, `%f`, `%s` are accepted as synonyms) and `%K` (a key path, from a String).
    ///
    /// ```swift
    /// let p = try ObjectPredicate(format: "read == NO AND title CONTAINS[cd] %@", "swift")
    /// let q = try ObjectPredicate(format: "%K BETWEEN %@", "rank", [1, 5])
    /// ```
    ///
    /// Throws ``ObjectGraphError/predicateSyntax(format:position:message:)`` naming the offset
    /// (in Unicode scalars, which is the character offset for ordinary text) where parsing failed,
    /// also for a format past one of the ``Limits``.
    public init(format: String, _ arguments: (any PredicateArgument)?...) throws(ObjectGraphError) {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses a predicate format string with its substitution arguments in an array.
    ///
    /// ```swift
    /// let args: [(any PredicateArgument)?] = ["title", "Swift"]
    /// let p = try ObjectPredicate(format: "%K ==[c] %@", argumentArray: args)
    /// ```
    public init(format: String, argumentArray arguments: [(any PredicateArgument)?]) throws(ObjectGraphError) {
        let length = format.unicodeScalars.count
        guard length <= Limits.formatLength else {
            throw .predicateSyntax(
                format: format, position: Limits.formatLength,
                message:
                    "the format is \(length) characters long, more than the limit of \(Limits.formatLength) (pass long collections as a %@ argument)"
            )
        }
        var parser = try PredicateParser(format: format, arguments: arguments)
        self = try parser.parseAll()
    }
}

/// Words with a meaning in the format language; a key with one of these names is written `#name`.
let predicateReservedWords: Set<String> = [
    "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "TRUEPREDICATE", "FALSEPREDICATE", "YES", "NO",
    "TRUE", "FALSE", "NIL", "NULL", "BETWEEN", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES",
    "CAST", "SELF", "FIRST", "LAST", "SIZE", "SUBQUERY", "FUNCTION",
]

private struct Token {
    enum Kind: Equatable {
        /// A key name (a `#`-escaped reserved word included).
        case name(String)
        /// A reserved word, uppercased.
        case keyword(String)
        case string(String)
        case number(Value)
        /// An operator or punctuation: `==`, `<=`, `&&`, `!`, `(`, `{`, `.`, `[`, …
        case symbol(String)
        /// `@count` and other collection operators, without the `@`.
        case collectionOperator(String)
        /// `%@` (and its synonyms) or `%K`.
        case substitution(isKeyPath: Bool)
        case end
    }
    var kind: Kind
    var position: Int

    var display: String {
        switch kind {
        case .name(let n): return "'\(PredicateFormatter.abbreviated(n))'"
        case .keyword(let k): return "'\(k)'"
        case .string(let s): return "string \(PredicateFormatter.quote(PredicateFormatter.abbreviated(s)))"
        case .number(let v): return "number \(v)"
        case .symbol(let s): return "'\(s)'"
        case .collectionOperator(let o): return "'@\(o)'"
        case .substitution(let k): return k ? "'%K'" : "'%@'"
        case .end: return "the end of the format"
        }
    }
}

private struct PredicateParser {
    let format: String
    let arguments: [(any PredicateArgument)?]
    var tokens: [Token] = []
    var index = 0
    var argumentIndex = 0
    /// Current nesting of parentheses, NOTs, collections and CASTs; bounded so that hostile
    /// input cannot exhaust the stack.
    var depth = 0
    /// Comparisons (and TRUEPREDICATE/FALSEPREDICATE) read so far.
    var comparisons = 0

    mutating func enterNesting() throws(ObjectGraphError) {
        depth += 1
        guard depth <= ObjectPredicate.Limits.nestingDepth else {
            throw error("predicate nested more than \(ObjectPredicate.Limits.nestingDepth) levels deep (the limit)")
        }
    }

    /// `predicate`, unless it nests NOT, AND and OR deeper than the limit (an error at `position`,
    /// where the construct begins).
    func checkedDepth(_ predicate: ObjectPredicate, at position: Int) throws(ObjectGraphError) -> ObjectPredicate {
        guard predicate.depth <= ObjectPredicate.Limits.predicateDepth else {
            throw error(
                "NOT, AND and OR nested more than \(ObjectPredicate.Limits.predicateDepth) levels deep (the limit)", at: position)
        }
        return predicate
    }

    mutating func countComparison() throws(ObjectGraphError) {
        comparisons += 1
        guard comparisons <= ObjectPredicate.Limits.comparisons else {
            throw error("predicate has more than \(ObjectPredicate.Limits.comparisons) comparisons (the limit)")
        }
    }

    init(format: String, arguments: [(any PredicateArgument)?]) throws(ObjectGraphError) {
        self.format = format
        self.arguments = arguments
        var lexer = PredicateLexer(format: format)
        self.tokens = try lexer.tokenize()
    }

    var current: Token { tokens[index] }

    func error(_ message: String, at position: Int? = nil) -> ObjectGraphError {
        .predicateSyntax(format: format, position: position ?? current.position, message: message)
    }

    mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    func isKeyword(_ words: String...) -> Bool {
        if case .keyword(let k) = current.kind { return words.contains(k) }
        return false
    }

    func isSymbol(_ symbols: String...) -> Bool {
        if case .symbol(let s) = current.kind { return symbols.contains(s) }
        return false
    }

    mutating func expectSymbol(_ symbol: String, _ context: String) throws(ObjectGraphError) {
        guard isSymbol(symbol) else { throw error("expected '\(symbol)' \(context), found \(current.display)") }
        advance()
    }

    mutating func parseAll() throws(ObjectGraphError) -> ObjectPredicate {
        if case .end = current.kind { throw error("empty predicate: expected a comparison") }
        let predicate = try parseOr()
        guard case .end = current.kind else {
            throw error("expected AND, OR or the end of the predicate, found \(current.display)")
        }
        guard argumentIndex == arguments.count else {
            throw error(
                "\(arguments.count) argument\(arguments.count == 1 ? "" : "s") given but the format uses \(argumentIndex)",
                at: format.unicodeScalars.count)
        }
        return predicate
    }

    mutating func parseOr() throws(ObjectGraphError) -> ObjectPredicate {
        let start = current.position
        var parts = [try parseAnd()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            parts.append(try parseAnd())
        }
        return try checkedDepth(.or(parts), at: start)
    }

    mutating func parseAnd() throws(ObjectGraphError) -> ObjectPredicate {
        let start = current.position
        var parts = [try parseNot()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            parts.append(try parseNot())
        }
        return try checkedDepth(.and(parts), at: start)
    }

    mutating func parseNot() throws(ObjectGraphError) -> ObjectPredicate {
        if isKeyword("NOT") || isSymbol("!") {
            let start = current.position
            try enterNesting()
            defer { depth -= 1 }
            advance()
            return try checkedDepth(.not(try parseNot()), at: start)
        }
        return try parsePrimary()
    }

    mutating func parsePrimary() throws(ObjectGraphError) -> ObjectPredicate {
        if isSymbol("(") {
            try enterNesting()
            defer { depth -= 1 }
            advance()
            let inner = try parseOr()
            try expectSymbol(")", "to close the parenthesis")
            return inner
        }
        try countComparison()
        if isKeyword("TRUEPREDICATE") {
            advance()
            return .true
        }
        if isKeyword("FALSEPREDICATE") {
            advance()
            return .false
        }
        return try parseComparison()
    }

    mutating func parseComparison() throws(ObjectGraphError) -> ObjectPredicate {
        var modifier = ComparisonModifier.direct
        if isKeyword("ANY", "SOME") {
            modifier = .any
            advance()
        } else if isKeyword("ALL") {
            modifier = .all
            advance()
        } else if isKeyword("NONE") {
            modifier = .none
            advance()
        }
        let left = try parseExpression(role: "a key path or value to compare")
        let opToken = current
        let op: ComparisonOperator
        switch current.kind {
        case .symbol("=="), .symbol("="): op = .equalTo
        case .symbol("!="), .symbol("<>"): op = .notEqualTo
        case .symbol("<"): op = .lessThan
        case .symbol("<="), .symbol("=<"): op = .lessThanOrEqualTo
        case .symbol(">"): op = .greaterThan
        case .symbol(">="), .symbol("=>"): op = .greaterThanOrEqualTo
        case .keyword("BETWEEN"): op = .between
        case .keyword("IN"): op = .in
        case .keyword("BEGINSWITH"): op = .beginsWith
        case .keyword("ENDSWITH"): op = .endsWith
        case .keyword("CONTAINS"): op = .contains
        case .keyword("LIKE"): op = .like
        case .keyword("MATCHES"): op = .matches
        default:
            throw error(
                "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES), found \(current.display)"
            )
        }
        advance()
        let options = try parseOptions()
        let rightPosition = current.position
        let right = try parseExpression(role: "a value after \(opToken.display)")
        if op == .between {
            guard case .aggregate(let bounds) = right, bounds.count == 2 else {
                throw error("BETWEEN needs a collection of two bounds such as {1, 5}", at: rightPosition)
            }
        }
        if op == .in, case .constant(let v) = right, !v.isNull {
            throw error("IN needs a collection such as {1, 2} or an array argument", at: rightPosition)
        }
        return .comparison(left, op, right, options: options, modifier: modifier)
    }

    mutating func parseOptions() throws(ObjectGraphError) -> ComparisonOptions {
        guard isSymbol("[") else { return [] }
        advance()
        let position = current.position
        guard case .name(let letters) = current.kind else {
            throw error("expected comparison options c, d or cd inside [], found \(current.display)")
        }
        var options: ComparisonOptions = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            default:
                throw error(
                    "unknown comparison option '\(letter)' in [\(PredicateFormatter.abbreviated(letters))]: expected c, d or cd",
                    at: position)
            }
        }
        advance()
        try expectSymbol("]", "to close the comparison options")
        return options
    }

    mutating func nextArgument(at position: Int) throws(ObjectGraphError) -> PredicateOperand {
        guard argumentIndex < arguments.count else {
            throw error(
                "substitution \(argumentIndex + 1) has no argument (\(arguments.count) given)", at: position)
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]?.predicateOperand ?? .constant(.null)
    }

    mutating func parseExpression(role: String) throws(ObjectGraphError) -> PredicateOperand {
        try enterNesting()
        defer { depth -= 1 }
        let token = current
        switch token.kind {
        case .name(let name):
            advance()
            return .keyPath(try parseKeyPathTail(name))
        case .substitution(isKeyPath: true):
            advance()
            guard case .constant(.string(let key)) = try nextArgument(at: token.position), !key.isEmpty else {
                throw error("%K needs a non-empty String key path argument", at: token.position)
            }
            return .keyPath(try parseKeyPathTail(key))
        case .substitution(isKeyPath: false):
            advance()
            return try nextArgument(at: token.position)
        case .string(let s):
            advance()
            return .constant(.string(s))
        case .number(let v):
            advance()
            return .constant(v)
        case .keyword("YES"), .keyword("TRUE"):
            advance()
            return .constant(.bool(true))
        case .keyword("NO"), .keyword("FALSE"):
            advance()
            return .constant(.bool(false))
        case .keyword("NIL"), .keyword("NULL"):
            advance()
            return .constant(.null)
        case .symbol("{"):
            advance()
            var members: [PredicateOperand] = []
            if !isSymbol("}") {
                members.append(try parseExpression(role: "a collection member"))
                while isSymbol(",") {
                    advance()
                    members.append(try parseExpression(role: "a collection member after ','"))
                }
            }
            try expectSymbol("}", "to close the collection")
            return .aggregate(members)
        case .keyword("CAST"):
            advance()
            return try parseCast(at: token.position)
        case .keyword(let k):
            throw error("expected \(role), found the reserved word '\(k)' (write #\(k.lowercased()) for a key of that name)")
        default:
            throw error("expected \(role), found \(token.display)")
        }
    }

    mutating func parseKeyPathTail(_ first: String) throws(ObjectGraphError) -> String {
        var path = first
        while isSymbol(".") {
            advance()
            switch current.kind {
            case .name(let n): path += "." + n
            case .collectionOperator("count"): path += ".@count"
            case .collectionOperator(let o):
                throw error("unsupported collection operator '@\(o)': only @count is supported")
            case .keyword(let k):
                throw error(
                    "expected a key after '.', found the reserved word '\(k)' (write #\(k.lowercased()) for a key of that name)")
            default:
                throw error("expected a key after '.', found \(current.display)")
            }
            advance()
        }
        return path
    }

    /// `CAST(123.0, "NSDate")` (seconds since 2001, as Core Data prints dates),
    /// `CAST("base64", "NSData")`, `CAST("12", "NSNumber")`, `CAST(12, "ObjectID:Server")`.
    mutating func parseCast(at position: Int) throws(ObjectGraphError) -> PredicateOperand {
        try expectSymbol("(", "after CAST")
        let valuePosition = current.position
        let operand = try parseExpression(role: "a value to cast")
        try expectSymbol(",", "after the value of CAST")
        guard case .string(let type) = current.kind else {
            throw error("expected a type name string such as \"NSDate\", found \(current.display)")
        }
        let typePosition = current.position
        advance()
        try expectSymbol(")", "to close CAST")
        guard case .constant(let value) = operand else {
            throw error("CAST needs a constant value", at: valuePosition)
        }
        switch (type, value) {
        case ("NSDate", _):
            guard let seconds = value.numericValue, !value.isDate else {
                throw error("CAST to NSDate needs a number of seconds since 2001", at: valuePosition)
            }
            return .constant(.date(Date(timeIntervalSinceReferenceDate: seconds)))
        case ("NSData", .string(let base64)):
            guard let data = Data(base64Encoded: base64) else {
                throw error("CAST to NSData needs a base64 string", at: valuePosition)
            }
            return .constant(.data(data))
        case ("NSNumber", .string(let text)):
            if let i = Int64(text) { return .constant(.integer(i)) }
            guard let d = Double(text) else { throw error("CAST to NSNumber needs a numeric string", at: valuePosition) }
            return .constant(.double(d))
        case ("NSNumber", .integer), ("NSNumber", .double):
            return .constant(value)
        case (_, .integer(let rawValue)) where type.hasPrefix(PredicateFormatter.objectIDCastPrefix):
            let entity = String(type.dropFirst(PredicateFormatter.objectIDCastPrefix.count))
            guard !entity.isEmpty else { throw error("CAST to an object ID needs an entity name", at: typePosition) }
            return .objectReference(entity: entity, rawValue: rawValue)
        default:
            throw error("unsupported CAST to \(PredicateFormatter.quote(type)) of \(value)", at: typePosition)
        }
    }
}

extension Value {
    fileprivate var isDate: Bool {
        if case .date = self { return true }
        return false
    }
}

private struct PredicateLexer {
    let format: String
    let scalars: [Unicode.Scalar]
    var position = 0

    init(format: String) {
        self.format = format
        self.scalars = Array(format.unicodeScalars)
    }

    func error(_ message: String, at position: Int) -> ObjectGraphError {
        .predicateSyntax(format: format, position: position, message: message)
    }

    func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        position + offset < scalars.count ? scalars[position + offset] : nil
    }

    static func isNameStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c.properties.isAlphabetic
    }

    static func isNameContinuation(_ c: Unicode.Scalar) -> Bool {
        isNameStart(c) || c.properties.numericType != nil
    }

    static func isDigit(_ c: Unicode.Scalar?) -> Bool {
        guard let c else { return false }
        return ("0"..."9").contains(c)
    }

    mutating func tokenize() throws(ObjectGraphError) -> [Token] {
        var tokens: [Token] = []
        while true {
            while let c = peek(), c.properties.isWhitespace { position += 1 }
            let start = position
            guard let c = peek() else {
                tokens.append(Token(kind: .end, position: start))
                return tokens
            }
            tokens.append(Token(kind: try lexToken(c, start: start), position: start))
        }
    }

    mutating func lexToken(_ c: Unicode.Scalar, start: Int) throws(ObjectGraphError) -> Token.Kind {
        if c == "\"" || c == "'" { return .string(try lexString(quote: c)) }
        if Self.isDigit(c) || (c == "-" && (Self.isDigit(peek(1)) || (peek(1) == "." && Self.isDigit(peek(2))))) {
            return .number(try lexNumber())
        }
        if Self.isNameStart(c) {
            let name = lexName()
            let upper = name.uppercased()
            return predicateReservedWords.contains(upper) ? .keyword(upper) : .name(name)
        }
        if c == "#" {
            position += 1
            guard let n = peek(), Self.isNameStart(n) else {
                throw error("expected a key name after '#'", at: start)
            }
            return .name(lexName())
        }
        if c == "@" {
            position += 1
            guard let n = peek(), Self.isNameStart(n) else {
                throw error("expected a collection operator such as @count after '@'", at: start)
            }
            return .collectionOperator(lexName().lowercased())
        }
        if c == "%" {
            position += 1
            for spec in ["@", "K", "lld", "ld", "lf", "d", "i", "f", "s"] where matches(spec) {
                position += spec.unicodeScalars.count
                return .substitution(isKeyPath: spec == "K")
            }
            throw error("unknown substitution: expected %@ or %K", at: start)
        }
        for symbol in ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"] where matches(symbol) {
            position += 2
            return .symbol(symbol)
        }
        if "=<>!(){},.[]".unicodeScalars.contains(c) {
            position += 1
            return .symbol(String(c))
        }
        if c == "&" || c == "|" {
            throw error("expected '\(c)\(c)'", at: start)
        }
        throw error("unexpected character '\(c)'", at: start)
    }

    func matches(_ text: String) -> Bool {
        for (i, s) in text.unicodeScalars.enumerated() where peek(i) != s { return false }
        return true
    }

    mutating func lexName() -> String {
        var name = String.UnicodeScalarView()
        while let c = peek(), Self.isNameContinuation(c) {
            name.append(c)
            position += 1
        }
        return String(name)
    }

    mutating func lexNumber() throws(ObjectGraphError) -> Value {
        let start = position
        var text = ""
        if peek() == "-" {
            text.append("-")
            position += 1
        }
        var isInteger = true
        while Self.isDigit(peek()) {
            text.unicodeScalars.append(peek()!)
            position += 1
        }
        if peek() == ".", Self.isDigit(peek(1)) {
            isInteger = false
            text.append(".")
            position += 1
            while Self.isDigit(peek()) {
                text.unicodeScalars.append(peek()!)
                position += 1
            }
        }
        if peek() == "e" || peek() == "E" {
            let signed = peek(1) == "+" || peek(1) == "-"
            guard Self.isDigit(peek(signed ? 2 : 1)) else {
                throw error("expected digits in the exponent of a number", at: position)
            }
            isInteger = false
            text.append("e")
            if signed { text.unicodeScalars.append(peek(1)!) }
            position += signed ? 2 : 1
            while Self.isDigit(peek()) {
                text.unicodeScalars.append(peek()!)
                position += 1
            }
        }
        if let c = peek(), Self.isNameStart(c) {
            throw error("unexpected '\(c)' after number \(PredicateFormatter.abbreviated(text))", at: position)
        }
        if isInteger, let i = Int64(text) { return .integer(i) }
        guard let d = Double(text) else { throw error("malformed number \(PredicateFormatter.abbreviated(text))", at: start) }
        return .double(d)
    }

    mutating func lexString(quote: Unicode.Scalar) throws(ObjectGraphError) -> String {
        let start = position
        position += 1
        var out = String.UnicodeScalarView()
        var length = 0
        while true {
            guard let c = peek() else { throw error("unterminated string literal", at: start) }
            position += 1
            if c == quote { return String(out) }
            length += 1
            guard length <= ObjectPredicate.Limits.stringLength else {
                throw error("string literal longer than \(ObjectPredicate.Limits.stringLength) characters (the limit)", at: start)
            }
            guard c == "\\" else {
                out.append(c)
                continue
            }
            let escapePosition = position - 1
            guard let e = peek() else { throw error("unterminated string literal", at: start) }
            position += 1
            switch e {
            case "\\", "\"", "'": out.append(e)
            case "n": out.append("\n")
            case "t": out.append("\t")
            case "r": out.append("\r")
            case "0": out.append("\0")
            case "u":
                var hex = ""
                if peek() == "{" {
                    position += 1
                    while let h = peek(), h != "}" {
                        hex.unicodeScalars.append(h)
                        position += 1
                    }
                    guard peek() == "}" else { throw error("unterminated \\u{…} escape", at: escapePosition) }
                    position += 1
                } else {
                    for _ in 0..<4 {
                        guard let h = peek() else { break }
                        hex.unicodeScalars.append(h)
                        position += 1
                    }
                }
                guard !hex.isEmpty, hex.count <= 8, let code = UInt32(hex, radix: 16),
                    let scalar = Unicode.Scalar(code)
                else {
                    throw error("invalid \\u escape: expected hexadecimal digits of a Unicode scalar", at: escapePosition)
                }
                out.append(scalar)
            default:
                throw error("unknown escape '\\\(e)' in string literal", at: escapePosition)
            }
        }
    }
}
