import Foundation
import GRDB

extension PersistentStore {
    /// Turns persistent history on (or changes the tombstones it keeps): from now on every
    /// write through ObjectGraph, by any process, records a ``HistoryTransaction``.
    ///
    /// ```swift
    /// try store.startRecordingHistory(PersistentHistoryTracking(tombstones: ["Note": ["title"]]))
    /// ```
    public func startRecordingHistory(_ tracking: PersistentHistoryTracking = .init()) throws(ObjectGraphError) {
        try write { db in try HistorySchema.start(tracking, in: db) }
        historyTracking.withLock { $0 = tracking }
    }

    /// Turns persistent history off and deletes what it recorded.
    ///
    /// ```swift
    /// try store.stopRecordingHistory()
    /// ```
    public func stopRecordingHistory() throws(ObjectGraphError) {
        try write { db in
            try db.execute(sql: "DROP TABLE IF EXISTS \"\(HistorySchema.changes)\"")
            try db.execute(sql: "DROP TABLE IF EXISTS \"\(HistorySchema.transactions)\"")
            try db.execute(
                sql: "DELETE FROM \"\(Self.metadataTable)\" WHERE key = ?", arguments: [HistorySchema.metadataKey])
        }
        historyTracking.withLock { $0 = nil }
    }

    /// Whether this store records history.
    public var isRecordingHistory: Bool { historyTracking.withLock { $0 != nil } }

    /// The token of the latest transaction recorded; nil before the first, or without history.
    ///
    /// ```swift
    /// let resumeFrom = try store.currentHistoryToken()
    /// ```
    public func currentHistoryToken() throws(ObjectGraphError) -> HistoryToken? {
        guard isRecordingHistory else { return nil }
        return try read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(\"Z_PK\") FROM \"\(HistorySchema.transactions)\"").map(HistoryToken.init)
        }
    }

    /// The transactions `request` asks for, oldest first. Empty without history.
    ///
    /// ```swift
    /// var token = try store.currentHistoryToken()
    /// let transactions = try store.history(HistoryFetchRequest(after: token))
    /// token = transactions.last?.token ?? token
    /// ```
    public func history(_ request: HistoryFetchRequest) throws(ObjectGraphError) -> [HistoryTransaction] {
        guard isRecordingHistory else { return [] }
        let model = self.model
        let historyWriterID = self.historyWriterID
        return try read { db in
            var conditions = ["\"Z_PK\" > ?"]
            var arguments: [DatabaseValueConvertible?] = [request.after?.transactionNumber ?? 0]
            if let authors = request.authors {
                conditions.append("\"ZAUTHOR\" IN (SELECT value FROM json_each(?))")
                arguments.append(Self.jsonStrings(authors))
            }
            if !request.excludedAuthors.isEmpty {
                conditions.append("(\"ZAUTHOR\" IS NULL OR \"ZAUTHOR\" NOT IN (SELECT value FROM json_each(?)))")
                arguments.append(Self.jsonStrings(request.excludedAuthors))
            }
            if !request.includesThisStack {
                conditions.append("\"ZPROCESS\" != ?")
                arguments.append(historyWriterID)
            }
            let limit = request.fetchLimit.map { " LIMIT \(max(0, $0))" } ?? ""
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT "Z_PK", "ZTIMESTAMP", "ZAUTHOR", "ZCONTEXTNAME", "ZPROCESS" FROM "\(HistorySchema.transactions)"
                    WHERE \(conditions.joined(separator: " AND ")) ORDER BY "Z_PK"\(limit)
                    """, arguments: StatementArguments(arguments))
            guard let first = rows.first, let last = rows.last else { return [] }
            var changes: [Int64: [HistoryChange]] = [:]
            let changeRows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT "ZTRANSACTION", "ZENTITY", "ZKIND", "ZOBJECT", "ZKEYS", "ZTOMBSTONE" FROM "\(HistorySchema.changes)"
                    WHERE "ZTRANSACTION" BETWEEN ? AND ? ORDER BY rowid
                    """, arguments: [first["Z_PK"] as Int64, last["Z_PK"] as Int64])
            while let row = try changeRows.next() {
                guard let entity = try? model.entity(named: row["ZENTITY"]),
                    let kind = HistoryChange.Kind(rawValue: row["ZKIND"]),
                    let key: Int64 = row["ZOBJECT"], key > 0
                else { continue }
                if let names = request.entityNames, !entity.isNamed(in: names) { continue }
                let keys = (row["ZKEYS"] as String?).map { Set($0.split(separator: ",").map(String.init)) } ?? []
                let tombstone = (row["ZTOMBSTONE"] as String?).map(HistoryValueCoding.values) ?? [:]
                changes[row["ZTRANSACTION"], default: []].append(
                    HistoryChange(
                        kind: kind, objectID: ObjectID(entity: entity, primaryKey: key), changedKeys: keys,
                        tombstone: tombstone))
            }
            return rows.compactMap { row -> HistoryTransaction? in
                let number: Int64 = row["Z_PK"]
                let found = changes[number] ?? []
                if request.entityNames != nil && found.isEmpty { return nil }
                return HistoryTransaction(
                    token: HistoryToken(transactionNumber: number),
                    timestamp: Date(timeIntervalSince1970: row["ZTIMESTAMP"]), author: row["ZAUTHOR"],
                    contextName: row["ZCONTEXTNAME"], isFromThisStack: (row["ZPROCESS"] as String) == historyWriterID,
                    changes: found)
            }
        }
    }

    /// Deletes the transactions before `token` (not `token`'s own): history read by every
    /// reader that needs it. Tokens are not reused after.
    ///
    /// ```swift
    /// if let seenByEveryReader = try store.currentHistoryToken() { try store.deleteHistory(before: seenByEveryReader) }
    /// ```
    public func deleteHistory(before token: HistoryToken) throws(ObjectGraphError) {
        guard isRecordingHistory else { return }
        try write { db in
            try db.execute(
                sql: "DELETE FROM \"\(HistorySchema.changes)\" WHERE \"ZTRANSACTION\" < ?", arguments: [token.transactionNumber])
            try db.execute(
                sql: "DELETE FROM \"\(HistorySchema.transactions)\" WHERE \"Z_PK\" < ?", arguments: [token.transactionNumber])
        }
    }

    /// The oldest transaction kept: a reader whose token is older missed the ones deleted
    /// in between, and must treat everything as changed.
    ///
    /// ```swift
    /// let seen = try store.currentHistoryToken()
    /// if let oldest = try store.oldestHistoryToken(), let seen, oldest.transactionNumber > seen.transactionNumber + 1 {
    ///     print("history was deleted past what was seen: refetch everything")
    /// }
    /// ```
    public func oldestHistoryToken() throws(ObjectGraphError) -> HistoryToken? {
        guard isRecordingHistory else { return nil }
        return try read { db in
            try Int64.fetchOne(db, sql: "SELECT MIN(\"Z_PK\") FROM \"\(HistorySchema.transactions)\"").map(HistoryToken.init)
        }
    }

    /// A record for one write when history is on.
    func historyRecord(author: String? = nil, contextName: String? = nil) -> HistoryRecord? {
        historyTracking.withLock { $0 }.map {
            HistoryRecord(tracking: $0, writerID: historyWriterID, author: author, contextName: contextName)
        }
    }

    private static func jsonStrings(_ strings: Set<String>) -> String {
        (try? JSONEncoder().encode(strings.sorted())).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }
}
