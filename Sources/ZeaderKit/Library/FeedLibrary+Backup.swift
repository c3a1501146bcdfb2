import Foundation
import ObjectGraph

/// Backups: every feed and item as one JSON document (`zeader export --json`), and its
/// restore (`zeader import backup.json`) through ObjectGraph's safe import.
///
/// The document is an object `{"format": "zeader-backup", "version": 2, "feeds": […],
/// "items": […]}`. A feed is `{"url", "title", "siteLink", "displayOrder", "tags",
/// "etag", "lastModified", "settings"}` (its own settings without secrets, ``BackupSettings``);
/// an item `{"feed" (its feed's url), "guid", "title", "link",
/// "author", "summary", "content", "published", "updated", "read", "flagged",
/// "firstSeen", "flagLetters", "tags", "enclosure"}` (`tags` the item's own), where `enclosure` is `null` or `{"url",
/// "type", "length", "queued", "file"}` (the podcast queue and the downloaded file's path
/// as stored). Dates are ISO 8601 in UTC, with microseconds when they have a fraction,
/// so a round trip keeps them exactly. Text is written as stored (control characters are
/// escaped, never dropped).
///
/// Version 1 (before enclosures) had no `flagLetters` and `enclosure`; it is still read, and
/// leaves those of an item already stored alone.
extension FeedLibrary {
    /// The `format` value of a backup document.
    public static let backupFormat = "zeader-backup"
    /// The `version` this program writes.
    public static let backupVersion: Int64 = 2
    /// The versions this program reads; a backup with another is refused.
    public static let readableBackupVersions: ClosedRange<Int64> = 1...backupVersion

