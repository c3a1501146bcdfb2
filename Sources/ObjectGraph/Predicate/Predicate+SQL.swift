import Foundation
import GRDB

/// A piece of SQL with its `?` arguments, in order.
///
/// ```swift
/// let fragment = try predicate.sqlExpression(for: entity, in: model, alias: "t0")
/// let pks = try container.store.databaseReader.read { db in
///     try Int64.fetchAll(db, sql: "SELECT t0.Z_PK FROM \"FeedItem\" AS t0 WHERE \(fragment.sql)",
///                        arguments: StatementArguments(fragment.arguments))
/// }
/// ```
public struct SQLFragment: Sendable, Equatable {
    /// SQL text with `?` placeholders.
    public var sql: String
    /// The values bound to the placeholders, in order: `StatementArguments(fragment.arguments)`.
    public var arguments: [DatabaseValue]

    /// Creates a fragment. `SQLFragment(sql: "t0.\"read\" IS ?", arguments: [0.databaseValue])`
    public init(sql: String, arguments: [DatabaseValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    static func + (a: SQLFragment, b: SQLFragment) -> SQLFragment {
        SQLFragment(sql: a.sql + b.sql, arguments: a.arguments + b.arguments)
    }

    static func + (a: SQLFragment, b: String) -> SQLFragment {
        SQLFragment(sql: a.sql + b, arguments: a.arguments)
    }

    static func + (a: String, b: SQLFragment) -> SQLFragment {
        SQLFragment(sql: a + b.sql, arguments: b.arguments)
    }

    static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        SQLFragment(sql: parts.map(\.sql).joined(separator: separator), arguments: parts.flatMap(\.arguments))
    }

    /// `parts` joined by `AND` or `OR`, in parentheses. SQLite parses `a AND b AND c …` into a
    /// chain as deep as it is long and refuses expressions deeper than 1,000 levels, so long
    /// lists are cut into at most 64 groups of at most 64 (recursively): the depth grows with
    /// the logarithm of the count, and each level costs SQLite's parser (whose stack holds
    /// about 100 entries) only a few entries.
    static func grouped(_ parts: ArraySlice<SQLFragment>, by op: String) -> SQLFragment {
        let width = 64
        if parts.count <= width { return "(" + joined(Array(parts), separator: " \(op) ") + ")" }
        let size = (parts.count + width - 1) / width
        var groups: [SQLFragment] = []
        var start = parts.startIndex
        while start < parts.endIndex {
            let end = min(start + size, parts.endIndex)
            groups.append(grouped(parts[start..<end], by: op))
            start = end
        }
        return grouped(groups[...], by: op)
    }
}

extension ObjectPredicate {
    /// Compiles the predicate (after ``validate(for:in:)``) to an SQL boolean expression over
    /// `entity`'s table aliased as `alias`, for `SELECT … FROM "Entity" AS alias WHERE <sql>`.
    /// The expression is 1 exactly when the predicate holds (never NULL where it matters).
    /// Case/diacritic folding, LIKE, MATCHES and BEGINSWITH/ENDSWITH/CONTAINS call the functions
    /// that ``PredicateSQLFunctions/register(in:)`` installs; `==`, `<`, `IN` and friends stay
    /// native SQL so indexes serve them.
    ///
    /// ```swift
    /// let entity = try model.entity(named: "FeedItem")
    /// let clause = try ObjectPredicate(format: "server.title == %@", "Swift").sqlExpression(for: entity, in: model, alias: "t0")
    /// // clause.sql: ((SELECT t0_1."title" FROM "Server" AS t0_1 WHERE t0_1."Z_PK" = t0."server") IS ?)
    /// ```
    ///
    /// `IN` binds its constants as one JSON array (`lhs IN (SELECT value FROM json_each(?))`),
    /// so a collection of any size compiles; the rest binds one parameter per constant, and a
    /// predicate needing more than ``Limits/sqlParameters`` is refused with
    /// ``ObjectGraphError/invalidPredicate(entity:message:)``.
    public func sqlExpression(for entity: Entity, in model: ManagedObjectModel, alias: String) throws(ObjectGraphError)
        -> SQLFragment
    {
        try validate(for: entity, in: model)
        var compiler = PredicateSQLCompiler(model: model, root: entity, rootAlias: alias)
        let fragment = try compiler.compile(self)
        guard fragment.arguments.count <= Limits.sqlParameters else {
            throw .invalidPredicate(
                entity: entity.name,
                message:
                    "the predicate needs \(fragment.arguments.count) SQL parameters, more than the limit of \(Limits.sqlParameters); use IN with a collection for long lists of values"
            )
        }
        return fragment
    }

