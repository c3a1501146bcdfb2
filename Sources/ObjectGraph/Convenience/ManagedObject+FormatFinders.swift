import Foundation

/// Every finder also takes a predicate format string, with its `%@`/`%K` arguments either
/// inline or as an array (for arguments built at run time), as ``ObjectPredicate/init(format:_:)``
/// does; and ``findFirst(byAttribute:value:in:)`` takes a plain Swift value.
///
/// ```swift
/// let one = try Note.findSingle(where: "title == %@", "Groceries", in: context)
/// let unread = try Note.count(where: "read == %@", false, in: context)
/// let mine = try Note.findAll(where: "title IN %@", argumentArray: [["a", "b"]], in: context)
/// let title: String = "Groceries"
/// let first = try Note.findFirst(byAttribute: "title", value: title, in: context)
/// ```
extension ManagedObjectFinders where Self: ManagedObject {
    /// The objects matching a predicate format string, with its arguments as an array.
    ///
    /// ```swift
    /// let items = try FeedItem.findAll(where: "author == %@ AND read == %@", argumentArray: ["Ann", false])
    /// ```
    public static func findAll(
        where format: String, argumentArray arguments: [(any PredicateArgument)?], sortedBy keys: String? = nil,
        ascending: Bool = true, in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> [Self] {
        try findAll(
            where: try ObjectPredicate(format: format, argumentArray: arguments), sortedBy: keys, ascending: ascending,
            in: context)
    }

    /// The objects matching a predicate format string, sorted by the comma-separated keys `sortedBy`.
    ///
    /// ```swift
    /// let items = try FeedItem.findAll(where: "read == %@", false, sortedBy: "published", ascending: false)
    /// ```
    public static func findAll(
        where format: String, _ arguments: (any PredicateArgument)?..., sortedBy keys: String, ascending: Bool = true,
        in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> [Self] {
        try findAll(where: format, argumentArray: arguments, sortedBy: keys, ascending: ascending, in: context)
    }

    /// The first object matching a predicate format string in the given order, or nil.
    ///
    /// ```swift
    /// let newest = try FeedItem.findFirst(where: "read == %@", false, sortedBy: "published", ascending: false)
    /// ```
    public static func findFirst(
        where format: String, _ arguments: (any PredicateArgument)?..., sortedBy keys: String? = nil, ascending: Bool = true,
        in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> Self? {
        try findFirst(where: format, argumentArray: arguments, sortedBy: keys, ascending: ascending, in: context)
    }

    /// ``findFirst(where:_:sortedBy:ascending:in:)`` with the format's arguments as an array.
    ///
    /// ```swift
    /// let first = try FeedItem.findFirst(where: "author == %@", argumentArray: ["Ann"])
    /// ```
    public static func findFirst(
        where format: String, argumentArray arguments: [(any PredicateArgument)?], sortedBy keys: String? = nil,
        ascending: Bool = true, in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> Self? {
        try findFirst(
            where: try ObjectPredicate(format: format, argumentArray: arguments), sortedBy: keys, ascending: ascending,
            in: context)
    }

    /// The first object whose attribute (or to-one relationship) `key` equals a plain Swift
    /// value — String, Int, Int64, Bool, Double, Date, Data, an ``ObjectID`` or an optional
    /// of one (nil matches an unset value) — by primary key order, or nil.
    ///
    /// ```swift
    /// let url: String = "https://example.org/feed"
    /// let server = try Server.findFirst(byAttribute: "url", value: url)
    /// ```
    public static func findFirst(
        byAttribute key: String, value: some PredicateArgument, in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> Self? {
        try resolveContext(context).fetch(
            FetchRequest<Self>(
                predicate: ObjectPredicate.comparison(.keyPath(key), .equalTo, value.predicateOperand), fetchLimit: 1)
        ).first
    }

    /// The one object matching a predicate format string, nil when none does; throws
    /// ``ObjectGraphError/multipleMatches(entity:predicate:count:)`` when several do.
    ///
    /// ```swift
    /// let server = try Server.findSingle(where: "url == %@", "https://example.org/feed")
    /// ```
    public static func findSingle(
        where format: String, _ arguments: (any PredicateArgument)?..., in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> Self? {
        try findSingle(where: try ObjectPredicate(format: format, argumentArray: arguments), in: context)
    }

    /// ``findSingle(where:_:in:)`` with the format's arguments as an array.
    ///
    /// ```swift
    /// let server = try Server.findSingle(where: "url == %@", argumentArray: ["https://example.org/feed"])
    /// ```
    public static func findSingle(
        where format: String, argumentArray arguments: [(any PredicateArgument)?], in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> Self? {
        try findSingle(where: try ObjectPredicate(format: format, argumentArray: arguments), in: context)
    }

    /// How many objects match a predicate format string.
    ///
    /// ```swift
    /// let unread = try FeedItem.count(where: "read == %@", false)
    /// ```
    public static func count(
        where format: String, _ arguments: (any PredicateArgument)?..., in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> Int {
        try count(where: try ObjectPredicate(format: format, argumentArray: arguments), in: context)
    }

    /// ``count(where:_:in:)`` with the format's arguments as an array.
    ///
    /// ```swift
    /// let unread = try FeedItem.count(where: "read == %@", argumentArray: [false])
    /// ```
    public static func count(
        where format: String, argumentArray arguments: [(any PredicateArgument)?], in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> Int {
        try count(where: try ObjectPredicate(format: format, argumentArray: arguments), in: context)
    }

    /// Sum, min, max, avg or count of attribute `key` over the objects matching a predicate format string.
    ///
    /// ```swift
    /// let total = try Server.aggregate(.sum, of: "unreadCount", where: "title BEGINSWITH %@", "A")
    /// ```
    public static func aggregate(
        _ function: AggregateFunction, of key: String, where format: String, _ arguments: (any PredicateArgument)?...,
        in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> Value {
        try aggregate(function, of: key, where: format, argumentArray: arguments, in: context)
    }

    /// ``aggregate(_:of:where:_:in:)`` with the format's arguments as an array.
    ///
    /// ```swift
    /// let total = try Server.aggregate(.sum, of: "unreadCount", where: "title BEGINSWITH %@", argumentArray: ["A"])
    /// ```
    public static func aggregate(
        _ function: AggregateFunction, of key: String, where format: String, argumentArray arguments: [(any PredicateArgument)?],
        in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> Value {
        try aggregate(function, of: key, where: try ObjectPredicate(format: format, argumentArray: arguments), in: context)
    }

    /// Deletes every object matching a predicate format string in the context (saved on the next save).
    ///
    /// ```swift
    /// try FeedItem.truncateAll(where: "read == %@", true, in: context)
    /// ```
    public static func truncateAll(
        where format: String, _ arguments: (any PredicateArgument)?..., in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) {
        try truncateAll(where: try ObjectPredicate(format: format, argumentArray: arguments), in: context)
    }

    /// ``truncateAll(where:_:in:)`` with the format's arguments as an array.
    ///
    /// ```swift
    /// try FeedItem.truncateAll(where: "read == %@", argumentArray: [true], in: context)
    /// ```
    public static func truncateAll(
        where format: String, argumentArray arguments: [(any PredicateArgument)?], in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) {
        try truncateAll(where: try ObjectPredicate(format: format, argumentArray: arguments), in: context)
    }
}
