import Foundation
import GRDB
import GRDBSQLite

/// The SQL of full-text indexes (see ``FullTextIndexDescription``): an external-content
/// FTS5 table per indexed entity, three triggers that keep it in step with the entity's
/// table, and the check at open that creates, repairs or rebuilds them.
///
/// **How a save indexes its new rows.** The insert trigger indexes a row written by any
/// connection, except during an ObjectGraph save (``SaveExecution``), which indexes the rows
/// it inserted in one statement once they are all written (``indexInsertedRows(of:primaryKeys:in:)``).
/// Why: in a transaction, every statement that fires a trigger runs with a statement
/// journal, and FTS5 writes its pending terms to a new segment at each statement's
/// savepoint; a save inserts its rows one statement each, so the index got one segment
/// (and its merges) per row, and the statement journals, past 64 KiB of 16 KiB pages,
/// spilled to temporary files: a refresh of 7,000 items made 157,000 `pwrite`s to
/// `/var/tmp/etilqs_*` and stored at 2.9× the CPU of a store without the index. One
/// statement per save tokenizes the same text into one segment.
///
/// The trigger knows a save is running from `sqlite_compileoption_used('OBJECTGRAPH_SAVE_INDEXES_INSERTS')`:
/// SQLite's built-in answers 0 for that made-up option on every connection, so the trigger
/// runs for other processes and tools; ObjectGraph's connections override the function
/// (``registerSaveGate(in:)``) to answer 1 for that one name while ``savesIndexInserts``
/// is set on the calling thread, and pass every other name on to SQLite.
enum FullTextIndexSchema {
    static let tokenizer = "unicode61 remove_diacritics 2"

    /// The FTS5 table of `entity`'s index.
    static func tableName(of entity: Entity) -> String? {
        entity.fullTextIndex.map { $0.tableName ?? "Z_\(entity.name)_FTS" }
    }

    static func triggerNames(table: String) -> [String] {
        ["\(table)_insert", "\(table)_delete", "\(table)_update"]
    }

    /// The `relationship.attribute` key `name` split in two, nil for an attribute of the entity.
    static func relatedKey(_ name: String) -> (relationship: String, attribute: String)? {
        guard let dot = name.firstIndex(of: ".") else { return nil }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }

    /// The relationships an index reads through (its `relationship.attribute` keys), in
    /// the order of their first key.
    static func relatedRelationships(of attributes: [String]) -> [String] {
        var result: [String] = []
        for name in attributes {
            if let key = relatedKey(name), !result.contains(key.relationship) { result.append(key.relationship) }
        }
        return result
    }

    /// The triggers on a destination's table that keep the index's entries of the objects
    /// related through `relationship` in step.
    static func relatedTriggerNames(table: String, relationship: String) -> [String] {
        ["\(table)_\(relationship)_insert", "\(table)_\(relationship)_delete", "\(table)_\(relationship)_update"]
    }

    /// Every trigger of `entity`'s index: on its own table, and on the tables it reads through.
    static func allTriggerNames(table: String, attributes: [String]) -> [String] {
        triggerNames(table: table)
            + relatedRelationships(of: attributes).flatMap { relatedTriggerNames(table: table, relationship: $0) }
    }

    /// A table the destination's triggers note, within one statement, which objects' entries
    /// they take out of the index, to put back exactly those (always empty between statements).
    static func reindexTableName(table: String) -> String { "\(table)_reindex" }

    /// Whether the index reads its rows through the view ``sourceViewName(table:)``: it
    /// takes extracts, or attributes of related objects.
    static func readsThroughView(_ entity: Entity) -> Bool {
        guard let index = entity.fullTextIndex else { return false }
        return !index.extractLengths.isEmpty || !entity.fullTextRelatedTables.isEmpty
    }

    /// What the index is, as recorded in the store's metadata: a change rebuilds it.
    static func signature(of entity: Entity) -> String? {
        // The index's rows and tokenizer (a change rebuilds it); the triggers are compared
        // by their SQL (``triggersNeedReplacing(table:entity:in:)``).
        guard let table = tableName(of: entity), let index = entity.fullTextIndex else { return nil }
        let attributes = index.attributes.map { name in index.extractLengths[name].map { "\(name):\($0)" } ?? name }
        return "1|\(table)|\(attributes.joined(separator: ","))|\(tokenizer)"
    }

