import Foundation
import GRDB
import ObjectGraph

/// What ``FeedLibrary/exportBackup(batchSize:salvaging:write:)`` wrote.
///
/// ```swift
/// let report = try library.exportBackup(salvaging: { print($0) }) { json += $0 }
/// print(report.feeds, report.items, report.skippedKeys)
/// ```
public struct BackupExportReport: Sendable, Equatable {
    public var feeds = 0
    public var items = 0
    /// Whether the store turned out to be damaged, so that the rest was salvaged.
    public var salvaged = false
    /// How many row keys could not be read (some may have been free keys, never rows).
    public var skippedKeys: Int64 = 0
    /// Items whose feed could not be read (a backup item must name its feed): left out.
    public var orphans = 0

    public init() {}
}

/// Reads a damaged store's feeds and items straight from their tables, by ranges of row
/// keys (`Z_PK`, the table's b-tree), never through an index (an index page may be the
/// damaged one): a range that cannot be read is halved until single rows remain, and a row
/// that still cannot be read is skipped with a warning naming its key range. Used only by
/// the salvaging export; a sound store is exported through ObjectGraph.
///
/// It reads the tables ObjectGraph keeps for ``ZeaderModel`` (one row per object, one column
/// per attribute, to-one relationships as the target's key) without going through a context,
/// as ``SearchIndex`` does: a context's fetch stops at the first malformed page.
struct BackupSalvage {
    let database: any DatabaseWriter
    let warn: (String) -> Void

    /// The highest key in use in `table`, from whichever of the table and ObjectGraph's
    /// key allocator can still be read; 0 when neither can.
    func highestKey(table: String) -> Int64 {
        let fromTable = try? database.read { db in try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \"\(table)\"") }
        let fromAllocator = try? database.read { db in
            try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM \"Z_PRIMARYKEY\" WHERE Z_ENTITY = ?", arguments: [table])
        }
        return max((fromTable ?? nil) ?? 0, (fromAllocator ?? nil) ?? 0)
    }

    /// Every readable row of `table` with its key in `1...highestKey`, in key order, `chunk`
    /// keys per read; unreadable keys are counted in `skipped` and warned about, one line per
    /// run of adjacent keys.
    func rows(table: String, columns: String, chunk: Int64, skipped: inout Int64, _ body: (Row) -> Void) {
        let last = highestKey(table: table)
        guard last > 0 else { return }
        var unreadable: (range: ClosedRange<Int64>, detail: String)?
        func flushUnreadable() {
            guard let run = unreadable else { return }
            warn(Messages.skippedRows(table: table, keys: run.range, detail: run.detail))
            unreadable = nil
        }
        var start: Int64 = 1
        while start <= last {
            let end = min(last, start + chunk - 1)
            var pending: [ClosedRange<Int64>] = [start...end]
            while let range = pending.popLast() {
                do {
                    let rows = try database.read { db in
                        try Row.fetchAll(
                            db, sql: "SELECT \(columns) FROM \"\(table)\" WHERE Z_PK BETWEEN ? AND ? ORDER BY Z_PK",
                            arguments: [range.lowerBound, range.upperBound])
                    }
                    if !rows.isEmpty { flushUnreadable() }
                    rows.forEach(body)
                } catch {
                    if range.count > 1 {
                        let middle = range.lowerBound + (range.upperBound - range.lowerBound) / 2
                        pending.append((middle + 1)...range.upperBound)
                        pending.append(range.lowerBound...middle)
                        continue
                    }
                    skipped += 1
                    let detail = (error as? DatabaseError)?.message ?? "\(error)"
                    if let run = unreadable, run.range.upperBound + 1 == range.lowerBound {
                        unreadable = (run.range.lowerBound...range.upperBound, run.detail)
                    } else {
                        flushUnreadable()
                        unreadable = (range, detail)
                    }
                }
            }
            if end == last { break }
            start = end + 1
        }
        flushUnreadable()
    }

    /// The readable feeds, in the user's order.
    func feeds(skipped: inout Int64) -> [(feed: BackupJSON.Feed, primaryKey: Int64)] {
        var feeds: [(feed: BackupJSON.Feed, primaryKey: Int64)] = []
        rows(
            table: "Server", columns: "Z_PK, url, title, siteLink, displayOrder, tags, etag, lastModified", chunk: 500,
            skipped: &skipped
        ) { row in
            guard let url: String = row["url"], !url.isEmpty else { return }
            let feed = BackupJSON.Feed(
                url: url, title: row["title"], siteLink: row["siteLink"], displayOrder: row["displayOrder"] ?? 0,
                tags: row["tags"], etag: row["etag"], lastModified: row["lastModified"])
            feeds.append((feed, row["Z_PK"]))
        }
        return feeds.sorted { ($0.feed.displayOrder, $0.feed.url) < ($1.feed.displayOrder, $1.feed.url) }
    }

    /// The readable items of the feeds `feeds` (key → URL) whose keys are not in
    /// `excluding`, in key order; items of unreadable feeds are counted in `orphans`.
    func items(
        feeds: [Int64: String], excluding: Set<Int64>, chunkSize: Int64, skipped: inout Int64, orphans: inout Int,
        _ body: (BackupJSON.Item, String) -> Void
    ) {
        var orphanCount = 0
        rows(
            table: "FeedItem",
            columns: "Z_PK, server, guid, title, link, author, summary, content, published, updated, read, flagged, firstSeen",
            chunk: chunkSize, skipped: &skipped
        ) { row in
            let key: Int64 = row["Z_PK"]
            guard !excluding.contains(key), let guid: String = row["guid"] else { return }
            guard let server: Int64 = row["server"], let url = feeds[server] else {
                orphanCount += 1
                return
            }
            func date(_ column: String) -> Date? { (row[column] as Double?).map { Date(timeIntervalSince1970: $0) } }
            let item = BackupJSON.Item(
                guid: guid, title: row["title"], link: row["link"], author: row["author"], summary: row["summary"],
                content: row["content"], published: date("published"), updated: date("updated"),
                read: (row["read"] as Int64? ?? 0) != 0, flagged: (row["flagged"] as Int64? ?? 0) != 0,
                firstSeen: date("firstSeen"))
            body(item, url)
        }
        orphans += orphanCount
        if orphanCount > 0 { warn(Messages.orphanItems(orphanCount)) }
    }
}
