import Foundation

/// An object a ``ObjectPredicate`` can be evaluated against: it answers each key of a key path.
///
/// ```swift
/// struct Row: PredicateEvaluable {
///     var values: [String: Value]
///     func predicateValue(forKey key: String) throws -> PredicateKeyValue { .value(values[key] ?? .null) }
/// }
/// ```
public protocol PredicateEvaluable {
    /// The attribute value (``PredicateKeyValue/value(_:)``), to-one destination
    /// (``PredicateKeyValue/object(_:)``) or to-many destinations
    /// (``PredicateKeyValue/objects(_:)``) for `key`; throws for an unknown key.
    func predicateValue(forKey key: String) throws -> PredicateKeyValue

    /// The object's identity, compared with object references (`server == %@`); the default
    /// is nil, which suits objects only ever compared with nil.
    var predicateObjectID: ObjectID? { get }
}

extension PredicateEvaluable {
    /// No identity: relationships to this object compare with nil only.
    public var predicateObjectID: ObjectID? { nil }
}

/// What a key of a ``PredicateEvaluable`` holds.
///
/// ```swift
/// struct Entry: PredicateEvaluable {
///     var title: String
///     var server: (any PredicateEvaluable)?
///     var items: [any PredicateEvaluable]
///     func predicateValue(forKey key: String) throws -> PredicateKeyValue {
///         switch key {
///         case "title": return .value(.string(title))
///         case "server": return .object(server)          // nil when unset
///         case "feedItems": return .objects(items)
///         default: return .value(.null)
///         }
///     }
/// }
/// ```
public enum PredicateKeyValue {
    /// An attribute's value.
    case value(Value)
    /// A to-one relationship's destination, or nil.
    case object((any PredicateEvaluable)?)
    /// A to-many relationship's destinations.
    case objects([any PredicateEvaluable])
}

extension ObjectPredicate {
    /// Evaluates the predicate against `object` in memory, with the same semantics as the SQL
    /// it compiles to. Throws ``PredicateEvaluationError`` for an invalid regular expression or a
    /// key path that does not fit the object (and whatever `predicateValue(forKey:)` throws).
    ///
    /// ```swift
    /// let unread = try ObjectPredicate(format: "read == NO")
    /// let matches = try items.filter { try unread.evaluate(with: $0) }
    /// ```
    ///
    /// A string operator running past the current fetch's deadline (outside a fetch, past
    /// ``Limits/timeLimit``) throws ``ObjectGraphError/timeLimitExceeded(entity:seconds:)``; a
    /// predicate built in code deeper than ``Limits/predicateDepth`` throws before evaluating.
    public func evaluate(with object: some PredicateEvaluable) throws -> Bool {
        guard depth <= Limits.predicateDepth else {
            throw PredicateEvaluationError(
                message:
                    "the predicate nests NOT, AND and OR \(depth) levels deep, more than the limit of \(Limits.predicateDepth)")
        }
        return try PredicateEvaluator.evaluate(self, object)
    }
}

enum PredicateEvaluator {
    /// The value(s) a key path leads to.
    enum Resolved {
        case single(Value)
        /// Through a to-many relationship: one value per destination (nil ones included).
        case many([Value])
        /// A nil to-one on the way: nil as a single value, an empty collection under ANY/ALL/NONE.
        case missing
    }

    enum Operand {
        case single(Value)
        case collection([Value])
    }

    static func evaluate(_ predicate: ObjectPredicate, _ object: any PredicateEvaluable) throws -> Bool {
        switch predicate.node {
        case .constant(let b): return b
        case .and(let parts):
            for p in parts where try !evaluate(p, object) { return false }
            return true
        case .or(let parts):
            for p in parts where try evaluate(p, object) { return true }
            return false
        case .not(let inner): return try !evaluate(inner, object)
        case .comparison(let c): return try evaluate(c, object)
        }
    }

    static func evaluate(_ c: PredicateComparison, _ object: any PredicateEvaluable) throws -> Bool {
        let right = try operand(c.right, object, side: "right")
        let left: Resolved
        switch c.left {
        case .keyPath(let path): left = try resolve(path.split(separator: ".")[...], object, path: path)
        case .constant(let v): left = .single(v)
        case .objectReference(_, let rawValue): left = .single(.integer(rawValue))
        case .aggregate:
            throw PredicateEvaluationError(message: "a collection cannot be the left side of \(c.op.rawValue)")
        }
        switch c.modifier {
        case .direct:
            switch left {
            case .single(let v): return try test(v, c.op, c.options, right)
            case .missing: return try test(.null, c.op, c.options, right)
            case .many(let members) where c.op == .contains:
                // `feedItems CONTAINS %@`: membership in the collection.
                for m in members where try test(m, .equalTo, c.options, right) { return true }
                return false
            case .many:
                throw PredicateEvaluationError(
                    message: "key path \(c.left) crosses a to-many relationship: use ANY, ALL or NONE")
            }
        case .any, .all, .none:
            let values: [Value]
            switch left {
            case .single(let v): values = [v]
            case .many(let vs): values = vs
            case .missing: values = []
            }
            switch c.modifier {
            case .any:
                for v in values where try test(v, c.op, c.options, right) { return true }
                return false
            case .all:
                for v in values where try !test(v, c.op, c.options, right) { return false }
                return true
            default:
                for v in values where try test(v, c.op, c.options, right) { return false }
                return true
            }
        }
    }

