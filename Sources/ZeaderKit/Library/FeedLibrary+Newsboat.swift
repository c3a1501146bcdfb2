import Feeds
import Foundation
import ObjectGraph

/// Coming from newsboat: `zeader import cache.db [--urls urls]` brings newsboat's feeds,
/// items, read state, flags and deletions into the store.
///
/// - Feeds: those of the `urls` file when one is given (in its order, with its tags and
///   `~titles`), else every feed of the cache; a feed already subscribed gains the file's
///   tags. A urls file is the user's own: its `exec:`, `filter:` and `file:` feeds are
///   subscribed, each with a note; without one, the cache's own list is data (``FeedTrust``),
///   so its command and file feeds are listed in ``NewsboatImportReport/skipped`` and left
///   out unless `allowCommands`. `query:` feeds are left out with a note.
/// - Items: matched by feed and guid. A new item is stored read or unread as newsboat had
///   it, flagged when it had any flag letter (the letters are kept in `flagLetters`). An
///   item already stored keeps its state; newsboat's read and flags are added to it.
/// - Deleted items (`deleted = 1`) are not stored: their guids become tombstones
///   (``RemovedItem``), so no refresh brings them back; a stored copy is removed.
/// - Items are saved in batches by a ``BatchImporter`` whose marker names the file, its
///   size and modification time: an import that was killed resumes after its last batch;
///   a finished one runs again from the top, changing nothing (twice = once).
extension FeedLibrary {
    /// Whether `data` (a file's first bytes are enough) is an SQLite database: the
    /// import then reads it as a newsboat cache.
    ///
    /// ```swift
    /// if FeedLibrary.looksLikeSQLite(data) { try library.importNewsboatCache(from: url) }
    /// ```
    public static func looksLikeSQLite(_ data: Data) -> Bool {
        NewsboatCache.looksLikeSQLite(data)
    }

