import Foundation
import GRDB
import GRDBSQLite

// The hot paths (writing inserted rows, decoding fetched rows) talk to SQLite's C API on
// statements GRDB prepared and owns, inside GRDB's database access blocks. This avoids
// building a boxed `StatementArguments` and a `Row` per object, which cost more than the
// SQL itself.

private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

enum RawSQLite {
    /// Binds `value` (as ``Value/databaseValue`` would store it) to parameter `index` (1-based).
    static func bind(_ statement: OpaquePointer, _ index: Int32, _ value: Value) {
        switch value {
        case .null: sqlite3_bind_null(statement, index)
        case .integer(let v): sqlite3_bind_int64(statement, index, v)
        case .double(let v): sqlite3_bind_double(statement, index, v)
        case .bool(let v): sqlite3_bind_int64(statement, index, v ? 1 : 0)
        case .date(let v): sqlite3_bind_double(statement, index, v.timeIntervalSince1970)
        case .string(let s):
            var s = s
            s.withUTF8 { buffer in
                _ = sqlite3_bind_text(
                    statement, index, UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self),
                    Int32(buffer.count), transient)
            }
        case .data(let d):
            d.withUnsafeBytes { buffer in
                if let base = buffer.baseAddress {
                    _ = sqlite3_bind_blob(statement, index, base, Int32(buffer.count), transient)
                } else {
                    _ = sqlite3_bind_zeroblob(statement, index, 0)
                }
            }
        }
    }

    /// Binds `value` like ``bind(_:_:_:)``, its text or blob bytes copied into `bytes`
    /// and bound without SQLite copying them again (`SQLITE_STATIC`). SQLite reads them
    /// only while the statement runs: ``step(_:sql:in:)`` clears the bindings before it
    /// returns, and the caller empties `bytes` only after that.
    static func bind(_ statement: OpaquePointer, _ index: Int32, _ value: Value, keepingBytesIn bytes: BoundBytes) {
        switch value {
        case .string(let s):
            var s = s
            s.withUTF8 { buffer in
                let copy = bytes.copy(UnsafeRawBufferPointer(buffer))
                _ = sqlite3_bind_text(statement, index, copy.assumingMemoryBound(to: CChar.self), Int32(buffer.count), nil)
            }
        case .data(let d):
            d.withUnsafeBytes { buffer in
                if buffer.baseAddress != nil {
                    _ = sqlite3_bind_blob(statement, index, bytes.copy(buffer), Int32(buffer.count), nil)
                } else {
                    _ = sqlite3_bind_zeroblob(statement, index, 0)
                }
            }
        default:
            bind(statement, index, value)
        }
    }

    /// Runs a bound statement to completion and resets it; throws GRDB's `DatabaseError`
    /// (with SQLite's code and message) on failure.
    static func step(_ statement: OpaquePointer, sql: @autoclosure () -> String, in db: Database) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            throw DatabaseError(
                resultCode: ResultCode(rawValue: sqlite3_extended_errcode(db.sqliteConnection)), message: message, sql: sql())
        }
    }

    /// A statement for `sql`: with `cached`, the connection's prepared one for that text
    /// (GRDB's statement cache, so the next run skips `sqlite3_prepare`), unless it is still
    /// running (a read nested in another's rows), then a new one as without.
    static func statement(_ db: Database, sql: String, cached: Bool) throws -> Statement {
        if cached {
            let statement = try db.cachedStatement(sql: sql)
            if sqlite3_stmt_busy(statement.sqliteStatement) == 0 { return statement }
        }
        return try db.makeStatement(sql: sql)
    }

    /// Steps a statement that returns rows: true when a row is ready, false when there are no
    /// more; throws GRDB's `DatabaseError` (with SQLite's code and message) on failure.
    static func nextRow(_ statement: OpaquePointer, sql: @autoclosure () -> String, in db: Database) throws -> Bool {
        let code = sqlite3_step(statement)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql())
    }

    /// Reads column `column` of the current row as a value of an attribute of `type`.
    static func value(_ statement: OpaquePointer, _ column: Int32, type: AttributeType) -> Value {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            let v = sqlite3_column_int64(statement, column)
            switch type {
            case .bool: return .bool(v != 0)
            case .double: return .double(Double(v))
            case .date: return .date(Date(timeIntervalSince1970: Double(v)))
            case .string: return .string(String(v))
            default: return .integer(v)
            }
        case SQLITE_FLOAT:
            let v = sqlite3_column_double(statement, column)
            switch type {
            case .date: return .date(Date(timeIntervalSince1970: v))
            case .integer: return .integer(Int64(v))
            case .bool: return .bool(v != 0)
            default: return .double(v)
            }
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let bytes = sqlite3_column_text(statement, column) else { return .string("") }
            let string = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
            return type == .data ? .data(Data(string.utf8)) : .string(string)
        default:
            let count = Int(sqlite3_column_bytes(statement, column))
            let data = sqlite3_column_blob(statement, column).map { Data(bytes: $0, count: count) } ?? Data()
            return type == .string ? .string(String(decoding: data, as: UTF8.self)) : .data(data)
        }
    }
}

