import Foundation
import GRDB

/// One step of a migration, from one model version to the next, run inside the caller's
/// transaction on the working copy of the store.
///
/// Tables whose stored shape is unchanged (and that no policy touches) are left alone. Every
/// other table is rebuilt: the old table is renamed aside, the new one created, rows copied
/// (with `INSERT … SELECT` when inferred, row by row through the policy otherwise, keeping
/// `Z_PK` and `Z_OPT`), the indexes created (a new uniqueness constraint is checked here),
/// and the old table dropped.
struct MigrationStep {
    let from: ManagedObjectModel
    let to: ManagedObjectModel
    let policies: [EntityMigrationPolicy]
    /// Attributes this step moves into new one-to-one entities (checked by ``MigrationPlan``).
    var moves: [AttributeMove] = []

    /// A reason the step cannot be performed; becomes ``ObjectGraphError/migrationFailed(path:reason:)``.
    struct Failure: Error {
        var reason: String
    }

    var name: String { "step v\(from.version)→v\(to.version)" }

    func fail(_ entity: String, _ message: String) -> Failure {
        Failure(reason: "\(name), entity \(entity): \(message)")
    }

    /// How one entity of the new version is filled from the old version.
    struct EntityMapping {
        let new: Entity
        let old: Entity?
        /// For each stored attribute of `new` (in column order): its source attribute in `old`.
        let attributeSources: [(new: AttributeDescription, old: AttributeDescription?)]
        /// For each stored to-one of `new`: its column and its source column in `old`.
        let foreignKeySources: [(new: RelationshipDescription, old: RelationshipDescription?)]
        let policy: EntityMigrationPolicy?
        let needsRebuild: Bool
        /// The table stays, only its plain indexes change (added, removed): they are
        /// created and dropped in place, without copying the rows.
        var reindexes = false
    }

