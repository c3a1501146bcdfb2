import Foundation

/// A logical condition on objects, in Core Data's predicate language: parsed from a format
/// string or built in code, evaluated in memory (``evaluate(with:)``) or compiled to SQL
/// (``sqlExpression(for:in:alias:)``) with the same answer either way.
///
/// ```swift
/// let unreadSwift = try ObjectPredicate(format: "read == NO AND title CONTAINS[cd] %@", "swift")
/// let busy = ObjectPredicate.comparison("feedItems.@count", .greaterThan, 3) && !.comparison("title", .equalTo, nil)
/// ```
///
/// Semantics shared by both evaluators (Core Data's): `nil` equals only `nil`; `!=` is true when
/// exactly one side is `nil`; ordering comparisons and string operators involving `nil` are
/// false; `NOT` negates those two-valued results. Strings compare by Unicode scalars unless
/// `[c]` (case folding) or `[d]` (diacritic folding) is given. Bools compare as 0/1, dates as
/// seconds.
///
/// Its name does not collide with Foundation's `Predicate` (SwiftData's), so a file may
/// import both modules.
public struct ObjectPredicate: Sendable, Equatable, CustomStringConvertible {
    /// The shape of a predicate.
    ///
    /// ```swift
    /// if case .and(let parts) = predicate.node { print(parts.count) }
    /// ```
    public indirect enum Node: Sendable, Equatable {
        /// `TRUEPREDICATE` or `FALSEPREDICATE`.
        case constant(Bool)
        /// All parts hold (at least two parts; built through ``ObjectPredicate/and(_:)``).
        case and([ObjectPredicate])
        /// Some part holds (at least two parts; built through ``ObjectPredicate/or(_:)``).
        case or([ObjectPredicate])
        /// The part does not hold.
        case not(ObjectPredicate)
        /// A comparison of two expressions.
        case comparison(PredicateComparison)
    }

    /// The predicate's tree.
    public let node: Node

    /// Levels of NOT, AND and OR down to the deepest comparison (a comparison or constant is
    /// 1). Kept with each node so that a predicate built in code deeper than
    /// ``Limits/predicateDepth`` is refused before any recursion over it could exhaust the stack.
    let depth: Int

    /// Wraps a node. Prefer the builders (``and(_:)``, ``comparison(_:_:_:options:modifier:)``).
    ///
    /// ```swift
    /// let p = ObjectPredicate(.constant(true))   // same as ObjectPredicate.true
    /// ```
    public init(_ node: Node) {
        self.node = node
        switch node {
        case .constant, .comparison: depth = 1
        case .and(let parts), .or(let parts): depth = 1 + (parts.lazy.map(\.depth).max() ?? 0)
        case .not(let inner): depth = 1 + inner.depth
        }
    }

    /// The bounds on predicates that keep hostile input from exhausting time, memory or the
    /// stack. Past any of them parsing, evaluating or compiling fails with an error naming the
    /// limit (and, in a format string, the position), never echoing the whole predicate.
    ///
    /// ```swift
    /// if format.unicodeScalars.count > ObjectPredicate.Limits.formatLength { print("too long") }
    /// ```
    public enum Limits {
        /// The longest format string, in Unicode scalars. Pass long collections as a `%@`
        /// argument (`guid IN %@`); those have no limit.
        public static let formatLength = 65_536
        /// The most comparisons (and TRUEPREDICATE/FALSEPREDICATE) in one format string.
        public static let comparisons = 1_000
        /// The deepest nesting of parentheses, NOT, collections and CAST in a format string.
        public static let nestingDepth = 200
        /// The deepest nesting of NOT, AND and OR (a comparison is level 1, `a AND (b OR c)` is
        /// level 3), in a format string and in any predicate evaluated or compiled. SQLite's
        /// parser gives up on SQL nested about 100 levels deep ("parser stack overflow"); a
        /// level of a predicate costs it up to 6, a relationship of a key path up to 6 more.
        public static let predicateDepth = 10
        /// The most relationships one key path may cross (`server.title` crosses one).
        public static let keyPathRelationships = 6
        /// The longest string literal in a format string, in Unicode scalars.
        public static let stringLength = 16_384
        /// The longest MATCHES pattern, literal or substituted, in Unicode scalars.
        public static let patternLength = 1_000
        /// The most SQL parameters one compiled predicate may bind (SQLite's default
        /// `SQLITE_MAX_VARIABLE_NUMBER`); `IN` collections bind one parameter whatever their size.
        public static let sqlParameters = 32_766
        /// How long a fetch may run by default (``FetchRequest/timeLimit``), and how long an
        /// in-memory evaluation of one string operator outside a fetch may run, before it is
        /// stopped with ``ObjectGraphError/timeLimitExceeded(entity:seconds:)``: nil, no
        /// limit. A library cannot tell a costly user-written predicate from a legitimate
        /// large fetch; the application sets ``FetchRequest/timeLimit`` on the former.
        public static let timeLimit: Duration? = nil
    }

