import Foundation
import GRDB

/// Another program's SQLite file, opened read-only to import from it (newsboat's
/// `cache.db`, say): its tables and columns, and rows of plain SQL queries as ``Value``s.
/// It never writes, never creates the file and never runs a migration; a file that is not
/// SQLite is ``ObjectGraphError/notADatabase(path:)``.
///
/// ```swift
/// let cache = try ForeignDatabase(readingAt: URL(fileURLWithPath: "cache.db"))
/// let feeds = try cache.rows("SELECT rssurl, title FROM rss_feed")
/// ```
///
/// Like a ``PersistentStore``, it may be used from one queue at a time.
public final class ForeignDatabase: Sendable {
    /// The file's path.
    public let path: String
    private let queue: DatabaseQueue

    /// Opens the SQLite file at `url` for reading. A missing file or one that is not an
    /// SQLite database throws.
    ///
    /// ```swift
    /// let cache = try ForeignDatabase(readingAt: url)
    /// ```
    public init(readingAt url: URL) throws(ObjectGraphError) {
        path = url.path
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw .sqlite(code: 14, message: "no such file", sql: nil)
        }
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(5)
        do {
            queue = try DatabaseQueue(path: url.path, configuration: config)
            // Opening is lazy in SQLite: read the schema now, so that a file that is not a
            // database is refused here.
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        } catch {
            let wrapped = ObjectGraphError.wrapping(error, path: url.path)
            if case .damaged = wrapped { throw .notADatabase(path: url.path) }
            throw wrapped
        }
    }

    /// The names of the file's tables.
    ///
    /// ```swift
    /// if try cache.tableNames().contains("rss_item") { print("a newsboat cache") }
    /// ```
    public func tableNames() throws(ObjectGraphError) -> Set<String> {
        Set(
            try rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { row -> String? in
                if case .string(let name) = row.first { return name }
                return nil
            })
    }

    /// The names of `table`'s columns (empty for a table the file does not have).
    ///
    /// ```swift
    /// let hasFlags = try cache.columnNames(of: "rss_item").contains("flags")
    /// ```
    public func columnNames(of table: String) throws(ObjectGraphError) -> Set<String> {
        Set(
            try rows("SELECT name FROM pragma_table_info(?)", [.string(table)]).compactMap { row -> String? in
                if case .string(let name) = row.first { return name }
                return nil
            })
    }

    /// Every row `sql` yields, each as its columns' values in order (integers, doubles,
    /// text, blobs, null — as stored, whatever the column's declared type).
    ///
    /// ```swift
    /// let rows = try cache.rows("SELECT id, guid FROM rss_item WHERE id > ? ORDER BY id LIMIT 500", [.integer(0)])
    /// ```
    public func rows(_ sql: String, _ arguments: [Value] = []) throws(ObjectGraphError) -> [[Value]] {
        var result: [[Value]] = []
        try forEachRow(sql, arguments) { result.append($0) }
        return result
    }

    /// Calls `body` with each row `sql` yields, one at a time, without keeping them: for
    /// queries over many rows.
    ///
    /// ```swift
    /// var ids: [Int64] = []
    /// try cache.forEachRow("SELECT id FROM rss_item ORDER BY id") { row in if case .integer(let id) = row[0] { ids.append(id) } }
    /// ```
    public func forEachRow(_ sql: String, _ arguments: [Value] = [], _ body: ([Value]) throws -> Void) throws(ObjectGraphError) {
        do {
            try queue.read { db in
                let statement = try db.makeStatement(sql: sql)
                let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(arguments.map(\.foreignDatabaseValue)))
                while let row = try cursor.next() {
                    try body(row.databaseValues.map(Value.init(foreign:)))
                }
            }
        } catch let error as ObjectGraphError {
            throw error
        } catch {
            throw ObjectGraphError.wrapping(error, path: path)
        }
    }
}

extension Value {
    /// A value read from a foreign file, typed by what SQLite stored.
    fileprivate init(foreign value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let v): self = .integer(v)
        case .double(let v): self = .double(v)
        case .string(let v): self = .string(v)
        case .blob(let v): self = .data(v)
        }
    }

    /// The value as a statement argument.
    fileprivate var foreignDatabaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let v): return v.databaseValue
        case .double(let v): return v.databaseValue
        case .string(let v): return v.databaseValue
        case .bool(let v): return (v ? 1 : 0).databaseValue
        case .date(let v): return v.timeIntervalSince1970.databaseValue
        case .data(let v): return v.databaseValue
        }
    }
}
