import Foundation
import GRDB

// GRDB's `ValueObservation` and `DatabaseRegionObservation` learn of a write when GRDB
// executes the statement: before running it, GRDB checks which observed tables it
// touches and listens to SQLite's update hook for it. A save inserts its rows by stepping
// a GRDB-prepared statement through SQLite's C API (a boxed argument list per row costs
// more than the SQL), which GRDB does not see; so observations missed inserts made
// through contexts, while updates and deletes, executed by GRDB, were seen. The save now
// tells GRDB which tables it inserted into, inside its transaction, and observations of
// those tables are notified when it commits.

extension SaveExecution {
    /// Tells GRDB's observers that rows were inserted into the tables of `entities` (and
    /// their full-text tables, which triggers fill) by statements it did not execute.
    static func notifyRawInserts(into entities: [Entity], db: Database) throws {
        for entity in entities {
            try db.notifyChanges(in: Table(entity.tableName))
            if let table = FullTextIndexSchema.tableName(of: entity) { try db.notifyChanges(in: Table(table)) }
        }
    }
}

extension PersistentStore {
    /// The store's GRDB connection, for reading and for GRDB's own observation of its tables
    /// (`ValueObservation`, which sees every save made through this store's contexts). It
    /// watches tables, not objects: for live objects, with the context's unsaved changes,
    /// use ``FetchedResultsController``. Write through contexts, never through this.
    ///
    /// ```swift
    /// let count = ValueObservation.trackingConstantRegion { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"Note\"") }
    /// let cancellable = count.start(
    ///     in: container.store.databaseReader, scheduling: .async(onQueue: .main),
    ///     onError: { print($0) }, onChange: { print($0 ?? 0, "notes") })
    /// ```
    public var databaseReader: any DatabaseReader { writer }
}