    func run(in db: Database) throws {
        // By table: an inheritance hierarchy is one table (see `Inheritance`).
        let mappings = try to.tableEntities.map(mapping(for:))
        let sources = Set(mappings.compactMap { $0.old?.name })
        let removed = from.tableEntities.filter { !sources.contains($0.name) }

        // 0. The full-text indexes' views of extracts go (the next open makes them again): one
        // reading a table set aside would make SQLite refuse every later rename.
        for view in try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'view' AND name LIKE '%\\_source' ESCAPE '\\'")
        {
            try db.execute(sql: "DROP VIEW \(q(view))")
        }

        // 0b. Kept counts go too (their triggers read tables that are about to move); the next
        // call counts afresh.
        try KeptCountSchema.dropAll(in: db)

        // 1. Move the old tables aside (with their indexes gone, so new ones can take the names).
        for m in mappings where m.needsRebuild {
            guard let old = m.old else { continue }
            try dropIndexes(of: old.tableName, in: db)
            try db.execute(sql: "ALTER TABLE \(q(old.tableName)) RENAME TO \(q(asideName(old)))")
        }
        for old in removed {
            try db.execute(sql: "DROP TABLE \(q(old.tableName))")
            try db.execute(sql: "DELETE FROM \"Z_PRIMARYKEY\" WHERE Z_ENTITY = ?", arguments: [old.name])
        }

        // 2. New tables, rows, then indexes (uniqueness is checked as each index is built).
        var asides: [Entity] = []
        for m in mappings where m.needsRebuild {
            let statements = SchemaGenerator.createStatements(for: m.new)
            try db.execute(sql: statements[0])
            if let old = m.old {
                if m.policy != nil {
                    try copyRowByRow(m, old: old, in: db)
                    try copyDiscriminator(m, old: old, in: db)
                    try placeOrderedMembersAfterPolicy(m, old: old, in: db)
                } else {
                    try copyInferred(m, old: old, in: db)
                }
            }
            for sql in statements.dropFirst() {
                do {
                    try db.execute(sql: sql)
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                    throw fail(
                        m.new.name, "existing rows violate a new uniqueness constraint (\(error.message ?? "constraint failed"))")
                }
            }
            if let old = m.old {
                asides.append(old)
                if old.name != m.new.name {
                    try db.execute(
                        sql: "UPDATE \"Z_PRIMARYKEY\" SET Z_ENTITY = ? WHERE Z_ENTITY = ?", arguments: [m.new.name, old.name])
                }
            }
        }

        // Moved attributes are read from the old tables set aside, which go only then.
        for move in moves { try perform(move, in: db) }
        for old in asides { try db.execute(sql: "DROP TABLE \(q(asideName(old)))") }
        // A trigger of another table that read one set aside (a full-text index's, reading the
        // indexed rows) was renamed with it and now reads a table that is gone: SQLite would
        // refuse the next step's renames. It goes; the next open makes the index's again.
        for trigger in try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%Z\\_MIGRATING\\_%' ESCAPE '\\'")
        {
            try db.execute(sql: "DROP TRIGGER \(q(trigger))")
        }

        // 2b. Tables that keep their rows and change only indexes.
        for m in mappings where m.reindexes { try updateIndexes(of: m.new, in: db) }
        // 2c. Join tables of many-to-many relationships, position columns of ordered one-to-many ones.
        try migrateJoinTables(in: db)
        try migrateOrderColumns(in: db)

        // 3. Required values the new version demands of existing rows.
        for m in mappings where m.needsRebuild && m.old != nil {
            for (attribute, _) in m.attributeSources where !attribute.isOptional {
                let missing =
                    try Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM \(q(m.new.tableName)) WHERE \(q(attribute.name)) IS NULL") ?? 0
                if missing > 0 {
                    throw fail(
                        m.new.name,
                        "\(missing) row\(missing == 1 ? "" : "s") would have no value for required attribute '\(attribute.name)'; give it a default or an EntityMigrationPolicy"
                    )
                }
            }
            for (relationship, source) in m.foreignKeySources where !relationship.isOptional && source == nil {
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(q(m.new.tableName))") ?? 0
                if count > 0 {
                    throw fail(
                        m.new.name, "new required relationship '\(relationship.name)' has no value for \(count) existing rows")
                }
            }
        }

        try checkRequiredSubentityAttributes(in: db)

        // 4. Derived counts that are new (or whose children a policy rewrote): count once.
        for entity in to.entities {
            let old =
                from.entityIfPresent(named: entity.renamingIdentifier ?? entity.name)
                ?? (entity.renamingIdentifier != nil ? from.entityIfPresent(named: entity.name) : nil)
            for counter in entity.counters {
                let attribute = entity.attributes[counter.attributeIndex]
                var source = old?.attribute(named: attribute.renamingIdentifier ?? attribute.name)
                if source == nil, attribute.renamingIdentifier != nil { source = old?.attribute(named: attribute.name) }
                if source?.isTransient == true { source = nil }
                let child = to.entities[counter.childEntityIndex]
                let childRewritten = policies.contains { $0.entityName == child.name || $0.entityName == child.tableName }
                guard
                    source?.derivedCount != attribute.derivedCount || childRewritten || old == nil
                        || !sameCounterChild(counter)
                else { continue }
                try fillDerivedCount(parent: entity, attribute: attribute, child: child, counter: counter, in: db)
            }
        }
    }

    // MARK: Mapping

