import Foundation
import GRDB
import GRDBSQLite

/// Reading rows of an entity with sub-entities: each row is decoded as its own entity
/// (named by `Z_ENT`), from the columns of every kind (see ``PolymorphicLayout``).
extension RowLayout {
    /// The kind a row's `Z_ENT` names (the layout's entity when it names none of its kinds).
    private func kind(named name: String?, _ polymorphic: PolymorphicLayout) -> PolymorphicLayout.Kind {
        if let name, let kind = polymorphic.kinds[name] { return kind }
        return polymorphic.kinds[entity.name]!
    }

    func decodeAnyKind(_ row: Row, _ polymorphic: PolymorphicLayout, model: ManagedObjectModel) -> (
        pk: Int64, snapshot: Snapshot
    ) {
        let pk: Int64 = row[0]
        let version: Int64 = row[1]
        let kind = kind(named: row[2 + polymorphic.columns.count], polymorphic)
        let concrete = model.entities[kind.entityIndex]
        var values = concrete.defaultValues
        for (n, i) in concrete.storedAttributeIndexes.enumerated() {
            values[i] = Value(
                databaseValue: row[2 + kind.attributeColumns[n]] as DatabaseValue, type: concrete.attributes[i].type)
        }
        var toOne = concrete.emptyToOne
        for (n, r) in concrete.foreignKeyIndexes.enumerated() {
            if let fk: Int64 = row[2 + kind.foreignKeyColumns[n]] {
                toOne[r] = ObjectID(entity: model.destination(of: concrete, relationshipIndex: r), rawValue: fk)
            }
        }
        return (pk, Snapshot(values: values, toOne: toOne, version: version, entityIndex: concrete.index))
    }

    func forEachRowOfAnyKind(
        _ db: Database, sql: String, arguments: [DatabaseValue], _ polymorphic: PolymorphicLayout,
        model: ManagedObjectModel, cached: Bool = false, _ body: (Int64, consuming Snapshot) -> Void
    ) throws {
        let statement = try RawSQLite.statement(db, sql: sql, cached: cached)
        try statement.setArguments(StatementArguments(arguments))
        let raw = statement.sqliteStatement
        defer {
            sqlite3_reset(raw)
            if cached { sqlite3_clear_bindings(raw) }
        }
        let discriminator = Int32(2 + polymorphic.columns.count)
        while try RawSQLite.nextRow(raw, sql: sql, in: db) {
            let name = sqlite3_column_text(raw, discriminator).map { String(cString: $0) }
            let kind = kind(named: name, polymorphic)
            let concrete = model.entities[kind.entityIndex]
            var values = concrete.defaultValues
            for (n, i) in concrete.storedAttributeIndexes.enumerated() {
                values[i] = RawSQLite.value(raw, Int32(2 + kind.attributeColumns[n]), type: concrete.attributes[i].type)
            }
            var toOne = concrete.emptyToOne
            for (n, r) in concrete.foreignKeyIndexes.enumerated() {
                let c = Int32(2 + kind.foreignKeyColumns[n])
                if sqlite3_column_type(raw, c) != SQLITE_NULL {
                    toOne[r] = ObjectID(
                        entity: model.destination(of: concrete, relationshipIndex: r), rawValue: sqlite3_column_int64(raw, c))
                }
            }
            body(
                sqlite3_column_int64(raw, 0),
                Snapshot(
                    values: values, toOne: toOne, version: sqlite3_column_int64(raw, 1), entityIndex: concrete.index))
        }
    }
}

extension FetchPlan {
    /// The IDs of the matching stored rows, in order (with no unsaved changes to merge), each
    /// naming its row's own entity.
    func matchingIDs() throws(ObjectGraphError) -> [ObjectID] {
        let entity = self.entity
        guard let info = entity.inheritance, entity.hasSubentities else {
            if let provenPage { return provenPage.map { ObjectID(entity: entity, rawValue: $0) } }
            let (sql, arguments) = selectSQL(columns: "t0.\"Z_PK\"", excluding: [], applyLimit: true)
            let pks = try read { db in try Int64.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) }
            return pks.map { ObjectID(entity: entity, rawValue: $0) }
        }
        let model = context.model
        let kinds = Dictionary(uniqueKeysWithValues: zip(info.kindNames, info.kindIndexes.map { model.entities[$0] }))
        let (sql, arguments) = selectSQL(
            columns: "t0.\"Z_PK\", t0.\(SchemaGenerator.quote(Inheritance.discriminatorColumn))", excluding: [],
            applyLimit: true)
        let rows = try read { db in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) }
        return rows.map { row in
            ObjectID(entity: (row[1] as String?).flatMap { kinds[$0] } ?? entity, rawValue: row[0])
        }
    }
}

extension FetchRequest {
    /// Whether objects of `candidate` are among the results of this request for `entity`.
    func includes(_ candidate: Entity, of entity: Entity) -> Bool {
        candidate === entity || (includesSubentities && candidate.isKind(of: entity))
    }
}

extension BatchWriter {
    /// `keys` of an entity of a hierarchy grouped by their rows' own entity (in model
    /// order), or nil when every row is of `entity` itself.
    func keysByKind(_ entity: Entity, keys: [Int64]) throws -> [(Entity, [Int64])]? {
        guard !keys.isEmpty else { return nil }
        let rows = try Row.fetchAll(
            db,
            sql:
                "SELECT \"Z_PK\", \(SchemaGenerator.quote(Inheritance.discriminatorColumn)) FROM \(SchemaGenerator.quote(entity.tableName)) WHERE \"Z_PK\" IN (SELECT value FROM json_each(?))",
            arguments: [jsonArray(keys)])
        var byKind: [String: [Int64]] = [:]
        for row in rows { byKind[row[1] ?? entity.name, default: []].append(row[0]) }
        if byKind.count == 1, byKind[entity.name] != nil { return nil }
        return model.entities.compactMap { kind in byKind[kind.name].map { (kind, $0) } }
    }
}

extension RowLayout {
    /// The layout of `entity`'s own columns, as ``SaveExecution/insertSQL(for:)`` writes them,
    /// even when it has sub-entities (for rows known to be of `entity` itself).
    init(ownColumnsOf entity: Entity, alias: String) {
        self.entity = entity
        foreignKeyRelationships = entity.foreignKeyIndexes
        let names =
            entity.storedAttributeIndexes.map { entity.attributes[$0].name }
            + entity.foreignKeyIndexes.map { entity.relationships[$0].name }
        columnsSQL = (["Z_PK", "Z_OPT"] + names).map { "\(alias).\(SchemaGenerator.quote($0))" }.joined(separator: ", ")
    }
}
