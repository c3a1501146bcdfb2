import Foundation
import GRDB
import GRDBSQLite

/// What a batch insert does with a row whose constrained keys a stored row holds.
enum BatchInsertConflict {
    /// The request fails; nothing is written.
    case fail
    /// The stored row takes the row's attributes: those the row was given (`givenOnly`), or all.
    case update(givenOnly: Bool)
    /// The stored row stays as it is.
    case keepStored
}

/// What a batch insert wrote: the keys of the rows it inserted and of the stored rows it updated.
struct BatchInsertOutcome {
    var inserted: [Int64] = []
    var updated: [Int64] = []
}

extension PersistentStore {
    /// Inserts the rows `next` fills (until it returns false) into `entity`'s table in one
    /// transaction, with multi-row INSERTs of up to `rowsPerStatement` rows.
    func batchInsert(
        _ entity: Entity, conflict: BatchInsertConflict, rowsPerStatement: Int, author: String? = nil,
        next: (inout BatchInsertRow) throws(ObjectGraphError) -> Bool
    ) throws(ObjectGraphError) -> BatchInsertOutcome {
        let tableEntity = model.tableEntities.first { $0.tableName == entity.tableName } ?? entity
        let history = historyRecord(author: author, contextName: "batch insert")
        return try write { db in
            var writer = try BatchInserter(
                entity: entity, tableEntity: tableEntity, conflict: conflict, rowsPerStatement: rowsPerStatement, db: db)
            var pending: [BatchInsertRow] = []
            pending.reserveCapacity(writer.rowsPerStatement)
            while true {
                var row = BatchInsertRow(entity: entity)
                guard try next(&row) else { break }
                pending.append(row)
                if pending.count == writer.rowsPerStatement {
                    try writer.insert(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            }
            if !pending.isEmpty { try writer.insert(pending) }
            try writer.finish()
            try history?.recordBatchInsert(writer.outcome, of: entity, in: db)
            return writer.outcome
        }
    }
}

/// One batch insert inside its write transaction: allocates keys, binds rows through SQLite's
/// C API (as a save's inserts do, PersistentStore+Save.swift) and reads back which rows were
/// inserted and which stored rows an upsert changed.
private struct BatchInserter {
    let entity: Entity
    /// The table's entity (the hierarchy's root), which knows its partial constraints.
    let tableEntity: Entity
    let conflict: BatchInsertConflict
    let db: Database
    let rowsPerStatement: Int
    private(set) var outcome = BatchInsertOutcome()
    private var nextPK: Int64
    private let firstPK: Int64
    private let bytes = BoundBytes()
    /// The SQL of the last full statement and the given keys it was made for: most requests
    /// repeat one shape, whose text is then made once rather than once per statement.
    private var fullStatementSQL: (given: [Bool], sql: String)?
    /// Whether a statement that succeeds inserted every row with the key it was given (a
    /// failing conflict cannot skip or update a row), so no `RETURNING` is needed to know them.
    private var insertsEveryRow: Bool {
        if case .fail = conflict { return true }
        return false
    }

    init(entity: Entity, tableEntity: Entity, conflict: BatchInsertConflict, rowsPerStatement: Int, db: Database) throws {
        self.entity = entity
        self.tableEntity = tableEntity
        self.conflict = conflict
        self.db = db
        let variableLimit = Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        self.rowsPerStatement = max(1, min(rowsPerStatement, variableLimit / SaveExecution.insertColumnCount(for: entity)))
        nextPK = try PrimaryKeyAllocator.next(for: entity, in: db)
        firstPK = nextPK
    }

    /// Inserts `rows` with one statement; after a uniqueness failure, one row at a time, so
    /// that the error names the row that broke it.
    mutating func insert(_ rows: [BatchInsertRow]) throws {
        var rowsWithKeys: [(row: BatchInsertRow, pk: Int64)] = []
        rowsWithKeys.reserveCapacity(rows.count)
        for row in rows {
            if let problem = row.problem { throw problem }
            for i in entity.requiredAttributeIndexes where row.values[i].isNull && !entity.attributes[i].isDerivedCounter {
                throw ObjectGraphError.missingValue(entity: entity.name, key: entity.attributes[i].name)
            }
            rowsWithKeys.append((row, nextPK))
            nextPK += 1
        }
        guard case .update(givenOnly: true) = conflict else { return try write(rowsWithKeys[...]) }
        // Rows giving the same keys share a statement.
        var start = 0
        while start < rowsWithKeys.count {
            var end = start + 1
            while end < rowsWithKeys.count && rowsWithKeys[end].row.given == rowsWithKeys[start].row.given { end += 1 }
            try write(rowsWithKeys[start..<end])
            start = end
        }
    }

    private mutating func write(_ rows: ArraySlice<(row: BatchInsertRow, pk: Int64)>) throws {
        let given = rows.first?.row.given ?? []
        let sql: String
        if rows.count == rowsPerStatement, let full = fullStatementSQL, full.given == given {
            sql = full.sql
        } else {
            sql = self.sql(rows: rows.count, given: given)
            if rows.count == rowsPerStatement { fullStatementSQL = (given, sql) }
        }
        // Full statements repeat: kept prepared. A shorter last one is prepared once.
        let statement =
            rows.count == rowsPerStatement ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
        let raw = statement.sqliteStatement
        var parameter: Int32 = 1
        for (row, pk) in rows {
            sqlite3_bind_int64(raw, parameter, pk)
            sqlite3_bind_int64(raw, parameter + 1, 1)
            parameter += 2
            for i in entity.storedAttributeIndexes {
                if entity.attributes[i].isDerivedCounter {
                    sqlite3_bind_int64(raw, parameter, 0)
                } else {
                    RawSQLite.bind(raw, parameter, row.values[i], keepingBytesIn: bytes)
                }
                parameter += 1
            }
            for _ in entity.foreignKeyIndexes {
                sqlite3_bind_null(raw, parameter)
                parameter += 1
            }
        }
        defer {
            sqlite3_reset(raw)
            sqlite3_clear_bindings(raw)
            bytes.removeAll()
        }
        var code = sqlite3_step(raw)
        var keys: [Int64] = []
        while code == SQLITE_ROW {
            keys.append(sqlite3_column_int64(raw, 0))
            code = sqlite3_step(raw)
        }
        guard code == SQLITE_DONE else {
            let error = DatabaseError(
                resultCode: ResultCode(rawValue: sqlite3_extended_errcode(db.sqliteConnection)),
                message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            if rows.count > 1, error.resultCode == .SQLITE_CONSTRAINT {
                // SQLite undid the whole statement: the rows again, one each, up to the failing one.
                sqlite3_reset(raw)
                for n in rows.indices { try write(rows[n...n]) }
                return
            }
            throw SaveExecution.mapConstraintError(error, entity: entity, values: rows.first!.row.values)
        }
        if insertsEveryRow {
            outcome.inserted.append(contentsOf: rows.lazy.map(\.pk))
            return
        }
        for key in keys {
            if key >= firstPK { outcome.inserted.append(key) } else { outcome.updated.append(key) }
        }
    }

    /// Records the keys given out and tells GRDB's observers of the new rows.
    func finish() throws {
        if nextPK > firstPK { try PrimaryKeyAllocator.record(last: nextPK - 1, for: entity, in: db) }
        try SaveExecution.notifyRawInserts(into: [entity], db: db)
    }

    /// `INSERT … VALUES (…), … [ON CONFLICT …] RETURNING "Z_PK"` (without `RETURNING` when
    /// every row goes in with its own key, see ``insertsEveryRow``). An upsert updating only the
    /// given attributes takes them from the statement's first row: every row of a
    /// dictionary request that gives other keys goes in a statement of its own shape.
    private func sql(rows: Int, given: [Bool]) -> String {
        var text = SaveExecution.insertSQL(for: entity, rows: rows)
        let q = SchemaGenerator.quote
        switch conflict {
        case .fail:
            break
        case .keepStored:
            text += " ON CONFLICT DO NOTHING"
        case .update(let givenOnly):
            let columns = entity.storedAttributeIndexes.filter {
                !entity.attributes[$0].isDerivedCounter && (!givenOnly || given[$0])
            }
            var assignments = columns.map { "\(q(entity.attributes[$0].name)) = excluded.\(q(entity.attributes[$0].name))" }
            assignments.append("\"Z_OPT\" = \"Z_OPT\" + 1")
            for keys in entity.uniquenessConstraints {
                text += " ON CONFLICT (\(keys.map(q).joined(separator: ", ")))"
                text += Inheritance.partialIndexCondition(for: tableEntity, keys: keys)
                text += " DO UPDATE SET \(assignments.joined(separator: ", "))"
            }
        }
        return insertsEveryRow ? text : text + " RETURNING \"Z_PK\""
    }

}
