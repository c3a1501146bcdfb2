import Foundation

/// One key to sort fetch results by; key paths through to-one relationships are allowed.
///
/// ```swift
/// let newestFirst = ObjectSortDescriptor("published", ascending: false)
/// ```
public struct ObjectSortDescriptor: Sendable, Hashable, CustomStringConvertible {
    public var key: String
    public var ascending: Bool

    public init(_ key: String, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// Parses `"a,b"` into ascending (or all descending) descriptors, MagicalRecord style.
    ///
    /// ```swift
    /// let order = ObjectSortDescriptor.list("displayOrder,title")
    /// ```
    public static func list(_ keys: String, ascending: Bool = true) -> [ObjectSortDescriptor] {
        keys.split(separator: ",").map { ObjectSortDescriptor($0.trimmingCharacters(in: .whitespaces), ascending: ascending) }
    }

    /// Orders full-text search results (``FetchRequest/searchText``) best match first
    /// (FTS5's bm25 rank); `ascending: false` puts the best last. Other descriptors may
    /// follow it to break ties.
    ///
    /// ```swift
    /// var request = FetchRequest<FeedItem>(sortDescriptors: [.relevance, ObjectSortDescriptor(\FeedItem.published, ascending: false)])
    /// request.searchText = "swift linux"
    /// ```
    public static let relevance = ObjectSortDescriptor(relevanceKey)
    /// The key of ``relevance``, for a descriptor that puts the best match last.
    ///
    /// ```swift
    /// let worstFirst = ObjectSortDescriptor(ObjectSortDescriptor.relevanceKey, ascending: false)
    /// ```
    public static let relevanceKey = "@relevance"

    /// The key of the order objects were first saved in (the store's primary key; objects
    /// not saved yet come after every saved one, in the order they were inserted). A fetch
    /// breaks the ties of its other descriptors by ascending store order unless it has a
    /// descriptor on this key: `ObjectSortDescriptor(ObjectSortDescriptor.storeOrderKey, ascending: false)`
    /// after `ObjectSortDescriptor("date", ascending: false)` lists newest first with the latest
    /// saved first among equal dates — the order an index on `date`, read backwards, gives
    /// with no sorting step.
    ///
    /// ```swift
    /// let newestFirst = [ObjectSortDescriptor("sortDate", ascending: false), ObjectSortDescriptor(ObjectSortDescriptor.storeOrderKey, ascending: false)]
    /// ```
    public static let storeOrderKey = "@storeOrder"

    public var description: String { "\(key) \(ascending ? "ASC" : "DESC")" }
}

/// Describes what to fetch: an entity, a predicate, sort order, limit, offset and batch
/// size. Results include the context's unsaved changes (as Core Data's do) unless
/// ``includesPendingChanges`` is false.
///
/// ```swift
/// var request = FetchRequest<FeedItem>(where: \.read == false)
/// request.sortDescriptors = [ObjectSortDescriptor(\FeedItem.published, ascending: false)]
/// request.fetchLimit = 50
/// let items = try context.fetch(request)
/// ```
public struct FetchRequest<Result: ManagedObject>: Sendable {
    /// The entity to fetch; nil means the entity whose class is `Result`.
    public var entityName: String?
    public var predicate: ObjectPredicate?
    public var sortDescriptors: [ObjectSortDescriptor]
    /// At most this many results (0: no limit).
    public var fetchLimit: Int
    /// Skip this many results first.
    public var fetchOffset: Int
    /// How many objects are loaded at a time (0: all at once). A ``ManagedObjectContext/fetch(_:)``
    /// with a batch size returns faults, and the first of a batch to be used reads the rows of
    /// the whole batch in one query, as Core Data's does (results that mix in the context's
    /// unsaved changes come back loaded); ``ManagedObjectContext/fetchBatched(_:)`` also lets
    /// batches go (0: a default of 200 there).
    ///
    /// ```swift
    /// let items = try context.fetch(FetchRequest<FeedItem>(fetchBatchSize: 50))   // faults, read 50 at a time
    /// ```
    public var fetchBatchSize: Int
    /// Whether unsaved inserts, updates and deletes of the context are reflected.
    public var includesPendingChanges: Bool
    /// Full-text search, iTunes-style: only objects in which every word of the text
    /// occurs, as the start of a word, in one of the attributes of the entity's
    /// ``FullTextIndexDescription`` (case and diacritics ignored) match; combines with the
    /// predicate, sort descriptors (``ObjectSortDescriptor/relevance`` for best match first),
    /// limit and offset. Text without any letter or digit matches nothing; nil: no search.
    /// Fetching an entity without a full-text index this way throws
    /// ``ObjectGraphError/noFullTextIndex(entity:)``.
    ///
    /// ```swift
    /// var request = FetchRequest<FeedItem>(where: \.read == false, sortDescriptors: [.relevance])
    /// request.searchText = "café swi"   // matches "Cafe" and "Swift" in any order
    /// ```
    public var searchText: String?
    /// With ``searchText``: only the `searchWindow` most recently stored matches (the
    /// highest store keys) count, so the search costs the same in a store of any size —
    /// for a secondary search whose filter few matches pass (an exact title, say), which
    /// would otherwise read every match. Unsaved objects still count. Nil: every match.
    ///
    /// ```swift
    /// let text = "swift"
    /// var request = FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "title ==[cd] %@", text))
    /// request.searchText = text
    /// request.searchWindow = 2_000
    /// ```
    public var searchWindow: Int?
    /// How long the fetch (or count, or aggregate) may run before it is stopped with
    /// ``ObjectGraphError/timeLimitExceeded(entity:seconds:)``: SQLite's progress handler
    /// interrupts the statement, and MATCHES, LIKE and CONTAINS stop inside a row. The
    /// default is ``ObjectPredicate/Limits/timeLimit``, nil: no limit, so that a legitimate large
    /// fetch is never cut short. Set one for queries built from what a user typed.
    /// `request.timeLimit = .milliseconds(500)`
    public var timeLimit: Duration?
    /// Relationships to load together with the results, each in one query for all of them
    /// (see ``ManagedObjectContext/prefetch(_:for:)``); dotted key paths reach further
    /// (`"feedItems.enclosures"`).
    ///
    /// ```swift
    /// var request = FetchRequest<Server>()
    /// request.relationshipKeyPathsForPrefetching = ["feedItems"]   // server.feedItems reads no more rows
    /// ```
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// Whether results come back as faults (only their IDs are read; each row is read when
    /// the object is first used). With a ``fetchBatchSize``, the first object of a batch to
    /// be used loads the whole batch in one query. Objects already in memory, and the
    /// context's unsaved objects, come back as they are. Off by default.
    ///
    /// ```swift
    /// var request = FetchRequest<FeedItem>(fetchBatchSize: 50)
    /// request.returnsObjectsAsFaults = true
    /// ```
    public var returnsObjectsAsFaults = false
    /// For ``ManagedObjectContext/fetchDictionaries(_:)``: what each result holds —
    /// attributes, key paths through to-one relationships, to-one relationships (as object
    /// IDs) and aggregates. Empty: every stored attribute.
    ///
    /// ```swift
    /// var request = FetchRequest<FeedItem>()
    /// request.propertiesToGroupBy = ["read"]
    /// request.propertiesToFetch = [.key("read"), .count(as: "items")]
    /// ```
    public var propertiesToFetch: [FetchedProperty] = []
    /// For ``ManagedObjectContext/fetchDictionaries(_:)``: the keys results are grouped by;
    /// each result is then one group, and every property to fetch is either one of these
    /// keys or an aggregate.
    ///
    /// ```swift
    /// var request = FetchRequest<FeedItem>()
    /// request.propertiesToGroupBy = ["read"]   // one result per value of read
    /// request.propertiesToFetch = [.key("read"), .count(as: "items")]
    /// ```
    public var propertiesToGroupBy: [String] = []
    /// For ``ManagedObjectContext/fetchDictionaries(_:)`` without grouping: equal results
    /// come once.
    public var returnsDistinctResults = false
    /// Whether objects of the entity's sub-entities match too (Core Data's
    /// `includesSubentities`; on by default). See ``EntityDescription/init(_:parent:isAbstract:managedClass:attributes:relationships:indexes:uniquenessConstraints:renamingIdentifier:)``.
    ///
    /// ```swift
    /// var onlyItems = FetchRequest<ManagedObject>(entityName: "ReadingItem")
    /// onlyItems.includesSubentities = false
    /// ```
    public var includesSubentities = true

    public init(
        entityName: String? = nil, predicate: ObjectPredicate? = nil, sortDescriptors: [ObjectSortDescriptor] = [],
        fetchLimit: Int = 0, fetchOffset: Int = 0, fetchBatchSize: Int = 0, includesPendingChanges: Bool = true,
        timeLimit: Duration? = ObjectPredicate.Limits.timeLimit
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.fetchBatchSize = fetchBatchSize
        self.includesPendingChanges = includesPendingChanges
        self.timeLimit = timeLimit
    }

    /// This request, limited to the objects matching `text` (see ``searchText``).
    ///
    /// ```swift
    /// let hits = try context.fetch(FetchRequest<FeedItem>(sortDescriptors: [.relevance]).matching("swift linux"))
    /// ```
    public func matching(_ text: String) -> FetchRequest {
        var request = self
        request.searchText = text
        return request
    }
}

/// Aggregates computed by ``ManagedObjectContext/aggregate(_:of:for:)``.
public enum AggregateFunction: String, Sendable {
    case sum, min, max, avg, count
}