    /// The SQL scalar expression for a single-valued key path (`title`, `server.title`,
    /// `feedItems.@count`), for ORDER BY and projections.
    ///
    /// ```swift
    /// let entity = try model.entity(named: "FeedItem")
    /// let order = try ObjectPredicate.sqlKeyPathExpression("server.title", for: entity, in: model, alias: "t0")
    /// let sql = "SELECT t0.Z_PK FROM \"FeedItem\" AS t0 ORDER BY \(order)"
    /// ```
    public static func sqlKeyPathExpression(
        _ keyPath: String, for entity: Entity, in model: ManagedObjectModel, alias: String
    ) throws(ObjectGraphError) -> String {
        let resolved = try ModelKeyPath(keyPath, root: entity, model: model)
        if let q = resolved.quantifiedHop {
            throw .invalidPredicate(
                entity: entity.name,
                message:
                    "key path '\(keyPath)' crosses the to-many relationship '\(resolved.hops[q].relationship.name)' and has no single value"
            )
        }
        var compiler = PredicateSQLCompiler(model: model, root: entity, rootAlias: alias)
        return try compiler.scalar(resolved, hopsFrom: 0, alias: alias).sql
    }
}

struct PredicateSQLCompiler {
    let model: ManagedObjectModel
    let root: Entity
    let rootAlias: String
    var aliasCount = 0

    init(model: ManagedObjectModel, root: Entity, rootAlias: String) {
        self.model = model
        self.root = root
        self.rootAlias = rootAlias
    }

    mutating func newAlias() -> String {
        aliasCount += 1
        return "\(rootAlias)_\(aliasCount)"
    }

    static func quote(_ identifier: String) -> String { SchemaGenerator.quote(identifier) }

    mutating func compile(_ predicate: ObjectPredicate) throws(ObjectGraphError) -> SQLFragment {
        switch predicate.node {
        case .constant(let b): return SQLFragment(sql: b ? "1" : "0")
        case .and(let parts):
            var compiled: [SQLFragment] = []
            for p in parts { compiled.append(try compile(p)) }
            return SQLFragment.grouped(compiled[...], by: "AND")
        case .or(let parts):
            var compiled: [SQLFragment] = []
            for p in parts { compiled.append(try compile(p)) }
            return SQLFragment.grouped(compiled[...], by: "OR")
        case .not(let inner):
            // Every compiled predicate is 1 when true and 0 or NULL when false, so "IS NOT 1"
            // negates it without letting SQL's third truth value through, and a double negation
            // is the predicate itself (saving SQLite's parser two levels).
            if case .not(let twice) = inner.node { return try compile(twice) }
            return "(" + (try compile(inner)) + " IS NOT 1)"
        case .comparison(let c): return try compile(c)
        }
    }

    /// The condition joining `hop.source` rows (as `from`) to `hop.destination` rows (as `to`).
    func hopCondition(_ hop: ModelKeyPath.Hop, from: String, to: String) -> String {
        if let join = hop.source.joinTables[hop.relationshipIndex] {
            // Many-to-many: through the join table.
            return
                "\(to).\"Z_PK\" IN (SELECT \(Self.quote(join.memberColumn)) FROM \(Self.quote(join.tableName)) WHERE \(Self.quote(join.ownColumn)) = \(from).\"Z_PK\")"
        }
        if hop.isStoredInSource {
            return "\(to).\"Z_PK\" = \(from).\(Self.quote(hop.relationship.name))"
        }
        return "\(to).\(Self.quote(hop.relationship.inverseName)) = \(from).\"Z_PK\""
    }

