import Foundation
import ObjectGraph

/// newsboat's SQLite cache (`cache.db`, newsboat 2.x), read-only: its feeds (`rss_feed`)
/// and items (`rss_item`), in ranges of item ids so that a large cache is read a part at a
/// time. Columns that older newsboat versions lack (`flags`, `deleted`, `enclosure_url`…)
/// read as empty.
///
/// ```swift
/// let cache = try NewsboatCache(at: URL(fileURLWithPath: "cache.db"))
/// for range in try cache.itemRanges(size: 500) { for item in try cache.items(in: range) { print(item.guid) } }
/// ```
struct NewsboatCache {
    /// One row of `rss_feed`.
    struct Feed: Equatable {
        /// The feed's URL (`rssurl`): what newsboat fetches, and what items name as `feedurl`.
        var url: String
        /// The site's link (`url`).
        var siteLink: String?
        var title: String?
    }

    /// One row of `rss_item`.
    struct Item: Equatable {
        var id: Int64
        var guid: String
        var title: String?
        var author: String?
        var link: String?
        var feedURL: String
        var published: Date?
        /// HTML.
        var content: String?
        var unread: Bool
        var enclosureURL: String?
        var enclosureType: String?
        /// newsboat's flag letters (A–Z, a–z), nil when none.
        var flags: String?
        var deleted: Bool
    }

    let path: String
    private let database: ForeignDatabase
    /// The expression read for each optional column: the column, or a constant when absent.
    private let itemColumns: String

    /// The cache at `url`: a file SQLite can open that has newsboat's tables, else
    /// ``ZeaderError/unreadableFile(path:reason:)``.
    init(at url: URL) throws(ZeaderError) {
        path = url.path
        do {
            database = try ForeignDatabase(readingAt: url)
            let tables = try database.tableNames()
            guard tables.contains("rss_feed"), tables.contains("rss_item") else {
                throw ZeaderError.notTheFileAsked(
                    path: url.path, reason: "an SQLite database, but not a newsboat cache (no rss_feed and rss_item tables)")
            }
            let columns = try database.columnNames(of: "rss_item")
            let required = ["id", "guid", "title", "author", "url", "feedurl", "pubDate", "content", "unread"]
            if let missing = required.first(where: { !columns.contains($0) }) {
                throw ZeaderError.unreadableFile(
                    path: url.path, reason: "newsboat cache without the rss_item column '\(missing)'")
            }
            func optional(_ name: String, _ absent: String) -> String { columns.contains(name) ? name : absent }
            itemColumns =
                "id, guid, title, author, url, feedurl, pubDate, content, unread, "
                + [
                    optional("enclosure_url", "NULL"), optional("enclosure_type", "NULL"), optional("flags", "NULL"),
                    optional("deleted", "0"),
                ].joined(separator: ", ")
        } catch let error as ZeaderError {
            throw error
        } catch {
            throw Self.error(error, path: url.path)
        }
    }

    /// Whether `data` starts like an SQLite database file.
    static func looksLikeSQLite(_ data: Data) -> Bool {
        data.starts(with: Array("SQLite format 3\u{0}".utf8))
    }

    /// The feeds, in the order newsboat first stored them.
    func feeds() throws(ZeaderError) -> [Feed] {
        try rows("SELECT rssurl, url, title FROM rss_feed ORDER BY rowid").compactMap { row in
            guard let url = Self.text(row[0]) else { return nil }
            return Feed(url: url, siteLink: Self.text(row[1]), title: Self.text(row[2]).map(Self.repairedText))
        }
    }

    /// The links that newsboat's name of more than one item of a feed starts with. newsboat
    /// names an item without a guid by its link (followed by its date, when it has one), so
    /// the import may name it by its link alone, as a refresh looks it up, only where that
    /// link is the item's own.
    ///
    /// ```swift
    /// let shared = try cache.sharedLinks()   // [feed URL: links]
    /// ```
    func sharedLinks() throws(ZeaderError) -> [String: Set<String>] {
        var shared: [String: Set<String>] = [:]
        let sql = """
            SELECT feedurl, url FROM rss_item WHERE url != '' AND substr(guid, 1, length(url)) = url
            GROUP BY feedurl, url HAVING count(*) > 1
            """
        for row in try rows(sql) {
            if let feed = Self.text(row[0]), let link = Self.text(row[1]) { shared[feed, default: []].insert(link) }
        }
        return shared
    }

