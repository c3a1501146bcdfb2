import Foundation

/// A value that can be substituted for `%@` (or `%K`, for a String) in a predicate format.
/// String, Int, Int64, Int32, Double, Float, Bool, Date, Data, ``Value``, ``ObjectID``, arrays
/// and sets of these, and optionals (`nil` is the predicate's `nil`) conform.
///
/// ```swift
/// let p = try ObjectPredicate(format: "%K IN %@ AND published > %@", "title", ["a", "b"], Date())
/// let q = try ObjectPredicate(format: "server == %@ AND author == %@", server.objectID, nil)
/// ```
public protocol PredicateArgument {
    /// What `%@` becomes: a constant, an object reference or a collection `{…}`.
    var predicateOperand: PredicateOperand { get }
}

extension Value: PredicateArgument {
    public var predicateOperand: PredicateOperand { .constant(self) }
}

extension String: PredicateArgument {
    public var predicateOperand: PredicateOperand { .constant(.string(self)) }
}

extension Substring: PredicateArgument {
    public var predicateOperand: PredicateOperand { .constant(.string(String(self))) }
}

extension Int: PredicateArgument {
    public var predicateOperand: PredicateOperand { .constant(.integer(Int64(self))) }
}

extension Int64: PredicateArgument {
    public var predicateOperand: PredicateOperand { .constant(.integer(self)) }
}

extension Int32: PredicateArgument {
    public var predicateOperand: PredicateOperand { .constant(.integer(Int64(self))) }
}

extension Double: PredicateArgument {
    public var predicateOperand: PredicateOperand { .constant(.double(self)) }
}

extension Float: PredicateArgument {
    public var predicateOperand: PredicateOperand { .constant(.double(Double(self))) }
}

extension Bool: PredicateArgument {
    public var predicateOperand: PredicateOperand { .constant(.bool(self)) }
}

extension Date: PredicateArgument {
    public var predicateOperand: PredicateOperand { .constant(.date(self)) }
}

extension Data: PredicateArgument {
    public var predicateOperand: PredicateOperand { .constant(.data(self)) }
}

extension ObjectID: PredicateArgument {
    public var predicateOperand: PredicateOperand { .object(self) }
}

extension Optional: PredicateArgument where Wrapped: PredicateArgument {
    public var predicateOperand: PredicateOperand { self?.predicateOperand ?? .constant(.null) }
}

extension Array: PredicateArgument where Element: PredicateArgument {
    public var predicateOperand: PredicateOperand { .aggregate(PredicateOperand.flattened(self)) }
}

extension Set: PredicateArgument where Element: PredicateArgument {
    public var predicateOperand: PredicateOperand { .aggregate(PredicateOperand.flattened(self)) }
}

extension PredicateOperand {
    /// The members of a collection, or the operand itself.
    var members: [PredicateOperand] {
        if case .aggregate(let members) = self { return members }
        return [self]
    }

    /// The operands of `elements`, a nested collection's members in its place: one array,
    /// not one per element (a `guid IN %@` lookup passes hundreds of strings).
    static func flattened(_ elements: some Collection<some PredicateArgument>) -> [PredicateOperand] {
        var result: [PredicateOperand] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            let operand = element.predicateOperand
            if case .aggregate(let members) = operand {
                result.append(contentsOf: members)
            } else {
                result.append(operand)
            }
        }
        return result
    }
}
