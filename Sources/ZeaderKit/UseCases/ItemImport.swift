import Feeds
import Foundation
import ObjectGraph

/// Putting a parsed feed's items into the store: the one mapping from ``ParsedItem`` to
/// ``FeedItem`` that a refresh (``FeedImporter``) and the reader's add-feed preview
/// (``FeedPreview``) share.
///
/// - An item is known by its guid within its feed: seen again, it is updated in place
///   (only the fields that differ are written) and keeps its read and flagged state.
/// - An item without an id (an empty `<guid/>`; the parser already derives one when the
///   element is missing) is stored under a stable id synthesized from its link, title and
///   dates (``guid(for:)``): never skipped, since the reader would lose an item the feed
///   shows, and never random, since a random id would store it again on every refresh.
/// - A guid repeated within one document is stored once (the first occurrence).
/// - `sortDate` is the published date, else the updated date, else the time first seen.
/// - A new item matching an ignore rule (`rules`, ``Killfile``) is not stored: its guid
///   becomes a tombstone. The rules that act (``ItemRules``) are applied to the other new items.
/// - An item removed on purpose (a ``RemovedItem`` tombstone: cleanup, an ignore rule, a
///   newsboat deletion) is not stored again.
/// - An item without an id of its own matches a stored item whose guid is its link (else
///   its title), as newsboat names such items: an item imported from newsboat's cache
///   takes Zeader's id instead of being stored twice.
/// - With `matchingLinks` (a store that has or had a sync account), an item with an id of its own also
///   matches a stored item known by its link (its guid is its link, as a sync stores a
///   server's items): a feed no longer synced, refreshed here, takes the feed's ids instead
///   of storing each item twice. Other stores skip that lookup of every item's link.
///
/// ```swift
/// let (new, changed) = try ItemImport.upsert(feed.items, into: server, in: context, now: Date())
/// ```
public enum ItemImport {
    /// The guid `parsed` is stored under: its id, or a stable id derived from its link,
    /// title and dates when the feed gave an empty one.
    ///
    /// ```swift
    /// ItemImport.guid(for: ParsedItem(id: "", title: "Hello", link: "https://example.org/1"))   // "zeader:…"
    /// ```
    public static func guid(for parsed: ParsedItem) -> String {
        if !parsed.id.isEmpty { return parsed.id }
        let parts = [
            parsed.link ?? "", parsed.title ?? "", parsed.published.map { String(Int64($0.timeIntervalSince1970)) } ?? "",
            parsed.updated.map { String(Int64($0.timeIntervalSince1970)) } ?? "",
        ]
        return "zeader:" + stableHash(parts)
    }

