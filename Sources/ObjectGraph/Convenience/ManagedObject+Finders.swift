import Foundation
import Synchronization

private let defaultContainerStorage = Mutex<PersistentContainer?>(nil)

extension PersistentContainer {
    /// The container whose view context the one-line helpers use when no context is given
    /// (MagicalRecord's default context).
    ///
    /// ```swift
    /// PersistentContainer.default = container
    /// let all = try Note.findAll()   // in container.viewContext
    /// ```
    public static var `default`: PersistentContainer? {
        get { defaultContainerStorage.withLock { $0 } }
        set { defaultContainerStorage.withLock { $0 = newValue } }
    }
}

/// How ``ManagedObject/findAll(matching:combinedWith:in:)`` combines its key/value pairs.
public enum MatchCombination: Sendable {
    case and, or
}

/// One-line fetches in the manner of MagicalRecord and the 2005 Core Data utilities. Each
/// takes an optional context; without one it uses ``PersistentContainer/default``'s view
/// context, which must then be used on its queue. Every ``ManagedObject`` subclass has them.
///
/// ```swift
/// let unread = try FeedItem.count(where: try ObjectPredicate(format: "read == NO"), in: context)
/// ```
public protocol ManagedObjectFinders {}

extension ManagedObject: ManagedObjectFinders {}

extension ManagedObjectFinders where Self: ManagedObject {
    static func resolveContext(_ context: ManagedObjectContext?) -> ManagedObjectContext {
        if let context { return context }
        guard let container = PersistentContainer.default else {
            preconditionFailure("no context given and PersistentContainer.default is not set")
        }
        return container.viewContext
    }

    /// Every object of this entity.
    ///
    /// ```swift
    /// let servers = try Server.findAll(in: context)
    /// ```
    public static func findAll(in context: ManagedObjectContext? = nil) throws(ObjectGraphError) -> [Self] {
        try resolveContext(context).fetch(FetchRequest<Self>())
    }

    /// Every object, sorted by the comma-separated keys `sortedBy` (`"displayOrder,title"`).
    ///
    /// ```swift
    /// let servers = try Server.findAll(sortedBy: "displayOrder,title", ascending: true)
    /// ```
    public static func findAll(sortedBy keys: String, ascending: Bool = true, in context: ManagedObjectContext? = nil)
        throws(ObjectGraphError) -> [Self]
    {
        try resolveContext(context).fetch(
            FetchRequest<Self>(sortDescriptors: ObjectSortDescriptor.list(keys, ascending: ascending)))
    }

