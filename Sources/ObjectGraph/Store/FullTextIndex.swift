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
        let attributes = index.attributes.map { name in index.extractLengths[name].map { "\(name):\($0)" } ?? name }
        return "1|\(table)|\(attributes.joined(separator: ","))|\(tokenizer)"
    }

    /// The view an index with extracts reads its rows through (see
    /// ``FullTextIndexDescription/extractLengths``).
    static func sourceViewName(table: String) -> String { "\(table)_source" }

    /// The SQL of attribute `name` of `row` (`new`, `old`, or nil: the entity's table) as
    /// the index takes it: the column, or the start of it.
    static func indexedValue(_ name: String, of row: String?, in index: FullTextIndexDescription) -> String {
        let column = (row.map { "\($0)." } ?? "") + SchemaGenerator.quote(name)
        guard let length = index.extractLengths[name] else { return column }
        return "substr(\(column), 1, \(length))"
    }

    /// `CREATE VIEW` of the rows an index with extracts reads, nil when it has none.
    static func createSourceViewSQL(for entity: Entity, table: String) -> String? {
        guard let index = entity.fullTextIndex, !index.extractLengths.isEmpty else { return nil }
        let q = SchemaGenerator.quote
        let columns = index.attributes.map { "\(indexedValue($0, of: nil, in: index)) AS \(q($0))" }
        return """
            CREATE VIEW \(q(sourceViewName(table: table))) AS SELECT "Z_PK", \(columns.joined(separator: ", ")) \
            FROM \(q(entity.tableName))
            """
    }

    static func metadataKey(_ entityName: String) -> String { "objectgraph.fts.\(entityName)" }

    // MARK: Statements

    static func createTableSQL(for entity: Entity, table: String) -> String {
        let q = SchemaGenerator.quote
        let index = entity.fullTextIndex!
        let columns = index.attributes.map(q).joined(separator: ", ")
        let content = index.extractLengths.isEmpty ? entity.tableName : sourceViewName(table: table)
        return """
            CREATE VIRTUAL TABLE \(q(table)) USING fts5(\(columns), content=\(q(content)), content_rowid='Z_PK', \
            tokenize='\(tokenizer)')
            """
    }

    /// Insert, delete and update triggers. The update trigger is declared on the indexed
    /// columns only, and does its work only when one of them changed: marking an item
    /// read, or saving an unchanged title, costs the index nothing.
    static func triggerSQL(for entity: Entity, table: String) -> [String] {
        let q = SchemaGenerator.quote
        let names = triggerNames(table: table)
        let index = entity.fullTextIndex!
        let columns = index.attributes.map(q)
        let list = columns.joined(separator: ", ")
        func values(_ row: String) -> String {
            index.attributes.map { indexedValue($0, of: row, in: index) }.joined(separator: ", ")
        }
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
        let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"))
        var declared = Set<String>()
        for entity in model.entities {
            guard let table = tableName(of: entity), let signature = signature(of: entity) else { continue }
            declared.insert(entity.name)
            if recorded[entity.name] != signature || !tables.contains(table) { return true }
            if entity.fullTextIndex?.extractLengths.isEmpty == false, !tables.contains(sourceViewName(table: table)) {
                return true
            }
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
            let viewMissing =
                try entity.fullTextIndex?.extractLengths.isEmpty == false && !db.viewExists(sourceViewName(table: table))
            if upToDate && !viewMissing && Set(names).isSubset(of: triggers) { continue }
            for name in names { try db.execute(sql: "DROP TRIGGER IF EXISTS \(SchemaGenerator.quote(name))") }
            if !upToDate {
                if let old = recorded[entity.name]?.split(separator: "|").dropFirst().first, old != table {
                    try db.execute(sql: "DROP TABLE IF EXISTS \(SchemaGenerator.quote(String(old)))")
                    try db.execute(sql: "DROP VIEW IF EXISTS \(SchemaGenerator.quote(sourceViewName(table: String(old))))")
                }
                try db.execute(sql: "DROP TABLE IF EXISTS \(SchemaGenerator.quote(table))")
            }
            // The view of extracts is made afresh: a migration that set the entity's table
            // aside and rebuilt it left the view reading the old one.
            try db.execute(sql: "DROP VIEW IF EXISTS \(SchemaGenerator.quote(sourceViewName(table: table)))")
            if let view = createSourceViewSQL(for: entity, table: table) { try db.execute(sql: view) }
            if !upToDate {
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
                try db.execute(sql: "DROP VIEW IF EXISTS \(SchemaGenerator.quote(sourceViewName(table: table)))")
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
