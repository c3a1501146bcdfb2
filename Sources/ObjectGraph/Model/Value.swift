import Foundation

/// A single attribute value as ObjectGraph stores it: the common currency between
/// managed objects, predicates, fetch results and the SQLite store.
///
/// ```swift
/// let title: Value = "Hello"            // .string("Hello")
/// if case .string(let text) = try item.value(forKey: "title") { print(text) }
/// ```
public enum Value: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case double(Double)
    case string(String)
    case bool(Bool)
    case date(Date)
    case data(Data)

    /// `true` for ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as a number, if it is numeric (integers, doubles, bools and dates
    /// all compare numerically, as they do in the store).
    public var numericValue: Double? {
        switch self {
        case .integer(let v): return Double(v)
        case .double(let v): return v
        case .bool(let v): return v ? 1 : 0
        case .date(let v): return v.timeIntervalSince1970
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .null: return "nil"
        case .integer(let v): return String(v)
        case .double(let v): return String(v)
        case .string(let v): return "\"\(v)\""
        case .bool(let v): return v ? "YES" : "NO"
        case .date(let v): return "date(\(v.timeIntervalSince1970))"
        case .data(let v): return "data(\(v.count) bytes)"
        }
    }

    /// The value converted to `type`, or `nil` when it cannot be represented
    /// (a string that is not a number for an integer attribute, say).
    public func coerced(to type: AttributeType) -> Value? {
        switch (self, type) {
        case (.null, _): return .null
        case (.string, .string), (.integer, .integer), (.double, .double), (.bool, .bool),
            (.date, .date), (.data, .data):
            return self
        case (.integer(let v), .double): return .double(Double(v))
        case (.double(let v), .integer):
            guard v.isFinite, v.rounded() == v, let i = Int64(exactly: v) else { return nil }
            return .integer(i)
        case (.bool(let v), .integer): return .integer(v ? 1 : 0)
        case (.integer(let v), .bool): return .bool(v != 0)
        case (.double(let v), .date): return .date(Date(timeIntervalSince1970: v))
        case (.integer(let v), .date): return .date(Date(timeIntervalSince1970: Double(v)))
        default: return nil
        }
    }
}

extension Value: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}

/// Swift types that can be stored in an attribute.
///
/// ```swift
/// let v = "title".valueRepresentation       // .string("title")
/// let s = String(fromValue: .string("x"))   // "x"
/// ```
public protocol ValueConvertible {
    /// The attribute type this Swift type is stored as.
    static var attributeType: AttributeType { get }
    var valueRepresentation: Value { get }
    init?(fromValue value: Value)
}

extension String: ValueConvertible {
    public static var attributeType: AttributeType { .string }
    public var valueRepresentation: Value { .string(self) }
    public init?(fromValue value: Value) {
        guard case .string(let s) = value else { return nil }
        self = s
    }
}

extension Int64: ValueConvertible {
    public static var attributeType: AttributeType { .integer }
    public var valueRepresentation: Value { .integer(self) }
    public init?(fromValue value: Value) {
        switch value {
        case .integer(let v): self = v
        case .bool(let v): self = v ? 1 : 0
        default: return nil
        }
    }
}

extension Int: ValueConvertible {
    public static var attributeType: AttributeType { .integer }
    public var valueRepresentation: Value { .integer(Int64(self)) }
    public init?(fromValue value: Value) {
        guard let v = Int64(fromValue: value) else { return nil }
        self = Int(v)
    }
}

extension Double: ValueConvertible {
    public static var attributeType: AttributeType { .double }
    public var valueRepresentation: Value { .double(self) }
    public init?(fromValue value: Value) {
        switch value {
        case .double(let v): self = v
        case .integer(let v): self = Double(v)
        default: return nil
        }
    }
}

extension Bool: ValueConvertible {
    public static var attributeType: AttributeType { .bool }
    public var valueRepresentation: Value { .bool(self) }
    public init?(fromValue value: Value) {
        switch value {
        case .bool(let v): self = v
        case .integer(let v): self = v != 0
        default: return nil
        }
    }
}

extension Date: ValueConvertible {
    public static var attributeType: AttributeType { .date }
    public var valueRepresentation: Value { .date(self) }
    public init?(fromValue value: Value) {
        guard case .date(let d) = value else { return nil }
        self = d
    }
}

extension Data: ValueConvertible {
    public static var attributeType: AttributeType { .data }
    public var valueRepresentation: Value { .data(self) }
    public init?(fromValue value: Value) {
        guard case .data(let d) = value else { return nil }
        self = d
    }
}

extension Optional: ValueConvertible where Wrapped: ValueConvertible {
    public static var attributeType: AttributeType { Wrapped.attributeType }
    public var valueRepresentation: Value { self?.valueRepresentation ?? .null }
    public init?(fromValue value: Value) {
        if value.isNull {
            self = .none
        } else if let w = Wrapped(fromValue: value) {
            self = .some(w)
        } else {
            return nil
        }
    }
}