    /// The value of `path` from its hop `start` on, with `alias` the row of `hops[start].source`.
    /// To-one hops become scalar subqueries, so a nil relationship yields NULL.
    mutating func scalar(_ path: ModelKeyPath, hopsFrom start: Int, alias: String) throws(ObjectGraphError) -> SQLFragment {
        let remaining = path.hops.count - start
        switch (path.terminal, remaining) {
        case (.attribute(let a), 0):
            guard !a.isTransient else {
                throw .invalidPredicate(
                    entity: root.name,
                    message: "'\(path.path)': transient attribute '\(a.name)' is not stored and cannot be used in a fetch")
            }
            return SQLFragment(sql: "\(alias).\(Self.quote(a.name))")
        case (.count, 1):
            let hop = path.hops[start]
            let t = newAlias()
            return SQLFragment(
                sql:
                    "(SELECT COUNT(*) FROM \(Self.quote(hop.destination.tableName)) AS \(t) WHERE \(hopCondition(hop, from: alias, to: t)))"
            )
        case (.relationship, 0):
            // A to-many relationship's destination, joined by a quantifier: its own key.
            return SQLFragment(sql: "\(alias).\"Z_PK\"")
        case (.relationship, 1) where path.hops[start].isStoredInSource:
            return SQLFragment(sql: "\(alias).\(Self.quote(path.hops[start].relationship.name))")
        case (.relationship, 1):
            let hop = path.hops[start]
            let t = newAlias()
            return SQLFragment(
                sql:
                    "(SELECT \(t).\"Z_PK\" FROM \(Self.quote(hop.destination.tableName)) AS \(t) WHERE \(hopCondition(hop, from: alias, to: t)) LIMIT 1)"
            )
        default:
            let hop = path.hops[start]
            let t = newAlias()
            let inner = try scalar(path, hopsFrom: start + 1, alias: t)
            return "(SELECT " + inner
                + " FROM \(Self.quote(hop.destination.tableName)) AS \(t) WHERE \(hopCondition(hop, from: alias, to: t)) LIMIT 1)"
        }
    }

    /// A compiled operand: its SQL and whether it is a string that `[c]`/`[d]` must fold.
    struct Operand {
        var sql: SQLFragment
        var isString: Bool
        var constant: Value?
    }

    mutating func operand(_ e: PredicateOperand) throws(ObjectGraphError) -> Operand {
        switch e {
        case .constant(let v):
            if case .string = v {
                return Operand(sql: SQLFragment(sql: "?", arguments: [v.databaseValue]), isString: true, constant: v)
            }
            return Operand(sql: SQLFragment(sql: "?", arguments: [v.databaseValue]), isString: false, constant: v)
        case .objectReference(_, let rawValue):
            let v = Value.integer(rawValue)
            return Operand(sql: SQLFragment(sql: "?", arguments: [v.databaseValue]), isString: false, constant: v)
        case .keyPath(let path):
            let resolved = try ModelKeyPath(path, root: root, model: model)
            let isString: Bool
            if case .attribute(let a) = resolved.terminal { isString = a.type == .string } else { isString = false }
            return Operand(sql: try scalar(resolved, hopsFrom: 0, alias: rootAlias), isString: isString)
        case .aggregate:
            throw .invalidPredicate(entity: root.name, message: "unexpected collection \(e)")
        }
    }

    /// `operand` folded for `[c]`/`[d]`: constants in Swift, the rest by `OG_FOLD` in SQL.
    func folded(_ operand: Operand, _ options: ComparisonOptions) -> SQLFragment {
        guard !options.isEmpty, operand.isString else { return operand.sql }
        if case .string(let s)? = operand.constant {
            return SQLFragment(sql: "?", arguments: [PredicateSemantics.fold(s, options).databaseValue])
        }
        return "\(PredicateSQLFunctions.foldFunctionName)(" + operand.sql + ", \(options.rawValue))"
    }

