import Foundation
import GRDB
import GRDBSQLite

// Batch updates and deletes change rows in the store with set-based SQL, without loading
// objects. What they changed is kept compactly (the keys, grouped by the values they had)
// so that undo reverts them with set-based SQL too.

/// Which rows a batch operation applies to.
enum BatchTarget {
    /// Every row matching the (compiled) predicate; nil: every row.
    case matching(SQLFragment?)
    /// The rows with these primary keys.
    case keys([Int64])
}

/// What a batch update changed, enough to undo it: the attributes written and, for each
/// distinct combination of their former values, the keys of the rows that had it.
struct BatchUpdateChange: Sendable {
    let entity: Entity
    let attributes: [Int]
    var groups: [Group]

    struct Group: Sendable {
        var values: [Value]
        var keys: [Int64]
    }

    var keyCount: Int { groups.reduce(0) { $0 + $1.keys.count } }
}

/// What a batch delete removed, enough to undo it: each entity's rows as stored (the
/// requested entity first, then rows removed by cascade rules), and the relationship
/// columns a nullify rule cleared.
struct BatchDeleteChange: Sendable {
    struct Rows: Sendable {
        let entity: Entity
        /// Columns in ``RowLayout`` order: `Z_PK`, `Z_OPT`, stored attributes, foreign keys.
        var rows: [[DatabaseValue]]
        var keys: [Int64] { rows.map { Int64.fromDatabaseValue($0[0]) ?? 0 } }
    }
    struct Links: Sendable {
        let entity: Entity
        let relationship: Int
        var links: [(key: Int64, target: Int64)]
    }
    var deleted: [Rows] = []
    var nullified: [Links] = []
    /// Many-to-many pairs removed with the rows (`Z_SOURCE`, `Z_TARGET`, `Z_ORDER`), by join table.
    var pairs: [(table: String, rows: [[DatabaseValue]])] = []

    var requestedKeys: [Int64] { requested ?? deleted.first?.keys ?? [] }
    /// The keys asked for, when they are of several entities of a hierarchy (several parts).
    var requested: [Int64]?
}

/// Derived counts as a batch operation left them, by parent and attribute index.
typealias StoredCounts = [ObjectID: [Int: Int64]]

extension PersistentStore {
    /// Sets `attributes` of the rows each group targets to the group's values, in one
    /// transaction, and returns what changed (rows already holding the values are left
    /// alone) with the derived counts it affected. With a `limit`, each group changes at
    /// most that many of its rows (the first the query plan yields; not for inheritance).
    func batchUpdate(
        _ entity: Entity, attributes: [Int], groups: [(values: [Value], target: BatchTarget)], limit: Int? = nil,
        author: String? = nil
    ) throws(ObjectGraphError) -> (previous: BatchUpdateChange, counts: StoredCounts) {
        let model = self.model
        let history = historyRecord(author: author, contextName: "batch update")
        return try write { db in
            var writer = BatchWriter(model: model, db: db)
            var previous = BatchUpdateChange(entity: entity, attributes: attributes, groups: [])
            for group in groups {
                previous.groups += try writer.update(
                    entity, attributes: attributes, values: group.values, target: group.target, limit: limit)
            }
            try history?.recordBatchUpdate(previous, in: db)
            return (previous, try writer.finishCounts())
        }
    }

    /// Deletes the targeted rows (with the delete rules of the entity's relationships) in
    /// one transaction and returns what was removed.
    func batchDelete(_ entity: Entity, target: BatchTarget, author: String? = nil) throws(ObjectGraphError) -> (
        removed: BatchDeleteChange, counts: StoredCounts
    ) {
        let model = self.model
        let history = historyRecord(author: author, contextName: "batch delete")
        return try write { db in
            var writer = BatchWriter(model: model, db: db)
            var removed = BatchDeleteChange()
            let keys = try writer.keys(of: entity, target: target)
            // Read before the rows go: their tombstones.
            var record = history
            try record?.recordDeletions(of: entity, keys: keys, in: db)
            try writer.delete(entity, keys: keys, into: &removed)
            try record?.recordCascade(of: removed, besides: entity, keys: keys, in: db)
            if entity.inheritance != nil { removed.requested = keys }
            return (removed, try writer.finishCounts())
        }
    }

    /// Puts back what a batch delete removed.
    func restore(_ removed: BatchDeleteChange, author: String? = nil) throws(ObjectGraphError) -> StoredCounts {
        let model = self.model
        let history = historyRecord(author: author, contextName: "batch delete undone")
        return try write { db in
            var writer = BatchWriter(model: model, db: db)
            try writer.restore(removed)
            try history?.recordRestore(removed, in: db)
            return try writer.finishCounts()
        }
    }
}

