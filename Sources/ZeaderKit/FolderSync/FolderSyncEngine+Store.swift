import Foundation
import ObjectGraph

/// This store's changes since the last run, read from its history, as folder entries: only
/// what differs from the merged state, so saves that changed nothing shared send nothing.
/// Feeds and items are named by their URL without a login (``FolderSyncFeedURL``).
struct LocalChanges {
    var changes: [FolderSyncChange] = []
    /// Smart feeds and ignore rules kept from the folder because they name a login, one line each.
    var heldBack: [String] = []
    /// Items a refresh stored since: they take the state other devices gave them.
    var insertedItems = Set<ObjectID>()

    /// Reads `transactions` (oldest first) on `context`'s queue; `feedURLs` are the feeds'
    /// URLs at the last run (``FolderSyncSettings/feedURLs``), to name a feed's move.
    init(
        _ transactions: [HistoryTransaction], in context: ManagedObjectContext, state: FolderSyncState,
        feedURLs: [String: String] = [:]
    ) throws {
        var serverKeys: [ObjectID: Set<String>] = [:]
        var insertedServers = Set<ObjectID>()
        var deletedURLs: [String] = []
        var itemKeys: [ObjectID: Set<String>] = [:]
        var removedItems = Set<ObjectID>()
        var smartFeedsChanged = false
        var rulesChanged = false
        for change in transactions.flatMap(\.changes) {
            let id = change.objectID
            switch (id.entity.name, change.kind) {
            case ("Server", .insert): insertedServers.insert(id)
            case ("Server", .update): serverKeys[id, default: []].formUnion(change.changedKeys)
            case ("Server", .delete):
                insertedServers.remove(id)
                serverKeys[id] = nil
                if case .string(let url)? = change.tombstone["url"] { deletedURLs.append(url) }
            case ("FeedItem", .insert): insertedItems.insert(id)
            case ("FeedItem", .update):
                let shared = change.changedKeys.intersection(["read", "flagged"])
                if !shared.isEmpty { itemKeys[id, default: []].formUnion(shared) }
            case ("FeedItem", .delete):
                insertedItems.remove(id)
                itemKeys[id] = nil
            case ("RemovedItem", .insert): removedItems.insert(id)
            case ("SmartFeed", _): smartFeedsChanged = true
            case ("IgnoreRule", _): rulesChanged = true
            default: break
            }
        }
        for id in insertedServers.union(serverKeys.keys).sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let server = (try? context.existingObject(with: id)) as? Server else { continue }
            var keys = insertedServers.contains(id) ? nil : serverKeys[id] ?? []
            // A feed whose URL changed here (a permanent redirect followed) moved: the others
            // follow it, and it is sent whole at its new URL.
            if keys?.contains("url") == true, let old = feedURLs[String(id.rawValue)],
                let new = FolderSyncFeedURL.shared(server.url), old != new
            {
                if state.resolved(old) != new { changes.append(.moved(feed: old, to: new)) }
                keys = nil
            }
            feedChanges(of: server, keys: keys, state: state)
        }
        if !deletedURLs.isEmpty {
            // A feed stays subscribed while any feed here has its URL, with a login or without.
            let remaining = Set(try Server.findAll(in: context).compactMap { FolderSyncFeedURL.shared($0.url) })
            for url in Set(deletedURLs.compactMap(FolderSyncFeedURL.shared))
            where !remaining.contains(url) && state.feed(url)?.subscribed != false {
                changes.append(.subscribed(feed: url, false))
            }
        }
        if !itemKeys.isEmpty { try itemChanges(itemKeys, in: context, state: state) }
        for id in removedItems {
            guard let removed = (try? context.existingObject(with: id)) as? RemovedItem,
                removed.reason == RemovedItem.Reason.deleted.rawValue,
                let url = removed.server.flatMap({ FolderSyncFeedURL.shared($0.url) })
            else { continue }
            let key = ItemSyncKey(feedURL: url, guid: removed.guid)
            if state.item(key)?.deleted != true { changes.append(.deleted(key)) }
        }
        if smartFeedsChanged { try smartFeedChanges(in: context, state: state) }
        if rulesChanged { try ruleChanges(in: context, state: state) }
    }

    /// A feed's subscription, title, tags and whether it needs a login where they differ from
    /// the state (`keys`: the ones that changed; nil for a feed inserted, all of them).
    private mutating func feedChanges(of server: Server, keys: Set<String>?, state: FolderSyncState) {
        // Only web feeds are shared: a command or a file means nothing on another device.
        guard let url = FolderSyncFeedURL.shared(server.url) else { return }
        let view = state.feed(url)
        if view?.subscribed != true { changes.append(.subscribed(feed: url, true)) }
        // Said when this device's URL changes; a feed subscribed here without a login leaves
        // another device's word that it needs one.
        let login = FolderSyncFeedURL.hasLogin(server.url)
        let said = view?.needsLogin ?? false
        if let keys, keys.contains("url"), said != login {
            changes.append(.login(feed: url, login))
        } else if keys == nil, login, !said {
            changes.append(.login(feed: url, true))
        }
        if keys?.contains("title") ?? true, let title = server.title, !title.isEmpty, view?.title != title {
            changes.append(.title(feed: url, title))
        }
        guard keys?.contains("tags") ?? true else { return }
        let local = FeedTags.list(server.tags)
        let shared = view?.tags ?? []
        let localLowercased = Set(local.map { $0.lowercased() })
        let sharedLowercased = Set(shared.map { $0.lowercased() })
        for tag in local where !sharedLowercased.contains(tag.lowercased()) { changes.append(.tagAdded(feed: url, tag: tag)) }
        for tag in shared where !localLowercased.contains(tag.lowercased()) {
            changes.append(.tagRemoved(feed: url, tag: tag, seen: state.tagAdditionsInForce(feed: url, tag: tag)))
        }
    }

    /// Read and flagged marks that differ from the state (an item no device marked counts
    /// as unread and unflagged).
    private mutating func itemChanges(
        _ itemKeys: [ObjectID: Set<String>], in context: ManagedObjectContext, state: FolderSyncState
    )
        throws
    {
        for (id, keys) in itemKeys {
            guard let item = (try? context.existingObject(with: id)) as? FeedItem,
                let url = item.server.flatMap({ FolderSyncFeedURL.shared($0.url) })
            else { continue }
            let key = ItemSyncKey(feedURL: url, guid: item.guid)
            let view = state.item(merging: state.aliases(of: url).map { ItemSyncKey(feedURL: $0, guid: item.guid) })
            if view?.deleted == true { continue }
            if keys.contains("read"), (view?.read ?? false) != item.read { changes.append(.read(key, item.read)) }
            if keys.contains("flagged"), (view?.flagged ?? false) != item.flagged {
                changes.append(.flagged(key, item.flagged))
            }
        }
    }

    /// The smart feeds, all of them compared with the state's (they are few). One whose query
    /// names a login is held back: neither sent nor removed from the others.
    private mutating func smartFeedChanges(in context: ManagedObjectContext, state: FolderSyncState) throws {
        let shared = state.smartFeedQueries
        var local: [String: String] = [:]
        var kept = Set<String>()
        for smart in try SmartFeeds.stored(in: context) {
            if FolderSyncFeedURL.textHasLogin(smart.predicateFormat) {
                kept.insert(smart.title)
                heldBack.append(Messages.folderSyncHeldBackSmartFeed(smart.title))
            } else {
                local[smart.title] = smart.predicateFormat
            }
        }
        for (name, query) in local.sorted(by: { $0.key < $1.key }) where shared[name] != query {
            changes.append(.smartFeed(name: name, query: query))
        }
        for name in shared.keys.sorted() where local[name] == nil && !kept.contains(name) {
            changes.append(.smartFeed(name: name, query: nil))
        }
    }

    /// The stored ignore rules, all of them compared with the state's; one that names a login is held back.
    private mutating func ruleChanges(in context: ManagedObjectContext, state: FolderSyncState) throws {
        let shared = state.ignoreRuleTexts
        var local = Set(
            try Killfile.stored(in: context).map { FolderSyncRules.text(scope: $0.scope, predicate: $0.predicateFormat) })
        for rule in local.sorted() where FolderSyncFeedURL.textHasLogin(rule) {
            local.remove(rule)
            heldBack.append(Messages.folderSyncHeldBackRule(rule))
        }
        for rule in local.subtracting(shared).sorted() { changes.append(.ignoreRule(rule, true)) }
        for rule in shared.subtracting(local).sorted() { changes.append(.ignoreRule(rule, false)) }
    }
}

