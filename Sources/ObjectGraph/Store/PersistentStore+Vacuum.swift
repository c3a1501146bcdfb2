import Foundation
import GRDB

extension PersistentStore {
    /// Rebuilds the database file without its free pages (SQLite's `VACUUM`), so that the
    /// file shrinks after many rows were deleted, then truncates the `-wal`. It needs free
    /// disk space about the size of the store, and waits for other writers like any write.
    /// An in-memory store has nothing to give back.
    ///
    /// ```swift
    /// try store.vacuum()
    /// ```
    public func vacuum() throws(ObjectGraphError) {
        guard case .file = location else { return }
        guard !isReadOnly else { throw .readOnlyStore(path: "\(location)") }
        do {
            try writer.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
        } catch {
            throw ObjectGraphError.wrapping(error, path: "\(location)")
        }
        checkpoint(truncate: true)
    }
}
