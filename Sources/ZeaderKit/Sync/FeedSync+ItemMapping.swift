import Feeds
import Foundation
import ObjectGraph

extension FeedSync {
    /// A feed's history (its items with no server id), indexed by the first chunk of a pull
    /// that has items of the feed, and matched against each chunk after it.
    struct FeedHistory {
        var items: [ObjectID]
        var index: ItemIdentity.Index
    }

    /// The items of `server`'s own history (no server id yet) that `pulled` items are, by
    /// position in `pulled` (``ItemIdentity``). Most feeds have none: one fetch per feed and pull.
    static func historyMatches(
        _ pulled: [SyncItem], of server: Server, history: inout [ObjectID: FeedHistory],
        in context: ManagedObjectContext
    ) throws -> [Int: FeedItem] {
        let feed = server.objectID
        if history[feed] == nil {
            // Stored rows only: asked before the feed's first items of the pull are inserted,
            // so the context's unsaved items are other feeds'.
            var request = FetchRequest<FeedItem>(
                predicate: .comparison(.keyPath("server"), .equalTo, .object(feed))
                    && .comparison(.keyPath("syncID"), .equalTo, .constant(.null)))
            request.includesPendingChanges = false
            let stored = try context.fetch(request)
            let identities = stored.map {
                ItemIdentity.Candidate(guid: $0.guid, link: $0.link, title: $0.title, published: $0.published)
            }
            history[feed] = FeedHistory(
                items: stored.map(\.objectID),
                index: ItemIdentity.Index(identities, feedURL: server.url, siteLink: server.siteLink))
        }
        guard history[feed]?.index.isExhausted == false else { return [:] }
        let pulledIdentities = pulled.map { item in
            ItemIdentity.Candidate(
                guid: item.guid, link: item.link, title: item.title.map(displayText), published: item.published)
        }
        let pairs = history[feed]!.index.match(pulledIdentities)
        guard let items = history[feed]?.items else { return [:] }
        return pairs.compactMapValues { (try? context.existingObject(with: items[$0])) as? FeedItem }
    }

    /// Which of `ids` (server item ids; a syncID holds one in decimal) some stored item of
    /// the account has already, looked up 500 at a time by the syncID index.
    static func storedSyncIDs(_ ids: [UInt64], scope: AccountScope, in context: ManagedObjectContext) throws -> Set<UInt64> {
        var stored = Set<UInt64>()
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = ids[start..<min(start + 500, ids.count)]
            let request = FetchRequest<FeedItem>(
                predicate: .comparison(.keyPath("syncID"), .in, .aggregate(chunk.map { .constant(.string(String($0))) }))
                    && scope.items)
            for item in try context.fetch(request) { if let id = item.syncID.flatMap(UInt64.init) { stored.insert(id) } }
        }
        return stored
    }

    /// A title or author as the server sent it, made what a refresh would store: the Google
    /// Reader API sends them HTML-escaped (FreshRSS: `Fish &amp; chips`), and a hostile feed's
    /// control characters and escape sequences reach the server untouched, so entities are
    /// decoded, tags and control characters removed and whitespace collapsed
    /// (``HTMLText/plainText(_:)``).
    static func displayText(_ raw: String) -> String {
        HTMLText.plainText(raw)
    }

    /// The item as a refresh's parser would give it, under `guid`: the one mapping of a
    /// pulled item's fields (title and author made plain text, the HTML's bounded preview as
    /// the summary) that ``ItemImport`` stores.
    ///
    /// ```swift
    /// let parsed = FeedSync.parsedItem(SyncItem(id: 7, feedID: "feed/1", title: "A &amp; B"), guid: "greader:7")
    /// ```
    static func parsedItem(_ pulled: SyncItem, guid: String) -> ParsedItem {
        ParsedItem(
            id: guid, title: pulled.title.map(displayText), link: pulled.link, author: pulled.author.map(displayText),
            published: pulled.published, updated: pulled.updated,
            // The bounded preview a refresh stores: it reads only the HTML's beginning.
            summary: pulled.html.flatMap(HTMLText.summary(ofHTML:)), content: pulled.html)
    }

    /// ``copy(_:into:now:)`` for an item of a feed's history that joins the account: read or
    /// starred on either side, it ends read or starred on both (``mergeStates(_:into:)``).
    static func merge(_ pulled: SyncItem, into item: FeedItem, now: Date) {
        copy(pulled, into: item, now: now)
        mergeStates(pulled, into: item)
    }

    /// The server's read and star taken by a stored item that was not synced; what this
    /// device has and the server lacks is marked pending, pushed by the same sync. Nothing
    /// made on this device before is overwritten.
    static func mergeStates(_ pulled: SyncItem, into item: FeedItem) {
        if pulled.isRead, !item.read { item.read = true }
        if pulled.isStarred, !item.flagged { item.flagged = true }
        if item.read && !pulled.isRead { item.syncReadPending = true }
        if item.flagged && !pulled.isStarred { item.syncFlagPending = true }
    }

    /// Copies a pulled item's fields (not its states) into a stored item (``parsedItem(_:guid:)``'s
    /// mapping), touching only those that differ. The sort date is the published date, else
    /// the updated one, else the time first seen, as ``ItemImport`` dates an item.
    static func copy(_ pulled: SyncItem, into item: FeedItem, now: Date) {
        let parsed = parsedItem(pulled, guid: "")  // only the fields are copied: the guid stays
        if let title = parsed.title, item.title != title { item.title = title }
        if let link = parsed.link, item.link != link { item.link = link }
        if let author = parsed.author, item.author != author { item.author = author }
        if let html = parsed.content, item.content != html {
            item.content = html
            item.summary = parsed.summary
        }
        if let published = parsed.published, item.published != published { item.published = published }
        if let updated = parsed.updated, item.updated != updated { item.updated = updated }
        let sortDate = parsed.published ?? parsed.updated ?? item.firstSeen ?? now
        if item.sortDate != sortDate { item.sortDate = sortDate }
    }
}