/// Writes the merged state's changes into the store, as another device's data: a feed only
/// at an http(s) URL (recorded as imported), a smart feed or ignore rule only once checked.
/// A feed here is matched by its URL without a login, so one read here with a login is the
/// one the others name without it.
struct StoreWriter {
    let context: ManagedObjectContext
    let state: FolderSyncState
    var applied = 0
    var refusals: [FolderSyncRun.Refusal] = []

    /// Feeds this run moved to the URL another device's move names: their items take the
    /// marks made under every URL the feed had.
    var movedServers = Set<ObjectID>()

    /// Applies `changed` views, and the state of items stored since the last run.
    mutating func apply(_ changed: AffectedKeys.Views, inserted: Set<ObjectID>) throws {
        if !changed.feeds.isEmpty { try applyFeeds(changed.feeds) }
        if !changed.items.isEmpty || !movedServers.isEmpty || (!inserted.isEmpty && !state.itemKeys.isEmpty) {
            try applyItems(Set(changed.items.keys), inserted: inserted)
        }
        for (name, query) in changed.smartFeeds.sorted(by: { $0.key < $1.key }) { try applySmartFeed(name, query: query) }
        for (rule, on) in changed.rules.sorted(by: { $0.key < $1.key }) { try applyRule(rule, on: on) }
    }

