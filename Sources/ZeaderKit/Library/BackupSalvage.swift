import Foundation
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

/// Reads a damaged store's feeds and items through ObjectGraph's salvage reader
/// (``PersistentStore/salvageObjects(of:chunk:skipped:unreadable:_:)``: rows by ranges of
/// keys, never through an index, unreadable rows skipped), because a context's fetch stops
/// at the first malformed page. Used only by the salvaging export; a sound store is
/// exported through contexts.
struct BackupSalvage {
    let store: PersistentStore
    let warn: (String) -> Void

    /// Every readable object of `entity`, `chunk` keys per read; unreadable keys are counted
    /// in `skipped` and warned about, one line per run of adjacent keys.
    private func objects(
        _ entity: String, keys: ClosedRange<Int64>? = nil, chunk: Int64, skipped: inout Int64,
        _ body: (SalvagedObject) -> Void
    ) {
        do {
            try store.salvageObjects(
                of: entity, keys: keys, chunk: chunk, skipped: &skipped,
                unreadable: { keys, detail in warn(Messages.skippedRows(table: entity, keys: keys, detail: detail)) }, body)
        } catch {
            warn(Messages.skippedRows(table: entity, keys: 1...1, detail: "\(error)"))
        }
    }

    /// The readable feeds, in the user's order.
    func feeds(skipped: inout Int64) -> [(feed: BackupJSON.Feed, primaryKey: Int64)] {
        var feeds: [(feed: BackupJSON.Feed, primaryKey: Int64)] = []
        objects("Server", chunk: 500, skipped: &skipped) { object in
            let v = object.values
            guard case .string(let url)? = v["url"], !url.isEmpty else { return }
            let feed = BackupJSON.Feed(
                url: url, title: v["title"]?.stringValue, siteLink: v["siteLink"]?.stringValue,
                displayOrder: v["displayOrder"]?.int64Value ?? 0, tags: v["tags"]?.stringValue,
                etag: v["etag"]?.stringValue, lastModified: v["lastModified"]?.stringValue)
            feeds.append((feed, object.primaryKey))
        }
        return feeds.sorted { ($0.feed.displayOrder, $0.feed.url) < ($1.feed.displayOrder, $1.feed.url) }
    }

    /// The readable items of the feeds `feeds` (key → URL) whose keys are not in
    /// `excluding`, in key order; items of unreadable feeds are counted in `orphans`.
    func items(
        feeds: [Int64: String], excluding: KeyBitmap, chunkSize: Int64, skipped: inout Int64, orphans: inout Int,
        _ body: (BackupJSON.Item, String) -> Void
    ) {
        var orphanCount = 0
        // Items wait in a batch for their contents (model version 4 keeps them in FeedItemBody
        // rows), read by the range of the batch's body keys; an unreadable one is left out.
        var batch: [(item: BackupJSON.Item, url: String, body: Int64?)] = []
        var bodiesSkipped: Int64 = 0
        func flush() {
            let keys = batch.compactMap(\.body)
            var contents: [Int64: String] = [:]
            if let low = keys.min(), let high = keys.max() {
                let wanted = Set(keys)
                // Keys far apart are read one by one rather than through the rows between them.
                let ranges = high - low < Int64(keys.count) * 4 ? [low...high] : keys.sorted().map { $0...$0 }
                for range in ranges {
                    objects("FeedItemBody", keys: range, chunk: chunkSize, skipped: &bodiesSkipped) { object in
                        if wanted.contains(object.primaryKey), let html = object.values["content"]?.stringValue {
                            contents[object.primaryKey] = html
                        }
                    }
                }
            }
            for var entry in batch {
                entry.item.content = entry.body.flatMap { contents[$0] }
                body(entry.item, entry.url)
            }
            batch.removeAll(keepingCapacity: true)
        }
        objects("FeedItem", chunk: chunkSize, skipped: &skipped) { object in
            let v = object.values
            guard !excluding.contains(object.primaryKey), let guid = v["guid"]?.stringValue else { return }
            guard let server = v["server"]?.int64Value, let url = feeds[server] else {
                orphanCount += 1
                return
            }
            let item = BackupJSON.Item(
                guid: guid, title: v["title"]?.stringValue, link: v["link"]?.stringValue,
                author: v["author"]?.stringValue, summary: v["summary"]?.stringValue,
                content: nil, published: v["published"]?.dateValue,
                updated: v["updated"]?.dateValue, read: v["read"]?.boolValue ?? false,
                flagged: v["flagged"]?.boolValue ?? false, firstSeen: v["firstSeen"]?.dateValue,
                flagLetters: v["flagLetters"]?.stringValue,
                enclosure: v["enclosureURL"]?.stringValue.map { url in
                    EnclosureSummary(
                        url: url, type: v["enclosureType"]?.stringValue, length: v["enclosureLength"]?.int64Value,
                        queued: v["enclosureQueued"]?.boolValue ?? false, file: v["enclosureFile"]?.stringValue)
                })
            batch.append((item, url, v["body"]?.int64Value))
            if batch.count >= Int(max(chunkSize, 1)) { flush() }
        }
        flush()
        skipped += bodiesSkipped
        orphans += orphanCount
        if orphanCount > 0 { warn(Messages.orphanItems(orphanCount)) }
    }
}

extension Value {
    fileprivate var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    fileprivate var int64Value: Int64? {
        switch self {
        case .integer(let n): return n
        case .double(let d) where d.isFinite && abs(d) < 9.0e15: return Int64(d)
        default: return nil
        }
    }
    fileprivate var boolValue: Bool? {
        switch self {
        case .bool(let b): return b
        case .integer(let n): return n != 0
        default: return nil
        }
    }
    fileprivate var dateValue: Date? {
        if case .date(let d) = self { return d }
        return nil
    }
}
