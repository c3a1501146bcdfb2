import Foundation
import GRDB

/// The SQL of full-text indexes (see ``FullTextIndexDescription``): an external-content
/// FTS5 table per indexed entity, three triggers that keep it in step with the entity's
/// table, and the check at open that creates, repairs or rebuilds them.
enum FullTextIndexSchema {
    static let tokenizer = "unicode61 remove_diacritics 2"

    /// The FTS5 table of `entity`'s index.
    static func tableName(of entity: Entity) -> String? {
        entity.fullTextIndex.map { $0.tableName ?? "Z_\(entity.name)_FTS" }
    }

    static func triggerNames(table: String) -> [String] {
        ["\(table)_insert", "\(table)_delete", "\(table)_update"]
    }

    /// What the index is, as recorded in the store's metadata: a change rebuilds it.
    static func signature(of entity: Entity) -> String? {
        guard let table = tableName(of: entity), let index = entity.fullTextIndex else { return nil }
        return "1|\(table)|\(index.attributes.joined(separator: ","))|\(tokenizer)"
    }

    static func metadataKey(_ entityName: String) -> String { "objectgraph.fts.\(entityName)" }

    // MARK: Statements

    static func createTableSQL(for entity: Entity, table: String) -> String {
        let q = SchemaGenerator.quote
        let columns = entity.fullTextIndex!.attributes.map(q).joined(separator: ", ")
        return """
            CREATE VIRTUAL TABLE \(q(table)) USING fts5(\(columns), content=\(q(entity.tableName)), content_rowid='Z_PK', \
            tokenize='\(tokenizer)')
            """
    }

    /// Insert, delete and update triggers. The update trigger is declared on the indexed
    /// columns only, and does its work only when one of them changed: marking an item
    /// read, or saving an unchanged title, costs the index nothing.
    static func triggerSQL(for entity: Entity, table: String) -> [String] {
        let q = SchemaGenerator.quote
        let names = triggerNames(table: table)
        let columns = entity.fullTextIndex!.attributes.map(q)
        let list = columns.joined(separator: ", ")
        func values(_ row: String) -> String { columns.map { "\(row).\($0)" }.joined(separator: ", ") }
        let insert = "INSERT INTO \(q(table))(rowid, \(list)) VALUES (new.\"Z_PK\", \(values("new")));"
        let delete = "INSERT INTO \(q(table))(\(q(table)), rowid, \(list)) VALUES ('delete', old.\"Z_PK\", \(values("old")));"
        let changed = columns.map { "old.\($0) IS NOT new.\($0)" }.joined(separator: " OR ")
        return [
            "CREATE TRIGGER \(q(names[0])) AFTER INSERT ON \(q(entity.tableName)) BEGIN \(insert) END",
            "CREATE TRIGGER \(q(names[1])) AFTER DELETE ON \(q(entity.tableName)) BEGIN \(delete) END",
            "CREATE TRIGGER \(q(names[2])) AFTER UPDATE OF \(list) ON \(q(entity.tableName)) WHEN \(changed) BEGIN \(delete) \(insert) END",
        ]
    }

    // MARK: Keeping the indexes

    /// Whether any index of `model` is missing, incomplete (a migration rebuilt its table
    /// and the triggers went with it) or out of date, or an index the model no longer
    /// declares is left over. A read, so that an up-to-date store costs no write lock.
    static func needsWork(model: ManagedObjectModel, in db: Database) throws -> Bool {
        let recorded = try recordedSignatures(in: db)
        let triggers = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'"))
        let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        var declared = Set<String>()
        for entity in model.entities {
            guard let table = tableName(of: entity), let signature = signature(of: entity) else { continue }
            declared.insert(entity.name)
            if recorded[entity.name] != signature || !tables.contains(table) { return true }
            if !Set(triggerNames(table: table)).isSubset(of: triggers) { return true }
        }
        return !Set(recorded.keys).isSubset(of: declared)
    }

    /// Creates, repairs or rebuilds what ``needsWork(model:in:)`` found (inside a write).
    static func update(model: ManagedObjectModel, in db: Database) throws {
        let recorded = try recordedSignatures(in: db)
        let triggers = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'"))
        var declared = Set<String>()
        for entity in model.entities {
            guard let table = tableName(of: entity), let signature = signature(of: entity) else { continue }
            declared.insert(entity.name)
            let names = triggerNames(table: table)
            let upToDate = try recorded[entity.name] == signature && db.tableExists(table)
            if upToDate && Set(names).isSubset(of: triggers) { continue }
            for name in names { try db.execute(sql: "DROP TRIGGER IF EXISTS \(SchemaGenerator.quote(name))") }
            if !upToDate {
                if let old = recorded[entity.name]?.split(separator: "|").dropFirst().first, old != table {
                    try db.execute(sql: "DROP TABLE IF EXISTS \(SchemaGenerator.quote(String(old)))")
                }
                try db.execute(sql: "DROP TABLE IF EXISTS \(SchemaGenerator.quote(table))")
                try db.execute(sql: createTableSQL(for: entity, table: table))
            }
            for sql in triggerSQL(for: entity, table: table) { try db.execute(sql: sql) }
            // Rows written while the triggers were missing: index everything again.
            try db.execute(sql: "INSERT INTO \(SchemaGenerator.quote(table))(\(SchemaGenerator.quote(table))) VALUES ('rebuild')")
            try PersistentStore.setMetadata(signature, forKey: metadataKey(entity.name), in: db)
        }
        for (entityName, signature) in recorded where !declared.contains(entityName) {
            // An index the model no longer declares.
            if let table = signature.split(separator: "|").dropFirst().first.map(String.init) {
                for name in triggerNames(table: table) {
                    try db.execute(sql: "DROP TRIGGER IF EXISTS \(SchemaGenerator.quote(name))")
                }
                try db.execute(sql: "DROP TABLE IF EXISTS \(SchemaGenerator.quote(table))")
            }
            try PersistentStore.setMetadata(nil, forKey: metadataKey(entityName), in: db)
        }
    }

    private static func recordedSignatures(in db: Database) throws -> [String: String] {
        guard try db.tableExists(PersistentStore.metadataTable) else { return [:] }
        var result: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM \"Z_METADATA\" WHERE key LIKE 'objectgraph.fts.%'") {
            let key: String = row[0]
            result[String(key.dropFirst("objectgraph.fts.".count))] = row[1]
        }
        return result
    }
}
