import Foundation

/// Exposes a `Codable` value as a property of a ``ManagedObject`` subclass, stored as JSON
/// in a string attribute (readable TEXT) or a data attribute (a BLOB), whichever the model
/// declares. Keys are sorted when encoding, so an equal value writes equal JSON and setting
/// it again is no change. Absent (`nil`) is stored as NULL. A stored value that does not
/// decode as the property's type (written by another version of the app) reads as `nil`;
/// ``ManagedObject/decodedValue(_:forKey:)`` throws instead, naming the problem.
///
/// ```swift
/// struct Layout: Codable, Equatable { var columns: Int; var sort: String }
/// final class Feed: ManagedObject {
///     @Encoded("layout") var layout: Layout?   // .string("layout") or .data("layout") in the model
/// }
/// let feed = context.insert(Feed.self)
/// feed.layout = Layout(columns: 2, sort: "date")
/// ```
@propertyWrapper
public struct Encoded<T: Codable> {
    public let key: String

    public init(_ key: String) {
        self.key = key
    }

    @available(*, unavailable, message: "@Encoded is only available on ManagedObject subclasses")
    public var wrappedValue: T? {
        get { fatalError("unreachable") }
        set { fatalError("unreachable") }
    }

    public static subscript<O: ManagedObject>(
        _enclosingInstance object: O,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<O, T?>,
        storage storageKeyPath: ReferenceWritableKeyPath<O, Encoded<T>>
    ) -> T? {
        get {
            let i = resolveIndex(object, storageKeyPath)
            return try? CodableStorage.decode(T.self, from: object.attributeValue(at: i))
        }
        set {
            let i = resolveIndex(object, storageKeyPath)
            do {
                object.setAttributeValue(try CodableStorage.encode(newValue, as: object.entity.attributes[i].type), at: i)
            } catch {
                preconditionFailure("\(object.entity.name).\(object.entity.attributes[i].name): \(error)")
            }
        }
    }

    /// The attribute's index, found as ``Managed`` finds it: one read of the storage for its
    /// key, then the entity's table of names.
    static func resolveIndex<O: ManagedObject>(_ object: O, _ storageKeyPath: ReferenceWritableKeyPath<O, Encoded<T>>) -> Int {
        object.entity.codableAttributeIndex(forKey: object[keyPath: storageKeyPath].key)
    }
}

extension Encoded: DeclaresManagedProperty {
    /// Ends the Swift type named for an ``Encoded`` property, whose attribute may be a data
    /// attribute as well as the string attribute it is checked as.
    static var declaredSuffix: String { "? (@Encoded)" }
    var declaredProperty: DeclaredProperty {
        .attribute(key: key, type: .string, isOptional: true, swiftType: "\(T.self)" + Self.declaredSuffix)
    }
}

/// JSON encoding and decoding of ``Encoded`` values.
enum CodableStorage {
    static func encode<T: Encodable>(_ value: T?, as type: AttributeType) throws(ObjectGraphError) -> Value {
        guard let value else { return .null }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw .invalidValue(entity: "\(T.self)", key: "", rule: "encodable as JSON", message: "\(error)")
        }
        return type == .data ? .data(data) : .string(String(decoding: data, as: UTF8.self))
    }

    static func decode<T: Decodable>(_ type: T.Type, from value: Value) throws -> T? {
        let data: Data
        switch value {
        case .null: return nil
        case .string(let s): data = Data(s.utf8)
        case .data(let d): data = d
        default:
            throw ObjectGraphError.typeMismatch(entity: "\(T.self)", key: "", expected: "JSON text or data", got: value.typeName)
        }
        return try JSONDecoder().decode(T.self, from: data)
    }
}

extension Entity {
    /// The index of string or data attribute `key`, for an ``Encoded`` property; stops the
    /// program with a message when the model has no such attribute.
    func codableAttributeIndex(forKey key: String) -> Int {
        let i = wrappedAttributeIndex(forKey: key)
        let type = attributes[i].type
        guard type == .string || type == .data else {
            fatalError("\(name).\(key) is \(type.rawValue); an @Encoded property needs a string or data attribute")
        }
        return i
    }
}

extension ManagedObject {
    /// Attribute `key` decoded from JSON as `type` (nil when it has no value); throws
    /// ``ObjectGraphError/invalidValue(entity:key:rule:message:)`` when the stored JSON
    /// does not decode, naming why.
    ///
    /// ```swift
    /// let layout = try feed.decodedValue(Layout.self, forKey: "layout")
    /// ```
    public func decodedValue<T: Decodable>(_ type: T.Type, forKey key: String) throws(ObjectGraphError) -> T? {
        guard let i = entity.attributeIndexByName[key] else { throw .unknownKey(entity: entity.name, key: key) }
        do {
            return try CodableStorage.decode(type, from: attributeValue(at: i))
        } catch {
            throw .invalidValue(entity: entity.name, key: key, rule: "decodable as \(T.self)", message: "\(error)")
        }
    }

    /// Sets string or data attribute `key` to `value` encoded as JSON (nil: no value).
    ///
    /// ```swift
    /// try feed.setEncodedValue(Layout(columns: 1, sort: "title"), forKey: "layout")
    /// ```
    public func setEncodedValue<T: Encodable>(_ value: T?, forKey key: String) throws(ObjectGraphError) {
        guard let i = entity.attributeIndexByName[key] else { throw .unknownKey(entity: entity.name, key: key) }
        let attribute = entity.attributes[i]
        guard attribute.type == .string || attribute.type == .data else {
            throw .typeMismatch(entity: entity.name, key: key, expected: "string or data attribute", got: attribute.type.rawValue)
        }
        do {
            setAttributeValue(try CodableStorage.encode(value, as: attribute.type), at: i)
        } catch {
            throw .invalidValue(entity: entity.name, key: key, rule: "encodable as JSON", message: "\(error)")
        }
    }
}
