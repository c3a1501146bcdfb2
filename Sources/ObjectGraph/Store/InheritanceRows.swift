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
        model: ManagedObjectModel, _ body: (Int64, consuming Snapshot) -> Void
    ) throws {
        let statement = try db.makeStatement(sql: sql)
        try statement.setArguments(StatementArguments(arguments))
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        let discriminator = Int32(2 + polymorphic.columns.count)
        while true {
            let code = sqlite3_step(raw)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
            }
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
