import Foundation

/// A `UUID` property is stored in a string attribute, as its 36-character text
/// (`uuidString`, upper case): readable in the store, comparable in predicates and
/// indexable. Text that is not a UUID (written by other means) reads as the all-zero UUID
/// in a non-optional property, as does a required attribute's default `""`.
///
/// ```swift
/// final class Doc: ManagedObject {
///     @Managed("uid") var uid: UUID      // EntityDescription("Doc", attributes: [.string("uid", optional: false)])
/// }
/// doc.uid = UUID()
/// let same = try Doc.findFirst(byAttribute: "uid", value: doc.uid, in: context)
/// ```
extension UUID: ValueConvertible {
    public static var attributeType: AttributeType { .string }
    public var valueRepresentation: Value { .string(uuidString) }
    public init?(fromValue value: Value) {
        guard case .string(let s) = value else { return nil }
        if let uuid = UUID(uuidString: s) {
            self = uuid
        } else if s.isEmpty {
            self = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        } else {
            return nil
        }
    }
}

/// A UUID in a predicate is its stored text (see ``UUID`` as ``ValueConvertible``).
///
/// ```swift
/// let doc = try Doc.findSingle(where: "uid == %@", uid, in: context)
/// ```
extension UUID: PredicateArgument {
    public var predicateOperand: PredicateOperand { .constant(.string(uuidString)) }
}
