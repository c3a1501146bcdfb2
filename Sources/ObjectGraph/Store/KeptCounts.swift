import Foundation
import GRDB
import GRDBSQLite

/// What ``ManagedObjectContext/keptCounts(of:matching:timeLimit:forgettingOthers:)`` found:
/// one count (or the error that stopped it) per predicate, and how much it had to read.
public struct KeptCounts: Sendable {
    /// For each predicate asked for, in order: how many saved objects match it (or why it
    /// could not be counted: it does not fit the entity, or it ran past the time limit).
    public var counts: [Result<Int, ObjectGraphError>]
    /// Predicates counted over the whole table: new ones (their count is kept from now on),
    /// ones whose triggers were lost (a migration), and ones that cannot be kept (a key path
    /// through a to-many relationship or more than one relationship) — counted every time.
    public var fullCounts: Int
    /// Objects that changed since the last call, whose matches were checked again.
    public var changedObjects: Int
}

extension ManagedObjectContext {
    /// How many saved objects of `entityName` match each of `predicates`, from counts the
    /// store keeps, so that asking again costs the objects changed since the last call rather
    /// than a count over the whole table.
    ///
    /// The first call for a predicate counts once and keeps the count, with the set of
    /// matching objects, in the store (tables and triggers named `Z_KEPT…`, outside the
    /// model). From then on SQLite triggers log every insert, delete and change of a column
    /// the kept predicates read — whoever writes: this process, another one, a batch request,
    /// an undo — and the next call checks only the logged objects. A predicate reading
    /// through more than one relationship, or a to-many one, cannot be kept this way and is
    /// counted each time. `timeLimit` bounds each predicate's count or check (the user's
    /// predicate may be costly); `forgettingOthers` drops the kept counts not asked for, so
    /// that their triggers stop costing writes.
    ///
    /// Counts the saved state (not this context's unsaved changes). When another process
    /// holds the store's write lock, or the store is read-only, the counts are worked out
    /// without writing and the work is kept by a later call.
    ///
    /// ```swift
    /// let unread = try ObjectPredicate(format: "read == NO AND title CONTAINS[cd] 'swift'")
    /// let kept = try context.keptCounts(of: "FeedItem", matching: [unread])
    /// print(try kept.counts[0].get())
    /// ```
    public func keptCounts(
        of entityName: String, matching predicates: [ObjectPredicate], timeLimit: Duration? = nil, forgettingOthers: Bool = false
    ) throws(ObjectGraphError) -> KeptCounts {
        assertOnQueue()
        let entity = try store.model.entity(named: entityName)
        // A predicate that does not fit the entity gets its error; the others are counted.
        var invalid: [Int: ObjectGraphError] = [:]
        for (i, predicate) in predicates.enumerated() {
            do { try predicate.validate(for: entity, in: store.model) } catch { invalid[i] = error }
        }
        let valid = predicates.indices.filter { invalid[$0] == nil }.map { predicates[$0] }
        var kept = try store.keptCounts(
            of: entity, matching: valid, timeLimit: timeLimit, forgettingOthers: forgettingOthers)
        var counts = kept.counts.makeIterator()
        kept.counts = predicates.indices.map { i in invalid[i].map { .failure($0) } ?? counts.next()! }
        return kept
    }
}

extension PersistentStore {
    /// Tries the write lock without waiting; when it is taken (or the store is read-only)
    /// the counts are worked out in a read.
    func keptCounts(of entity: Entity, matching predicates: [ObjectPredicate], timeLimit: Duration?, forgettingOthers: Bool)
        throws(ObjectGraphError) -> KeptCounts
    {
        var work = KeptCountWork(
            model: model, entity: entity, predicates: predicates, limit: timeLimit, forgettingOthers: forgettingOthers)
        do {
            if !isReadOnly {
                let done: Bool = try writer.writeWithoutTransaction { db in
                    sqlite3_busy_timeout(db.sqliteConnection, 0)
                    defer { sqlite3_busy_timeout(db.sqliteConnection, Int32(Self.busyTimeout * 1000)) }
                    do {
                        try db.execute(sql: "BEGIN IMMEDIATE")
                    } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                        return false  // another process is writing: answer without keeping
                    }
                    do {
                        try work.run(in: db, persist: true)
                        try db.execute(sql: "COMMIT")
                    } catch {
                        try? db.execute(sql: "ROLLBACK")
                        throw error
                    }
                    return true
                }
                if done { return work.result }
                work.reset()
            }
            try writer.read { db in try work.run(in: db, persist: false) }
            return work.result
        } catch {
            throw ObjectGraphError.wrapping(error, path: location.path)
        }
    }
}

