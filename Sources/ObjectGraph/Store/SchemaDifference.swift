import Foundation
import GRDB

/// What differs between a store file's tables and the tables a model makes: the text of
/// the "its schema differs" refusal. The store records only a hash of its model's schema,
/// so the comparison is made against what SQLite itself says about the file (tables,
/// columns with their types and defaults, indexes); a difference SQLite cannot show (an
/// attribute's optionality) is named as such.
enum SchemaDifference {
    /// One line per difference, in the model's entity order, at most `limit` of them.
    /// `store` and `modelName` name the two sides in the lines ("the store", "the model").
    static func describe(
        model: ManagedObjectModel, in db: Database, limit: Int = 8, store: String = "the store", modelName: String = "the model"
    ) throws
        -> [String]
    {
        var found: [String] = []
        let q = SchemaGenerator.quote
        let rows = try Row.fetchAll(
            db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
        let virtualTables = Set(
            rows.filter { ($0["type"] as String?) == "table" && (($0["sql"] as String?) ?? "").hasPrefix("CREATE VIRTUAL") }
                .map { $0["name"] as String })
        func isInternal(_ table: String) -> Bool {
            table == PersistentStore.metadataTable || table == "Z_PRIMARYKEY" || table.hasPrefix(KeptCountSchema.prefix)
                || table.hasPrefix(HistorySchema.prefix)
                || virtualTables.contains(table)
                || virtualTables.contains { table.hasPrefix($0 + "_") }
        }
        let storeTables = Set(rows.filter { ($0["type"] as String?) == "table" }.map { $0["name"] as String })
            .filter { !isInternal($0) }
        let storeIndexes = Set(
            rows.filter { ($0["type"] as String?) == "index" && ($0["name"] as String).hasPrefix("Z_") }.map {
                $0["name"] as String
            })
        var expectedIndexes: Set<String> = []
        let joinTables = model.joinTables.map(\.tableName)
        let expectedTables = Set(model.tableEntities.map(\.tableName) + joinTables)
        for entity in model.tableEntities {
            for sql in SchemaGenerator.createStatements(for: entity) where !sql.hasPrefix("CREATE TABLE") {
                // `CREATE [UNIQUE] INDEX "name" ON …`: the quoted name after INDEX.
                if let start = sql.range(of: "INDEX \"")?.upperBound, let end = sql[start...].range(of: "\" ON ")?.lowerBound {
                    expectedIndexes.insert(String(sql[start..<end]).replacingOccurrences(of: "\"\"", with: "\""))
                }
            }
            guard storeTables.contains(entity.tableName) else {
                found.append("table \(entity.tableName) (entity \(entity.name)) is missing from \(store)")
                continue
            }
            var columns: [String: (type: String, defaultSQL: String?)] = [:]
            for row in try Row.fetchAll(db, sql: "PRAGMA table_info(\(q(entity.tableName)))") {
                columns[row["name"]] = ((row["type"] as String?)?.uppercased() ?? "", row["dflt_value"])
            }
            var expectedColumns: Set<String> = ["Z_PK", "Z_OPT"]
            if entity.inheritance?.isTable == true { expectedColumns.insert(Inheritance.discriminatorColumn) }
            for i in entity.storedAttributeIndexes {
                let a = entity.attributes[i]
                expectedColumns.insert(a.name)
                guard let column = columns[a.name] else {
                    found.append("column \(entity.tableName).\(a.name) (\(a.type.rawValue) attribute) is missing from \(store)")
                    continue
                }
                if column.type != a.type.sqlType {
                    found.append(
                        "column \(entity.tableName).\(a.name) is \(column.type.isEmpty ? "untyped" : column.type) in \(store), "
                            + "\(a.type.sqlType) (\(a.type.rawValue)) in \(modelName)")
                }
                let expectedDefault = a.defaultValue.isNull ? nil : SchemaGenerator.sqlLiteral(a.defaultValue)
                if column.defaultSQL != expectedDefault {
                    found.append(
                        "column \(entity.tableName).\(a.name) defaults to \(column.defaultSQL ?? "NULL") in \(store), "
                            + "\(expectedDefault ?? "NULL") in \(modelName)")
                }
            }
            for (i, r) in entity.relationships.enumerated() where entity.storesForeignKey[i] {
                expectedColumns.insert(r.name)
                if columns[r.name] == nil {
                    found.append(
                        "column \(entity.tableName).\(r.name) (to-one relationship to \(r.destinationEntityName)) is missing from \(store)"
                    )
                }
            }
            for column in entity.orderColumns.compactMap({ $0 }) {
                expectedColumns.insert(column)
                if columns[column] == nil {
                    found.append(
                        "column \(entity.tableName).\(column) (positions of an ordered relationship) is missing from \(store)")
                }
            }
            for name in columns.keys.sorted() where !expectedColumns.contains(name) {
                found.append("column \(entity.tableName).\(name) is in \(store) but not in \(modelName)")
            }
        }
        for table in joinTables { expectedIndexes.insert(table + "_target") }
        for table in joinTables where !storeTables.contains(table) {
            found.append("join table \(table) (a many-to-many relationship) is missing from the store")
        }
        for table in storeTables.subtracting(expectedTables).sorted() {
            found.append("table \(table) is in \(store) but not in \(modelName)")
        }
        for index in expectedIndexes.subtracting(storeIndexes).sorted()
        where storeTables.contains(where: { index.hasPrefix("Z_\($0)_") }) {
            found.append("index \(index) is missing from \(store)")
        }
        for index in storeIndexes.subtracting(expectedIndexes).sorted() {
            let table = rows.first { ($0["name"] as String?) == index }.flatMap { $0["tbl_name"] as String? } ?? ""
            if expectedTables.contains(table) { found.append("index \(index) is in \(store) but not in \(modelName)") }
        }
        if found.isEmpty {
            found.append("tables, columns, types, defaults and indexes match, so an attribute's optionality differs")
        }
        if found.count > limit {
            let more = found.count - limit
            found = Array(found.prefix(limit)) + ["and \(more) more"]
        }
        return found
    }
}

extension SchemaDifference {
    /// What differs between the stored schemas of `model` and `other` (each attribute with
    /// its type, optionality and default; to-one columns; indexes; uniqueness constraints),
    /// one line per difference, `other` named `otherName` in the lines.
    static func describe(
        model: ManagedObjectModel, comparedTo other: ManagedObjectModel, otherName: String, limit: Int = 8
    ) -> [String] {
        /// `(key, detail)` per line of the schema description, keyed by entity and item.
        func items(_ m: ManagedObjectModel) -> [(key: String, detail: String)] {
            var entity = ""
            var result: [(String, String)] = []
            for line in m.schemaDescription.split(separator: "\n") {
                if line.hasPrefix("entity ") {
                    entity = String(line.dropFirst("entity ".count))
                    result.append(("entity \(entity)", ""))
                    continue
                }
                let parts = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 2).map(String.init)
                guard let kind = parts.first else { continue }
                let name = parts.count > 1 ? parts[1] : ""
                switch kind {
                case "attr": result.append(("attribute \(entity).\(name)", parts.count > 2 ? parts[2] : ""))
                case "fk": result.append(("to-one relationship \(entity).\(name)", parts.count > 2 ? parts[2] : ""))
                default: result.append(("\(kind == "unique" ? "uniqueness constraint" : kind) \(entity)(\(name))", ""))
                }
            }
            return result
        }
        let mine = items(model)
        let theirs = items(other)
        let mineByKey = Dictionary(mine.map { ($0.key, $0.detail) }, uniquingKeysWith: { a, _ in a })
        let theirsByKey = Dictionary(theirs.map { ($0.key, $0.detail) }, uniquingKeysWith: { a, _ in a })
        var found: [String] = []
        for (key, detail) in mine {
            guard let theirDetail = theirsByKey[key] else {
                found.append("\(key) is in the model, not in \(otherName)")
                continue
            }
            if theirDetail != detail {
                found.append("\(key) is \(theirDetail) in \(otherName), \(detail) in the model")
            }
        }
        for (key, _) in theirs where mineByKey[key] == nil {
            found.append("\(key) is in \(otherName), not in the model")
        }
        if found.isEmpty { found.append("the order of entities or attributes differs") }
        if found.count > limit {
            let more = found.count - limit
            found = Array(found.prefix(limit)) + ["and \(more) more"]
        }
        return found
    }
}
