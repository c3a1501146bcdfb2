import Foundation

/// Persistent history tracking, as Core Data's `NSPersistentHistoryTrackingKey` turns it on:
/// each save, batch update, batch delete and batch insert records a transaction — who wrote
/// (``ManagedObjectContext/transactionAuthor``), from which context, when — with the objects
/// it inserted, updated (and which keys) and deleted, and for deleted objects the values of
/// the attributes named here (their tombstone). Another process, or this one later, asks
/// what changed since a token it kept.
///
/// Once a store records history it keeps recording, whichever process opens it (the setting
/// is kept in the store), until ``PersistentStore/stopRecordingHistory()``.
///
/// ```swift
/// let container = try PersistentContainer(
///     model: model, store: .file(url), history: PersistentHistoryTracking(tombstones: ["Note": ["title"]]))
/// ```
public struct PersistentHistoryTracking: Equatable, Sendable, Codable {
    /// For each entity, the attributes whose values a deletion records.
    public var tombstones: [String: [String]]

    public init(tombstones: [String: [String]] = [:]) {
        self.tombstones = tombstones
    }
}

/// Where in the history a reader got to: the last transaction it has seen. Tokens grow with
/// every transaction, are never reused (even after history is deleted), and survive restarts:
/// keep one (it is `Codable`) and ask for the transactions after it.
///
/// ```swift
/// let token = try store.currentHistoryToken()
/// let data = try JSONEncoder().encode(token)
/// ```
public struct HistoryToken: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The transaction's number.
    public let transactionNumber: Int64

    public init(transactionNumber: Int64) {
        self.transactionNumber = transactionNumber
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.transactionNumber < rhs.transactionNumber }

    public var description: String { "history token \(transactionNumber)" }
}

/// One recorded write: a save, a batch request.
///
/// ```swift
/// let token = try store.currentHistoryToken()
/// for transaction in try store.history(HistoryFetchRequest(after: token)) {
///     print(transaction.author ?? "-", transaction.changes.count)
/// }
/// ```
public struct HistoryTransaction: Sendable, Equatable {
    /// The token naming this transaction (ask for the ones after it next time).
    public let token: HistoryToken
    public let timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``.
    public let author: String?
    /// The saving context's name (batch requests: the request's kind).
    public let contextName: String?
    /// Whether it was written through this store object (this process's stack), not by
    /// another process or another stack on the same file.
    public let isFromThisStack: Bool
    public let changes: [HistoryChange]
}

/// What one transaction did to one object.
public struct HistoryChange: Sendable, Equatable {
    public enum Kind: Int, Sendable, Equatable {
        case insert = 0
        case update = 1
        case delete = 2
    }

    public let kind: Kind
    /// The object (for a deleted one, the ID it had).
    public let objectID: ObjectID
    /// For an update, the keys that changed (attributes and to-one relationships).
    public let changedKeys: Set<String>
    /// For a deletion, the values of the attributes ``PersistentHistoryTracking/tombstones`` names.
    public let tombstone: [String: Value]
}

/// Which transactions ``PersistentStore/history(_:)`` returns: after a token, by author,
/// touching some entities; oldest first.
///
/// ```swift
/// var request = HistoryFetchRequest(after: try store.currentHistoryToken())
/// request.excludedAuthors = ["sync"]        // not the changes sync itself applied
/// request.entityNames = ["FeedItem"]
/// ```
public struct HistoryFetchRequest: Sendable {
    /// Only transactions after this one (nil: from the first kept).
    public var after: HistoryToken?
    /// Only transactions by these authors (nil: any).
    public var authors: Set<String>?
    /// No transactions by these authors.
    public var excludedAuthors: Set<String> = []
    /// Only changes of these entities (and their sub-entities); transactions left with none
    /// are left out (nil: every entity).
    public var entityNames: Set<String>?
    /// Whether transactions written through this store object are included.
    public var includesThisStack = true
    /// At most this many transactions (nil: all).
    public var fetchLimit: Int?

    public init(after: HistoryToken? = nil) {
        self.after = after
    }
}
