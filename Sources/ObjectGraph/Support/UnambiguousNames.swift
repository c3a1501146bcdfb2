import Foundation

/// ObjectGraph's ``Predicate``, by a name that Foundation's `Predicate` macro type cannot
/// shadow: use it in files that import Foundation (or write `ObjectGraph.Predicate`).
///
/// ```swift
/// let unread = try OGPredicate(format: "read == NO")
/// ```
public typealias OGPredicate = Predicate

/// ObjectGraph's ``SortDescriptor``, by a name that Foundation's `SortDescriptor` cannot
/// shadow: use it in files that import Foundation (or write `ObjectGraph.SortDescriptor`).
///
/// ```swift
/// let newestFirst = OGSortDescriptor("published", ascending: false)
/// ```
public typealias OGSortDescriptor = SortDescriptor

extension AttributeType {
    /// The type's name with its article, for messages: "an integer", "a string".
    var withArticle: String { self == .integer ? "an integer" : "a \(rawValue)" }
}