/// The bytes of the text and blob values bound to a statement, kept until it has run
/// (``RawSQLite/bind(_:_:_:keepingBytesIn:)``): one copy into memory this owns instead of
/// SQLite's copy of each value into a buffer it allocates and frees per value (a `malloc`
/// and `free` per text).
/// Memory is taken in chunks that never move, so a pointer handed out stays valid until
/// ``removeAll()``, which keeps the first chunk for the next statement.
final class BoundBytes {
    private var chunks: [UnsafeMutableRawBufferPointer] = []
    /// Bytes used in the last chunk.
    private var used = 0
    static let chunkSize = 256 * 1024

    init() {}

    /// A copy of `bytes`, valid until ``removeAll()`` or the end of this object.
    func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer {
        let count = bytes.count
        if chunks.isEmpty || chunks[chunks.count - 1].count - used < count {
            chunks.append(.allocate(byteCount: max(Self.chunkSize, count), alignment: 16))
            used = 0
        }
        let destination = chunks[chunks.count - 1].baseAddress! + used
        if let source = bytes.baseAddress, count > 0 { destination.copyMemory(from: source, byteCount: count) }
        used += count
        return UnsafeRawPointer(destination)
    }

    /// Forgets every copy (once no statement holds a pointer to one).
    func removeAll() {
        guard !chunks.isEmpty else { return }
        for chunk in chunks.dropFirst() { chunk.deallocate() }
        chunks.removeSubrange(1...)
        used = 0
    }

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }
}

extension RowLayout {
    /// Runs `sql` (selecting ``columnsSQL``) and decodes every row. `cached`: see ``forEachRow``.
    func fetchAll(
        _ db: Database, sql: String, arguments: [DatabaseValue], model: ManagedObjectModel, cached: Bool = false
    ) throws -> [(Int64, Snapshot)] {
        var result: [(Int64, Snapshot)] = []
        try forEachRow(db, sql: sql, arguments: arguments, model: model, cached: cached) { result.append(($0, $1)) }
        return result
    }

    /// Runs `sql` (selecting ``columnsSQL``) and hands each decoded row to `body`. With
    /// `cached` the statement is kept prepared on the connection for the next run of the
    /// same text (``RawSQLite/statement(_:sql:cached:)``).
    func forEachRow(
        _ db: Database, sql: String, arguments: [DatabaseValue], model: ManagedObjectModel, cached: Bool = false,
        _ body: (Int64, consuming Snapshot) -> Void
    ) throws {
        if let polymorphic = entity.inheritance?.polymorphic {
            return try forEachRowOfAnyKind(
                db, sql: sql, arguments: arguments, polymorphic, model: model, cached: cached, body)
        }
        let statement = try RawSQLite.statement(db, sql: sql, cached: cached)
        try statement.setArguments(StatementArguments(arguments))
        let raw = statement.sqliteStatement
        defer {
            sqlite3_reset(raw)
            // A kept statement would otherwise hold its arguments (a long IN list) until its next run.
            if cached { sqlite3_clear_bindings(raw) }
        }
        let attributes = entity.storedAttributeIndexes.map { ($0, entity.attributes[$0].type) }
        let defaults = entity.defaultValues
        // Attributes in column order with none transient (the usual case): build the
        // values array by appending, instead of copying the defaults and overwriting them.
        let contiguous = entity.storedAttributeIndexes == Array(entity.attributes.indices)
        let emptyToOne = entity.emptyToOne
        var previousToOne = emptyToOne
        let destinations = foreignKeyRelationships.map { model.destination(of: entity, relationshipIndex: $0) }
        while try RawSQLite.nextRow(raw, sql: sql, in: db) {
            let pk = sqlite3_column_int64(raw, 0)
            let version = sqlite3_column_int64(raw, 1)
            var values: [Value]
            var column: Int32 = 2
            if contiguous {
                values = []
                values.reserveCapacity(attributes.count)
                for (_, type) in attributes {
                    values.append(RawSQLite.value(raw, column, type: type))
                    column += 1
                }
            } else {
                values = defaults
                for (i, type) in attributes {
                    values[i] = RawSQLite.value(raw, column, type: type)
                    column += 1
                }
            }
            // Rows pointing where the previous row points (a feed's items at their feed)
            // share its array, as rows with every to-one NULL share the empty one: arrays
            // are values, so whoever changes one gets a copy.
            var sameAsPrevious = true
            for (n, r) in foreignKeyRelationships.enumerated() {
                let c = column + Int32(n)
                let id =
                    sqlite3_column_type(raw, c) == SQLITE_NULL
                    ? nil : ObjectID(entity: destinations[n], rawValue: sqlite3_column_int64(raw, c))
                if previousToOne[r] != id {
                    sameAsPrevious = false
                    break
                }
            }
            if !sameAsPrevious {
                var toOne = emptyToOne
                for (n, r) in foreignKeyRelationships.enumerated() {
                    if sqlite3_column_type(raw, column + Int32(n)) != SQLITE_NULL {
                        toOne[r] = ObjectID(entity: destinations[n], rawValue: sqlite3_column_int64(raw, column + Int32(n)))
                    }
                }
                previousToOne = toOne
            }
            body(pk, Snapshot(values: values, toOne: previousToOne, version: version))
        }
    }
}