/// The steps of batch operations inside one write transaction.
struct BatchWriter {
    let model: ManagedObjectModel
    let db: Database
    /// Derived-count deltas by counter (parent entity, attribute) and parent key.
    private var deltas: [CounterKey: (counter: CounterInfo, byParent: [Int64: Int64])] = [:]

    init(model: ManagedObjectModel, db: Database) {
        self.model = model
        self.db = db
    }

    // MARK: Selecting rows

    private static func table(_ entity: Entity) -> String { SchemaGenerator.quote(entity.tableName) }

    /// `WHERE` text and arguments selecting the target's rows of alias `t0`.
    private func condition(_ target: BatchTarget, of entity: Entity) -> (String, [DatabaseValue]) {
        let kind = Inheritance.condition(for: entity, alias: "t0").map { "\($0) AND " } ?? ""
        switch target {
        case .matching(let fragment?): return ("\(kind)(\(fragment.sql))", fragment.arguments)
        case .matching(nil): return (kind + "1", [])
        case .keys(let keys): return ("t0.\"Z_PK\" IN (SELECT value FROM json_each(?))", [jsonArray(keys).databaseValue])
        }
    }

    /// The keys of the target's rows.
    func keys(of entity: Entity, target: BatchTarget) throws -> [Int64] {
        let (whereSQL, arguments) = condition(target, of: entity)
        return try Int64.fetchAll(
            db, sql: "SELECT t0.\"Z_PK\" FROM \(Self.table(entity)) t0 WHERE \(whereSQL)",
            arguments: StatementArguments(arguments))
    }

    // MARK: Updating

    /// Finds the target's rows whose values differ (at most `limit` of them, unsorted, so
    /// that an index serving the target is read only for them), records their former
    /// values, and updates them with one statement.
    mutating func update(_ entity: Entity, attributes: [Int], values: [Value], target: BatchTarget, limit: Int? = nil)
        throws -> [BatchUpdateChange.Group]
    {
        if entity.inheritance != nil, let split = try keysByKind(entity, keys: try keys(of: entity, target: target)) {
            // Rows of several entities of a hierarchy: each with its own derived counts.
            var groups: [BatchUpdateChange.Group] = []
            for (kind, keys) in split {
                groups += try update(kind, attributes: attributes, values: values, target: .keys(keys))
            }
            return groups
        }
        let columns = attributes.map { SchemaGenerator.quote(entity.attributes[$0].name) }
        var (whereSQL, arguments) = condition(target, of: entity)
        let differs = columns.map { "t0.\($0) IS NOT ?" }.joined(separator: " OR ")
        arguments += values.map(\.databaseValue)
        // Former values, sorted so that rows sharing them are adjacent (with a limit, not
        // sorted: a sort would read every matching row; the groups are then only runs).
        let order = "ORDER BY \(columns.map { "t0.\($0)" }.joined(separator: ", ")), t0.\"Z_PK\""
        let selectSQL = """
            SELECT t0."Z_PK", \(columns.map { "t0.\($0)" }.joined(separator: ", ")) FROM \(Self.table(entity)) t0
            WHERE \(whereSQL) AND (\(differs)) \(limit.map { "LIMIT \($0)" } ?? order)
            """
        let groups = try readGroups(sql: selectSQL, arguments: arguments, types: attributes.map { entity.attributes[$0].type })
        let keys = groups.flatMap(\.keys)
        guard !keys.isEmpty else { return [] }
        let keysJSON = jsonArray(keys)
        let counters = entity.counterDependencies.filter { counter in
            guard let predicate = counter.predicate else { return false }
            let names = Set(attributes.map { entity.attributes[$0].name })
            return predicate.referencedKeyPaths.contains { names.contains($0) }
        }
        try account(entity, counters: counters, keysJSON: keysJSON, sign: -1)
        let assignments = columns.map { "\($0) = ?" } + ["\"Z_OPT\" = \"Z_OPT\" + 1"]
        do {
            try db.execute(
                sql:
                    "UPDATE \(Self.table(entity)) SET \(assignments.joined(separator: ", ")) WHERE \"Z_PK\" IN (SELECT value FROM json_each(?))",
                arguments: StatementArguments(values.map(\.databaseValue) + [keysJSON.databaseValue]))
        } catch let error as DatabaseError {
            var shown = entity.defaultValues
            for (n, i) in attributes.enumerated() { shown[i] = values[n] }
            throw SaveExecution.mapConstraintError(error, entity: entity, values: shown)
        }
        try account(entity, counters: counters, keysJSON: keysJSON, sign: 1)
        return groups
    }

