import Foundation

// Former names, kept so that code written against them still compiles (with a warning
// naming the new spelling). `Predicate` and `SortDescriptor` are Foundation's names too, so a
// file importing both modules had to qualify them.

/// The former name of ``ObjectPredicate``. `let p = try ObjectPredicate(format: "read == NO")`
@available(*, deprecated, renamed: "ObjectPredicate")
public typealias Predicate = ObjectPredicate

/// The former name of ``ObjectSortDescriptor``. `let s = ObjectSortDescriptor("title")`
@available(*, deprecated, renamed: "ObjectSortDescriptor")
public typealias SortDescriptor = ObjectSortDescriptor

/// The former unambiguous spelling of ``ObjectPredicate``. `let p = try ObjectPredicate(format: "read == NO")`
@available(*, deprecated, renamed: "ObjectPredicate")
public typealias OGPredicate = ObjectPredicate

/// The former unambiguous spelling of ``ObjectSortDescriptor``. `let s = ObjectSortDescriptor("title")`
@available(*, deprecated, renamed: "ObjectSortDescriptor")
public typealias OGSortDescriptor = ObjectSortDescriptor

extension AttributeType {
    /// The type's name with its article, for messages: "an integer", "a string".
    var withArticle: String { self == .integer ? "an integer" : "a \(rawValue)" }
}