    /// `TRUEPREDICATE`: matches every object. `let all = ObjectPredicate.true`
    public static let `true` = ObjectPredicate(.constant(true))
    /// `FALSEPREDICATE`: matches no object. `let none = ObjectPredicate.false`
    public static let `false` = ObjectPredicate(.constant(false))

    /// All of `parts` hold. Nested ANDs are flattened; no part gives ``true``, one part gives itself.
    ///
    /// ```swift
    /// let p = ObjectPredicate.and([.comparison("read", .equalTo, false), .comparison("title", .notEqualTo, nil)])
    /// ```
    public static func and(_ parts: [ObjectPredicate]) -> ObjectPredicate {
        var flat: [ObjectPredicate] = []
        for p in parts {
            if case .and(let inner) = p.node { flat += inner } else { flat.append(p) }
        }
        switch flat.count {
        case 0: return .true
        case 1: return flat[0]
        default: return ObjectPredicate(.and(flat))
        }
    }

    /// Some of `parts` holds. Nested ORs are flattened; no part gives ``false``, one part gives itself.
    ///
    /// ```swift
    /// let p = ObjectPredicate.or([.comparison("rank", .lessThan, 1), .comparison("rank", .greaterThan, 9)])
    /// ```
    public static func or(_ parts: [ObjectPredicate]) -> ObjectPredicate {
        var flat: [ObjectPredicate] = []
        for p in parts {
            if case .or(let inner) = p.node { flat += inner } else { flat.append(p) }
        }
        switch flat.count {
        case 0: return .false
        case 1: return flat[0]
        default: return ObjectPredicate(.or(flat))
        }
    }

    /// The negation of `predicate`.
    ///
    /// ```swift
    /// let unread = ObjectPredicate.not(.comparison("read", .equalTo, true))
    /// ```
    public static func not(_ predicate: ObjectPredicate) -> ObjectPredicate {
        ObjectPredicate(.not(predicate))
    }

