import Foundation
import ObjectGraph

/// This store's changes since the last run, read from its history, as folder entries: only
/// what differs from the merged state, so saves that changed nothing shared send nothing.
struct LocalChanges {
    var changes: [FolderSyncChange] = []
    /// Items a refresh stored since: they take the state other devices gave them.
    var insertedItems = Set<ObjectID>()

    /// Reads `transactions` (oldest first) on `context`'s queue.
    init(_ transactions: [HistoryTransaction], in context: ManagedObjectContext, state: FolderSyncState) throws {
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
        var subscribedNow = Set<String>()
        for id in insertedServers.union(serverKeys.keys) {
            guard let server = (try? context.existingObject(with: id)) as? Server else { continue }
            subscribedNow.insert(server.url)
            feedChanges(of: server, keys: insertedServers.contains(id) ? nil : serverKeys[id] ?? [], state: state)
        }
        for url in Set(deletedURLs) where !subscribedNow.contains(url) && state.feed(url)?.subscribed != false {
            guard try Server.findFirst(byAttribute: "url", value: .string(url), in: context) == nil else { continue }
            changes.append(.subscribed(feed: url, false))
        }
        if !itemKeys.isEmpty { try itemChanges(itemKeys, in: context, state: state) }
        for id in removedItems {
            guard let removed = (try? context.existingObject(with: id)) as? RemovedItem,
                removed.reason == RemovedItem.Reason.deleted.rawValue, let url = removed.server?.url,
                FeedTrust.webURL(url) == url
            else { continue }
            let key = ItemSyncKey(feedURL: url, guid: removed.guid)
            if state.item(key)?.deleted != true { changes.append(.deleted(key)) }
        }
        if smartFeedsChanged { try smartFeedChanges(in: context, state: state) }
        if rulesChanged { try ruleChanges(in: context, state: state) }
    }

    /// A feed's subscription, title and tags where they differ from the state (`keys`: the
    /// ones that changed; nil for a feed inserted, all of them).
    private mutating func feedChanges(of server: Server, keys: Set<String>?, state: FolderSyncState) {
        // Only web feeds are shared: a command or a file means nothing on another device.
        let url = server.url
        guard FeedTrust.webURL(url) == url else { return }
        let view = state.feed(url)
        if view?.subscribed != true { changes.append(.subscribed(feed: url, true)) }
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
            guard let item = (try? context.existingObject(with: id)) as? FeedItem, let url = item.server?.url,
                FeedTrust.webURL(url) == url
            else { continue }
            let key = ItemSyncKey(feedURL: url, guid: item.guid)
            let view = state.item(key)
            if view?.deleted == true { continue }
            if keys.contains("read"), (view?.read ?? false) != item.read { changes.append(.read(key, item.read)) }
            if keys.contains("flagged"), (view?.flagged ?? false) != item.flagged {
                changes.append(.flagged(key, item.flagged))
            }
        }
    }

    /// The smart feeds, all of them compared with the state's (they are few).
    private mutating func smartFeedChanges(in context: ManagedObjectContext, state: FolderSyncState) throws {
        let shared = state.smartFeedQueries
        var local: [String: String] = [:]
        for smart in try SmartFeeds.stored(in: context) { local[smart.title] = smart.predicateFormat }
        for (name, query) in local.sorted(by: { $0.key < $1.key }) where shared[name] != query {
            changes.append(.smartFeed(name: name, query: query))
        }
        for name in shared.keys.sorted() where local[name] == nil { changes.append(.smartFeed(name: name, query: nil)) }
    }

    /// The stored ignore rules, all of them compared with the state's.
    private mutating func ruleChanges(in context: ManagedObjectContext, state: FolderSyncState) throws {
        let shared = state.ignoreRuleTexts
        let local = Set(
            try Killfile.stored(in: context).map { FolderSyncRules.text(scope: $0.scope, predicate: $0.predicateFormat) })
        for rule in local.subtracting(shared).sorted() { changes.append(.ignoreRule(rule, true)) }
        for rule in shared.subtracting(local).sorted() { changes.append(.ignoreRule(rule, false)) }
    }
}

/// Writes the merged state's changes into the store, as another device's data: a feed only
/// at an http(s) URL (recorded as imported), a smart feed or ignore rule only once checked.
struct StoreWriter {
    let context: ManagedObjectContext
    let state: FolderSyncState
    var applied = 0
    var refusals: [FolderSyncRun.Refusal] = []

    /// Applies `changed` views, and the state of items stored since the last run.
    mutating func apply(_ changed: AffectedKeys.Views, inserted: Set<ObjectID>) throws {
        if !changed.feeds.isEmpty { try applyFeeds(changed.feeds) }
        if !changed.items.isEmpty || (!inserted.isEmpty && !state.itemKeys.isEmpty) {
            try applyItems(changed.items.keys, inserted: inserted)
        }
        for (name, query) in changed.smartFeeds.sorted(by: { $0.key < $1.key }) { try applySmartFeed(name, query: query) }
        for (rule, on) in changed.rules.sorted(by: { $0.key < $1.key }) { try applyRule(rule, on: on) }
    }

    private mutating func applyFeeds(_ feeds: [String: FolderSyncState.FeedView?]) throws {
        var byURL: [String: Server] = [:]
        for server in try Server.findAll(in: context) { byURL[server.url] = server }
        var order = try FeedSubscription.nextDisplayOrder(in: context)
        for (url, view) in feeds.sorted(by: { $0.key < $1.key }) {
            guard let view else { continue }
            if view.subscribed == false {
                if let server = byURL[url] {
                    context.delete(server)
                    applied += 1
                }
                continue
            }
            var target = byURL[url]
            if target == nil, view.subscribed == true {
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

    /// Items by key: the ones whose state changed, and the ones just stored that the state names.
    private mutating func applyItems(_ keys: Dictionary<ItemSyncKey, FolderSyncState.ItemView?>.Keys, inserted: Set<ObjectID>)
        throws
    {
        var wanted = Set(keys)
        var byKey: [ItemSyncKey: ObjectID] = [:]
        for server in try Server.findAll(in: context) where FeedTrust.webURL(server.url) == server.url {
            let rows = try context.fetchValues(
                FetchRequest<FeedItem>(predicate: try ObjectPredicate(format: "server == %@", server.objectID)),
                keys: ["guid"])
            for row in rows {
                guard case .string(let guid) = row.values[0] else { continue }
                let key = ItemSyncKey(feedURL: server.url, guid: guid)
                if keys.contains(key) || (inserted.contains(row.objectID) && state.item(key) != nil) {
                    byKey[key] = row.objectID
                    wanted.insert(key)
                }
            }
        }
        for key in wanted.sorted() {
            guard let id = byKey[key], let view = state.item(key),
                let item = (try? context.existingObject(with: id)) as? FeedItem
            else { continue }
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
