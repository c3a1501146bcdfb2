import Feeds
import Foundation
import ObjectGraph

extension FeedSync {

    /// New items: the ids the server got since the newest one pulled (all on the first
    /// sync; all of the `joined` feeds, streams with history that joined the account in this
    /// sync), those newer than it and not in the store fetched in chunks and stored, a few
    /// chunks (``requestsPerSave``) a save. The ids are numbers (8 bytes each); a save's items
    /// are released once saved, so memory does not grow with the number of items. `newFeeds`
    /// are the feeds this sync created: until a save stores their items, nothing of theirs is
    /// in the store to look up. Returns what it fetched.
    func pullNewItems(
        _ client: any SyncService, joined: [String], newFeeds: Set<ObjectID> = [], rules: [Killfile.CompiledRule],
        report: inout Report, progress: @Sendable (Phase) -> Void
    ) async throws -> Pulled {
        let scope = try self.scope()
        let stored = try withContext { try accountRow(scope, in: $0)?.newestItemID }.flatMap(UInt64.init)
        // A marker out of range (kept before ids were checked where they enter) would hide
        // every later item: the pull starts over, and the ids already stored are skipped.
        let newest = stored.flatMap { GReaderClient.isPlausibleItemID($0, now: Date()) ? $0 : nil }
        var ids = try await client.newItemIDs(after: newest)
        let top = ids.max()
        // The ids up to the newest pulled were seen by an earlier sync (an item an ignore rule
        // dropped included, which is then not fetched again).
        if let newest { ids.removeAll { $0 <= newest } }
        if newest != nil, !joined.isEmpty {
            // Feeds with history that joined since the first sync: their items older than the
            // newest pulled were never fetched, and the history is matched to them.
            var listed = Set(ids)
            for stream in joined {
                for id in try await client.itemIDs(.feed(stream)) where listed.insert(id).inserted { ids.append(id) }
            }
        }
        var pulled = Pulled()
        let (accountIsEmpty, unknown) = try withContext { context in
            // An account with no item yet (its first sync) has none of them.
            var any = FetchRequest<FeedItem>(predicate: scope.items)
            any.fetchLimit = 1
            guard try !context.fetch(any).isEmpty else {
                if newest == nil { pulled.known = [] }
                return (true, ids)
            }
            var known = Set<UInt64>()
            for start in stride(from: 0, to: ids.count, by: 500) {
                let chunk = ids[start..<min(start + 500, ids.count)]
                let request = FetchRequest<FeedItem>(
                    predicate: .comparison(.keyPath("syncID"), .in, .aggregate(chunk.map { .constant(.string(String($0))) }))
                        && scope.items)
                for item in try context.fetch(request) { if let id = item.syncID.flatMap(UInt64.init) { known.insert(id) } }
                context.reset()
            }
            if newest == nil { pulled.known = Array(known) }
            return (false, known.isEmpty ? ids : ids.filter { !known.contains($0) })
        }
        ids = []
        var saves = try PullSaves(sync: self, scope: scope, rules: rules, newFeeds: newFeeds)
        if accountIsEmpty { saves.pulledIDs = [] }
        var fetched = 0
        // Into an empty account from the first item, the items fetched are all the server has.
        let fetchesAll = accountIsEmpty && newest == nil
        var unread = Set<UInt64>()
        // Several requests' items are stored in one save: each save has a cost of its own
        // (a context, the feeds' look-ups, a commit) whatever its size.
        var batch: [SyncItem] = []
        func storeBatch() throws {
            guard !batch.isEmpty else { return }
            let items = batch
            batch = []
            var firings: [ItemRules.Firing] = []
            report.newItems += try store(items, saves: &saves, firings: &firings)
            report.firings += firings
        }
        do {
            for start in stride(from: 0, to: unknown.count, by: chunkSize) {
                let chunk = Array(unknown[start..<min(start + chunkSize, unknown.count)])
                let items = try await client.items(chunk)
                for item in items {
                    if item.isRead { pulled.read.insert(item.id) } else if fetchesAll { unread.insert(item.id) }
                    if item.isStarred { pulled.starred.insert(item.id) }
                }
                batch += items
                if batch.count >= chunkSize * Self.requestsPerSave { try storeBatch() }
                fetched += chunk.count
                progress(.items(fetched: fetched, of: unknown.count))
            }
        } catch {
            try storeBatch()  // what was fetched before a failure is kept, as each save keeps it
            throw error
        }
        try storeBatch()
        try withContext { context in
            guard let account = try accountRow(scope, in: context) else { return }
            if let top, top > newest ?? 0 { account.newestItemID = String(top) }
            try context.save()
        }
        pulled.ids = unknown
        if fetchesAll { pulled.unread = unread }
        return pulled
    }