    /// Whether `data` is a JSON object (a backup) rather than OPML or a `urls` file.
    ///
    /// ```swift
    /// if FeedLibrary.looksLikeBackup(data) { try library.restoreBackup(from: url) }
    /// ```
    public static func looksLikeBackup(_ data: Data) -> Bool {
        for byte in data.prefix(4096) {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF: continue  // white space, a UTF-8 byte order mark
            default: return byte == UInt8(ascii: "{")
            }
        }
        return false
    }

    /// Writes the backup document in pieces to `write`, feeds in the user's order, then the
    /// items oldest first (``ItemOrder/forEachPageOldestFirst(pageSize:prefetching:in:_:)``),
    /// so that a restore, which stores them in this order, keeps the order of items that share
    /// a date. Memory stays bounded: items are read 256 at a time with their contents,
    /// whatever the store's size (`scripts/bench-scale.sh`). Returns the number of feeds and
    /// items written.
    ///
    /// ```swift
    /// var json = ""
    /// let (feeds, items) = try library.exportBackup { json += $0 }
    /// ```
    @discardableResult
    public func exportBackup(batchSize: Int = 256, write: (String) -> Void) throws(ZeaderError) -> (feeds: Int, items: Int) {
        let report = try exportBackup(batchSize: batchSize, salvaging: nil, write: write)
        return (report.feeds, report.items)
    }

    /// As ``exportBackup(batchSize:write:)``, but a store found damaged (SQLite reports a
    /// malformed page) does not stop the export when `warn` is given: it is told what
    /// happened, and the rest is read straight from the tables, key range by key range,
    /// halving a range that cannot be read down to single rows, so that every row SQLite
    /// can still read is written (each once) and only unreadable ones are skipped. The
    /// document stays one valid backup that `import` restores into a new store.
    ///
    /// ```swift
    /// let report = try library.exportBackup(salvaging: { warning in print(warning) }) { json += $0 }
    /// if report.salvaged { print("skipped \(report.skippedKeys) unreadable rows") }
    /// ```
    public func exportBackup(batchSize: Int = 256, salvaging warn: ((String) -> Void)?, write: (String) -> Void)
        throws(ZeaderError) -> BackupExportReport
    {
        var report = BackupExportReport()
        /// Feeds by primary key, with their URL.
        var feeds: [(url: String, primaryKey: Int64)] = []
        let header = "{\"format\":\"\(Self.backupFormat)\",\"version\":\(Self.backupVersion),\n\"feeds\":["
        var out = header
        do {
            try withContext { context in
                let servers = try Server.findAll(sortedBy: "displayOrder,url", in: context)
                for (n, server) in servers.enumerated() {
                    out += n == 0 ? "\n" : ",\n"
                    BackupJSON.appendFeed(server, to: &out)
                    if let key = server.objectID.primaryKey { feeds.append((server.url, key)) }
                }
            }
        } catch .store(.damaged(_, let detail)) where warn != nil {
            report.salvaged = true
            warn?(Messages.salvaging(detail: detail))
            out = header
            feeds = []
            let salvage = BackupSalvage(store: store.container.store, warn: warn ?? { _ in })
            for (n, feed) in salvage.feeds(skipped: &report.skippedKeys).enumerated() {
                out += n == 0 ? "\n" : ",\n"
                BackupJSON.appendFeed(feed.feed, to: &out)
                feeds.append((feed.feed.url, feed.primaryKey))
            }
        }
        report.feeds = feeds.count
        out += feeds.isEmpty ? "],\n\"items\":[" : "\n],\n\"items\":["
        write(out)
        /// Items written before damage was found, so that the salvage writes each once.
        var written = KeyBitmap()
        if !report.salvaged {
            var urls: [Int64: String] = [:]
            for feed in feeds { urls[feed.primaryKey] = feed.url }
            let context = store.container.newBackgroundContext(name: "backup")
            do {
                try withBackgroundContext(context) { context in
                    try ItemOrder.forEachPageOldestFirst(pageSize: batchSize, prefetching: ["body"], in: context) { items in
                        var chunk = ""
                        chunk.reserveCapacity(items.count * 512)
                        for item in items {
                            guard let key = item.server?.objectID.primaryKey, let url = urls[key] else { continue }
                            chunk += report.items == 0 ? "\n" : ",\n"
                            BackupJSON.appendItem(item, feedURL: url, to: &chunk)
                            report.items += 1
                            if warn != nil, let key = item.objectID.primaryKey { written.insert(key) }
                        }
                        write(chunk)
                    }
                }
            } catch .store(.damaged(_, let detail)) where warn != nil {
                report.salvaged = true
                warn?(Messages.salvaging(detail: detail))
            }
        }
        if report.salvaged {
            var pending = ""
            let salvage = BackupSalvage(store: store.container.store, warn: warn ?? { _ in })
            var urls: [Int64: String] = [:]
            for feed in feeds { urls[feed.primaryKey] = feed.url }
            salvage.items(
                feeds: urls, excluding: written, chunkSize: Int64(max(1, batchSize)), skipped: &report.skippedKeys,
                orphans: &report.orphans
            ) { item, url in
                pending += report.items == 0 ? "\n" : ",\n"
                BackupJSON.appendItem(item, feedURL: url, to: &pending)
                report.items += 1
                if pending.utf8.count > 1 << 20 {
                    write(pending)
                    pending = ""
                }
            }
            if !pending.isEmpty { write(pending) }
        }
        write(report.items == 0 ? "]}\n" : "\n]}\n")
        return report
    }

    /// Runs `body` on `context`'s queue and waits; every error becomes a ZeaderError.
    private func withBackgroundContext<T>(_ context: ManagedObjectContext, _ body: (ManagedObjectContext) throws -> T)
        throws(ZeaderError) -> T
    {
        do {
            return try context.performAndWait { try body(context) }
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

    /// Restores the backup document in `file`: feeds are matched by url (updated from the
    /// backup, or added), items by feed and guid (updated, or added), so restoring into a
    /// store that already holds some of them makes no duplicates. The keys a backup holds
    /// (``restoredFeedKeys``, ``restoredItemKeys``) go through ObjectGraph's safe import
    /// (`importValues(from:)`); other keys are ignored, keys missing from a record leave the
    /// stored value alone. Numbers are checked where they enter: a date outside
    /// ``DateBounds`` is no date, a `displayOrder` is clamped into
    /// ``FeedSubscription/displayOrderRange``. Items are saved
    /// `batchSize` at a time by a ``BatchImporter`` whose resume marker lives in the store:
    /// a restore that was killed picks up after the last saved batch when run again on the
    /// same file.
    ///
    /// A backup is data, not the user's typing (``FeedTrust``): its command and file feeds
    /// are listed in ``BackupRestoreReport/skipped`` and left out with their items unless
    /// `allowCommands`; a feed URL that is not http(s) at all is refused the same way
    /// (``BackupRestoreReport/rejected``). A feed's settings that affect the network are
    /// restored only with `trustSettings`, a `password-command` only with `allowCommands` too
    /// (``BackupSettings``); those withheld are named in ``BackupRestoreReport/withheld``.
    ///
    /// ```swift
    /// let report = try library.restoreBackup(from: URL(fileURLWithPath: "backup.json"))
    /// print(report.itemsAdded, report.itemsUpdated)
    /// ```
    public func restoreBackup(
        from file: URL, batchSize: Int = 2_000, allowCommands: Bool = false, trustSettings: Bool = false,
        progress: ((Int) -> Void)? = nil
    ) throws(ZeaderError) -> BackupRestoreReport {
        let path = file.path
        let document: BackupDocument
        do {
            document = try BackupDocument(contentsOf: file)
        } catch let error as BackupDocument.ReadError {
            if error.isAnotherKind { throw ZeaderError.notTheFileAsked(path: path, reason: error.description) }
            throw ZeaderError.unreadableFile(path: path, reason: error.description)
        } catch {
            throw ZeaderError.unreadableFile(path: path, reason: (error as NSError).localizedDescription)
        }
        var report = BackupRestoreReport()

        // Feeds: few; one save. Items are matched to their feed by the URL as the backup
        // writes it; those of a feed left out are skipped with it.
        var feedIDs: [String: ObjectID] = [:]
        var feedsWithItems = Set<String>()
        var leftOut = Set<String>()
        try withContext { context in
            var known: [String: Server] = [:]
            for server in try Server.findAll(in: context) {
                known[server.url] = server
                if server.totalCount > 0 { feedsWithItems.insert(server.url) }
            }
            var byBackupURL: [String: Server] = [:]
            var addedHere = Set<String>()  // a feed written twice (differently) is added once
            var order = try FeedSubscription.nextDisplayOrder(in: context)
            for (position, range) in document.feeds.enumerated() {
                var record = try document.record(at: range, what: "feed \(position + 1)", path: path)
                guard case .string(let written)? = record.removeValue(forKey: "url"), !written.isEmpty else {
                    throw ZeaderError.unreadableFile(path: path, reason: "feed \(position + 1) has no \"url\"")
                }
                let url: String
                let origin: FeedOrigin
                do throws(FeedTrust.ImportRefusal) {
                    (url, origin) = try FeedTrust.importedURL(written, allowCommands: allowCommands)
                } catch {
                    let title = if case .string(let title)? = record["title"] { title } else { String?.none }
                    let line = Messages.importRefusal(
                        error, source: path, what: Messages.importEntry(title: title, url: written, outline: false))
                    if case .needsAllow = error { report.skipped.append(line) } else { report.rejected.append(line) }
                    leftOut.insert(written)
                    continue
                }
                // Where a feed came from is the store's own record, never a backup's.
                record.removeValue(forKey: "origin")
                let tags = record.removeValue(forKey: "tags")
                let settings = record.removeValue(forKey: "settings")
                let backupOrder = try Self.displayOrder(
                    record.removeValue(forKey: "displayOrder"), what: "feed \(url)", path: path)
                let server: Server
                if let existing = known[url] {
                    server = existing  // the user's current order wins
                    if !addedHere.contains(url) { report.feedsUpdated += 1 }
                } else {
                    server = context.insert(Server.self)
                    server.url = url
                    server.origin = origin
                    server.displayOrder = backupOrder ?? order
                    order += 1
                    known[url] = server
                    addedHere.insert(url)
                    report.feedsAdded += 1
                }
                byBackupURL[written] = server
                if case .string(let site)? = record["siteLink"], FeedTrust.webURL(site) == nil {
                    record["siteLink"] = .null
                }
                try importRecord(
                    record.filter { Self.restoredFeedKeys.contains($0.key) }, into: server, what: "feed \(url)", path: path)
                switch tags {
                case nil: break
                case .null?: server.tags = nil
                case .array(let values)?:
                    server.tags = FeedTags.normalized(values.compactMap { if case .string(let s) = $0 { s } else { nil } })
                case let other?:
                    throw ZeaderError.unreadableFile(
                        path: path, reason: "feed \(url): \"tags\" is \(other), not an array of strings")
                }
                if let line = try Self.restoreSettings(
                    settings, on: server, url: url, trust: .init(network: trustSettings, commands: allowCommands), path: path)
                {
                    report.withheld.append(line)
                }
                order = max(order, FeedSubscription.displayOrder(after: server.displayOrder))
            }
            try context.save()
            for (url, server) in known { feedIDs[url] = server.objectID }
            for (written, server) in byBackupURL { feedIDs[written] = server.objectID }
        }

        // Items: batched and resumable.
        let importer = BatchImporter(
            container: store.container, name: "zeader.restore:\(path):\(document.byteCount)", batchSize: batchSize)
        do {
            if try importer.marker()?.isFinished == true { try importer.discardMarker() }
        } catch {
            throw ZeaderError.wrapping(error)
        }
        var added = 0
        var updated = 0
        var seen = SeenItemKeys()
        var skippedItems = 0
        let result: BatchImporter.Result
        do {
            // A resumed restore finds its own earlier batches in the store: look items up.
            let resuming = (try importer.marker()?.savedRecords ?? 0) > 0
            result = try importer.run(document.items.enumerated(), progress: progress) { element, context in
                let (position, range) = element
                var record = try document.record(at: range, what: "item \(position + 1)", path: path)
                // From version 4 the content lives in the item's body, not among its attributes.
                let content = record.removeValue(forKey: "content")
                let itemTags = record.removeValue(forKey: "tags")
                if case .string(let feedURL)? = record["feed"], leftOut.contains(feedURL), feedIDs[feedURL] == nil {
                    skippedItems += 1
                    return
                }
                let feed = record.removeValue(forKey: "feed")
                guard case .string(let feedURL)? = feed, let feedID = feedIDs[feedURL] else {
                    throw ZeaderError.unreadableFile(
                        path: path,
                        reason:
                            "item \(position + 1) names no feed the backup lists (\"feed\": \(feed?.description ?? "missing"))"
                    )
                }
                guard case .string(let guid)? = record["guid"], !guid.isEmpty else {
                    throw ZeaderError.unreadableFile(path: path, reason: "item \(position + 1) has no \"guid\"")
                }
                // A fault: no query until it is needed (the feed exists, it was saved above).
                guard let server = context.object(with: feedID) as? Server else {
                    throw ZeaderError.notAFeedInStore(feedURL)
                }
                var item: FeedItem?
                let repeated = seen.insert(feed: feedURL, guid: guid)
                if resuming || repeated || feedsWithItems.contains(feedURL) {
                    item = try context.fetch(
                        FetchRequest<FeedItem>(
                            predicate: .comparison(
                                .keyPath("server"), .equalTo,
                                .objectReference(entity: "Server", rawValue: feedID.primaryKey ?? -1))
                                && .comparison(.keyPath("guid"), .equalTo, .constant(.string(guid))),
                            // Saved items only, unless this run met the item before: looking
                            // through this batch's inserts costs O(batch) per item.
                            fetchLimit: 1, includesPendingChanges: repeated)
                    ).first
                }
                let enclosure = try BackupEnclosure(
                    record.removeValue(forKey: "enclosure"), what: "item \(position + 1)", path: path)
                record = Self.restoredItemRecord(record)
                if let item {
                    updated += 1
                    try importRecord(record, into: item, what: "item \(position + 1)", path: path)
                } else {
                    let new = context.insert(FeedItem.self)
                    try importRecord(record, into: new, what: "item \(position + 1)", path: path)
                    new.server = server
                    item = new
                    added += 1
                }
                if let item { enclosure.apply(to: item) }
                if let item {
                    switch content {
                    case .string(let html)?: item.content = html
                    case .null?: item.content = nil
                    case nil: break
                    case let other?:
                        throw ZeaderError.unreadableFile(
                            path: path, reason: "item \(position + 1): \"content\" is \(other), not a string")
                    }
                    switch itemTags {
                    case nil: break
                    case .null?: if item.tags != nil { item.tags = nil }
                    case .array(let values)?:
                        let tags = FeedTags.normalized(values.compactMap { if case .string(let s) = $0 { s } else { nil } })
                        if item.tags != tags { item.tags = tags }
                    case let other?:
                        throw ZeaderError.unreadableFile(
                            path: path, reason: "item \(position + 1): \"tags\" is \(other), not an array of strings")
                    }
                    Self.dropDatesOutOfBounds(of: item)
                    let sortDate = item.published ?? item.updated ?? item.firstSeen
                    if item.sortDate != sortDate { item.sortDate = sortDate }
                }
            }
            try importer.discardMarker()
        } catch {
            throw ZeaderError.wrapping(error)
        }
        report.itemsAdded = added
        report.itemsUpdated = updated
        report.itemsSkipped = skippedItems
        report.resumedAfter = result.resumedAfter
        store.checkpoint()
        return report
    }

    // MARK: - What a restore takes from a record

    /// Restores a backup feed record's `settings` (a string, ``BackupSettings``) on `server`;
    /// returns the report's line naming the settings withheld, if any. Settings that cannot
    /// be read leave the feed's alone and say so.
    static func restoreSettings(
        _ value: ImportValue?, on server: Server, url: String, trust: BackupSettings.Trust, path: String
    ) throws(ZeaderError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?:
            do throws(FeedSettingsError) {
                let (settings, withheld) = try BackupSettings.restored(text, over: server.settings, trust: trust)
                FeedSettingsEditing.replace(on: server, with: settings)
                return withheld.isEmpty ? nil : Messages.backupSettingsWithheld(url: url, withheld)
            } catch {
                return Messages.feedSettingsKept(url: url, error)
            }
        case let other?:
            throw ZeaderError.unreadableFile(path: path, reason: "feed \(url): \"settings\" is \(other), not a string")
        }
    }

    /// The keys of a backup's feed records that go through the safe import (`url` and `tags`
    /// are read apart): what ``exportBackup(batchSize:write:)`` writes. Every other attribute
    /// of Server (sync state, Retry-After, errors, counts) is the store's own and never comes
    /// from a file.
    static let restoredFeedKeys: Set<String> = ["title", "siteLink", "etag", "lastModified"]

    /// The keys of a backup's item records that go through the safe import (`feed`,
    /// `content` and `enclosure` are read apart), as for feeds.
    static let restoredItemKeys: Set<String> = [
        "guid", "title", "link", "author", "summary", "published", "updated", "read", "flagged", "firstSeen", "flagLetters",
    ]

    /// The attributes dates go to, checked against ``DateBounds``.
    static let restoredDateKeys = ["published", "updated", "firstSeen"]

    /// An item record with only ``restoredItemKeys``, and a number given for a date that lies
    /// outside ``DateBounds`` (or is not finite) made `null`: no date, as a feed's would be.
    static func restoredItemRecord(_ record: [String: ImportValue]) -> [String: ImportValue] {
        var kept = record.filter { restoredItemKeys.contains($0.key) }
        for key in restoredDateKeys {
            switch kept[key] {
            case .integer(let seconds)? where DateBounds.date(secondsSince1970: TimeInterval(seconds)) == nil:
                kept[key] = .null
            case .double(let seconds)? where DateBounds.date(secondsSince1970: seconds) == nil:
                kept[key] = .null
            default: break
            }
        }
        return kept
    }

    /// Clears the dates of `item` that lie outside ``DateBounds`` (a text date such as
    /// `0000-01-01T00:00:00-01:00` reads as one).
    static func dropDatesOutOfBounds(of item: FeedItem) {
        if let date = item.published, !DateBounds.contains(date) { item.published = nil }
        if let date = item.updated, !DateBounds.contains(date) { item.updated = nil }
        if let date = item.firstSeen, !DateBounds.contains(date) { item.firstSeen = nil }
    }

    /// A feed's `displayOrder` from a backup, clamped into
    /// ``FeedSubscription/displayOrderRange``; nil when the record has none.
    static func displayOrder(_ value: ImportValue?, what: String, path: String) throws(ZeaderError) -> Int64? {
        let range = FeedSubscription.displayOrderRange
        var number: Double?
        switch value {
        case nil, .null?: return nil
        case .integer(let n)?: return min(max(n, range.lowerBound), range.upperBound)
        case .double(let d)?: number = d
        case .string(let s)?:
            let text = s.trimmingCharacters(in: .whitespaces)
            if let n = Int64(text) { return min(max(n, range.lowerBound), range.upperBound) }
            number = Double(text)
        default: break
        }
        guard let number, !number.isNaN else {
            throw ZeaderError.unreadableFile(
                path: path, reason: "\(what): \"displayOrder\" is \(value?.description ?? "missing"), not a number")
        }
        return Int64(min(max(number.rounded(.down), Double(range.lowerBound)), Double(range.upperBound)))
    }

    /// Safe import of one record, with errors naming the file and the record.
    private func importRecord(_ record: [String: ImportValue], into object: ManagedObject, what: String, path: String)
        throws(ZeaderError)
    {
        do {
            try object.importValues(from: record)
        } catch {
            throw ZeaderError.unreadableFile(path: path, reason: "\(what): \(error)")
        }
    }
}
