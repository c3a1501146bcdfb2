import Foundation
import GRDB

/// How an entity's rows are read: the column list and its decoding into object state.
struct RowLayout {
    let entity: Entity
    /// `"Z_PK", "Z_OPT", <stored attributes…>, <foreign keys…>` qualified by `alias`.
    let columnsSQL: String
    let foreignKeyRelationships: [Int]

    init(entity: Entity, alias: String) {
        self.entity = entity
        foreignKeyRelationships = entity.foreignKeyIndexes
        if let polymorphic = entity.inheritance?.polymorphic {
            // Any kind's columns, then the row's entity.
            columnsSQL = (["Z_PK", "Z_OPT"] + polymorphic.columns + [Inheritance.discriminatorColumn])
                .map { "\(alias).\(SchemaGenerator.quote($0))" }.joined(separator: ", ")
            return
        }
        var columns = ["\(alias).\"Z_PK\"", "\(alias).\"Z_OPT\""]
        for i in entity.storedAttributeIndexes {
            columns.append("\(alias).\(SchemaGenerator.quote(entity.attributes[i].name))")
        }
        for r in entity.foreignKeyIndexes {
            columns.append("\(alias).\(SchemaGenerator.quote(entity.relationships[r].name))")
        }
        columnsSQL = columns.joined(separator: ", ")
    }

    /// Decodes one row selected with ``columnsSQL``.
    func decode(_ row: Row, model: ManagedObjectModel) -> (pk: Int64, snapshot: Snapshot) {
        if let polymorphic = entity.inheritance?.polymorphic { return decodeAnyKind(row, polymorphic, model: model) }
        let pk: Int64 = row[0]
        let version: Int64 = row[1]
        var values = entity.defaultValues
        var column = 2
        for i in entity.storedAttributeIndexes {
            values[i] = Value(databaseValue: row[column] as DatabaseValue, type: entity.attributes[i].type)
            column += 1
        }
        var toOne = entity.emptyToOne
        for r in foreignKeyRelationships {
            if let fk: Int64 = row[column] {
                toOne[r] = ObjectID(entity: model.destination(of: entity, relationshipIndex: r), rawValue: fk)
            }
            column += 1
        }
        return (pk, Snapshot(values: values, toOne: toOne, version: version))
    }
}