    /// How many requests' items (`chunkSize` each) one save stores at most.
    static let requestsPerSave = 4

    /// What every save of one pull shares: read once, and what earlier saves learned of each feed.
    struct PullSaves {
        let scope: AccountScope
        /// The synced feeds by their server id.
        let servers: [String: ObjectID]
        let rules: [Killfile.CompiledRule]
        let acting: [ItemRules.CompiledRule]
        /// Each feed's folders, which servers list among its items' labels (ItemLabels).
        let folders: [String: [String]]
        /// ``lowercasedFolders(of:)`` of each feed a save has stored items of.
        private var foldersByFeed: [ObjectID: Set<String>] = [:]
        var history: [ObjectID: FeedHistory] = [:]
        /// Feeds this sync created whose items no save has stored yet: nothing of theirs to look up.
        var emptyFeeds: Set<ObjectID>
        /// When the account had no item before the pull: the ids its saves took, the only ones
        /// stored (else nil, and the store is asked).
        var pulledIDs: Set<UInt64>?

        init(sync: FeedSync, scope: AccountScope, rules: [Killfile.CompiledRule], newFeeds: Set<ObjectID>) throws {
            self.scope = scope
            self.rules = rules
            let metadata = sync.store.container.store
            acting = ItemRules.acting(
                sync.itemRules + ItemRules.stored(in: metadata), changingItems: !sync.rulesChangeItemsLater)
            folders = try metadata.metadata(forKey: scope.key(FeedSync.labelsKey)).flatMap(SyncLabels.decode) ?? [:]
            servers = try sync.withContext { context in
                var servers: [String: ObjectID] = [:]
                for server in try Server.findAll(where: scope.feeds, in: context) {
                    if let id = server.syncID { servers[id] = server.objectID }
                }
                return servers
            }
            emptyFeeds = newFeeds
        }

        /// The names, lowercased, that the labels of `server`'s items may hold for its
        /// folders (its own, and ``FeedSync/defaultFolders``): made at its first save.
        mutating func lowercasedFolders(of server: Server) -> Set<String> {
            if let known = foldersByFeed[server.objectID] { return known }
            // The folders are listed by the feed's URL as stored, which is validated (and
            // normalized) only when that finds none.
            let own = folders.isEmpty ? [] : folders[server.url] ?? folders[FeedTrust.webURL(server.url) ?? server.url] ?? []
            let names = Set((own + FeedSync.defaultFolders).map { $0.lowercased() })
            foldersByFeed[server.objectID] = names
            return names
        }
    }

    /// What ``pullNewItems(_:joined:newFeeds:rules:report:progress:)`` fetched: the ids, and the states their
    /// contents gave (the read and the starred ones: few, where most new items are unread).
    struct Pulled {
        var ids: [UInt64] = []
        var read = Set<UInt64>()
        var starred = Set<UInt64>()
        /// In a pull from the first item (the first sync): the ids already in the store.
        var known: [UInt64]?
        /// In a pull from the first item into an account with no item stored: the unread ids
        /// among the items fetched. Every item the server listed came with its states, so these
        /// and ``starred`` stand for its unread and starred lists (``pullStates(_:pulled:report:)``).
        var unread: Set<UInt64>?
    }