    func mapping(for new: Entity) throws -> EntityMapping {
        let policy = policies.first { $0.entityName == new.name }
        let old =
            from.tableEntity(named: new.renamingIdentifier ?? new.name)
            ?? (new.renamingIdentifier != nil ? from.tableEntity(named: new.name) : nil)
        guard let old else {
            if policy != nil { throw fail(new.name, "has a migration policy but no entity in version \(from.version)") }
            return EntityMapping(new: new, old: nil, attributeSources: [], foreignKeySources: [], policy: nil, needsRebuild: true)
        }
        var attributes: [(AttributeDescription, AttributeDescription?)] = []
        for i in new.storedAttributeIndexes {
            let a = new.attributes[i]
            var source = old.attribute(named: a.renamingIdentifier ?? a.name)
            if source == nil, a.renamingIdentifier != nil { source = old.attribute(named: a.name) }
            if let s = source, s.isTransient { source = nil }
            if let s = source, s.type != a.type, policy == nil, !Self.convertsLosslessly(s.type, a.type) {
                throw fail(
                    new.name,
                    "attribute '\(a.name)' changes type from \(s.type.rawValue) to \(a.type.rawValue); that needs an EntityMigrationPolicy"
                )
            }
            if source == nil, !a.isOptional, a.defaultValue.isNull, a.derivedCount == nil, policy == nil {
                throw fail(
                    new.name,
                    "new required attribute '\(a.name)' has no default value; give it one or add an EntityMigrationPolicy")
            }
            attributes.append((a, source))
        }
        var foreignKeys: [(RelationshipDescription, RelationshipDescription?)] = []
        for (i, r) in new.relationships.enumerated() where new.storesForeignKey[i] {
            var source: RelationshipDescription?
            for name in [r.renamingIdentifier, r.name].compactMap({ $0 }) {
                if let j = old.relationships.firstIndex(where: { $0.name == name }), old.storesForeignKey[j] {
                    source = old.relationships[j]
                    break
                }
            }
            foreignKeys.append((r, source))
        }
        let unchanged =
            policy == nil && Self.sameStoredShape(old: old, new: new, attributes: attributes, foreignKeys: foreignKeys)
        // Only plain indexes differ: the rows stay where they are.
        let reindexes =
            !unchanged && policy == nil && new.uniquenessConstraints == old.uniquenessConstraints
            && Self.sameStoredShape(
                old: old, new: new, attributes: attributes, foreignKeys: foreignKeys, ignoringIndexes: true)
        var mapping = EntityMapping(
            new: new, old: old, attributeSources: attributes, foreignKeySources: foreignKeys, policy: policy,
            needsRebuild: !unchanged && !reindexes)
        mapping.reindexes = reindexes
        return mapping
    }

    /// Whether `new`'s table would be exactly `old`'s: same name, columns, defaults,
    /// optionality, indexes and constraints.
    /// With `ignoringIndexes`, plain indexes (``EntityDescription/indexes``, indexed
    /// attributes) may differ.
    static func sameStoredShape(
        old: Entity, new: Entity, attributes: [(AttributeDescription, AttributeDescription?)],
        foreignKeys: [(RelationshipDescription, RelationshipDescription?)], ignoringIndexes: Bool = false
    ) -> Bool {
        guard old.name == new.name,
            ignoringIndexes || (new.indexes == old.indexes && new.partialIndexes == old.partialIndexes),
            new.uniquenessConstraints == old.uniquenessConstraints, Inheritance.sameTableKind(old, new)
        else {
            return false
        }
        let oldAttributeNames: [String] = old.storedAttributeIndexes.map { old.attributes[$0].name }
        guard attributes.map({ $0.0.name }) == oldAttributeNames else { return false }
        for (a, source) in attributes {
            guard let s = source else { return false }
            let same: Bool = s.name == a.name && s.type == a.type && s.defaultValue == a.defaultValue
            guard same, ignoringIndexes || s.isIndexed == a.isIndexed, s.isOptional == a.isOptional else { return false }
        }
        let oldForeignKeyNames: [String] = old.relationships.indices.filter { old.storesForeignKey[$0] }.map {
            old.relationships[$0].name
        }
        let sources: [String?] = foreignKeys.map { $0.1?.name }
        let names: [String?] = foreignKeys.map { $0.0.name }
        return sources == names && names.compactMap({ $0 }) == oldForeignKeyNames
    }

    /// Type changes the inferred step carries out with SQLite's own conversions.
    static func convertsLosslessly(_ from: AttributeType, _ to: AttributeType) -> Bool {
        switch (from, to) {
        case (.integer, .double), (.bool, .integer): return true
        default: return false
        }
    }

    /// Whether a derived count's children come from the same entity as before.
    func sameCounterChild(_ counter: CounterInfo) -> Bool {
        let child = to.entities[counter.childEntityIndex]
        guard let oldChild = from.entityIfPresent(named: child.renamingIdentifier ?? child.name) else { return false }
        let relationship = child.relationships[counter.childToOneIndex]
        return oldChild.relationship(named: relationship.renamingIdentifier ?? relationship.name) != nil
    }

    // MARK: Copying