/// The kept counts' tables and triggers: `Z_KEPTCOUNT` (one row per kept predicate),
/// `Z_KEPTMEMBER` (the objects each matches), `Z_KEPTDIRTY_<Entity>` (the primary keys the
/// triggers logged, each once: a store written only by cron refreshes keeps at most one row
/// per object until the next count catches up) and triggers named `Z_KEPT_<Entity>_…`.
enum KeptCountSchema {
    static let countTable = "Z_KEPTCOUNT"
    static let memberTable = "Z_KEPTMEMBER"
    static let prefix = "Z_KEPT"

    static func dirtyTable(_ entity: Entity) -> String { "Z_KEPTDIRTY_\(entity.name)" }

    /// Drops every kept count, table and trigger (a migration does, before it moves
    /// tables: the next call counts afresh).
    static func dropAll(in db: Database) throws {
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT type, name FROM sqlite_master WHERE name LIKE 'Z\\_KEPT%' ESCAPE '\\' AND type IN ('trigger', 'table')")
        for row in rows where (row["type"] as String) == "trigger" {
            try db.execute(sql: "DROP TRIGGER IF EXISTS \(SchemaGenerator.quote(row["name"]))")
        }
        for row in rows where (row["type"] as String) == "table" {
            try db.execute(sql: "DROP TABLE IF EXISTS \(SchemaGenerator.quote(row["name"]))")
        }
    }
}

/// One trigger a kept predicate needs: its name (from its SQL, so a changed definition gets
/// a new name) and its `CREATE TRIGGER` statement.
struct KeptTrigger: Hashable {
    let name: String
    let sql: String

    init(root: Entity, table: String, body: String) {
        let prefix = "\(KeptCountSchema.prefix)_\(root.name)_\(table)_"
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in body.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        name = prefix + String(h, radix: 16)
        sql = "CREATE TRIGGER \(SchemaGenerator.quote(name)) \(body)"
    }
}