    mutating func compile(_ comparison: PredicateComparison) throws(ObjectGraphError) -> SQLFragment {
        let c = try comparison.membershipDesugared(root: root, model: model)
        guard case .keyPath(let path) = c.left, c.modifier != .direct else {
            let left = try operand(c.left)
            return try test(left, c)
        }
        let resolved = try ModelKeyPath(path, root: root, model: model)
        guard let quantified = resolved.quantifiedHop else {
            throw .invalidPredicate(entity: root.name, message: "\(c.modifier.rawValue) needs a to-many key path, got '\(path)'")
        }
        // FROM the rows of every hop up to the to-many one; the rest of the path is a scalar.
        var tables: [String] = []
        var conditions: [String] = []
        var alias = rootAlias
        for hop in resolved.hops[...quantified] {
            let t = newAlias()
            tables.append("\(Self.quote(hop.destination.tableName)) AS \(t)")
            conditions.append(hopCondition(hop, from: alias, to: t))
            alias = t
        }
        let element = try scalar(resolved, hopsFrom: quantified + 1, alias: alias)
        let isString: Bool
        if case .attribute(let a) = resolved.terminal { isString = a.type == .string } else { isString = false }
        let condition = try test(Operand(sql: element, isString: isString), c)
        let head = "SELECT 1 FROM \(tables.joined(separator: ", ")) WHERE \(conditions.joined(separator: " AND ")) AND "
        switch c.modifier {
        case .any: return "EXISTS (" + head + condition + ")"
        case .all: return "NOT EXISTS (" + head + "(" + condition + " IS NOT 1))"
        default: return "NOT EXISTS (" + head + condition + ")"
        }
    }

    /// Appends `s` as a JSON string when it needs no escaping (no control character, quote
    /// or backslash: the usual guid or URL), byte for byte; false (nothing appended) otherwise.
    static func appendPlainJSONString(_ s: String, to out: inout [UInt8]) -> Bool {
        var s = s
        return s.withUTF8 { bytes in
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
    }

    /// `value` as a JSON literal that SQLite's `json_each` turns back into the very value
    /// binding it would store (numbers print in their shortest round-trip form), or nil for
    /// what JSON cannot carry exactly: data, NaN (SQLite stores it as NULL) and strings with NUL.
    static func jsonLiteral(_ value: Value) -> String? {
        func number(_ d: Double) -> String? {
            if d.isNaN { return nil }
            if d.isInfinite { return d < 0 ? "-1e999" : "1e999" }
            return "\(d)"
        }
        switch value {
        case .integer(let i): return String(i)
        case .bool(let b): return b ? "1" : "0"
        case .double(let d): return number(d)
        case .date(let d): return number(d.timeIntervalSince1970)
        case .string(let s):
            if s.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
                return "\"" + s + "\""
            }
            var out = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\0": return nil
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20:
                    out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        case .null, .data: return nil
        }
    }