    /// The objects matching `predicate`, optionally sorted.
    ///
    /// ```swift
    /// let unread = try FeedItem.findAll(where: try ObjectPredicate(format: "read == NO"), sortedBy: "published", ascending: false)
    /// ```
    public static func findAll(
        where predicate: ObjectPredicate, sortedBy keys: String? = nil, ascending: Bool = true,
        in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> [Self] {
        try resolveContext(context).fetch(
            FetchRequest<Self>(
                predicate: predicate, sortDescriptors: keys.map { ObjectSortDescriptor.list($0, ascending: ascending) } ?? []))
    }

    /// The objects matching a predicate format string with `%@`/`%K` arguments.
    ///
    /// ```swift
    /// let items = try FeedItem.findAll(where: "title CONTAINS[cd] %@", "swift")
    /// ```
    public static func findAll(
        where format: String, _ arguments: (any PredicateArgument)?..., in context: ManagedObjectContext? = nil
    )
        throws(ObjectGraphError) -> [Self]
    {
        try findAll(where: try ObjectPredicate(format: format, argumentArray: arguments), in: context)
    }

    /// The objects whose attributes equal every (`.and`) or any (`.or`) of the pairs.
    ///
    /// ```swift
    /// let items = try FeedItem.findAll(matching: ["read": false, "author": "Ann"], combinedWith: .and)
    /// ```
    public static func findAll(
        matching pairs: [String: Value], combinedWith combination: MatchCombination = .and,
        in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> [Self] {
        let parts = pairs.keys.sorted().map { key in
            ObjectPredicate.comparison(.keyPath(key), .equalTo, .constant(pairs[key]!))
        }
        let predicate: ObjectPredicate =
            parts.isEmpty ? .true : parts.count == 1 ? parts[0] : (combination == .and ? .and(parts) : .or(parts))
        return try findAll(where: predicate, in: context)
    }

    /// The first object whose attribute `key` equals `value` (by primary key order), or nil.
    ///
    /// ```swift
    /// let server = try Server.findFirst(byAttribute: "url", value: "https://example.org/feed")
    /// ```
    public static func findFirst(byAttribute key: String, value: Value, in context: ManagedObjectContext? = nil)
        throws(ObjectGraphError) -> Self?
    {
        try resolveContext(context).fetch(
            FetchRequest<Self>(predicate: ObjectPredicate.comparison(.keyPath(key), .equalTo, .constant(value)), fetchLimit: 1)
        ).first
    }

    /// The first object matching `predicate` in the given order, or nil.
    ///
    /// ```swift
    /// let newest = try FeedItem.findFirst(where: .true, sortedBy: "published", ascending: false)
    /// ```
    public static func findFirst(
        where predicate: ObjectPredicate = .true, sortedBy keys: String? = nil, ascending: Bool = true,
        in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> Self? {
        try resolveContext(context).fetch(
            FetchRequest<Self>(
                predicate: predicate, sortDescriptors: keys.map { ObjectSortDescriptor.list($0, ascending: ascending) } ?? [],
                fetchLimit: 1)
        ).first
    }

    /// The one object matching `predicate`, nil when none does; throws
    /// ``ObjectGraphError/multipleMatches(entity:predicate:count:)`` when several do.
    ///
    /// ```swift
    /// let server = try Server.findSingle(where: try ObjectPredicate(format: "url == %@", "https://example.org/feed"))
    /// ```
    public static func findSingle(where predicate: ObjectPredicate, in context: ManagedObjectContext? = nil)
        throws(ObjectGraphError) -> Self?
    {
        let results = try resolveContext(context).fetch(FetchRequest<Self>(predicate: predicate, fetchLimit: 2))
        if results.count > 1 {
            let count = try resolveContext(context).count(for: FetchRequest<Self>(predicate: predicate))
            let name = results[0].entity.name
            throw .multipleMatches(entity: name, predicate: predicate.predicateFormat, count: count)
        }
        return results.first
    }

    /// How many objects match `predicate` (all of them by default).
    ///
    /// ```swift
    /// let unread = try FeedItem.count(where: try ObjectPredicate(format: "read == NO"))
    /// ```
    public static func count(where predicate: ObjectPredicate? = nil, in context: ManagedObjectContext? = nil)
        throws(ObjectGraphError)
        -> Int
    {
        try resolveContext(context).count(for: FetchRequest<Self>(predicate: predicate))
    }

    /// Sum, min, max, avg or count of attribute `key` over the objects matching `predicate`.
    ///
    /// ```swift
    /// let total = try Server.aggregate(.sum, of: "unreadCount")
    /// ```
    public static func aggregate(
        _ function: AggregateFunction, of key: String, where predicate: ObjectPredicate? = nil,
        in context: ManagedObjectContext? = nil
    ) throws(ObjectGraphError) -> Value {
        try resolveContext(context).aggregate(function, of: key, for: FetchRequest<Self>(predicate: predicate))
    }

    /// Inserts a new object of this entity.
    ///
    /// ```swift
    /// let server = Server.create(in: context)
    /// ```
    public static func create(in context: ManagedObjectContext? = nil) -> Self {
        resolveContext(context).insert(Self.self)
    }

    /// Deletes every object of this entity (matching `predicate`, if given) in the context;
    /// saved on the next save.
    ///
    /// ```swift
    /// try FeedItem.truncateAll(in: context); try context.save()
    /// ```
    public static func truncateAll(where predicate: ObjectPredicate? = nil, in context: ManagedObjectContext? = nil)
        throws(ObjectGraphError)
    {
        let context = resolveContext(context)
        for object in try context.fetch(FetchRequest<Self>(predicate: predicate)) { context.delete(object) }
    }

}

extension ManagedObject {
    /// Deletes this object from its context (saved on the next save).
    ///
    /// ```swift
    /// item.deleteObject()
    /// ```
    public func deleteObject() {
        managedObjectContext?.delete(self)
    }
}
