import Synchronization

/// Which fetches keep their prepared statement on the connection for the next run.
///
/// A fetch's SQL depends on the shape of its request (entity, the predicate's key paths and
/// operators, sort), never on its constants: those are bound, an `IN` collection as one
/// JSON array. So the same lookup run again and again with new values (a refresh's items by
/// guid, one feed after another) has the same text each time, and preparing it again costs
/// more than running it. GRDB's statement cache keeps statements for as long as the connection
/// lives, so only texts a program can run over and over are admitted, and only so many of
/// them per store: requests without limit, offset or search text (those put values into the
/// text, or are typed by a user), at most ``limit`` different texts; past that, statements are
/// prepared per fetch as before. Each ``PersistentStore`` has its own (its connections are its
/// own), so one store's texts never take another's room.
final class FetchStatementCache: Sendable {
    /// The most different fetch texts kept prepared (per store, on each of its connections).
    static let limit = 128

    private let admitted = Mutex<Set<String>>([])

    init() {}

    /// Whether `sql`, the text of a fetch for `request`, may be kept prepared.
    func admits(_ sql: String, for request: AnyFetchRequest) -> Bool {
        guard request.fetchLimit == 0, request.fetchOffset == 0, request.searchText == nil,
            request.searchWindow == nil
        else { return false }
        return admitted.withLock { texts in
            if texts.contains(sql) { return true }
            guard texts.count < Self.limit else { return false }
            texts.insert(sql)
            return true
        }
    }
}