    private mutating func applyFeeds(_ feeds: [String: FolderSyncState.FeedView?]) throws {
        var byURL: [String: Server] = [:]
        for server in try Server.findAll(in: context) {
            if let url = FolderSyncFeedURL.shared(server.url) { byURL[url] = server }
        }
        // Moves first, so that a feed subscribed at its new URL is the one moved there.
        for (url, view) in feeds.sorted(by: { $0.key < $1.key }) {
            guard let target = view?.movedTo, let server = byURL[url] else { continue }
            if let there = byURL[target] {
                // Subscribed at the new URL before the move arrived and not fetched yet: the
                // moved feed, with its items, takes its place.
                let items = try context.count(
                    for: FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "server == %@", there.objectID)))
                guard there.objectID != server.objectID, items == 0 else { continue }
                context.delete(there)
                // Saved first: a save updates rows before it deletes, and the URL is unique.
                try context.save()
            }
            server.url = Self.url(target, withLoginOf: server.url)
            byURL[url] = nil
            byURL[target] = server
            movedServers.insert(server.objectID)
            applied += 1
        }
        var order = try FeedSubscription.nextDisplayOrder(in: context)
        for (url, view) in feeds.sorted(by: { $0.key < $1.key }) {
            // A feed that moved is the one at its new URL.
            guard let view, view.movedTo == nil else { continue }
            if view.subscribed == false {
                if let server = byURL[url] {
                    context.delete(server)
                    applied += 1
                }
                continue
            }
            var target = byURL[url]
            // No device writes a login; one that does is not followed (a feed here is not named so).
            if target == nil, view.subscribed == true, !FolderSyncFeedURL.hasLogin(url) {
                guard FeedTrust.webURL(url) == url else {
                    refusals.append(.notWebFeed(url: url, device: state.subscriber(of: url) ?? "?"))
                    continue
                }
                let server = context.insert(Server.self)
                server.url = url
                server.origin = .imported
                server.displayOrder = order
                order += 1
                target = server
                applied += 1
            }
            guard let server = target else { continue }
            if let title = view.title, server.title != title {
                server.title = title
                applied += 1
            }
            let tags = FeedTags.normalized(view.tags)
            if server.tags != tags {
                server.tags = tags
                applied += 1
            }
        }
    }

    /// `url` with the login `current` has, which stays on this device.
    static func url(_ url: String, withLoginOf current: String) -> String {
        guard FolderSyncFeedURL.hasLogin(current), let login = URLComponents(string: current),
            var moved = URLComponents(string: url)
        else { return url }
        moved.percentEncodedUser = login.percentEncodedUser
        moved.percentEncodedPassword = login.percentEncodedPassword
        return moved.string ?? url
    }

    /// Items whose state changed (under any URL their feed had), the ones just stored that
    /// the state names, and every item of a feed this run moved.
    private mutating func applyItems(_ keys: Set<ItemSyncKey>, inserted: Set<ObjectID>) throws {
        var wanted: [(id: ObjectID, view: FolderSyncState.ItemView)] = []
        for server in try Server.findAll(in: context) {
            guard let url = FolderSyncFeedURL.shared(server.url) else { continue }
            let aliases = state.aliases(of: url)
            let moved = movedServers.contains(server.objectID)
            let rows = try context.fetchValues(
                FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "server == %@", server.objectID)),
                keys: ["guid"])
            for row in rows {
                guard case .string(let guid) = row.values[0] else { continue }
                let named = aliases.map { ItemSyncKey(feedURL: $0, guid: guid) }
                guard moved || inserted.contains(row.objectID) || named.contains(where: keys.contains),
                    let view = state.item(merging: named)
                else { continue }
                wanted.append((row.objectID, view))
            }
        }
        for (id, view) in wanted {
            guard let item = (try? context.existingObject(with: id)) as? FeedItem else { continue }
            if view.deleted {
                try delete(item)
                continue
            }
            if let read = view.read, item.read != read {
                item.read = read
                applied += 1
            }
            if let flagged = view.flagged, item.flagged != flagged {
                item.flagged = flagged
                applied += 1
            }
        }
    }

    /// Deletes an item as ``ItemDeletion`` does: with a tombstone, so a refresh does not store it again.
    private mutating func delete(_ item: FeedItem) throws {
        if let server = item.server {
            let known = try context.fetch(
                FetchRequest<RemovedItem>(
                    predicate: try ObjectPredicate(format: "server == %@ AND guid == %@", server.objectID, item.guid)))
            if known.isEmpty {
                let tombstone = context.insert(RemovedItem.self)
                tombstone.guid = item.guid
                tombstone.reason = RemovedItem.Reason.deleted.rawValue
                tombstone.removed = Date()
                tombstone.server = server
            }
        }
        context.delete(item)
        applied += 1
    }

    private mutating func applySmartFeed(_ name: String, query: String?) throws {
        let existing = try SmartFeed.findFirst(byAttribute: "title", value: .string(name), in: context)
        guard let query else {
            if let existing {
                context.delete(existing)
                applied += 1
            }
            return
        }
        let device = state.smartFeeds[name]?.stamp.device ?? "?"
        do {
            guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, name.count <= 200 else {
                throw ZeaderError.smartFeedNeedsTitle
            }
            try SmartFeeds.validate(query)
        } catch {
            refusals.append(.smartFeed(name: name, device: device, reason: ZeaderError.wrapping(error).description))
            return
        }
        if let existing {
            guard existing.predicateFormat != query else { return }
            existing.predicateFormat = query
        } else {
            try SmartFeeds.add(title: name, predicate: query, in: context)
        }
        applied += 1
    }

    private mutating func applyRule(_ text: String, on: Bool) throws {
        let stored = try Killfile.stored(in: context).filter {
            FolderSyncRules.text(scope: $0.scope, predicate: $0.predicateFormat) == text
        }
        guard on else {
            for rule in stored { context.delete(rule) }
            applied += stored.isEmpty ? 0 : 1
            return
        }
        guard stored.isEmpty else { return }
        let device = state.ignoreRules[text]?.stamp.device ?? "?"
        guard let parts = FolderSyncRules.parts(of: text) else {
            refusals.append(.ignoreRule(rule: text, device: device, reason: "not a scope and a predicate"))
            return
        }
        do {
            try Killfile.add(Killfile.Rule(scope: FeedScope(parsing: parts.scope), predicateFormat: parts.predicate), in: context)
        } catch {
            refusals.append(.ignoreRule(rule: text, device: device, reason: ZeaderError.wrapping(error).description))
            return
        }
        applied += 1
    }
}

extension FolderSyncState {
    /// The device whose subscription to `url` is in force.
    func subscriber(of url: String) -> String? { feeds[url]?.subscribed?.stamp.device }

    /// Subscriptions in force that this store refuses: not http(s) feeds.
    func refusedSubscriptions() -> [FolderSyncRun.Refusal] {
        feeds.keys.sorted().compactMap { url in
            guard feeds[url]?.subscribed?.value == true, FeedTrust.webURL(url) != url else { return nil }
            return .notWebFeed(url: url, device: subscriber(of: url) ?? "?")
        }
    }
}