    /// A 64-bit FNV-1a hash of `parts` as 16 hex digits: the same on every run and machine.
    static func stableHash(_ parts: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for (index, part) in parts.enumerated() {
            if index > 0 { hash = (hash ^ 0x1F) &* 0x100_0000_01b3 }
            for byte in part.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Inserts new items and updates known ones in place; returns how many were new and how
    /// many changed. The stored items with the document's guids are read in one fetch (the
    /// (server, guid) index answers it), never one by one and never the feed's whole history.
    /// That fetch reads saved rows only: call it once per feed between saves.
    ///
    /// ```swift
    /// let counts = try ItemImport.upsert(feed.items, into: server, in: context, now: Date())
    /// ```
    public static func upsert(
        _ items: [ParsedItem], into server: Server, in context: ManagedObjectContext, now: Date,
        ignoring rules: [Killfile.CompiledRule] = [], matchingLinks: Bool = false
    ) throws -> (new: Int, changed: Int) {
        var firings: [ItemRules.Firing] = []
        return try upsert(
            items, into: server, in: context, now: now, ignoring: rules, acting: [], firings: &firings,
            matchingLinks: matchingLinks)
    }

    /// ``upsert(_:into:in:now:ignoring:matchingLinks:)`` that also applies the rules that act
    /// to each new item (``admit(_:of:ignoring:acting:firings:now:)``), adding their firings to
    /// `firings`. `stored` sees the item each of `items` (by index) is stored as, new (before the
    /// ignore rules and the rules that act look at it) or known: a sync sets the service's id and
    /// states there. `feedIsEmpty` says the feed has no stored item and no tombstone (a sync
    /// created it and stores its first items): then nothing is looked up.
    ///
    /// ```swift
    /// let counts = try ItemImport.upsert(feed.items, into: server, in: context, now: Date(), acting: rules, firings: &firings)
    /// ```
    public static func upsert(
        _ items: [ParsedItem], into server: Server, in context: ManagedObjectContext, now: Date,
        ignoring rules: [Killfile.CompiledRule] = [], acting actionRules: [ItemRules.CompiledRule],
        firings: inout [ItemRules.Firing], matchingLinks: Bool = false, feedIsEmpty: Bool = false,
        stored: ((_ index: Int, _ item: FeedItem, _ isNew: Bool) -> Void)? = nil
    ) throws -> (new: Int, changed: Int) {
        guard !items.isEmpty else { return (0, 0) }
        let guids = items.map(guid(for:))
        // An item without an id of its own is known to newsboat by its link, else its title:
        // an item imported from newsboat's cache is found (and takes Zeader's id) by that.
        var aliases: [String: String] = [:]
        for (parsed, guid) in zip(items, guids) {
            if guid.hasPrefix("zeader:") {
                if let alias = parsed.link ?? parsed.title, !alias.isEmpty { aliases[guid] = alias }
            } else if matchingLinks, let link = parsed.link, !link.isEmpty, link != guid {
                aliases[guid] = link
            }
        }
        var existing: [String: FeedItem] = [:]
        var tombstones: [String: RemovedItem] = [:]
        if !feedIsEmpty, server.objectID.primaryKey != nil {
            let wanted = guids + aliases.values
            // Only stored rows: the context may hold other feeds' unsaved items (a refresh saves
            // several feeds at once, SaveGrouping), which cannot match this server and would each
            // be tested against the predicate.
            if mayHaveStoredItems(server) {
                var request = FetchRequest<FeedItem>(predicate: lookup(wanted, of: server))
                request.includesPendingChanges = false
                for item in try context.fetch(request) { existing[item.guid] = item }
            }
            // Tombstones (RemovedItem) only for what is not stored: usually nothing new.
            let unknown = wanted.filter { existing[$0] == nil }
            if !unknown.isEmpty {
                var removed = FetchRequest<RemovedItem>(predicate: lookup(unknown, of: server))
                removed.includesPendingChanges = false
                for tombstone in try context.fetch(removed) { tombstones[tombstone.guid] = tombstone }
            }
        }
        let documentGuids = Set(guids)
        var seen = Set<String>()
        var new = 0
        var changed = 0
        for (index, (parsed, guid)) in zip(items, guids).enumerated() {
            guard seen.insert(guid).inserted else { continue }  // a guid repeated within one document
            let alias = aliases[guid]
            if let item = existing[guid] {
                if update(item, from: parsed) { changed += 1 }
                stored?(index, item, false)
            } else if let alias, !documentGuids.contains(alias), let item = existing[alias],
                guid.hasPrefix("zeader:") || item.link == alias
            {
                existing[alias] = nil
                item.guid = guid
                existing[guid] = item
                _ = update(item, from: parsed)
                changed += 1
                stored?(index, item, false)
            } else if let tombstone = tombstones[guid] ?? alias.flatMap({ tombstones[$0] }) {
                RetentionCleanup.sawTombstone(tombstone, now: now)  // removed on purpose: not stored again
            } else {
                let item = insert(parsed, guid: guid, into: server, in: context, now: now)
                stored?(index, item, true)
                if admit(item, of: server, ignoring: rules, acting: actionRules, firings: &firings, now: now) { new += 1 }
            }
        }
        return (new, changed)
    }

    /// What happens to an item new in `server`, inserted but not saved, whatever brought it
    /// (a refresh, a sync): an ignore rule that matches deletes it and keeps its guid as a
    /// tombstone (returns false); else the rules that act are applied in order
    /// (``ItemRules/apply(_:to:of:)``), their firings added to `firings` (returns true).
    ///
    /// ```swift
    /// if ItemImport.admit(item, of: server, ignoring: killfile, acting: rules, firings: &firings, now: now) { stored += 1 }
    /// ```
    public static func admit(
        _ item: FeedItem, of server: Server, ignoring rules: [Killfile.CompiledRule],
        acting actionRules: [ItemRules.CompiledRule], firings: inout [ItemRules.Firing], now: Date
    ) -> Bool {
        if !rules.isEmpty, Killfile.matches(item, url: server.url, tags: server.tags, rules: rules) {
            guard let context = item.managedObjectContext else { return false }
            context.delete(item)  // killed: never stored, its guid kept
            Killfile.tombstone(item.guid, of: server, in: context, now: now)
            return false
        }
        if !actionRules.isEmpty { firings += ItemRules.apply(actionRules, to: item, of: server) }
        return true
    }

    /// False when `server`'s stored item count, as its row was read, is zero: a feed refreshed
    /// for the first time has nothing to match, and its look-up of every guid is skipped. A
    /// row another process stores meanwhile is still found by the save's uniqueness look-up.
    static func mayHaveStoredItems(_ server: Server) -> Bool {
        server.committedValues(forKeys: ["totalCount"])["totalCount"] != .integer(0)
    }

    /// The feeds among `servers` that have nothing stored: no item (``mayHaveStoredItems(_:)``)
    /// and no tombstone, found in one fetch for them all. Their items need no look-up
    /// (`feedIsEmpty`), where each feed's own look-ups cost two fetches (a refresh's groups
    /// of feeds ask once per group).
    ///
    /// ```swift
    /// let empty = try ItemImport.feedsWithNothingStored(servers, in: context)
    /// ```
    public static func feedsWithNothingStored(_ servers: [Server], in context: ManagedObjectContext) throws -> Set<ObjectID> {
        let candidates = servers.filter { $0.objectID.primaryKey != nil && !mayHaveStoredItems($0) }
        guard !candidates.isEmpty else { return [] }
        var empty = Set(candidates.map(\.objectID))
        let anyOf = ObjectPredicate.comparison(.keyPath("server"), .in, .aggregate(candidates.map { .object($0.objectID) }))
        var request = FetchRequest<RemovedItem>(predicate: anyOf)
        request.includesPendingChanges = false
        for tombstone in try context.fetch(request) {
            if let server = tombstone.server { empty.remove(server.objectID) }
        }
        return empty
    }

    /// `server == %@ AND guid IN %@` for `server` and `guids`, built as the parser would
    /// build it but without parsing a format string on every feed. Its SQL text is the same
    /// for every feed (the server and the guids are bound), so the store keeps the statement
    /// prepared (see ObjectGraph's fetch statement cache).
    static func lookup(_ guids: [String], of server: Server) -> ObjectPredicate {
        .comparison(.keyPath("server"), .equalTo, .object(server.objectID))
            && .comparison(.keyPath("guid"), .in, .aggregate(guids.map { .constant(.string($0)) }))
    }

    /// A new item: plain assignments (no comparisons), nil fields left alone.
    @discardableResult
    private static func insert(
        _ parsed: ParsedItem, guid: String, into server: Server, in context: ManagedObjectContext, now: Date
    ) -> FeedItem {
        let item = context.insert(FeedItem.self)
        item.guid = guid
        if let title = parsed.title { item.title = title }
        if let link = parsed.link { item.link = link }
        if let author = parsed.author { item.author = author }
        if let summary = parsed.summary { item.summary = summary }
        if let content = parsed.content { item.setNewContent(content) }
        if let published = parsed.published { item.published = published }
        if let updated = parsed.updated { item.updated = updated }
        item.firstSeen = now
        item.sortDate = parsed.published ?? parsed.updated ?? now
        item.server = server
        if let enclosure = EnclosureChoice.primary(of: parsed.enclosures) { storeEnclosure(enclosure, in: item) }
        return item
    }

    /// Copies the feed's fields into `item`, touching only those that differ (so an unchanged
    /// item is not written). The read and flagged state is never touched. Returns whether
    /// anything changed.
    private static func update(_ item: FeedItem, from parsed: ParsedItem) -> Bool {
        var changed = false
        func assign<T: Equatable>(_ value: T, _ keyPath: ReferenceWritableKeyPath<FeedItem, T>) {
            if item[keyPath: keyPath] != value {
                item[keyPath: keyPath] = value
                changed = true
            }
        }
        assign(parsed.title, \.title)
        assign(parsed.link, \.link)
        assign(parsed.author, \.author)
        assign(parsed.summary, \.summary)
        assign(parsed.content, \.content)
        assign(parsed.published, \.published)
        assign(parsed.updated, \.updated)
        if updateEnclosure(of: item, from: parsed) { changed = true }
        if changed, item.firstSeen != nil {
            let sortDate = parsed.published ?? parsed.updated ?? item.firstSeen
            if item.sortDate != sortDate { item.sortDate = sortDate }
        }
        return changed
    }

    /// The feed's own title (when the user gave none) and site link.
    ///
    /// ```swift
    /// ItemImport.updateDetails(of: server, from: feed)
    /// ```
    public static func updateDetails(of server: Server, from feed: ParsedFeed) {
        if server.title?.isEmpty ?? true, let title = feed.title, !title.isEmpty { server.title = title }
        if server.siteLink != feed.link { server.siteLink = feed.link }
    }
}