    func copyInferred(_ m: EntityMapping, old: Entity, in db: Database) throws {
        var columns = ["\"Z_PK\"", "\"Z_OPT\""]
        var sources = ["\"Z_PK\"", "\"Z_OPT\""]
        for (a, s) in m.attributeSources {
            guard let s else { continue }
            columns.append(q(a.name))
            sources.append(q(s.name))
        }
        for (r, s) in m.foreignKeySources {
            guard let s else { continue }
            columns.append(q(r.name))
            sources.append(q(s.name))
        }
        if let (column, source) = discriminatorSource(m, old: old) {
            columns.append(column)
            sources.append(source)
        }
        for (column, source) in orderColumnSources(m, old: old) {
            columns.append(q(column))
            sources.append(q(source))
        }
        for move in moves where move.entityName == m.new.name && m.new.foreignKeyColumn(forRelationship: move.relationship) != nil
        {
            // The new one-to-one is stored here: it points at the moved row, which takes this row's key.
            columns.append(q(move.relationship))
            sources.append("CASE WHEN \(movedValuesCondition(move)) THEN \"Z_PK\" END")
        }
        try db.execute(
            sql:
                "INSERT INTO \(q(m.new.tableName)) (\(columns.joined(separator: ", "))) SELECT \(sources.joined(separator: ", ")) FROM \(q(asideName(old)))"
        )
    }

    func copyRowByRow(_ m: EntityMapping, old: Entity, in db: Database) throws {
        let oldAttributes = old.storedAttributeIndexes.map { old.attributes[$0] }
        let oldForeignKeys = old.relationships.indices.filter { old.storesForeignKey[$0] }.map { old.relationships[$0] }
        let select =
            (["\"Z_PK\"", "\"Z_OPT\""] + oldAttributes.map { q($0.name) } + oldForeignKeys.map { q($0.name) })
            .joined(separator: ", ")
        let newColumns = m.attributeSources.map(\.new.name) + m.foreignKeySources.map(\.new.name)
        let insert = try db.makeStatement(
            sql:
                "INSERT INTO \(q(m.new.tableName)) (\"Z_PK\", \"Z_OPT\", \(newColumns.map(q).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: newColumns.count + 2).joined(separator: ", ")))"
        )
        let rows = try Row.fetchCursor(db, sql: "SELECT \(select) FROM \(q(asideName(old))) ORDER BY \"Z_PK\"")
        while let row = try rows.next() {
            let pk: Int64 = row[0]
            let version: Int64 = row[1]
            var oldValues: [String: Value] = [:]
            var column = 2
            for a in oldAttributes {
                oldValues[a.name] = Value(databaseValue: row[column], type: a.type)
                column += 1
            }
            for r in oldForeignKeys {
                oldValues[r.name] = Value(databaseValue: row[column], type: .integer)
                column += 1
            }
            var newValues: [String: Value] = [:]
            for (a, s) in m.attributeSources {
                if let s, let value = oldValues[s.name], let converted = value.coerced(to: a.type) {
                    newValues[a.name] = converted
                } else {
                    newValues[a.name] = a.defaultValue
                }
            }
            for (r, s) in m.foreignKeySources { newValues[r.name] = s.flatMap { oldValues[$0.name] } ?? .null }
            var migrationRow = MigrationRow(primaryKey: pk, old: oldValues, newValues: newValues)
            if let policy = m.policy {
                do {
                    try policy.transform(&migrationRow)
                } catch {
                    throw fail(m.new.name, "the policy failed on the row with Z_PK \(pk): \(error)")
                }
            }
            var arguments: [DatabaseValue] = [pk.databaseValue, version.databaseValue]
            for (a, _) in m.attributeSources {
                let value = migrationRow.newValues[a.name] ?? .null
                guard let converted = value.coerced(to: a.type) else {
                    throw fail(
                        m.new.name, "the row with Z_PK \(pk) has \(value) for '\(a.name)', which is not \(a.type.withArticle)")
                }
                arguments.append(converted.databaseValue)
            }
            for (r, _) in m.foreignKeySources {
                switch migrationRow.newValues[r.name] ?? .null {
                case .null: arguments.append(.null)
                case .integer(let key): arguments.append(key.databaseValue)
                case let other:
                    throw fail(m.new.name, "the row with Z_PK \(pk) has \(other) for relationship '\(r.name)', not a primary key")
                }
            }
            try insert.execute(arguments: StatementArguments(arguments))
        }
    }