    /// The number of items.
    func itemCount() throws(ZeaderError) -> Int {
        if case .integer(let n)? = try rows("SELECT count(*) FROM rss_item").first?.first { return Int(n) }
        return 0
    }

    /// The item ids split into consecutive ranges of `size` items, in id order: the same
    /// ranges each time for the same file, which lets an interrupted import resume.
    func itemRanges(size: Int) throws(ZeaderError) -> [ClosedRange<Int64>] {
        var ids: [Int64] = []
        do {
            try database.forEachRow("SELECT id FROM rss_item ORDER BY id") { row in
                if case .integer(let id) = row[0] { ids.append(id) }
            }
        } catch {
            throw Self.error(error, path: path)
        }
        return stride(from: 0, to: ids.count, by: max(1, size)).map { start in
            ids[start]...ids[min(ids.count, start + max(1, size)) - 1]
        }
    }

    /// The items whose ids are in `range`, in id order.
    func items(in range: ClosedRange<Int64>) throws(ZeaderError) -> [Item] {
        try rows(
            "SELECT \(itemColumns) FROM rss_item WHERE id BETWEEN ? AND ? ORDER BY id",
            [.integer(range.lowerBound), .integer(range.upperBound)]
        ).compactMap { row in
            guard case .integer(let id) = row[0], let guid = Self.text(row[1]), let feedURL = Self.text(row[5]) else {
                return nil
            }
            // newsboat writes 0 for no date; a date past ``DateBounds`` is none either.
            let published: Date?
            switch row[6] {
            case .integer(let seconds) where seconds > 0: published = DateBounds.date(secondsSince1970: TimeInterval(seconds))
            case .double(let seconds) where seconds > 0: published = DateBounds.date(secondsSince1970: seconds)
            default: published = nil
            }
            let storedTitle = Self.text(row[2])
            let title = storedTitle.map(Self.repairedText)
            let link = Self.text(row[4])
            // newsboat names an item without a guid or link by its title: the repaired title
            // is what a refresh's parser reads, so it is the name to keep.
            let isTitleName = link == nil && guid == storedTitle
            return Item(
                id: id, guid: isTitleName ? title ?? guid : guid, title: title, author: Self.text(row[3]).map(Self.repairedText),
                link: link, feedURL: feedURL, published: published, content: Self.text(row[7]).map(Self.repairedText),
                unread: Self.flag(row[8]), enclosureURL: Self.text(row[9]), enclosureType: Self.text(row[10]),
                flags: Self.text(row[11]), deleted: Self.flag(row[12]))
        }
    }

    // MARK: - Non public

    private func rows(_ sql: String, _ arguments: [Value] = []) throws(ZeaderError) -> [[Value]] {
        do {
            return try database.rows(sql, arguments)
        } catch {
            throw Self.error(error, path: path)
        }
    }

    private static func error(_ error: any Error, path: String) -> ZeaderError {
        if let graph = error as? ObjectGraphError {
            switch graph {
            case .notADatabase, .damaged: return .unreadableFile(path: path, reason: "not an SQLite database (or a damaged one)")
            case .sqlite(_, let message, _): return .unreadableFile(path: path, reason: message)
            default: return .unreadableFile(path: path, reason: graph.description)
            }
        }
        return .unreadableFile(path: path, reason: String(describing: error))
    }

    /// Non-empty text (newsboat stores "" for a missing value), else nil.
    private static func text(_ value: Value) -> String? {
        switch value {
        case .string(let s): return s.isEmpty ? nil : s
        case .integer(let n): return String(n)
        default: return nil
        }
    }

    private static func flag(_ value: Value) -> Bool {
        switch value {
        case .integer(let n): return n != 0
        case .string(let s): return s == "1"
        default: return false
        }
    }
}