    /// Imports newsboat's cache at `cacheFile`, with its `urls` file when given (see the
    /// type's notes). `progress` is told, after each saved batch, how many of the cache's
    /// items are done and how many there are.
    ///
    /// ```swift
    /// let report = try library.importNewsboatCache(from: cacheURL, urls: urlsURL) { done, total in print(done, total) }
    /// print(report.itemsAdded, report.itemsDeleted)
    /// ```
    public func importNewsboatCache(
        from cacheFile: URL, urls urlsFile: URL? = nil, batchSize: Int = 2_000, allowCommands: Bool = false,
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws(ZeaderError) -> NewsboatImportReport {
        let cache = try NewsboatCache(at: cacheFile)
        var report = NewsboatImportReport()
        let (feedIDs, feedsWithItems) = try importNewsboatFeeds(
            cache, urlsFile: urlsFile, allowCommands: allowCommands, report: &report)

        let chunkSize = 1_000
        let ranges = try cache.itemRanges(size: chunkSize)
        let total = try cache.itemCount()
        let attributes = try? FileManager.default.attributesOfItem(atPath: cacheFile.path)
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        let modified = Int64((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        let importer = BatchImporter(
            container: store.container, name: "zeader.newsboat:\(cacheFile.path):\(size):\(modified)",
            batchSize: max(1, batchSize / chunkSize))
        var counts = NewsboatItemCounts()
        var seen = SeenItemKeys()
        let sharedLinks = try cache.sharedLinks()
        let result: BatchImporter.Result
        do {
            if try importer.marker()?.isFinished == true { try importer.discardMarker() }
            let resuming = (try importer.marker()?.savedRecords ?? 0) > 0
            let now = Date()
            result = try importer.run(
                ranges,
                progress: { chunks in progress?(min(total, chunks * chunkSize), total) }
            ) { range, context in
                let items = try cache.items(in: range)
                try Self.importNewsboatItems(
                    items, feedIDs: feedIDs, sharedLinks: sharedLinks, lookUp: { resuming || feedsWithItems.contains($0) },
                    seen: &seen, now: now,
                    in: context, counts: &counts)
            }
            try importer.discardMarker()
        } catch {
            throw ZeaderError.wrapping(error)
        }
        progress?(total, total)
        report.items = counts
        report.resumedAfterItems = min(total, result.resumedAfter * chunkSize)
        store.checkpoint()
        return report
    }

    // MARK: - Feeds

    /// Subscribes to the cache's feeds (or the urls file's) and saves; returns the feeds by
    /// newsboat's URL and the URLs of feeds subscribed before (whose items and tombstones
    /// must be looked up rather than inserted blindly).
    private func importNewsboatFeeds(
        _ cache: NewsboatCache, urlsFile: URL?, allowCommands: Bool, report: inout NewsboatImportReport
    )
        throws(ZeaderError) -> (feedIDs: [String: ObjectID], feedsWithItems: Set<String>)
    {
        let cacheFeeds = try cache.feeds()
        var byURL: [String: NewsboatCache.Feed] = [:]
        for feed in cacheFeeds { byURL[feed.url] = feed }
        var wanted: [OPMLSubscription] = []
        var queryFeeds: [SubscriptionImport.QueryFeed] = []
        // Only a urls file is the user's own list; one given (or found) that is OPML is data.
        var isUsersList = false
        var usersText: String?
        if let urlsFile {
            let list: SubscriptionImport
            do {
                let data = try Data(contentsOf: urlsFile)
                list = try SubscriptionImport.read(data: data, source: urlsFile.path)
                if list.format == .newsboatURLs { usersText = String(decoding: data, as: UTF8.self) }
            } catch {
                throw ZeaderError.unreadableFile(path: urlsFile.path, reason: (error as NSError).localizedDescription)
            }
            report.notes += list.notes + list.rejected
            isUsersList = list.format == .newsboatURLs
            queryFeeds = list.queryFeeds
            wanted = list.subscriptions.map { subscription in
                var subscription = subscription
                let cached = byURL[subscription.url]
                if subscription.title == nil { subscription.title = cached?.title }
                if subscription.siteLink == nil { subscription.siteLink = cached?.siteLink }
                return subscription
            }
            let listed = Set(wanted.map(\.url))
            let unlisted = cacheFeeds.filter { !listed.contains($0.url) }.count
            if unlisted > 0 {
                report.notes.append(
                    "\(cache.path): \(unlisted) feed\(unlisted == 1 ? " is" : "s are") in the cache but not in \(urlsFile.path): not imported"
                )
            }
        } else {
            wanted = cacheFeeds.map { OPMLSubscription(url: $0.url, title: $0.title, siteLink: $0.siteLink, categories: []) }
        }

        var feedIDs: [String: ObjectID] = [:]
        var feedsWithItems = Set<String>()
        try withContext { context in
            var known: [String: Server] = [:]
            for server in try Server.findAll(in: context) { known[server.url] = server }
            var order = try FeedSubscription.nextDisplayOrder(in: context)
            var servers: [String: Server] = [:]  // by newsboat's URL
            for subscription in wanted {
                let url: String
                let origin: FeedOrigin
                if isUsersList {
                    do {
                        url = try FeedSubscription.validatedURL(subscription.url)
                    } catch {
                        report.notes.append("\(cache.path): feed not imported: \(error)")
                        continue
                    }
                    origin = .urlsFile
                } else {
                    do throws(FeedTrust.ImportRefusal) {
                        (url, origin) = try FeedTrust.importedURL(subscription.url, allowCommands: allowCommands)
                    } catch {
                        let line = Messages.importRefusal(
                            error, source: cache.path,
                            what: Messages.importEntry(title: subscription.title, url: subscription.url, outline: false))
                        if case .needsAllow = error { report.skipped.append(line) } else { report.notes.append(line) }
                        continue
                    }
                }
                if let existing = known[url] {
                    let merged = FeedTags.normalized(FeedTags.list(existing.tags) + subscription.categories)
                    if merged != existing.tags { existing.tags = merged }
                    // A feed subscribed from the urls file alone has no title yet: the cache knows it.
                    if existing.title?.isEmpty ?? true, let title = subscription.title.map(HTMLText.sanitizedLine),
                        !title.isEmpty
                    {
                        existing.title = title
                    }
                    feedsWithItems.insert(subscription.url)  // it may hold items or tombstones
                    servers[subscription.url] = existing
                    report.feedsAlreadySubscribed += 1
                    continue
                }
                let server = context.insert(Server.self)
                server.url = url
                server.origin = origin
                if let title = subscription.title.map(HTMLText.sanitizedLine), !title.isEmpty { server.title = title }
                server.siteLink = subscription.siteLink.map(HTMLText.sanitizedLine)
                server.tags = FeedTags.normalized(subscription.categories)
                server.displayOrder = order
                order += 1
                known[url] = server
                servers[subscription.url] = server
                report.feedsAdded += 1
            }
            let queries = try QueryFeedImport.add(queryFeeds, in: context)
            report.smartFeedsAdded = queries.added
            report.notes += queries.notes.map(\.description)
            try context.save()
            for (url, server) in servers { feedIDs[url] = server.objectID }
        }
        if let usersText { try? URLsFileLayout.recordImport(of: usersText, in: store.container.store) }
        return (feedIDs, feedsWithItems)
    }

    // MARK: - Items

    /// One part of the cache's items into `context` (saved by the caller's batch importer).
    /// `lookUp` tells the feeds whose every item may be stored already; of the others, only
    /// the items `seen` says an earlier part of this run may have stored are looked up.
    private static func importNewsboatItems(
        _ items: [NewsboatCache.Item], feedIDs: [String: ObjectID], sharedLinks: [String: Set<String>],
        lookUp: (String) -> Bool,
        seen: inout SeenItemKeys, now: Date, in context: ManagedObjectContext, counts: inout NewsboatItemCounts
    ) throws {
        var byFeed: [String: [NewsboatCache.Item]] = [:]
        var feedOrder: [String] = []
        var guidsToLookUp = Set<String>()
        var feedsToLookUp = Set<String>()
        for var item in items {
            item.guid = zeaderGuid(for: item, sharedLinks: sharedLinks[item.feedURL] ?? [])
            if byFeed[item.feedURL] == nil { feedOrder.append(item.feedURL) }
            byFeed[item.feedURL, default: []].append(item)
            if lookUp(item.feedURL) || seen.insert(feed: item.feedURL, guid: item.guid) {
                guidsToLookUp.insert(item.guid)
                feedsToLookUp.insert(item.feedURL)
            }
        }
        // What is stored already (or inserted by an earlier part of this batch), for the
        // whole part in two queries (the (server, guid) uniqueness index answers both), not
        // two per feed.
        var existingByFeed: [ObjectID: [String: FeedItem]] = [:]
        var tombstonesByFeed: [ObjectID: [String: RemovedItem]] = [:]
        let lookedUp = feedOrder.filter(feedsToLookUp.contains).compactMap { feedIDs[$0] }
        if !lookedUp.isEmpty {
            let guids = Array(guidsToLookUp)
            let predicate = try ObjectPredicate(format: "server IN %@ AND guid IN %@", lookedUp, guids)
            for item in try context.fetch(FetchRequest<FeedItem>(predicate: predicate)) {
                if let server = item.server?.objectID { existingByFeed[server, default: [:]][item.guid] = item }
            }
            for removed in try context.fetch(FetchRequest<RemovedItem>(predicate: predicate)) {
                if let server = removed.server?.objectID { tombstonesByFeed[server, default: [:]][removed.guid] = removed }
            }
        }
        for feedURL in feedOrder {
            let group = byFeed[feedURL] ?? []
            guard let feedID = feedIDs[feedURL], let server = context.object(with: feedID) as? Server else {
                counts.skipped += group.count  // a feed left out (not in urls, or not fetchable)
                continue
            }
            var existing = existingByFeed[feedID] ?? [:]
            var tombstones = tombstonesByFeed[feedID] ?? [:]
            for row in group {
                if row.deleted {
                    if let item = existing.removeValue(forKey: row.guid) { context.delete(item) }
                    if tombstones[row.guid] == nil {
                        let removed = context.insert(RemovedItem.self)
                        removed.guid = row.guid
                        removed.reason = RemovedItem.Reason.deleted.rawValue
                        removed.removed = now
                        removed.server = server
                        tombstones[row.guid] = removed
                        counts.deleted += 1
                    } else {
                        counts.unchanged += 1
                    }
                    continue
                }
                if tombstones[row.guid] != nil {
                    counts.unchanged += 1  // removed in Zeader (cleanup, a rule): stays removed
                    continue
                }
                if let item = existing[row.guid] {
                    if merge(row, into: item) { counts.updated += 1 } else { counts.unchanged += 1 }
                    continue
                }
                let item = context.insert(FeedItem.self)
                item.guid = row.guid
                if let title = row.title { item.title = HTMLText.sanitizedLine(title) }
                if let link = row.link { item.link = HTMLText.sanitizedLine(link) }
                if let author = row.author { item.author = HTMLText.sanitizedLine(author) }
                if let content = row.content {
                    item.content = content
                    if let summary = HTMLText.summary(ofHTML: content) { item.summary = summary }
                }
                if let published = row.published { item.published = published }
                item.firstSeen = now
                item.sortDate = row.published ?? now
                if !row.unread { item.read = true }
                if let letters = row.flags {
                    item.flagged = true
                    item.flagLetters = letters
                }
                // newsboat's enclosure (its podcast): stored as a refresh stores one (http(s) only).
                if let url = row.enclosureURL,
                    let enclosure = EnclosureChoice.primary(of: [
                        Enclosure(url: HTMLText.sanitizedLine(url), type: row.enclosureType)
                    ])
                {
                    ItemImport.storeEnclosure(enclosure, in: item)
                    counts.withEnclosures += 1
                }
                item.server = server
                existing[row.guid] = item  // a guid repeated in the cache is stored once
                counts.added += 1
            }
        }
    }

    /// The guid Zeader keeps for the item. newsboat names an item without a guid by its
    /// link followed by its date as the feed wrote it (else its link, else its title); a
    /// refresh parses such an item under a hash of its link and title and looks it up by its
    /// link, else its title (``ItemImport``). The first form cannot be a guid the feed gave,
    /// so it becomes the link alone (the hash a refresh computes, for items of the feed in
    /// `sharedLinks`); a bare link or title might be the feed's own guid, so those stay.
    static func zeaderGuid(for item: NewsboatCache.Item, sharedLinks: Set<String> = []) -> String {
        guard let link = item.link, item.guid.count > link.count, item.guid.hasPrefix(link), item.published != nil else {
            return item.guid
        }
        // The link alone is what a refresh looks a guid-less item up by (whatever its title
        // reads as); items sharing a link need their titles to stay apart.
        if !sharedLinks.contains(link) { return link }
        return "zeader:" + ItemImport.stableHash([link, item.title ?? ""])
    }

    /// newsboat's read mark and flags added to an item already stored; true when it changed.
    private static func merge(_ row: NewsboatCache.Item, into item: FeedItem) -> Bool {
        var changed = false
        if !row.unread, !item.read {
            item.read = true
            changed = true
        }
        if let letters = row.flags {
            if !item.flagged {
                item.flagged = true
                changed = true
            }
            let merged = String(Set((item.flagLetters ?? "") + letters).sorted())
            if item.flagLetters != merged {
                item.flagLetters = merged
                changed = true
            }
        }
        return changed
    }
}

/// What ``FeedLibrary/importNewsboatCache(from:urls:batchSize:progress:)`` did.
///
/// ```swift
/// print("\(report.feedsAdded) feeds, \(report.items.added) items")
/// ```
public struct NewsboatImportReport: Sendable, Equatable {
    public var feedsAdded = 0
    public var feedsAlreadySubscribed = 0
    /// Smart feeds made of the urls file's `query:` lines (``QueryFeedImport``).
    public var smartFeedsAdded = 0
    public var items = NewsboatItemCounts()
    /// Items an earlier, interrupted run had saved (skipped by this one).
    public var resumedAfterItems = 0
    /// Feeds and lines left out, one line each, naming the file.
    public var notes: [String] = []
    /// Command and file feeds of the cache left out because the import was not allowed to
    /// subscribe to them (`--allow-commands`), one line each naming the feed.
    public var skipped: [String] = []

    public init() {}
}

/// The items of a newsboat import, by what happened to them.
public struct NewsboatItemCounts: Sendable, Equatable {
    /// Stored anew.
    public var added = 0
    /// Already stored; newsboat's read mark or flags added.
    public var updated = 0
    /// Already stored as newsboat has them (or removed in Zeader): left alone.
    public var unchanged = 0
    /// Deleted in newsboat: kept as tombstones, not stored.
    public var deleted = 0
    /// Of feeds that were not imported.
    public var skipped = 0
    /// New items stored with newsboat's enclosure (`enclosure_url`, http or https).
    public var withEnclosures = 0

    public init() {}
}