    /// The view an index with extracts reads its rows through (see
    /// ``FullTextIndexDescription/extractLengths``).
    static func sourceViewName(table: String) -> String { "\(table)_source" }

    /// The SQL of attribute `name` of `row` (`new`, `old`, an alias, or nil: the entity's
    /// table) as the index takes it: the column, or the start of it; for a
    /// `relationship.attribute` key, the related row's column.
    static func indexedValue(_ name: String, of row: String?, in entity: Entity) -> String {
        let q = SchemaGenerator.quote
        let column: String
        if let key = relatedKey(name), let destination = entity.fullTextRelatedTables[key.relationship] {
            let owner = row ?? q(entity.tableName)
            column =
                "(SELECT d.\(q(key.attribute)) FROM \(q(destination)) d WHERE d.\"Z_PK\" = \(owner).\(q(key.relationship)))"
        } else {
            column = (row.map { "\($0)." } ?? "") + q(name)
        }
        return extract(of: name, column, in: entity)
    }

    /// `column` cut to the extract length of index attribute `name`, if it has one.
    static func extract(of name: String, _ column: String, in entity: Entity) -> String {
        guard let length = entity.fullTextIndex?.extractLengths[name] else { return column }
        return "substr(\(column), 1, \(length))"
    }

    /// `CREATE VIEW` of the rows an index with extracts reads, nil when it has none.
    static func createSourceViewSQL(for entity: Entity, table: String) -> String? {
        guard let index = entity.fullTextIndex, readsThroughView(entity) else { return nil }
        let q = SchemaGenerator.quote
        let columns = index.attributes.map { "\(indexedValue($0, of: nil, in: entity)) AS \(q($0))" }
        return """
            CREATE VIEW \(q(sourceViewName(table: table))) AS SELECT "Z_PK", \(columns.joined(separator: ", ")) \
            FROM \(q(entity.tableName))
            """
    }

    static func metadataKey(_ entityName: String) -> String { "objectgraph.fts.\(entityName)" }

    /// The `fts5vocab` table over an index's words (no rows of its own: it reads the
    /// index), which a search reads to turn a word's prefix into the few words it stands for
    /// (``FullTextSearch/expandedMatchExpression(for:vocabulary:in:)``). Of type `instance`,
    /// whose first row costs one seek; a store made with the older type `row` (which counts
    /// a word's entries before returning it) has it made again at open.
    static func vocabularyName(table: String) -> String { "\(table)_vocab" }

    static func createVocabularySQL(table: String) -> String {
        let q = SchemaGenerator.quote
        return "CREATE VIRTUAL TABLE \(q(vocabularyName(table: table))) USING fts5vocab(\(q(table)), 'instance')"
    }

    /// Whether the vocabulary of `table` is missing or not the one ``createVocabularySQL(table:)`` makes.
    static func vocabularyNeedsMaking(table: String, in db: Database) throws -> Bool {
        try String.fetchOne(
            db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
            arguments: [vocabularyName(table: table)]) != createVocabularySQL(table: table)
    }

    /// How many bytes of new entries FTS5 gathers in memory before writing them to the index
    /// as a segment of their own (its `hashsize`, 1 MiB unless set; kept in the index's
    /// `_config` table, so every connection uses it). Why: a bulk write indexes thousands of
    /// rows in one statement (``deferInsertedRows(of:primaryKeys:limit:in:)``); with a small
    /// buffer each batch is split into many segments that FTS5's merges read and write again
    /// (docs/PERFORMANCE.md, "FTS5's pending entries and the bulk write's page cache").
    static let pendingEntryBytes = 8 << 20

    /// FTS5's table of its settings (`k`, `v`).
    static func configTable(_ table: String) -> String { "\(table)_config" }

    /// Whether the index `table` gathers other than ``pendingEntryBytes`` before writing.
    static func pendingEntryBytesNeedSetting(table: String, in db: Database) throws -> Bool {
        try Int.fetchOne(
            db, sql: "SELECT v FROM \(SchemaGenerator.quote(configTable(table))) WHERE k = 'hashsize'")
            != pendingEntryBytes
    }