    /// Whether an old row has any of the moved attributes (SQL over the old table).
    func movedValuesCondition(_ move: AttributeMove) -> String {
        "(" + move.attributes.map { "\(q($0)) IS NOT NULL" }.joined(separator: " OR ") + ")"
    }

    /// Inserts the moved attributes' rows into the move's new entity (see ``AttributeMove``).
    func perform(_ move: AttributeMove, in db: Database) throws {
        guard let old = from.entityIfPresent(named: move.entityName), let source = to.entityIfPresent(named: move.entityName),
            let destination = to.entityIfPresent(named: move.destinationName),
            let r = source.relationshipIndexByName[move.relationship]
        else {
            throw fail(move.destinationName, "the move from \(move.entityName) does not match the model")
        }
        var columns = ["\"Z_PK\"", "\"Z_OPT\""] + move.attributes.map(q)
        var values = ["\"Z_PK\"", "1"] + move.attributes.map(q)
        let inverse = source.relationships[r].inverseName
        if destination.foreignKeyColumn(forRelationship: inverse) != nil {
            columns.append(q(inverse))
            values.append("\"Z_PK\"")
        }
        try db.execute(
            sql: """
                INSERT INTO \(q(destination.tableName)) (\(columns.joined(separator: ", "))) \
                SELECT \(values.joined(separator: ", ")) FROM \(q(asideName(old))) WHERE \(movedValuesCondition(move))
                """)
        // Keys are never reused: the new entity's next key follows the largest one moved.
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO "Z_PRIMARYKEY" (Z_ENTITY, Z_MAX) \
                SELECT ?, MAX("Z_PK") FROM \(q(destination.tableName)) HAVING COUNT(*) > 0
                """, arguments: [destination.name])
    }

    func fillDerivedCount(
        parent: Entity, attribute: AttributeDescription, child: Entity, counter: CounterInfo, in db: Database
    ) throws {
        let (join, foreignKey) = counter.parentKeySQL(child: child, model: to, alias: "c")
        var condition = SQLFragment(sql: "\(foreignKey) = p.\"Z_PK\"")
        if let predicate = counter.predicate {
            let fragment = try predicate.sqlExpression(for: child, in: to, alias: "c")
            condition = SQLFragment(sql: condition.sql + " AND (\(fragment.sql))", arguments: fragment.arguments)
        }
        let kinds = Inheritance.condition(for: parent, alias: "p").map { " WHERE \($0)" } ?? ""
        try db.execute(
            sql:
                "UPDATE \(q(parent.tableName)) AS p SET \(q(attribute.name)) = (SELECT COUNT(*) FROM \(q(child.tableName)) AS c\(join) WHERE \(condition.sql))\(kinds)",
            arguments: StatementArguments(condition.arguments))
    }

    // MARK: Helpers

    func dropIndexes(of table: String, in db: Database) throws {
        let names = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            arguments: [table])
        for name in names { try db.execute(sql: "DROP INDEX \(q(name))") }
    }

    /// Brings the indexes of `entity`'s table to what the new version declares: the ones
    /// it no longer has are dropped, the new ones built; the others (an index's name says
    /// its keys) are kept as they are.
    func updateIndexes(of entity: Entity, in db: Database) throws {
        let existing = Set(
            try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                arguments: [entity.tableName]))
        var wanted: [String: String] = [:]
        for sql in SchemaGenerator.createStatements(for: entity).dropFirst() {
            // CREATE [UNIQUE] INDEX "name" ON …
            guard let start = sql.firstIndex(of: "\""), let end = sql.range(of: "\" ON ")?.lowerBound, start < end else {
                continue
            }
            let name = String(sql[sql.index(after: start)..<end]).replacingOccurrences(of: "\"\"", with: "\"")
            wanted[name] = sql
        }
        for name in existing.subtracting(wanted.keys) { try db.execute(sql: "DROP INDEX \(q(name))") }
        for (name, sql) in wanted where !existing.contains(name) { try db.execute(sql: sql) }
    }

    func asideName(_ old: Entity) -> String { "Z_MIGRATING_\(old.tableName)" }

    func q(_ identifier: String) -> String { SchemaGenerator.quote(identifier) }
}