    /// Runs `sql` (key, then one column per type) and groups adjacent rows with equal values.
    private func readGroups(sql: String, arguments: [DatabaseValue], types: [AttributeType]) throws -> [BatchUpdateChange.Group] {
        let statement = try db.makeStatement(sql: sql)
        try statement.setArguments(StatementArguments(arguments))
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        var groups: [BatchUpdateChange.Group] = []
        var values: [Value] = []
        while try RawSQLite.nextRow(raw, sql: sql, in: db) {
            values.removeAll(keepingCapacity: true)
            for (n, type) in types.enumerated() { values.append(RawSQLite.value(raw, Int32(n + 1), type: type)) }
            let key = sqlite3_column_int64(raw, 0)
            if let last = groups.indices.last, groups[last].values == values {
                groups[last].keys.append(key)
            } else {
                groups.append(.init(values: values, keys: [key]))
            }
        }
        return groups
    }

    // MARK: Deleting

    /// Deletes `keys` of `entity` after applying its relationships' delete rules
    /// (deny: refuse; cascade: delete the related rows too; nullify: clear their column).
    mutating func delete(_ entity: Entity, keys: [Int64], into removed: inout BatchDeleteChange) throws {
        guard !keys.isEmpty else {
            if removed.deleted.isEmpty { removed.deleted.append(.init(entity: entity, rows: [])) }
            return
        }
        if entity.inheritance != nil, let split = try keysByKind(entity, keys: keys) {
            // Rows of several entities of a hierarchy: each kind with its own columns and rules.
            for (kind, keys) in split { try delete(kind, keys: keys, into: &removed) }
            return
        }
        let keysJSON = jsonArray(keys)
        var pendingCascades: [(Entity, [Int64])] = []
        // The entity's own columns (every key is of this very entity): restore inserts them back.
        let layout = RowLayout(ownColumnsOf: entity, alias: "t0")
        let rows = try Row.fetchAll(
            db,
            sql:
                "SELECT \(layout.columnsSQL) FROM \(Self.table(entity)) t0 WHERE t0.\"Z_PK\" IN (SELECT value FROM json_each(?))",
            arguments: [keysJSON])
        removed.deleted.append(.init(entity: entity, rows: rows.map { Array($0.databaseValues) }))
        try account(entity, counters: entity.counterDependencies, keysJSON: keysJSON, sign: -1)
        for (r, relationship) in entity.relationships.enumerated()
        where entity.storesForeignKey[r] && relationship.deleteRule != .nullify {
            // A to-one stored here: its targets are the row's own column values.
            let column = SchemaGenerator.quote(relationship.name)
            let targets = try Int64.fetchAll(
                db,
                sql:
                    "SELECT DISTINCT \(column) FROM \(Self.table(entity)) WHERE \"Z_PK\" IN (SELECT value FROM json_each(?)) AND \(column) IS NOT NULL",
                arguments: [keysJSON])
            guard !targets.isEmpty else { continue }
            if relationship.deleteRule == .deny {
                throw ObjectGraphError.deleteDenied(entity: entity.name, relationship: relationship.name, count: targets.count)
            }
            pendingCascades.append((model.destination(of: entity, relationshipIndex: r), targets))
        }
        for (r, relationship) in entity.relationships.enumerated() where !entity.storesForeignKey[r] {
            let destination = model.destination(of: entity, relationshipIndex: r)
            if let join = entity.joinTables[r] {
                let cascade = try ManyToManyBatchDelete.apply(
                    entity, relationshipIndex: r, join: join, keysJSON: keysJSON, into: &removed.pairs, in: db)
                if !cascade.isEmpty { pendingCascades.append((destination, cascade)) }
                continue
            }
            let column = SchemaGenerator.quote(relationship.inverseName)
            let related = try Row.fetchAll(
                db,
                sql:
                    "SELECT \"Z_PK\", \(column) FROM \(Self.table(destination)) WHERE \(column) IN (SELECT value FROM json_each(?))",
                arguments: [keysJSON])
            guard !related.isEmpty else { continue }
            switch relationship.deleteRule {
            case .deny:
                throw ObjectGraphError.deleteDenied(entity: entity.name, relationship: relationship.name, count: related.count)
            case .cascade:
                try delete(destination, keys: related.map { $0[0] }, into: &removed)
            case .nullify:
                let links = related.map { (key: $0[0] as Int64, target: $0[1] as Int64) }
                removed.nullified.append(.init(entity: destination, relationship: entity.inverseIndex[r], links: links))
                try db.execute(
                    sql:
                        "UPDATE \(Self.table(destination)) SET \(column) = NULL, \"Z_OPT\" = \"Z_OPT\" + 1 WHERE \(column) IN (SELECT value FROM json_each(?))",
                    arguments: [keysJSON])
            }
        }
        try db.execute(
            sql: "DELETE FROM \(Self.table(entity)) WHERE \"Z_PK\" IN (SELECT value FROM json_each(?))", arguments: [keysJSON])
        for (destination, targets) in pendingCascades {
            // Rows already removed in this batch are gone from the table: only the rest is left to delete.
            let remaining = try Int64.fetchAll(
                db, sql: "SELECT \"Z_PK\" FROM \(Self.table(destination)) WHERE \"Z_PK\" IN (SELECT value FROM json_each(?))",
                arguments: [jsonArray(targets)])
            if !remaining.isEmpty { try delete(destination, keys: remaining, into: &removed) }
        }
    }