    static func setPendingEntryBytesSQL(table: String) -> String {
        let q = SchemaGenerator.quote
        return "INSERT INTO \(q(table))(\(q(table)), rank) VALUES ('hashsize', \(pendingEntryBytes))"
    }

    /// FTS5's table of each indexed row's token counts (`id` is the row's key): which rows
    /// the index holds.
    static func docsizeTable(_ table: String) -> String { "\(table)_docsize" }

    // MARK: Statements

    static func createTableSQL(for entity: Entity, table: String) -> String {
        let q = SchemaGenerator.quote
        let index = entity.fullTextIndex!
        let columns = index.attributes.map(q).joined(separator: ", ")
        let content = readsThroughView(entity) ? sourceViewName(table: table) : entity.tableName
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
            index.attributes.map { indexedValue($0, of: row, in: entity) }.joined(separator: ", ")
        }
        // The entity's columns the entries depend on: its indexed attributes, and the
        // relationships through which it indexes related attributes.
        let ownColumns =
            index.attributes.filter { relatedKey($0) == nil }.map(q)
            + relatedRelationships(of: index.attributes).map(q)
        let insert = "INSERT INTO \(q(table))(rowid, \(list)) VALUES (new.\"Z_PK\", \(values("new")));"
        let notInASave = "NOT sqlite_compileoption_used('\(saveGateOption)')"
        // Only a row the index holds is taken out of it: a row a bulk write has not indexed
        // yet (``pendingKey(_:)``) has no entries, and a 'delete' of values FTS5 never
        // indexed would corrupt an external-content index.
        let delete = """
            INSERT INTO \(q(table))(\(q(table)), rowid, \(list)) SELECT 'delete', old."Z_PK", \(values("old")) \
            WHERE EXISTS (SELECT 1 FROM \(q(docsizeTable(table))) WHERE id = old."Z_PK");
            """
        let changed = ownColumns.map { "old.\($0) IS NOT new.\($0)" }.joined(separator: " OR ")
        return [
            "CREATE TRIGGER \(q(names[0])) AFTER INSERT ON \(q(entity.tableName)) WHEN \(notInASave) BEGIN \(insert) END",
            "CREATE TRIGGER \(q(names[1])) AFTER DELETE ON \(q(entity.tableName)) BEGIN \(delete) END",
            "CREATE TRIGGER \(q(names[2])) AFTER UPDATE OF \(ownColumns.joined(separator: ", ")) ON \(q(entity.tableName)) WHEN \(changed) BEGIN \(delete) \(insert) END",
        ] + relatedTriggerSQL(for: entity, table: table)
    }

    /// The triggers on each destination table the index reads through. A related row's
    /// insert, delete or change of an indexed attribute takes the entries of the objects
    /// pointing at it out of the index (with the values they were indexed with) and puts
    /// them back with the new ones. Only objects the index holds are touched: one waiting to
    /// be indexed is indexed later through the view. The insert trigger stands aside during
    /// a save, which writes its inserts before it changes any object's relationship.
    static func relatedTriggerSQL(for entity: Entity, table: String) -> [String] {
        guard let index = entity.fullTextIndex else { return [] }
        let q = SchemaGenerator.quote
        let list = index.attributes.map(q).joined(separator: ", ")
        let marks = q(reindexTableName(table: table))
        let notInASave = "NOT sqlite_compileoption_used('\(saveGateOption)')"
        return relatedRelationships(of: index.attributes).flatMap { relationship -> [String] in
            guard let destination = entity.fullTextRelatedTables[relationship] else { return [] }
            let names = relatedTriggerNames(table: table, relationship: relationship)
            let attributes = index.attributes.filter { relatedKey($0)?.relationship == relationship }
            // An object's values, with this relationship's attributes read from `row` (nil: none).
            func values(relatedRow row: String?) -> String {
                index.attributes.map { name in
                    guard let key = relatedKey(name), key.relationship == relationship else {
                        return indexedValue(name, of: "e", in: entity)
                    }
                    return row.map { extract(of: name, "\($0).\(q(key.attribute))", in: entity) } ?? "NULL"
                }.joined(separator: ", ")
            }
            func reindex(_ row: String, old: String?, new: String?) -> String {
                let owners = "FROM \(q(entity.tableName)) e WHERE e.\"Z_PK\" IN (SELECT id FROM \(marks))"
                return """
                    INSERT INTO \(marks)(id) SELECT e."Z_PK" FROM \(q(entity.tableName)) e \
                    WHERE e.\(q(relationship)) = \(row)."Z_PK" AND EXISTS (SELECT 1 FROM \(q(docsizeTable(table))) WHERE id = e."Z_PK"); \
                    INSERT INTO \(q(table))(\(q(table)), rowid, \(list)) SELECT 'delete', e."Z_PK", \(values(relatedRow: old)) \(owners); \
                    INSERT INTO \(q(table))(rowid, \(list)) SELECT e."Z_PK", \(values(relatedRow: new)) \(owners); \
                    DELETE FROM \(marks);
                    """
            }
            let columns = attributes.compactMap { relatedKey($0).map { q($0.attribute) } }
            let changed = columns.map { "old.\($0) IS NOT new.\($0)" }.joined(separator: " OR ")
            return [
                "CREATE TRIGGER \(q(names[0])) AFTER INSERT ON \(q(destination)) WHEN \(notInASave) BEGIN \(reindex("new", old: nil, new: "new")) END",
                "CREATE TRIGGER \(q(names[1])) AFTER DELETE ON \(q(destination)) BEGIN \(reindex("old", old: "old", new: nil)) END",
                "CREATE TRIGGER \(q(names[2])) AFTER UPDATE OF \(columns.joined(separator: ", ")) ON \(q(destination)) WHEN \(changed) BEGIN \(reindex("new", old: "old", new: "new")) END",
            ]
        }
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
            if readsThroughView(entity), !tables.contains(sourceViewName(table: table)) {
                return true
            }
            if !entity.fullTextRelatedTables.isEmpty, !tables.contains(reindexTableName(table: table)) { return true }
            if try vocabularyNeedsMaking(table: table, in: db) { return true }
            if try pendingEntryBytesNeedSetting(table: table, in: db) { return true }
            if !Set(allTriggerNames(table: table, attributes: entity.fullTextIndex!.attributes)).isSubset(of: triggers) {
                return true
            }
            if try triggersNeedReplacing(table: table, entity: entity, in: db) { return true }
        }
        if try hasPendingRows(in: db) { return true }
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
            let names = allTriggerNames(table: table, attributes: entity.fullTextIndex!.attributes)
            let upToDate = try recorded[entity.name] == signature && db.tableExists(table)
            let viewMissing = try readsThroughView(entity) && !db.viewExists(sourceViewName(table: table))
            if !entity.fullTextRelatedTables.isEmpty {
                try db.execute(
                    sql:
                        "CREATE TABLE IF NOT EXISTS \(SchemaGenerator.quote(reindexTableName(table: table))) (id INTEGER PRIMARY KEY)"
                )
            }
            let triggersComplete = Set(names).isSubset(of: triggers)
            if upToDate && !viewMissing && triggersComplete {
                // Triggers of an older build (the index itself is right): new triggers, no reindexing.
                if try triggersNeedReplacing(table: table, entity: entity, in: db) {
                    for name in names { try db.execute(sql: "DROP TRIGGER IF EXISTS \(SchemaGenerator.quote(name))") }
                    for sql in triggerSQL(for: entity, table: table) { try db.execute(sql: sql) }
                }
                // Rows a bulk write stored without indexing them (it was interrupted).
                try indexPendingRows(of: entity, in: db)
                if try vocabularyNeedsMaking(table: table, in: db) {
                    try db.execute(sql: "DROP TABLE IF EXISTS \(SchemaGenerator.quote(vocabularyName(table: table)))")
                    try db.execute(sql: createVocabularySQL(table: table))
                }
                if try pendingEntryBytesNeedSetting(table: table, in: db) {
                    try db.execute(sql: setPendingEntryBytesSQL(table: table))
                }
                continue
            }
            // The triggers of the index as recorded too: those on tables it no longer reads through.
            let recordedNames = recorded[entity.name].flatMap { triggerNames(ofSignature: $0)?.names } ?? []
            for name in names + recordedNames { try db.execute(sql: "DROP TRIGGER IF EXISTS \(SchemaGenerator.quote(name))") }
            if !upToDate {
                if let old = recorded[entity.name]?.split(separator: "|").dropFirst().first, old != table {
                    try db.execute(sql: "DROP TABLE IF EXISTS \(SchemaGenerator.quote(vocabularyName(table: String(old))))")
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
            if try pendingEntryBytesNeedSetting(table: table, in: db) {
                try db.execute(sql: setPendingEntryBytesSQL(table: table))
            }
            try db.execute(sql: "DROP TABLE IF EXISTS \(SchemaGenerator.quote(vocabularyName(table: table)))")
            try db.execute(sql: createVocabularySQL(table: table))
            for sql in triggerSQL(for: entity, table: table) { try db.execute(sql: sql) }
            // Rows written while the triggers were missing: index everything again.
            try db.execute(sql: "INSERT INTO \(SchemaGenerator.quote(table))(\(SchemaGenerator.quote(table))) VALUES ('rebuild')")
            try PersistentStore.setMetadata(signature, forKey: metadataKey(entity.name), in: db)
            try PersistentStore.setMetadata(nil, forKey: pendingKey(entity.name), in: db)
        }
        for (entityName, signature) in recorded where !declared.contains(entityName) {
            // An index the model no longer declares.
            if let (table, names) = triggerNames(ofSignature: signature) {
                for name in names {
                    try db.execute(sql: "DROP TRIGGER IF EXISTS \(SchemaGenerator.quote(name))")
                }
                try db.execute(sql: "DROP TABLE IF EXISTS \(SchemaGenerator.quote(reindexTableName(table: table)))")
                try db.execute(sql: "DROP TABLE IF EXISTS \(SchemaGenerator.quote(vocabularyName(table: table)))")
                try db.execute(sql: "DROP TABLE IF EXISTS \(SchemaGenerator.quote(table))")
                try db.execute(sql: "DROP VIEW IF EXISTS \(SchemaGenerator.quote(sourceViewName(table: table)))")
            }
            try PersistentStore.setMetadata(nil, forKey: metadataKey(entityName), in: db)
        }
        for key in try String.fetchAll(
            db, sql: "SELECT key FROM \"Z_METADATA\" WHERE key LIKE 'objectgraph.fts-pending.%'")
        where !declared.contains(String(key.dropFirst("objectgraph.fts-pending.".count))) {
            try PersistentStore.setMetadata(nil, forKey: key, in: db)
        }
    }

    /// Whether the stored triggers of `table` are not the ones ``triggerSQL(for:table:)``
    /// makes (a store indexed by an older build).
    static func triggersNeedReplacing(table: String, entity: Entity, in db: Database) throws -> Bool {
        let stored = try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger'")
        return !Set(triggerSQL(for: entity, table: table)).isSubset(of: Set(stored))
    }

    /// The table and every trigger of the index a recorded ``signature(of:)`` describes.
    static func triggerNames(ofSignature signature: String) -> (table: String, names: [String])? {
        let parts = signature.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 2 else { return nil }
        let attributes = parts[2].split(separator: ",").map { String($0.split(separator: ":")[0]) }
        return (parts[1], allTriggerNames(table: parts[1], attributes: attributes))
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

// MARK: - Saves index their inserts in one statement

extension FullTextIndexSchema {
    /// The made-up compile option the insert trigger asks about (see the type's notes).
    static let saveGateOption = "OBJECTGRAPH_SAVE_INDEXES_INSERTS"

    /// Set on the thread that runs a save's inserts: the insert triggers stand aside, and
    /// the save indexes the rows itself.
    @TaskLocal static var savesIndexInserts = false

    /// Runs `body` (a save's inserts) with the insert triggers standing aside.
    static func withSaveIndexingInserts<R>(_ body: () throws -> R) rethrows -> R {
        try $savesIndexInserts.withValue(true, operation: body)
    }

    /// Overrides `sqlite_compileoption_used(X)` on `db`: 1 for ``saveGateOption`` while
    /// ``savesIndexInserts`` is set, SQLite's own answer for any other `X`. Innocuous, so
    /// the triggers may call it whatever `trusted_schema` says.
    static func registerSaveGate(in db: Database) {
        sqlite3_create_function_v2(
            db.sqliteConnection, "sqlite_compileoption_used", 1, SQLITE_UTF8 | SQLITE_INNOCUOUS, nil,
            { context, _, arguments in
                guard let argument = arguments?[0], let text = sqlite3_value_text(argument) else {
                    sqlite3_result_null(context)
                    return
                }
                let name = String(cString: text)
                if name == FullTextIndexSchema.saveGateOption {
                    sqlite3_result_int(context, FullTextIndexSchema.savesIndexInserts ? 1 : 0)
                } else {
                    sqlite3_result_int(context, sqlite3_compileoption_used(name))
                }
            }, nil, nil, nil)
    }

    /// Indexes the rows of `entity` a save inserted (their keys: `primaryKeys`, which a
    /// save allocates in one run per entity) in one statement.
    static func indexInsertedRows(of entity: Entity, primaryKeys: ClosedRange<Int64>, in db: Database) throws {
        try indexRows(of: entity, in: [primaryKeys], skippingIndexed: false, in: db)
    }

    /// Indexes the rows of `entity` with keys in `ranges`; with `skippingIndexed`, only those
    /// the index does not hold yet (rows another writer may have indexed meanwhile).
    static func indexRows(
        of entity: Entity, in ranges: [ClosedRange<Int64>], skippingIndexed: Bool, in db: Database
    ) throws {
        guard let table = tableName(of: entity), let index = entity.fullTextIndex else { return }
        let q = SchemaGenerator.quote
        let columns = index.attributes.map(q).joined(separator: ", ")
        let values = index.attributes.map { indexedValue($0, of: nil, in: entity) }.joined(separator: ", ")
        let notIndexed =
            skippingIndexed
            ? " AND NOT EXISTS (SELECT 1 FROM \(q(docsizeTable(table))) d WHERE d.id = \(q(entity.tableName)).\"Z_PK\")"
            : ""
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO \(q(table))(rowid, \(columns)) SELECT "Z_PK", \(values) FROM \(q(entity.tableName)) \
                WHERE "Z_PK" BETWEEN ? AND ?\(notIndexed)
                """)
        for range in ranges {
            try statement.execute(arguments: [range.lowerBound, range.upperBound])
        }
    }
}

extension SaveExecution {
    /// Indexes the rows the save inserted into entities with a full-text index, one
    /// statement per entity (the insert triggers stood aside: ``FullTextIndexSchema``) — or,
    /// during a bulk write (``defersFullTextIndexing``), records their keys for one
    /// statement over many saves' rows (``FullTextIndexSchema/deferInsertedRows(of:primaryKeys:in:)``).
    func indexInsertedRows() throws {
        var ranges: [ObjectIdentifier: (entity: Entity, keys: ClosedRange<Int64>)] = [:]
        for (insert, id) in zip(plan.inserts, outcome.insertedIDs) where insert.entity.fullTextIndex != nil {
            let key = ObjectIdentifier(insert.entity)
            let pk = id.rawValue
            if let range = ranges[key] {
                ranges[key]!.keys = min(range.keys.lowerBound, pk)...max(range.keys.upperBound, pk)
            } else {
                ranges[key] = (insert.entity, pk...pk)
            }
        }
        for (entity, keys) in ranges.values {
            if defersFullTextIndexing {
                try FullTextIndexSchema.deferInsertedRows(
                    of: entity, primaryKeys: keys, limit: fullTextBatchLimit, in: db)
            } else {
                try FullTextIndexSchema.indexInsertedRows(of: entity, primaryKeys: keys, in: db)
            }
        }
    }
}

// MARK: - Bulk writes index many saves' rows at once

/// Why: FTS5 writes a transaction's terms as a new segment when it commits, and that costs
/// about as much as tokenizing a few dozen items (a segment's pages, the index's structure
/// record, merges), and a refresh saves a few dozen items at a time (`zeader-bench
/// refresh-index`). During a bulk write
/// (``PersistentStore/withBulkWrites(_:)``) a save therefore records the keys of the rows it
/// inserted in the store's metadata, in the same transaction, and the rows are indexed in
/// one statement once ``PersistentStore/fullTextBatchLimit`` of them wait, and when the bulk write ends.
///
/// Meanwhile searches do not find those rows (at most ``deferredRowLimit`` items of a
/// refresh in progress). Safe whoever writes: the delete and update triggers take a row out
/// of the index only when the index holds it (its `_docsize` row), and rows are indexed only
/// when the index does not hold them yet, so another connection may index, change or
/// delete a waiting row. A process that stops mid-way leaves the keys recorded: the next
/// open of the store for writing indexes them.
extension FullTextIndexSchema {
    /// How many rows a bulk write lets wait before indexing them, unless the store says
    /// otherwise (``PersistentStore/fullTextBatchLimit``).
    static let deferredRowLimit = 4_096

    /// The metadata key of the keys of `entityName`'s rows waiting to be indexed.
    static func pendingKey(_ entityName: String) -> String { "objectgraph.fts-pending.\(entityName)" }

    /// The key ranges waiting (`"1-30 45-80"`), in the order recorded.
    static func pendingRanges(of entity: Entity, in db: Database) throws -> [ClosedRange<Int64>] {
        guard
            let text = try String.fetchOne(
                db.cachedStatement(sql: "SELECT value FROM \"Z_METADATA\" WHERE key = ?"), arguments: [pendingKey(entity.name)])
        else { return [] }
        return text.split(separator: " ").compactMap { part in
            let bounds = part.split(separator: "-")
            guard bounds.count == 2, let low = Int64(bounds[0]), let high = Int64(bounds[1]), low <= high else { return nil }
            return low...high
        }
    }

    static func hasPendingRows(in db: Database) throws -> Bool {
        guard try db.tableExists(PersistentStore.metadataTable) else { return false }
        return try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM \"Z_METADATA\" WHERE key LIKE 'objectgraph.fts-pending.%')") ?? false
    }

    /// Records `primaryKeys` (rows a save inserted) as waiting; indexes everything waiting
    /// once `limit` rows wait.
    static func deferInsertedRows(
        of entity: Entity, primaryKeys: ClosedRange<Int64>, limit: Int = deferredRowLimit, in db: Database
    ) throws {
        var ranges = try pendingRanges(of: entity, in: db)
        if let last = ranges.last, primaryKeys.lowerBound <= last.upperBound + 1, primaryKeys.upperBound >= last.lowerBound {
            ranges[ranges.count - 1] = min(last.lowerBound, primaryKeys.lowerBound)...max(last.upperBound, primaryKeys.upperBound)
        } else {
            ranges.append(primaryKeys)
        }
        let waiting = ranges.reduce(Int64(0)) { $0 + $1.upperBound - $1.lowerBound + 1 }
        if waiting >= limit {
            try indexRows(of: entity, in: ranges, skippingIndexed: true, in: db)
            try PersistentStore.setMetadata(nil, forKey: pendingKey(entity.name), in: db)
        } else {
            let text = ranges.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: " ")
            try PersistentStore.setMetadata(text, forKey: pendingKey(entity.name), in: db)
        }
    }

    /// Indexes the rows of `entity` waiting to be indexed, and forgets them.
    static func indexPendingRows(of entity: Entity, in db: Database) throws {
        let ranges = try pendingRanges(of: entity, in: db)
        if !ranges.isEmpty { try indexRows(of: entity, in: ranges, skippingIndexed: true, in: db) }
        try PersistentStore.setMetadata(nil, forKey: pendingKey(entity.name), in: db)
    }

    /// Indexes the rows waiting for every index of `model` (the end of a bulk write).
    static func indexPendingRows(model: ManagedObjectModel, in db: Database) throws {
        guard try hasPendingRows(in: db) else { return }
        for entity in model.entities where entity.fullTextIndex != nil {
            try indexPendingRows(of: entity, in: db)
        }
    }

}