    static func operand(_ e: PredicateOperand, _ object: any PredicateEvaluable, side: String) throws -> Operand {
        switch e {
        case .constant(let v): return .single(v)
        case .objectReference(_, let rawValue): return .single(.integer(rawValue))
        case .keyPath(let path):
            switch try resolve(path.split(separator: ".")[...], object, path: path) {
            case .single(let v): return .single(v)
            case .missing: return .single(.null)
            case .many:
                throw PredicateEvaluationError(
                    message: "key path \(e) on the \(side) side crosses a to-many relationship")
            }
        case .aggregate(let members):
            return .collection(
                try members.map { member in
                    guard case .single(let v) = try operand(member, object, side: side) else {
                        throw PredicateEvaluationError(message: "collections cannot be nested: \(e)")
                    }
                    return v
                })
        }
    }

    static func resolve(
        _ segments: ArraySlice<Substring>, _ object: (any PredicateEvaluable)?, path: String
    ) throws -> Resolved {
        guard let object else { return .missing }
        guard let first = segments.first else {
            throw PredicateEvaluationError(message: "empty key path")
        }
        let key = String(first)
        let rest = segments.dropFirst()
        if key.hasPrefix("@") {
            throw PredicateEvaluationError(message: "\(key) in \(path) must follow a to-many relationship")
        }
        switch try object.predicateValue(forKey: key) {
        case .value(let v):
            guard rest.isEmpty else {
                throw PredicateEvaluationError(
                    message: "'\(key)' in \(path) is an attribute; no key can follow it")
            }
            return .single(v)
        case .object(let destination):
            if rest.isEmpty { return .single(destination.map(identity) ?? .null) }
            return try resolve(rest, destination, path: path)
        case .objects(let destinations):
            if rest.isEmpty { return .many(destinations.map(identity)) }
            if rest.count == 1 && rest.first == "@count" { return .single(.integer(Int64(destinations.count))) }
            var values: [Value] = []
            for destination in destinations {
                switch try resolve(rest, destination, path: path) {
                case .single(let v): values.append(v)
                case .missing: values.append(.null)
                case .many(let vs): values += vs
                }
            }
            return .many(values)
        }
    }

    /// What a relationship's destination compares as: its object ID's raw value (the row's
    /// `Z_PK` once saved, as in SQL), or a marker equal to no constant when it has none.
    static func identity(_ object: any PredicateEvaluable) -> Value {
        object.predicateObjectID.map { .integer($0.rawValue) } ?? anonymousObject
    }

    static let anonymousObject = Value.data(Data("ObjectGraph.Predicate.anonymous-object".utf8))

    /// One comparison of a single left value, with Core Data's two-valued nil semantics.
    static func test(_ left: Value, _ op: ComparisonOperator, _ options: ComparisonOptions, _ right: Operand) throws -> Bool {
        switch (op, right) {
        case (.in, .collection(let members)):
            return members.contains { PredicateSemantics.equals(left, $0, options) }
        case (.in, .single(.null)):
            return false
        case (.between, .collection(let bounds)) where bounds.count == 2:
            guard let low = PredicateSemantics.compare(left, bounds[0], options),
                let high = PredicateSemantics.compare(left, bounds[1], options)
            else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case (.in, .single), (.between, _):
            throw PredicateEvaluationError(message: "\(op.rawValue) needs a collection on its right side")
        case (_, .collection):
            throw PredicateEvaluationError(message: "\(op.rawValue) needs a single value on its right side")
        case (_, .single(let r)):
            switch op {
            case .equalTo: return PredicateSemantics.equals(left, r, options)
            case .notEqualTo: return !PredicateSemantics.equals(left, r, options)
            case .lessThan: return PredicateSemantics.compare(left, r, options) == .orderedAscending
            case .lessThanOrEqualTo:
                return PredicateSemantics.compare(left, r, options).map { $0 != .orderedDescending } ?? false
            case .greaterThan: return PredicateSemantics.compare(left, r, options) == .orderedDescending
            case .greaterThanOrEqualTo:
                return PredicateSemantics.compare(left, r, options).map { $0 != .orderedAscending } ?? false
            default:
                guard case .string(let subject) = left, case .string(let pattern) = r else { return false }
                return try PredicateSemantics.stringOperation(op, options, subject, pattern)
            }
        }
    }
}