    /// Stores items pulled from the server through ``ItemImport`` (as a refresh stores a
    /// feed's: one mapping, one sort date, the same tombstones and ignore rules), each with the
    /// server's id and states. An item of a feed's own history (stored before the feed was
    /// synced) is matched by the identities both sides compute (``ItemIdentity``) and gains
    /// the server's id, its read and starred state merged (``merge(_:into:now:)``); others are
    /// stored with the link as guid (else `greader:` and the server's id), unless removed on
    /// purpose before (a ``RemovedItem`` tombstone) or matching an ignore rule now (then not
    /// stored, its guid kept as a tombstone; a starred item stays); the rules that act act on
    /// the new ones, their firings added to `firings` once saved. A feed of `saves.emptyFeeds`
    /// has nothing stored (no history, no item, no tombstone): its items are stored without a
    /// look-up, and it leaves the set. Returns how many were stored anew.
    func store(_ items: [SyncItem], saves: inout PullSaves, firings: inout [ItemRules.Firing]) throws -> Int {
        var pulledFirings: [ItemRules.Firing] = []
        var pulledLabels: [String: [String]] = [:]
        let inserted = try withContext { context in
            // Each feed's items as indexes into `items`: an item is a dozen references, not copied.
            var byFeed: [ObjectID: [Int]] = [:]
            // One server item is one FeedItem: an id listed twice in the answer is taken
            // once, and one stored by an earlier pull is not inserted again.
            var listed = Set<UInt64>()
            for (index, item) in items.enumerated() {
                guard let feed = item.feedID, let server = saves.servers[feed], listed.insert(item.id).inserted
                else { continue }
                byFeed[server, default: []].append(index)
            }
            let stored =
                try saves.pulledIDs.map(listed.intersection) ?? Self.storedSyncIDs(Array(listed), scope: saves.scope, in: context)
            byFeed = byFeed.mapValues { $0.filter { !stored.contains(items[$0].id) } }
            var inserted = 0
            let now = Date()
            for (serverID, indexes) in byFeed {
                guard let server = try context.existingObject(with: serverID) as? Server else { continue }
                let feedItems = indexes.map { items[$0] }
                let feedFolders = saves.lowercasedFolders(of: server)
                func label(_ item: FeedItem, _ pulled: SyncItem, isNew: Bool = false) {
                    let local = isNew ? nil : item.tags  // a new item has no tags before the rules
                    let (tags, labels) = Self.pulledTags(pulled, lowercasedFolders: feedFolders, local: local)
                    if local != tags { item.tags = tags }
                    if !labels.isEmpty { pulledLabels[String(pulled.id)] = labels }
                }
                let isEmpty = saves.emptyFeeds.remove(serverID) != nil
                if isEmpty {  // a feed this sync created has no history: nothing to match
                    saves.history[serverID] = FeedHistory(
                        items: [], index: ItemIdentity.Index([], feedURL: server.url, siteLink: server.siteLink))
                }
                let matches = try Self.historyMatches(feedItems, of: server, history: &saves.history, in: context)
                let fresh = feedItems.indices.filter { matches[$0] == nil }.map { feedItems[$0] }
                for (position, match) in matches {
                    match.syncID = String(feedItems[position].id)
                    Self.merge(feedItems[position], into: match, now: now)
                    label(match, feedItems[position])
                }
                let guids = isEmpty ? Self.guids(for: fresh, taken: []) : try Self.guids(for: fresh, of: server, in: context)
                let parsed = zip(fresh, guids).map { Self.parsedItem($0, guid: $1) }
                let counts = try ItemImport.upsert(
                    parsed, into: server, in: context, now: now, ignoring: saves.rules, acting: saves.acting,
                    firings: &pulledFirings,
                    feedIsEmpty: isEmpty
                ) { index, item, isNew in
                    let pulled = fresh[index]
                    item.syncID = String(pulled.id)
                    label(item, pulled, isNew: isNew)  // before the rules, which may tag or untag it
                    if isNew {
                        // A new item is unread and not flagged: only a change is set.
                        if pulled.isRead { item.read = true }
                        if pulled.isStarred { item.flagged = true }  // before the ignore rules: a starred item stays
                    } else {
                        Self.mergeStates(pulled, into: item)
                    }
                }
                inserted += counts.new
            }
            try context.save()
            saves.pulledIDs?.formUnion(listed)  // stored, or removed by a rule: taken either way
            return inserted
        }
        firings += pulledFirings  // only once saved
        try keepPulledItemLabels(pulledLabels)
        return inserted
    }

    /// The guid each of `pulled` is stored under: its link, unless another item of the feed
    /// (stored, or earlier in `pulled`) has it as its guid, else `greader:` and the server's
    /// id. A link removed on purpose (a tombstone) stays its guid, so that the item stays
    /// removed.
    static func guids(for pulled: [SyncItem], of server: Server, in context: ManagedObjectContext) throws -> [String] {
        let links = pulled.compactMap(\.link)
        var taken = Set<String>()
        var removed = Set<String>()
        if !links.isEmpty {
            // Stored rows only: the context's unsaved items are other feeds' (each feed's are
            // stored once per save), and testing each against the links costs more than the fetch.
            let lookup = ItemImport.lookup(links, of: server)
            var stored = FetchRequest<FeedItem>(predicate: lookup)
            stored.includesPendingChanges = false
            for item in try context.fetch(stored) { taken.insert(item.guid) }
            var tombstones = FetchRequest<RemovedItem>(predicate: lookup)
            tombstones.includesPendingChanges = false
            for tombstone in try context.fetch(tombstones) { removed.insert(tombstone.guid) }
        }
        return guids(for: pulled, taken: taken, removed: removed)
    }

    /// The guids of `pulled` when `taken` are the guids stored items of the feed have and
    /// `removed` those of its tombstones.
    static func guids(for pulled: [SyncItem], taken: Set<String>, removed: Set<String> = []) -> [String] {
        var taken = taken
        return pulled.map { item in
            let guid = item.link.flatMap { taken.contains($0) ? nil : $0 } ?? "greader:" + String(item.id)
            if !removed.contains(guid) { taken.insert(guid) }
            return guid
        }
    }
}