    /// Inserts the removed rows again (derived counts start at zero and are rebuilt from
    /// the restored children) and restores the cleared relationship columns.
    mutating func restore(_ removed: BatchDeleteChange) throws {
        for part in removed.deleted where !part.rows.isEmpty {
            let entity = part.entity
            let statement = try db.cachedStatement(sql: SaveExecution.insertSQL(for: entity))
            // Column positions (after Z_PK, Z_OPT) of derived counts, reset to zero.
            let counterColumns = Set(
                entity.storedAttributeIndexes.enumerated().filter { entity.attributes[$0.element].isDerivedCounter }.map {
                    $0.offset + 2
                })
            for row in part.rows {
                var values = row
                for c in counterColumns { values[c] = 0.databaseValue }
                do {
                    try statement.execute(arguments: StatementArguments(values))
                } catch let error as DatabaseError {
                    throw SaveExecution.mapConstraintError(error, entity: entity, values: entity.defaultValues)
                }
            }
            // The keys were handed out before (Z_PRIMARYKEY still counts them): no new ones are needed.
            try account(entity, counters: entity.counterDependencies, keysJSON: jsonArray(part.keys), sign: 1)
        }
        for part in removed.nullified {
            let column = SchemaGenerator.quote(part.entity.relationships[part.relationship].name)
            let statement = try db.cachedStatement(
                sql: "UPDATE \(Self.table(part.entity)) SET \(column) = ?, \"Z_OPT\" = \"Z_OPT\" + 1 WHERE \"Z_PK\" = ?")
            for link in part.links { try statement.execute(arguments: [link.target, link.key]) }
            try account(
                part.entity, counters: part.entity.counterDependencies, keysJSON: jsonArray(part.links.map(\.key)), sign: 1)
        }
        try ManyToManyBatchDelete.restore(removed.pairs, in: db)
    }

    // MARK: Derived counts

    /// Adds (`sign` 1) or subtracts (-1) the contributions of the rows `keysJSON` of the
    /// child entity `entity` to `counters`, counted in SQL as the rows are now.
    private mutating func account(_ entity: Entity, counters: [CounterInfo], keysJSON: String, sign: Int64) throws {
        for counter in counters {
            let (join, foreignKey) = counter.parentKeySQL(child: entity, model: model, alias: "t0")
            var sql =
                "SELECT \(foreignKey), COUNT(*) FROM \(Self.table(entity)) t0\(join) WHERE t0.\"Z_PK\" IN (SELECT value FROM json_each(?)) AND \(foreignKey) IS NOT NULL"
            var arguments: [DatabaseValue] = [keysJSON.databaseValue]
            if let predicate = counter.predicate {
                let fragment = try predicate.sqlExpression(for: entity, in: model, alias: "t0")
                sql += " AND (\(fragment.sql))"
                arguments += fragment.arguments
            }
            sql += " GROUP BY \(foreignKey)"
            let key = CounterKey(counter)
            var entry = deltas[key] ?? (counter, [:])
            for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) {
                entry.byParent[row[0], default: 0] += sign * (row[1] as Int64)
            }
            deltas[key] = entry
        }
    }

    /// Applies the accumulated deltas and reads back the counts of every parent touched.
    func finishCounts() throws -> StoredCounts {
        var touched: [ObjectIdentifier: (Entity, Set<Int64>)] = [:]
        for (_, entry) in deltas {
            let parent = model.entities[entry.counter.parentEntityIndex]
            try DerivedCountWriter.apply(entry.byParent.map { ($0.key, $0.value) }, to: entry.counter, model: model, in: db)
            touched[ObjectIdentifier(parent), default: (parent, [])].1.formUnion(entry.byParent.keys)
        }
        var counts: StoredCounts = [:]
        for (_, (parent, keys)) in touched {
            for (pk, values) in try DerivedCountWriter.read(parent, keys: keys, in: db) {
                counts[ObjectID(entity: parent, rawValue: pk)] = values
            }
        }
        return counts
    }
}
