import Foundation

/// A JSON-like value to import into a managed object: what `JSONSerialization` produces,
/// as a Swift enum.
///
/// ```swift
/// let record: [String: ImportValue] = ["title": "Hello", "read": true, "score": 3]
/// try item.importValues(from: record)
/// ```
public enum ImportValue: Sendable, Hashable, CustomStringConvertible {
    /// JSON `null`: sets an optional attribute to nil.
    case null
    /// JSON `true`/`false`.
    case bool(Bool)
    /// A JSON number without a fraction.
    case integer(Int64)
    /// A JSON number with a fraction (or too large for `Int64`).
    case double(Double)
    /// A JSON string.
    case string(String)
    /// A JSON array (never imported into an attribute; a type error).
    case array([ImportValue])
    /// A JSON object (never imported into an attribute; a type error).
    case object([String: ImportValue])

    /// Converts what `JSONSerialization` (or hand-written Swift literals) produce: `NSNull`,
    /// `Bool`, integers, floating-point numbers, `NSNumber`, `String`, `Date` (as seconds
    /// since 1970), arrays and dictionaries. Anything else becomes `nil`.
    ///
    /// ```swift
    /// let any = try JSONSerialization.jsonObject(with: data)
    /// let value = ImportValue(any: any)
    /// ```
    public init?(any value: Any?) {
        guard var value else {
            self = .null
            return
        }
        // An Optional wrapped in Any (`[String: Any]` built from optionals): look inside.
        while case let mirror = Mirror(reflecting: value), mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else {
                self = .null
                return
            }
            value = wrapped
        }
        switch value {
        case let v as ImportValue: self = v
        case is NSNull: self = .null
        case let v as String: self = .string(v)
        case let v as NSNumber:
            // Check NSNumber before Swift's numeric types: a JSON number arrives as NSNumber,
            // and `as? Bool` would accept 0 and 1.
            let type = String(cString: v.objCType)
            if type == "c" || type == "B" {
                self = .bool(v.boolValue)
            } else if type == "f" || type == "d" {
                self = .double(v.doubleValue)
            } else if type == "Q", v.uint64Value > UInt64(Int64.max) {
                self = .double(v.doubleValue)
            } else {
                self = .integer(v.int64Value)
            }
        case let v as Bool: self = .bool(v)
        case let v as Int: self = .integer(Int64(v))
        case let v as Int64: self = .integer(v)
        case let v as Int32: self = .integer(Int64(v))
        case let v as Double: self = .double(v)
        case let v as Float: self = .double(Double(v))
        case let v as Date: self = .double(v.timeIntervalSince1970)
        case let v as [Any]:
            var items: [ImportValue] = []
            for item in v {
                guard let converted = ImportValue(any: item) else { return nil }
                items.append(converted)
            }
            self = .array(items)
        case let v as [String: Any]:
            var members: [String: ImportValue] = [:]
            for (key, item) in v {
                guard let converted = ImportValue(any: item) else { return nil }
                members[key] = converted
            }
            self = .object(members)
        default:
            return nil
        }
    }

    /// Parses JSON text.
    ///
    /// ```swift
    /// let record = try ImportValue(json: Data(#"{"title": "x"}"#.utf8))
    /// ```
    public init(json data: Data) throws {
        let any = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        guard let value = ImportValue(any: any) else {
            throw CocoaError(.coderReadCorrupt)
        }
        self = value
    }

    /// A short description for error messages: the kind and, for scalars, the value.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let v): return "bool \(v)"
        case .integer(let v): return "number \(v)"
        case .double(let v): return "number \(v)"
        case .string(let v): return "string \"\(v.count > 40 ? String(v.prefix(40)) + "…" : v)\""
        case .array(let v): return "array of \(v.count)"
        case .object(let v): return "object of \(v.count) keys"
        }
    }
}

extension ImportValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}