/// How a predicate over `root` is kept: the triggers that log every object whose match may
/// have changed; nil when it cannot be kept (a key path through a to-many relationship or
/// through more than one relationship).
func keptTriggers(for predicate: ObjectPredicate, root: Entity, model: ManagedObjectModel) -> Set<KeptTrigger>? {
    let q = SchemaGenerator.quote
    let dirty = q(KeptCountSchema.dirtyTable(root))
    let table = q(root.tableName)
    func log(_ pk: String) -> String { "INSERT OR IGNORE INTO \(dirty) (pk) VALUES (\(pk));" }
    var rootColumns: Set<String> = []
    // By relationship stored in the root's row: the destination, the root's column, the columns read.
    var through: [String: (entity: Entity, foreignKey: String, columns: Set<String>)] = [:]
    // By destination entity (pointing back at the root): its foreign key and columns read.
    var pointingBack: [String: (entity: Entity, foreignKey: String, columns: Set<String>)] = [:]
    for path in predicate.referencedKeyPaths {
        guard let resolved = try? ModelKeyPath(path, root: root, model: model), resolved.hops.count <= 1,
            resolved.quantifiedHop == nil, !resolved.hops.contains(where: \.isToMany)
        else { return nil }
        guard let hop = resolved.hops.first else {
            guard case .attribute(let a) = resolved.terminal, !a.isTransient else { return nil }
            rootColumns.insert(a.name)
            continue
        }
        var columns: Set<String> = []
        if case .attribute(let a) = resolved.terminal {
            guard !a.isTransient else { return nil }
            columns.insert(a.name)
        }
        if hop.isStoredInSource {
            guard let column = root.foreignKeyColumn(forRelationship: hop.relationship.name) else { return nil }
            rootColumns.insert(column)
            through[hop.relationship.name, default: (hop.destination, column, [])].columns.formUnion(columns)
        } else {
            let inverse = hop.destination.relationships[hop.source.inverseIndex[hop.relationshipIndex]].name
            guard let foreignKey = hop.destination.foreignKeyColumn(forRelationship: inverse) else { return nil }
            pointingBack[hop.destination.name, default: (hop.destination, foreignKey, [])].columns.formUnion(columns)
        }
    }
    var triggers: Set<KeptTrigger> = [
        KeptTrigger(root: root, table: root.name, body: "AFTER INSERT ON \(table) BEGIN \(log("NEW.\"Z_PK\"")) END"),
        KeptTrigger(root: root, table: root.name, body: "AFTER DELETE ON \(table) BEGIN \(log("OLD.\"Z_PK\"")) END"),
    ]
    if !rootColumns.isEmpty {
        let list = rootColumns.sorted().map(q).joined(separator: ", ")
        triggers.insert(
            KeptTrigger(
                root: root, table: root.name, body: "AFTER UPDATE OF \(list) ON \(table) BEGIN \(log("NEW.\"Z_PK\"")) END"))
    }
    for (_, d) in through where !d.columns.isEmpty {
        let list = d.columns.sorted().map(q).joined(separator: ", ")
        triggers.insert(
            KeptTrigger(
                root: root, table: d.entity.name,
                body:
                    "AFTER UPDATE OF \(list) ON \(q(d.entity.tableName)) BEGIN INSERT OR IGNORE INTO \(dirty) (pk) SELECT \"Z_PK\" FROM \(table) WHERE \(q(d.foreignKey)) = NEW.\"Z_PK\"; END"
            ))
    }
    for (_, d) in pointingBack {
        let other = q(d.entity.tableName)
        let key = q(d.foreignKey)
        let list = (d.columns.union([d.foreignKey])).sorted().map(q).joined(separator: ", ")
        triggers.insert(
            KeptTrigger(
                root: root, table: d.entity.name,
                body: "AFTER INSERT ON \(other) WHEN NEW.\(key) IS NOT NULL BEGIN \(log("NEW.\(key)")) END"))
        triggers.insert(
            KeptTrigger(
                root: root, table: d.entity.name,
                body: "AFTER DELETE ON \(other) WHEN OLD.\(key) IS NOT NULL BEGIN \(log("OLD.\(key)")) END"))
        triggers.insert(
            KeptTrigger(
                root: root, table: d.entity.name,
                body:
                    "AFTER UPDATE OF \(list) ON \(other) BEGIN INSERT OR IGNORE INTO \(dirty) (pk) SELECT value FROM (SELECT NEW.\(key) AS value UNION SELECT OLD.\(key)) WHERE value IS NOT NULL; END"
            ))
    }
    return triggers
}

/// One call's work, run in a write transaction (`persist`) or, when the lock is taken, in
/// a read (the same answers, nothing kept).
struct KeptCountWork {
    let model: ManagedObjectModel
    let entity: Entity
    let predicates: [ObjectPredicate]
    let limit: Duration?
    let forgettingOthers: Bool
    var result = KeptCounts(counts: [], fullCounts: 0, changedObjects: 0)

    init(model: ManagedObjectModel, entity: Entity, predicates: [ObjectPredicate], limit: Duration?, forgettingOthers: Bool) {
        self.model = model
        self.entity = entity
        self.predicates = predicates
        self.limit = limit
        self.forgettingOthers = forgettingOthers
    }

    mutating func reset() { result = KeptCounts(counts: [], fullCounts: 0, changedObjects: 0) }

    private struct Counter {
        let id: Int64
        let format: String
        var count: Int
        let triggers: Set<KeptTrigger>?
        var valid: Bool
    }

