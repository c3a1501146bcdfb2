import Foundation
import GRDB

/// The history's tables, and the writing of one transaction inside the write it records.
enum HistorySchema {
    /// The history's tables start with this (internal tables, not the model's).
    static let prefix = "Z_HISTORY"
    static let transactions = "Z_HISTORYTRANSACTION"
    static let changes = "Z_HISTORYCHANGE"
    /// Store metadata holding the ``PersistentHistoryTracking`` in force (JSON).
    static let metadataKey = "objectgraph.history"

    static let createStatements = [
        """
        CREATE TABLE IF NOT EXISTS "\(transactions)" ("Z_PK" INTEGER PRIMARY KEY AUTOINCREMENT, \
        "ZTIMESTAMP" REAL NOT NULL, "ZAUTHOR" TEXT, "ZCONTEXTNAME" TEXT, "ZPROCESS" TEXT NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS "\(changes)" ("ZTRANSACTION" INTEGER NOT NULL, "ZENTITY" TEXT NOT NULL, \
        "ZKIND" INTEGER NOT NULL, "ZOBJECT" INTEGER NOT NULL, "ZKEYS" TEXT, "ZTOMBSTONE" TEXT)
        """,
        "CREATE INDEX IF NOT EXISTS \"ZHISTORY_CHANGE_TRANSACTION\" ON \"\(changes)\" (\"ZTRANSACTION\")",
    ]

    /// The tracking recorded in the store, if history is on.
    static func tracking(in db: Database) throws -> PersistentHistoryTracking? {
        guard try db.tableExists(PersistentStore.metadataTable),
            let json = try String.fetchOne(
                db, sql: "SELECT value FROM \"\(PersistentStore.metadataTable)\" WHERE key = ?", arguments: [metadataKey])
        else { return nil }
        return try? JSONDecoder().decode(PersistentHistoryTracking.self, from: Data(json.utf8))
    }

    /// Turns history on (or changes its tombstones) in the store.
    static func start(_ tracking: PersistentHistoryTracking, in db: Database) throws {
        for sql in createStatements { try db.execute(sql: sql) }
        let json = String(decoding: try JSONEncoder().encode(tracking), as: UTF8.self)
        try db.execute(
            sql: "INSERT OR REPLACE INTO \"\(PersistentStore.metadataTable)\" (key, value) VALUES (?, ?)",
            arguments: [metadataKey, json])
    }
}

/// The changes of one write, collected while it runs and written as one transaction at its end.
struct HistoryRecord {
    struct Change {
        var entity: String
        var kind: HistoryChange.Kind
        var primaryKey: Int64
        var keys: Set<String> = []
        var tombstone: [String: Value] = [:]
    }

    let tracking: PersistentHistoryTracking
    /// The writing store's ``PersistentStore/historyWriterID``.
    let writerID: String
    var author: String?
    var contextName: String?
    var changes: [Change] = []

