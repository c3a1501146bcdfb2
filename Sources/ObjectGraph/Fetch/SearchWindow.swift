import Foundation
import GRDB

/// Where a full-text search's matches come from in its query, chosen per fetch by
/// ``FetchPlan/chooseMatchSource()`` for a search with a fetch limit ordered by an indexed
/// key, descending (newest first, say); the results are the same whichever is chosen.
///
/// - ``filter``: `t0.Z_PK IN (every match)`: SQLite walks the sort key's index and tests
///   each row. Cheap for a page of a word that matches a large share of the rows; but the
///   set of matches is built in full, and a word matching few rows (or none) walks the
///   whole index: at a million items, a rare word took as long as reading them all.
/// - ``recentMatches(_:)``: the `n` most recently stored matches (FTS5 reads its document
///   lists from the highest key down and stops), joined to their rows and sorted: a
///   bounded cost however large the store is. Chosen when the window holds every match, or
///   when it is proven to hold the page: the window has enough rows passing the filter, and
///   no row stored before the window's oldest match sorts before the page's last row
///   (one look-up in the sort key's index). Rows arrive roughly in date order in a feed
///   reader, so the proof holds unless many old-dated rows were stored recently.
/// - ``allMatches``: every match joined to its row and sorted: for a filter few of the
///   recent matches pass (an exact title, say), where walking the index would visit every row.
enum SearchMatchSource: Equatable {
    case filter
    case recentMatches(Int)
    case allMatches

    /// The `FROM` clause that puts the matches first (its one argument: the match
    /// expression), nil for ``filter``.
    func fromClause(table: String, entity: Entity) -> String? {
        let window: String
        switch self {
        case .filter: return nil
        case .recentMatches(let n): window = " ORDER BY rowid DESC LIMIT \(n)"
        case .allMatches: window = ""
        }
        return """
            (SELECT rowid AS "r" FROM \(table) WHERE \(table) MATCH ?\(window)) m \
            CROSS JOIN \(SchemaGenerator.quote(entity.tableName)) t0 ON t0."Z_PK" = m."r"
            """
    }
}

extension FetchPlan {
    /// The first window of recent matches tried: a few pages' worth (it grows with the
    /// page's end, ×4). A page of a word matching thousands of rows then reads a few hundred
    /// of them, at any store size; at a million items a rare word's 2,000 matches were
    /// read three times (the window's size, its page, the fetch) for a page of 50.
    static let firstSearchWindow = 200
    /// The window tried when the first one does not prove the page; it grows with the
    /// page's end (×20).
    static let minimumSearchWindow = 2_000

    /// The windows of recent matches ``chooseMatchSource()`` tries for a page ending at
    /// `pageEnd` (offset + limit), smallest first.
    static func searchWindows(pageEnd: Int) -> [Int] {
        let first = max(firstSearchWindow, 4 * pageEnd)
        let second = max(minimumSearchWindow, 20 * pageEnd)
        return first < second ? [first, second] : [second]
    }

    /// The cheapest ``SearchMatchSource`` that gives this plan's page exactly: per window
    /// tried (``searchWindows(pageEnd:)``), at most three short reads (the window's size and
    /// oldest key, the window's page, one index look-up). With it, the keys of the page when
    /// reading the window's page proved it (``FetchPlan/provenPage``): the page's query then
    /// need not read the window's rows a second time.
    func chooseMatchSource() throws(ObjectGraphError) -> (source: SearchMatchSource, page: [Int64]?) {
        guard request.searchWindow == nil, let search, let expression = search.expression, !sortsByRelevance,
            ordersByIndexedKey,
            request.fetchLimit > 0, !hasPendingChanges, context.parentContext == nil,
            let first = request.sortDescriptors.first, !first.ascending
        else { return (.filter, nil) }
        let windows = Self.searchWindows(pageEnd: request.fetchOffset + request.fetchLimit)
        let table = SchemaGenerator.quote(search.table)
        let key = try ObjectPredicate.sqlKeyPathExpression(first.key, for: entity, in: context.model, alias: "t0")
        // Rows with the page's last key sort after it when the next order is the store's,
        // descending (their keys are lower than the window's).
        let descriptors = request.sortDescriptors
        let tiesComeAfter =
            descriptors.count > 1 && descriptors[1].key == ObjectSortDescriptor.storeOrderKey && !descriptors[1].ascending
        return try read { db -> (source: SearchMatchSource, page: [Int64]?) in
            for (n, window) in windows.enumerated() {
                let isLast = n == windows.count - 1
                var windowed = self
                windowed.matchSource = .recentMatches(window)
                // The page's keys with its sort key: the same query as the fetch's (matchingIDs).
                let (pageSQL, pageArguments) = windowed.selectSQL(
                    columns: "t0.\"Z_PK\", \(key)", excluding: [], applyLimit: true)
                let sizes = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*), MIN(r) FROM (SELECT rowid AS r FROM \(table) WHERE \(table) MATCH ? \
                        ORDER BY rowid DESC LIMIT \(window))
                        """, arguments: [expression])
                let count: Int = sizes?[0] ?? 0
                guard count >= window, let oldest: Int64 = sizes?[1] else { return (.recentMatches(window), nil) }
                let rows = try Row.fetchAll(db, sql: pageSQL, arguments: StatementArguments(pageArguments))
                guard rows.count >= request.fetchLimit else {
                    // Too few of the window's matches pass the filter: a larger window, else every match.
                    if isLast { return (.allMatches, nil) }
                    continue
                }
                let last: DatabaseValue = rows[rows.count - 1][1]
                guard !last.isNull else { return (.filter, nil) }
                let earlier = try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM \(SchemaGenerator.quote(entity.tableName)) t0 \
                        WHERE \(key) \(tiesComeAfter ? ">" : ">=") ? AND +t0."Z_PK" < ?)
                        """, arguments: [last, oldest])
                if earlier == false { return (.recentMatches(window), rows.map { $0[0] as Int64 }) }
            }
            return (.filter, nil)
        }
    }
}