    mutating func run(in db: Database, persist: Bool) throws {
        let (entity, model) = (self.entity, self.model)
        let q = SchemaGenerator.quote
        let counts = KeptCountSchema.countTable
        let members = KeptCountSchema.memberTable
        let dirty = KeptCountSchema.dirtyTable(entity)
        let schema = Set(
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'Z\\_KEPT%' ESCAPE '\\'"))
        let hadTables = schema.contains(counts) && schema.contains(members) && schema.contains(dirty)

        // The kept counters of this entity, each valid while every trigger it needs is in place.
        var counters: [Counter] = []
        if hadTables {
            for row in try Row.fetchAll(
                db, sql: "SELECT id, predicate, count FROM \(q(counts)) WHERE entity = ?", arguments: [entity.name])
            {
                let format: String = row["predicate"]
                let triggers = (try? ObjectPredicate(format: format)).flatMap {
                    keptTriggers(for: $0, root: entity, model: model)
                }
                counters.append(
                    Counter(
                        id: row["id"], format: format, count: row["count"], triggers: triggers,
                        valid: triggers.map { $0.allSatisfy { schema.contains($0.name) } } ?? false))
            }
        }
        let wanted = predicates.map { ($0.predicateFormat, keptTriggers(for: $0, root: entity, model: model)) }
        let wantedFormats = Set(wanted.filter { $0.1 != nil }.map(\.0))

        // Changed objects since the last call: each valid counter checks them again.
        let changed: [Int64] = hadTables ? try Int64.fetchAll(db, sql: "SELECT DISTINCT pk FROM \(q(dirty))") : []
        result.changedObjects = changed.count
        let limit = self.limit
        let matchSQL = { (predicate: ObjectPredicate) throws -> SQLFragment in
            let w = try predicate.sqlExpression(for: entity, in: model, alias: "t0")
            return SQLFragment(sql: "SELECT t0.\"Z_PK\" FROM \(q(entity.tableName)) AS t0 WHERE ", arguments: []) + w
        }
        for i in counters.indices where counters[i].valid {
            let c = counters[i]
            guard !changed.isEmpty else { continue }
            let deadline = QueryDeadline(limit: limit)  // each predicate gets the whole limit
            do {
                let predicate = try ObjectPredicate(format: c.format)
                // The changed rows by primary key (CROSS JOIN keeps SQLite from reading the
                // table through an index of a column the predicate tests instead).
                let w = try predicate.sqlExpression(for: entity, in: model, alias: "t0")
                let now = Set(
                    try deadline.run(in: db) {
                        try Int64.fetchAll(
                            db,
                            sql: """
                                SELECT t0."Z_PK" FROM (SELECT DISTINCT pk FROM \(q(dirty))) AS d \
                                CROSS JOIN \(q(entity.tableName)) AS t0 ON t0."Z_PK" = d.pk WHERE \(w.sql)
                                """,
                            arguments: StatementArguments(w.arguments))
                    })
                let before = Set(
                    try Int64.fetchAll(
                        db, sql: "SELECT pk FROM \(q(members)) WHERE counter = ? AND pk IN (SELECT pk FROM \(q(dirty)))",
                        arguments: [c.id]))
                let added = now.subtracting(before)
                let removed = before.subtracting(now)
                counters[i].count += added.count - removed.count
                if persist && (!added.isEmpty || !removed.isEmpty) {
                    try Self.write(members: added, removed: removed, counter: c.id, count: counters[i].count, in: db)
                }
            } catch {
                counters[i].valid = false  // counted afresh when next asked for
            }
        }

        if persist {
            // Counters not asked for: dropped when told to, or when they can no longer be kept.
            let dropped = counters.filter { !$0.valid || (forgettingOthers && !wantedFormats.contains($0.format)) }
            for c in dropped {
                try db.execute(sql: "DELETE FROM \(q(members)) WHERE counter = ?", arguments: [c.id])
                try db.execute(sql: "DELETE FROM \(q(counts)) WHERE id = ?", arguments: [c.id])
            }
            counters.removeAll { c in dropped.contains { $0.id == c.id } }
            // (Only when there is something to delete: a transaction that writes nothing leaves
            // `PRAGMA data_version` alone, so other processes watching the store see no change.)
            if !changed.isEmpty { try db.execute(sql: "DELETE FROM \(q(dirty))") }
            // The triggers every remaining or wanted counter needs, and no others.
            var needed: Set<KeptTrigger> = []
            for c in counters { needed.formUnion(c.triggers ?? []) }
            for (_, triggers) in wanted { needed.formUnion(triggers ?? []) }
            if !needed.isEmpty {
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS \(q(counts)) (id INTEGER PRIMARY KEY, entity TEXT NOT NULL, \
                        predicate TEXT NOT NULL, count INTEGER NOT NULL, UNIQUE (entity, predicate));
                        CREATE TABLE IF NOT EXISTS \(q(members)) (counter INTEGER NOT NULL, pk INTEGER NOT NULL, \
                        PRIMARY KEY (counter, pk)) WITHOUT ROWID;
                        CREATE TABLE IF NOT EXISTS \(q(dirty)) (pk INTEGER PRIMARY KEY);
                        """)
            }
            let mine = "\(KeptCountSchema.prefix)_\(entity.name)_"
            for name in schema where name.hasPrefix(mine) && !needed.contains(where: { $0.name == name }) {
                try db.execute(sql: "DROP TRIGGER IF EXISTS \(q(name))")
            }
            for trigger in needed where !schema.contains(trigger.name) { try db.execute(sql: trigger.sql) }
            if needed.isEmpty, schema.contains(dirty) { try db.execute(sql: "DROP TABLE \(q(dirty))") }
        }

        // The answers: kept counts, else counted now (and kept from now on when they can be).
        for (predicate, (format, triggers)) in zip(predicates, wanted) {
            if let c = counters.first(where: { $0.format == format && $0.valid }) {
                result.counts.append(.success(c.count))
                continue
            }
            result.fullCounts += 1
            let deadline = QueryDeadline(limit: limit)
            do {
                let base = try matchSQL(predicate)
                if persist, triggers != nil {
                    let pks = try deadline.run(in: db) {
                        try Int64.fetchAll(db, sql: base.sql, arguments: StatementArguments(base.arguments))
                    }
                    try db.execute(
                        sql: "INSERT INTO \(q(counts)) (entity, predicate, count) VALUES (?, ?, ?)",
                        arguments: [entity.name, format, pks.count])
                    let id = db.lastInsertedRowID
                    try Self.write(members: Set(pks), removed: [], counter: id, count: pks.count, in: db)
                    counters.append(Counter(id: id, format: format, count: pks.count, triggers: triggers, valid: true))
                    result.counts.append(.success(pks.count))
                } else {
                    let n = try deadline.run(in: db) {
                        try Int.fetchOne(
                            db, sql: "SELECT COUNT(*) FROM (\(base.sql))", arguments: StatementArguments(base.arguments))
                    }
                    result.counts.append(.success(n ?? 0))
                }
            } catch {
                let failure: ObjectGraphError =
                    deadline.isExceeded
                    ? .timeLimitExceeded(entity: entity.name, seconds: deadline.seconds)
                    : ObjectGraphError.wrapping(error)
                result.counts.append(.failure(failure))
            }
        }
    }

    /// Adds and removes members of a counter and stores its count.
    private static func write(members added: Set<Int64>, removed: Set<Int64>, counter: Int64, count: Int, in db: Database)
        throws
    {
        let q = SchemaGenerator.quote
        let members = q(KeptCountSchema.memberTable)
        if !removed.isEmpty {
            let statement = try db.makeStatement(sql: "DELETE FROM \(members) WHERE counter = ? AND pk = ?")
            for pk in removed { try statement.execute(arguments: [counter, pk]) }
        }
        if !added.isEmpty {
            let statement = try db.makeStatement(sql: "INSERT OR IGNORE INTO \(members) (counter, pk) VALUES (?, ?)")
            for pk in added.sorted() { try statement.execute(arguments: [counter, pk]) }
        }
        try db.execute(
            sql: "UPDATE \(q(KeptCountSchema.countTable)) SET count = ? WHERE id = ?", arguments: [count, counter])
    }
}