    /// Reads the tombstone values of rows about to be deleted (before they go).
    mutating func recordDeletions(of entity: Entity, keys: [Int64], in db: Database) throws {
        let names = (tracking.tombstones[entity.name] ?? []).filter { entity.attributeIndexByName[$0] != nil }
        var tombstones: [Int64: [String: Value]] = [:]
        if !names.isEmpty, !keys.isEmpty {
            let columns = names.map { SchemaGenerator.quote($0) }.joined(separator: ", ")
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT "Z_PK", \(columns) FROM \(SchemaGenerator.quote(entity.tableName))
                    WHERE "Z_PK" IN (SELECT value FROM json_each(?))
                    """, arguments: [jsonArray(keys)])
            for row in rows {
                var values: [String: Value] = [:]
                for (offset, name) in names.enumerated() {
                    guard let index = entity.attributeIndexByName[name] else { continue }
                    values[name] = Value(databaseValue: row[offset + 1] as DatabaseValue, type: entity.attributes[index].type)
                }
                tombstones[row[0]] = values
            }
        }
        for key in keys {
            changes.append(Change(entity: entity.name, kind: .delete, primaryKey: key, tombstone: tombstones[key] ?? [:]))
        }
    }

    /// Writes a batch update's transaction: each row it changed, with the attributes it set.
    func recordBatchUpdate(_ change: BatchUpdateChange, in db: Database) throws {
        var record = self
        let keys = Set(change.attributes.map { change.entity.attributes[$0].name })
        record.changes = change.groups.flatMap(\.keys).map {
            Change(entity: change.entity.name, kind: .update, primaryKey: $0, keys: keys)
        }
        try record.write(in: db)
    }

    /// Adds the rows a batch delete removed by its delete rules (beside `keys` of `entity`,
    /// recorded before), then writes the transaction.
    mutating func recordCascade(of removed: BatchDeleteChange, besides entity: Entity, keys: [Int64], in db: Database)
        throws
    {
        let requested = Set(keys)
        for rows in removed.deleted {
            let isRequested =
                rows.entity === entity || (entity.hierarchyToken != 0 && rows.entity.hierarchyToken == entity.hierarchyToken)
            for row in rows.rows {
                guard let key = Int64.fromDatabaseValue(row[0]), !(isRequested && requested.contains(key)) else { continue }
                changes.append(
                    Change(entity: rows.entity.name, kind: .delete, primaryKey: key, tombstone: tombstone(of: row, rows.entity)))
            }
        }
        try write(in: db)
    }

    /// Writes the transaction of an undone batch delete: its rows inserted again.
    func recordRestore(_ removed: BatchDeleteChange, in db: Database) throws {
        var record = self
        record.changes = removed.deleted.flatMap { rows in
            rows.keys.map { Change(entity: rows.entity.name, kind: .insert, primaryKey: $0) }
        }
        try record.write(in: db)
    }

    /// Writes a batch insert's transaction: its rows inserted, and the stored rows an upsert
    /// changed (their keys unknown: any may have changed).
    func recordBatchInsert(_ outcome: BatchInsertOutcome, of entity: Entity, in db: Database) throws {
        var record = self
        record.changes =
            outcome.inserted.map { Change(entity: entity.name, kind: .insert, primaryKey: $0) }
            + outcome.updated.map { Change(entity: entity.name, kind: .update, primaryKey: $0) }
        try record.write(in: db)
    }

    /// The tombstone values of a row as a batch delete kept it (``RowLayout``'s columns:
    /// key, version, stored attributes, foreign keys); none for a table of several kinds.
    private func tombstone(of row: [DatabaseValue], _ entity: Entity) -> [String: Value] {
        guard entity.inheritance?.polymorphic == nil, let names = tracking.tombstones[entity.name] else { return [:] }
        var values: [String: Value] = [:]
        for (position, index) in entity.storedAttributeIndexes.enumerated() where position + 2 < row.count {
            let attribute = entity.attributes[index]
            if names.contains(attribute.name) {
                values[attribute.name] = Value(databaseValue: row[position + 2], type: attribute.type)
            }
        }
        return values
    }

    /// Writes the transaction and its changes (nothing for a write that changed nothing).
    func write(in db: Database) throws {
        guard !changes.isEmpty else { return }
        try db.execute(
            sql: """
                INSERT INTO "\(HistorySchema.transactions)" ("ZTIMESTAMP", "ZAUTHOR", "ZCONTEXTNAME", "ZPROCESS")
                VALUES (?, ?, ?, ?)
                """,
            arguments: [Date().timeIntervalSince1970, author, contextName, writerID])
        let transaction = db.lastInsertedRowID
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO "\(HistorySchema.changes)" ("ZTRANSACTION", "ZENTITY", "ZKIND", "ZOBJECT", "ZKEYS", "ZTOMBSTONE")
                VALUES (?, ?, ?, ?, ?, ?)
                """)
        for change in changes {
            let keys = change.keys.isEmpty ? nil : change.keys.sorted().joined(separator: ",")
            let tombstone = change.tombstone.isEmpty ? nil : HistoryValueCoding.json(change.tombstone)
            try statement.execute(
                arguments: [transaction, change.entity, change.kind.rawValue, change.primaryKey, keys, tombstone])
        }
    }
}

/// Tombstone values as JSON: each value tagged with its type, so a date stays a date.
enum HistoryValueCoding {
    static func json(_ values: [String: Value]) -> String {
        var object: [String: [String: String]] = [:]
        for (key, value) in values {
            switch value {
            case .null: object[key] = ["null": ""]
            case .integer(let number): object[key] = ["integer": String(number)]
            case .double(let number): object[key] = ["double": String(number)]
            case .string(let text): object[key] = ["string": text]
            case .bool(let flag): object[key] = ["bool": flag ? "1" : "0"]
            case .date(let date): object[key] = ["date": String(date.timeIntervalSince1970)]
            case .data(let data): object[key] = ["data": data.base64EncodedString()]
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(object)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func values(_ json: String) -> [String: Value] {
        guard let object = try? JSONDecoder().decode([String: [String: String]].self, from: Data(json.utf8)) else {
            return [:]
        }
        var values: [String: Value] = [:]
        for (key, tagged) in object {
            guard let (type, text) = tagged.first else { continue }
            switch type {
            case "integer": values[key] = Int64(text).map(Value.integer) ?? .null
            case "double": values[key] = Double(text).map(Value.double) ?? .null
            case "string": values[key] = .string(text)
            case "bool": values[key] = .bool(text == "1")
            case "date": values[key] = Double(text).map { .date(Date(timeIntervalSince1970: $0)) } ?? .null
            case "data": values[key] = Data(base64Encoded: text).map(Value.data) ?? .null
            default: values[key] = .null
            }
        }
        return values
    }
}