    /// `left op right` for one left value, 1 when true and 0 or NULL when false.
    mutating func test(_ left: Operand, _ c: PredicateComparison) throws(ObjectGraphError) -> SQLFragment {
        let options = c.options
        switch c.op {
        case .in:
            guard case .aggregate(let members) = c.right else { return SQLFragment(sql: "0") }
            // Constants (a collection can hold hundreds of thousands) go straight to JSON
            // text; key paths and nil become alternatives of their own.
            var constantMembers: [Value] = []
            var otherMembers: [Operand] = []
            var hasNull = false
            var isString = left.isString
            for m in members {
                switch m {
                case .constant(.null): hasNull = true
                case .constant(let v):
                    if case .string = v { isString = true }
                    constantMembers.append(v)
                case .objectReference(_, let rawValue): constantMembers.append(.integer(rawValue))
                default:
                    let o = try operand(m)
                    isString = isString || o.isString
                    otherMembers.append(o)
                }
            }
            var l = left
            l.isString = isString
            let lhs = folded(l, options)
            // The JSON array is written as bytes into one buffer: no string per member.
            var array: [UInt8] = [UInt8(ascii: "[")]
            array.reserveCapacity(2 + constantMembers.count * 32)
            var jsonCount = 0
            var constants: [SQLFragment] = []
            var alternatives: [SQLFragment] = []
            for var constant in constantMembers {
                if isString, !options.isEmpty, case .string(let s) = constant {
                    constant = .string(PredicateSemantics.fold(s, options))
                }
                if jsonCount > 0 { array.append(UInt8(ascii: ",")) }
                if case .string(let s) = constant, Self.appendPlainJSONString(s, to: &array) {
                    jsonCount += 1
                } else if let json = Self.jsonLiteral(constant) {
                    array.append(contentsOf: json.utf8)
                    jsonCount += 1
                } else {
                    if jsonCount > 0 { array.removeLast() }
                    constants.append(SQLFragment(sql: "?", arguments: [constant.databaseValue]))
                }
            }
            if hasNull { alternatives.append("(" + lhs + " IS NULL)") }
            for var o in otherMembers {
                o.isString = isString
                alternatives.append("(" + lhs + " IS " + folded(o, options) + ")")
            }
            if !constants.isEmpty {
                alternatives.insert("(" + lhs + " IN (" + SQLFragment.joined(constants, separator: ", ") + "))", at: 0)
            }
            if jsonCount > 0 {
                array.append(UInt8(ascii: "]"))
                let json = String(decoding: array, as: UTF8.self)
                alternatives.insert(
                    "(" + lhs + SQLFragment(sql: " IN (SELECT value FROM json_each(?)))", arguments: [json.databaseValue]),
                    at: 0)
            }
            if alternatives.isEmpty { return SQLFragment(sql: "0") }
            return "(" + SQLFragment.joined(alternatives, separator: " OR ") + ")"
        case .between:
            guard case .aggregate(let bounds) = c.right, bounds.count == 2 else { return SQLFragment(sql: "0") }
            var low = try operand(bounds[0])
            var high = try operand(bounds[1])
            if low.constant == .null || high.constant == .null { return SQLFragment(sql: "0") }
            var l = left
            let isString = left.isString || low.isString || high.isString
            (l.isString, low.isString, high.isString) = (isString, isString, isString)
            let lhs = folded(l, options)
            return "(" + lhs + " >= " + folded(low, options) + " AND " + lhs + " <= " + folded(high, options) + ")"
        default:
            break
        }
        var right = try operand(c.right)
        var l = left
        let isString = left.isString || right.isString
        (l.isString, right.isString) = (isString, isString)
        if c.op.isStringOperator {
            if right.constant == .null || l.constant == .null { return SQLFragment(sql: "0") }
            return "\(PredicateSQLFunctions.stringOperatorFunctionName)('\(c.op.rawValue)', \(options.rawValue), "
                + l.sql + ", " + right.sql + ")"
        }
        let lhs = folded(l, options)
        if right.constant == .null {
            switch c.op {
            case .equalTo: return "(" + lhs + " IS NULL)"
            case .notEqualTo: return "(" + lhs + " IS NOT NULL)"
            default: return SQLFragment(sql: "0")
            }
        }
        let rhs = folded(right, options)
        return "(" + lhs + (c.op.sqlComparison ?? " IS ") + rhs + ")"
    }
}

extension ComparisonOperator {
    /// The SQL of the six plain comparisons, spaced for pasting between operands (`==` is
    /// `IS`, so NULL compares as a value); nil for the others. Fetches and partial indexes'
    /// conditions both use it, so SQLite sees the same text in both and can use the index.
    var sqlComparison: String? {
        switch self {
        case .equalTo: " IS "
        case .notEqualTo: " IS NOT "
        case .lessThan: " < "
        case .lessThanOrEqualTo: " <= "
        case .greaterThan: " > "
        case .greaterThanOrEqualTo: " >= "
        default: nil
        }
    }
}
