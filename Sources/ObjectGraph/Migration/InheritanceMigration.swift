import Foundation
import GRDB

extension ManagedObjectModel {
    /// The entity describing table `name` (see ``tableEntities``).
    func tableEntity(named name: String) -> Entity? {
        tableEntities.first { $0.name == name }
    }
}

extension Inheritance {
    /// Whether two tables agree on having a discriminator column and on where their
    /// sub-entities' uniqueness constraints hold.
    static func sameTableKind(_ old: Entity, _ new: Entity) -> Bool {
        (old.inheritance?.isTable == true) == (new.inheritance?.isTable == true)
            && (old.inheritance?.constraintKinds ?? [:]) == (new.inheritance?.constraintKinds ?? [:])
    }
}

extension MigrationStep {
    /// The new table's `Z_ENT` column and the SQL filling it from the old table: the old
    /// rows' entities (renamed entities under their new names), or the root's name when the
    /// old table had no hierarchy. Nil when the new table has none.
    func discriminatorSource(_ m: EntityMapping, old: Entity) -> (column: String, source: String)? {
        guard m.new.inheritance?.isTable == true else { return nil }
        let column = q(Inheritance.discriminatorColumn)
        guard old.inheritance?.isTable == true else {
            return (column, SchemaGenerator.sqlLiteral(.string(m.new.name)))
        }
        var renames: [String] = []
        for name in m.new.inheritance?.kindNames ?? [] {
            guard let entity = to.entityIfPresent(named: name), let before = entity.renamingIdentifier, before != name,
                from.entityIfPresent(named: name) == nil
            else { continue }
            renames.append(
                "WHEN \(SchemaGenerator.sqlLiteral(.string(before))) THEN \(SchemaGenerator.sqlLiteral(.string(name)))")
        }
        if renames.isEmpty { return (column, column) }
        return (column, "CASE \(column) \(renames.joined(separator: " ")) ELSE \(column) END")
    }

    /// After a row-by-row copy through a policy: each row's entity, from the old table.
    func copyDiscriminator(_ m: EntityMapping, old: Entity, in db: Database) throws {
        guard let (column, source) = discriminatorSource(m, old: old), source != SchemaGenerator.sqlLiteral(.string(m.new.name))
        else { return }
        try db.execute(
            sql:
                "UPDATE \(q(m.new.tableName)) SET \(column) = (SELECT \(source) FROM \(q(asideName(old))) AS o WHERE o.\"Z_PK\" = \(q(m.new.tableName)).\"Z_PK\")"
        )
    }

    /// A required attribute new to a sub-entity that already had rows: its column (shared
    /// by the hierarchy, so optional in SQL) needs a default or a policy, as anywhere else.
    func checkRequiredSubentityAttributes(in db: Database) throws {
        for entity in to.entities where entity.parentEntityName != nil {
            guard let old = from.entityIfPresent(named: entity.renamingIdentifier ?? entity.name) else { continue }
            for i in entity.storedAttributeIndexes {
                let a = entity.attributes[i]
                guard !a.isOptional, a.derivedCount == nil else { continue }
                let source = old.attribute(named: a.renamingIdentifier ?? a.name) ?? old.attribute(named: a.name)
                if source != nil && source?.isTransient == false { continue }
                let missing =
                    try Int.fetchOne(
                        db,
                        sql:
                            "SELECT COUNT(*) FROM \(q(entity.tableName)) WHERE \(q(Inheritance.discriminatorColumn)) = ? AND \(q(a.name)) IS NULL",
                        arguments: [entity.name]) ?? 0
                if missing > 0 {
                    throw fail(
                        entity.name,
                        "\(missing) row\(missing == 1 ? "" : "s") would have no value for required attribute '\(a.name)'; give it a default or an EntityMigrationPolicy"
                    )
                }
            }
        }
    }
}
