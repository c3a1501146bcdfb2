import Foundation
import GRDB
import GRDBSQLite

/// The moment by which a fetch must be done, so that one costly predicate (a MATCHES pattern
/// that backtracks, a LIKE with many `*` over long texts) cannot hold a store's reader or
/// the reader's UI for minutes.
///
/// While a fetch runs, its deadline is current on the running thread. SQLite's progress
/// handler checks it between the steps of a statement; the string operators check it inside
/// the work of a single row, in SQL functions and in memory alike (a row's regular expression
/// can run far longer than a statement's steps). Past the deadline the fetch throws
/// ``ObjectGraphError/timeLimitExceeded(entity:seconds:)``.
///
/// A deadline belongs to one fetch on one thread at a time (it is neither shared nor Sendable).
final class QueryDeadline {
    /// nil: no limit (the deadline never passes).
    let limit: Duration?
    let instant: ContinuousClock.Instant?
    /// Set once a check finds the deadline passed, so that the fetch can tell SQLite's
    /// interrupt caused by the budget from any other failure.
    private(set) var isExceeded = false

    init(limit: Duration?) {
        self.limit = limit
        instant = limit.map { ContinuousClock.now.advanced(by: $0) }
    }

    var seconds: Double {
        guard let limit else { return .infinity }
        return Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
    }

    /// Whether the deadline has passed (remembered once it has); never without a limit.
    func hasPassed() -> Bool {
        guard let instant else { return false }
        if !isExceeded && ContinuousClock.now >= instant { isExceeded = true }
        return isExceeded
    }

    /// Throws ``ObjectGraphError/timeLimitExceeded(entity:seconds:)`` (entity unknown here)
    /// once the deadline has passed.
    func check() throws(ObjectGraphError) {
        if hasPassed() { throw .timeLimitExceeded(entity: "", seconds: seconds) }
    }

    // MARK: - The current deadline

    /// The deadline of the fetch running on this thread, if any.
    static var current: QueryDeadline? {
        pthread_getspecific(currentDeadlineKey).map { Unmanaged<QueryDeadline>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The current deadline, or a new one with the default limit (none) for work outside any
    /// fetch (``ObjectPredicate/evaluate(with:)`` called directly, SQL written by hand).
    static func currentOrDefault() -> QueryDeadline {
        current ?? QueryDeadline(limit: ObjectPredicate.Limits.timeLimit)
    }

    /// Runs `body` with this deadline current on this thread.
    func run<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let previous = pthread_getspecific(currentDeadlineKey)
        pthread_setspecific(currentDeadlineKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(currentDeadlineKey, previous) }
        return try withExtendedLifetime(self) { () throws(E) -> T in try body() }
    }

    /// Runs `body` on `db` with this deadline current and SQLite's progress handler
    /// interrupting any statement still running past it.
    func run<T>(in db: Database, _ body: () throws -> T) throws -> T {
        guard limit != nil else { return try run { () throws -> T in try body() } }
        let connection = db.sqliteConnection
        sqlite3_progress_handler(
            connection, Self.progressInterval,
            { context in
                guard let context else { return 0 }
                return Unmanaged<QueryDeadline>.fromOpaque(context).takeUnretainedValue().hasPassed() ? 1 : 0
            }, Unmanaged.passUnretained(self).toOpaque())
        defer { sqlite3_progress_handler(connection, 0, nil, nil) }
        return try run { () throws -> T in try body() }
    }

    /// Virtual-machine steps between two checks: little work, so that reading the clock
    /// costs next to nothing beside a statement.
    static let progressInterval: Int32 = 1_000
}

/// Accumulates the work of a long loop and checks the current deadline every million units,
/// cheap enough for the inner loops of the string operators.
struct DeadlineTicker {
    private var work = 0
    private var deadline: QueryDeadline?

    mutating func tick(_ cost: Int = 1) throws(ObjectGraphError) {
        work &+= cost
        guard work >= 1 << 20 else { return }
        work = 0
        if deadline == nil { deadline = QueryDeadline.currentOrDefault() }
        try deadline!.check()
    }
}

/// The thread-specific slot holding the current ``QueryDeadline`` (unretained: `run` keeps the
/// deadline alive while it is current).
private let currentDeadlineKey: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, nil)
    precondition(status == 0, "pthread_key_create failed: \(status)")
    return key
}()