    /// `lhs AND rhs`. `let p = a && b`
    public static func && (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate { .and([lhs, rhs]) }
    /// `lhs OR rhs`. `let p = a || b`
    public static func || (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate { .or([lhs, rhs]) }
    /// `NOT predicate`. `let p = !a`
    public static prefix func ! (predicate: ObjectPredicate) -> ObjectPredicate { .not(predicate) }

    /// Compares the key path `keyPath` with a constant.
    ///
    /// ```swift
    /// let p = ObjectPredicate.comparison("title", .contains, "swift", options: [.caseInsensitive, .diacriticInsensitive])
    /// let q = ObjectPredicate.comparison("feedItems.read", .equalTo, false, modifier: .any)
    /// ```
    public static func comparison(
        _ keyPath: String, _ op: ComparisonOperator, _ value: Value, options: ComparisonOptions = [],
        modifier: ComparisonModifier = .direct
    ) -> ObjectPredicate {
        comparison(.keyPath(keyPath), op, .constant(value), options: options, modifier: modifier)
    }

    /// Compares the key path `keyPath` with a collection of constants, for ``ComparisonOperator/in``
    /// and ``ComparisonOperator/between``.
    ///
    /// ```swift
    /// let p = ObjectPredicate.comparison("rank", .between, values: [1, 5])
    /// let q = ObjectPredicate.comparison("title", .in, values: ["a", "b"], options: .caseInsensitive)
    /// ```
    public static func comparison(
        _ keyPath: String, _ op: ComparisonOperator, values: [Value], options: ComparisonOptions = [],
        modifier: ComparisonModifier = .direct
    ) -> ObjectPredicate {
        comparison(
            .keyPath(keyPath), op, .aggregate(values.map(PredicateOperand.constant)), options: options,
            modifier: modifier)
    }

    /// Compares two arbitrary expressions.
    ///
    /// ```swift
    /// let p = ObjectPredicate.comparison(.keyPath("title"), .equalTo, .keyPath("server.title"))
    /// ```
    public static func comparison(
        _ left: PredicateOperand, _ op: ComparisonOperator, _ right: PredicateOperand,
        options: ComparisonOptions = [], modifier: ComparisonModifier = .direct
    ) -> ObjectPredicate {
        ObjectPredicate(
            .comparison(PredicateComparison(modifier: modifier, left: left, op: op, options: options, right: right)))
    }
}

/// One comparison: `[modifier] left op[options] right`, e.g. `ANY feedItems.title CONTAINS[c] "x"`.
///
/// ```swift
/// let c = PredicateComparison(left: .keyPath("read"), op: .equalTo, right: .constant(false))
/// let p = ObjectPredicate(.comparison(c))
/// ```
public struct PredicateComparison: Sendable, Equatable {
    /// `ANY`, `ALL`, `NONE` or nothing; applies to a left key path crossing a to-many relationship.
    public var modifier: ComparisonModifier
    /// The left side, usually a key path: `title` in `title == "x"`.
    public var left: PredicateOperand
    /// The operator: `==` in `title == "x"`.
    public var op: ComparisonOperator
    /// `[c]`, `[d]`, `[cd]`.
    public var options: ComparisonOptions
    /// The right side, usually a constant or collection: `"x"` in `title == "x"`.
    public var right: PredicateOperand

    /// Creates a comparison. `PredicateComparison(left: .keyPath("rank"), op: .lessThan, right: .constant(3))`
    public init(
        modifier: ComparisonModifier = .direct, left: PredicateOperand, op: ComparisonOperator,
        options: ComparisonOptions = [], right: PredicateOperand
    ) {
        self.modifier = modifier
        self.left = left
        self.op = op
        self.options = options
        self.right = right
    }
}

/// One side of a comparison.
///
/// ```swift
/// let lhs = PredicateOperand.keyPath("server.title")
/// let rhs = PredicateOperand.aggregate([.constant("a"), .constant("b")])   // {"a", "b"}
/// ```
public enum PredicateOperand: Sendable, Equatable {
    /// A dotted key path from the evaluated object: `title`, `server.title`, `feedItems.@count`.
    case keyPath(String)
    /// A constant value; `.constant(.null)` is `nil`.
    case constant(Value)
    /// A collection `{a, b, …}`, the right side of `IN` and `BETWEEN`.
    case aggregate([PredicateOperand])
    /// A managed object, by entity name and ``ObjectID/rawValue``, compared with a to-one
    /// relationship (`server == %@`) or the members of a to-many one (`ANY feedItems == %@`).
    /// Prints as `CAST(12, "ObjectID:Server")`.
    case objectReference(entity: String, rawValue: Int64)

    /// A reference to the object `id` identifies. `ObjectPredicate.comparison(.keyPath("server"), .equalTo, .object(id))`
    public static func object(_ id: ObjectID) -> PredicateOperand {
        .objectReference(entity: id.entity.name, rawValue: id.rawValue)
    }

    /// Strings are equal when their Unicode scalars are, as the predicate compares them
    /// (`"é"` and `"e\u{301}"` make different predicates).
    public static func == (a: PredicateOperand, b: PredicateOperand) -> Bool {
        switch (a, b) {
        case (.keyPath(let x), .keyPath(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case (.constant(.string(let x)), .constant(.string(let y))): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case (.constant(let x), .constant(let y)): return x == y
        case (.aggregate(let x), .aggregate(let y)): return x == y
        case (.objectReference(let e1, let r1), .objectReference(let e2, let r2)): return e1 == e2 && r1 == r2
        default: return false
        }
    }
}

/// The former name of ``PredicateOperand``, kept for code written against it. Foundation
/// declares a `PredicateExpression` too, so outside this module prefer ``PredicateOperand``.
///
/// ```swift
/// let lhs: PredicateOperand = .keyPath("title")
/// ```
public typealias PredicateExpression = PredicateOperand

/// The operator of a comparison.
///
/// ```swift
/// let p = ObjectPredicate.comparison("title", .beginsWith, "Swift")
/// ```
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    /// `==` (also `=`): nil equals only nil.
    case equalTo = "=="
    /// `!=` (also `<>`): true when exactly one side is nil.
    case notEqualTo = "!="
    /// `<`: false when either side is nil, as are the other orderings.
    case lessThan = "<"
    /// `<=` (also `=<`).
    case lessThanOrEqualTo = "<="
    /// `>`.
    case greaterThan = ">"
    /// `>=` (also `=>`).
    case greaterThanOrEqualTo = ">="
    /// `BETWEEN {low, high}`, both bounds included.
    case between = "BETWEEN"
    /// `IN {a, b, …}`: equal to one of the collection's members.
    case `in` = "IN"
    /// The left string starts with the right one (an empty right string is found nowhere).
    case beginsWith = "BEGINSWITH"
    /// The left string ends with the right one.
    case endsWith = "ENDSWITH"
    /// The left string contains the right one.
    case contains = "CONTAINS"
    /// Whole-string wildcard match: `*` any run of characters, `?` one character, `\` escapes.
    case like = "LIKE"
    /// Whole-string ICU regular expression match.
    case matches = "MATCHES"

    /// Whether the operator compares strings only (BEGINSWITH … MATCHES).
    var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like, .matches: return true
        default: return false
        }
    }

    /// Whether the operator orders its operands (`<`, `<=`, `>`, `>=`, BETWEEN).
    var isOrdering: Bool {
        switch self {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .between: return true
        default: return false
        }
    }
}

/// The quantifier of a comparison whose left key path crosses a to-many relationship.
///
/// ```swift
/// let anyUnread = ObjectPredicate.comparison("feedItems.read", .equalTo, false, modifier: .any)
/// ```
public enum ComparisonModifier: String, Sendable, Hashable, CaseIterable {
    /// No quantifier: the left side is a single value.
    case direct = ""
    /// Some member satisfies the comparison (`ANY`, `SOME`).
    case any = "ANY"
    /// Every member satisfies it; true for an empty collection (`ALL`).
    case all = "ALL"
    /// No member satisfies it (`NONE`).
    case none = "NONE"
}

/// String comparison modifiers: `[c]`, `[d]`, `[cd]`.
///
/// ```swift
/// let options: ComparisonOptions = [.caseInsensitive, .diacriticInsensitive]   // [cd]
/// ```
public struct ComparisonOptions: OptionSet, Sendable, Hashable {
    /// Bit 1 for `[c]`, bit 2 for `[d]`, as passed to the SQL functions.
    public let rawValue: Int
    /// Creates options from their raw bits. `ComparisonOptions(rawValue: 3)` is `[cd]`.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `[c]`: full Unicode case folding (`É` matches `é`, `ß` matches `SS`).
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `[d]`: combining marks removed after canonical decomposition (`é` matches `e`).
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
}
