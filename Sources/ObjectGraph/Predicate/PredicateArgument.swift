import Foundation

/// A value that can be substituted for `%@` (or `%K`, for a String) in a predicate format.
/// String, Int, Int64, Int32, Double, Float, Bool, Date, Data, ``Value``, arrays and sets of
/// these, and optionals (`nil` is the predicate's `nil`) conform.
///
/// ```swift
/// let p = try Predicate(format: "%K IN %@ AND published > %@", "title", ["a", "b"], Date())
/// let q = try Predicate(format: "author == %@", nil)
/// ```
public protocol PredicateArgument: Sendable {
    /// The value substituted into the predicate.
    var predicateArgumentValue: PredicateArgumentValue { get }
}

/// What a ``PredicateArgument`` substitutes: one value, or a collection (for `IN` and `BETWEEN`).
///
/// ```swift
/// let one: PredicateArgumentValue = .value(.string("x"))
/// let many: PredicateArgumentValue = .collection([.integer(1), .integer(2)])
/// ```
public enum PredicateArgumentValue: Sendable, Equatable {
    /// One value (`%@` becomes a constant).
    case value(Value)
    /// A collection (`%@` becomes `{a, b, …}`).
    case collection([Value])
}

extension Value: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue { .value(self) }
}

extension String: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue { .value(.string(self)) }
}

extension Substring: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue { .value(.string(String(self))) }
}

extension Int: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue { .value(.integer(Int64(self))) }
}

extension Int64: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue { .value(.integer(self)) }
}

extension Int32: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue { .value(.integer(Int64(self))) }
}

extension Double: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue { .value(.double(self)) }
}

extension Float: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue { .value(.double(Double(self))) }
}

extension Bool: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue { .value(.bool(self)) }
}

extension Date: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue { .value(.date(self)) }
}

extension Data: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue { .value(.data(self)) }
}

extension Optional: PredicateArgument where Wrapped: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue {
        self?.predicateArgumentValue ?? .value(.null)
    }
}

extension Array: PredicateArgument where Element: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue {
        .collection(flatMap(\.predicateArgumentValue.members))
    }
}

extension Set: PredicateArgument where Element: PredicateArgument {
    public var predicateArgumentValue: PredicateArgumentValue {
        .collection(flatMap(\.predicateArgumentValue.members))
    }
}

extension PredicateArgumentValue {
    /// The values of a collection, or the one value.
    var members: [Value] {
        switch self {
        case .value(let v): return [v]
        case .collection(let vs): return vs
        }
    }
}
