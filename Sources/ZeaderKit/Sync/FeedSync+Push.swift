import Feeds
import Foundation
import ObjectGraph

extension FeedSync {
    // MARK: Push

    struct QueuedChange {
        var id: ObjectID
        var kind: SyncChange.Kind
        var url: String
        var feedSyncID: String?
        var title: String?
        var tags: [String]
    }

    /// Pushes the queued subscription changes, oldest first, deleting each from the queue
    /// once the server has it. Returns whether the server's list changed.
    func pushSubscriptionChanges(
        _ client: any SyncService, subscriptions: [SyncSubscription], stale: Set<String>, report: inout Report
    ) async throws -> Bool {
        let scope = try self.scope()
        let queued: [QueuedChange] = try withContext { context in
            let servers = Dictionary(
                try Server.findAll(where: scope.feeds, in: context).map { ($0.url, $0) }, uniquingKeysWith: { a, _ in a })
            let request = FetchRequest<SyncChange>(predicate: scope.changes, sortDescriptors: [ObjectSortDescriptor("created")])
            return try context.fetch(request).compactMap { change in
                guard let kind = SyncChange.Kind(rawValue: change.kind) else { return nil }
                let server = servers[change.feedURL]
                return QueuedChange(
                    id: change.objectID, kind: kind, url: change.feedURL, feedSyncID: change.feedSyncID ?? server?.syncID,
                    title: server?.title, tags: FeedTags.list(server?.tags))
            }
        }
        guard !queued.isEmpty else { return false }
        let keptLabels =
            try store.container.store.metadata(forKey: scope.key(Self.labelsKey)).flatMap(SyncLabels.decode) ?? [:]
        var byURL: [String: SyncSubscription] = [:]
        for subscription in subscriptions {
            if let url = subscription.url.flatMap(FeedTrust.webURL) ?? subscription.url { byURL[url] = subscription }
        }
        var changed = false
        for change in queued {
            // A command or a file is never sent to a server, whatever put it in the queue.
            guard SyncQueue.isSyncable(change.url) else {
                try dropChange(change.id)
                continue
            }
            // An id that now names another feed is never used: the change would reach that feed.
            let known =
                byURL[FeedTrust.webURL(change.url) ?? change.url]
                ?? subscriptions.first { $0.id == change.feedSyncID && !stale.contains($0.id) }
            var linkTo: String?
            switch change.kind {
            case .subscribe:
                if let known {
                    linkTo = known.id
                    // Already on the server (another device's, an upload): the tags it lacks are added.
                    let missing = change.tags.filter { tag in !known.labels.contains { $0.lowercased() == tag.lowercased() } }
                    if !missing.isEmpty {
                        if try await Self.pushing(
                            change.url, report: &report,
                            { () async throws(SyncError) in
                                try await client.move(
                                    known.id, title: nil, add: SyncLabels.ordered(change.tags, held: known.labels), remove: [])
                            })
                        {
                            changed = true
                        }
                    }
                } else {
                    let added: Result<String, SyncError>
                    do throws(SyncError) {
                        added = .success(try await client.subscribe(url: change.url))
                    } catch {
                        added = .failure(error)
                    }
                    if case .failure(.badResponse(_, let reason, _)) = added {
                        // The server's final answer (it cannot fetch the feed): keep the feed
                        // here only, rather than retrying it at every sync.
                        report.refused.append(Messages.syncRefused(url: change.url, reason: reason))
                        try dropChange(change.id)
                        try withContext { context in
                            let refused = try Server.findFirst(where: Self.feed(change.url, in: scope), in: context)
                            refused?.lastError = Messages.syncRefusedFeedError(reason: reason)
                            try context.save()
                        }
                        continue
                    }
                    if case .failure(.unsupported(let service, let operation)) = added {
                        // The service has no such call: the feed stays here only.
                        report.refused.append(Messages.syncUnsupported(service, operation, url: change.url))
                        try dropChange(change.id)
                        continue
                    }
                    let id = try added.get()
                    _ = try await Self.pushing(change.url, report: &report) { () async throws(SyncError) in
                        if !change.tags.isEmpty {
                            try await client.move(id, title: change.title, add: change.tags, remove: [])
                        } else if let title = change.title {
                            try await client.rename(id, title: title)
                        }
                    }
                    linkTo = id
                    changed = true
                }
            case .unsubscribe:
                if let known {
                    if try await Self.pushing(
                        change.url, report: &report,
                        { () async throws(SyncError) in
                            try await client.unsubscribe(known.id)
                        })
                    {
                        changed = true
                    }
                }
            case .title:
                if let known,
                    try await pushTitle(change.title, of: change.url, to: known, client, scope: scope, report: &report)
                {
                    changed = true
                }
            case .tags:
                // Every tag is pushed; a label is removed when this device saw it at the last
                // sync and has no such tag now (one added elsewhere since is kept, and pulled).
                if let known {
                    let local = Set(change.tags.map { $0.lowercased() })
                    let labels = known.labels.filter { !Self.defaultFolders.contains($0) }
                    let seen = Set((keptLabels[FeedTrust.webURL(change.url) ?? change.url] ?? []).map { $0.lowercased() })
                    let removed = labels.filter { !local.contains($0.lowercased()) && seen.contains($0.lowercased()) }
                    let lacking = local.subtracting(labels.map { $0.lowercased() })
                    if !lacking.isEmpty || !removed.isEmpty {
                        if try await Self.pushing(
                            change.url, report: &report,
                            { () async throws(SyncError) in
                                try await client.move(
                                    known.id, title: nil, add: SyncLabels.ordered(change.tags, held: known.labels),
                                    remove: removed)
                            })
                        {
                            changed = true
                        }
                    }
                }
            }
            try withContext { context in
                if let object = try? context.existingObject(with: change.id) { context.delete(object) }
                if let linkTo, let server = try Server.findFirst(where: Self.feed(change.url, in: scope), in: context),
                    server.syncID != linkTo
                {
                    server.syncID = linkTo
                }
                try context.save()
            }
            report.pushed += 1
        }
        return changed
    }

    /// Runs `push`, one change of the feed at `url`; false when the service has no call for
    /// it (``SyncError/unsupported(service:_:)``): said in one line of the report, and the
    /// change is done with, never retried. Any other error is thrown.
    static func pushing(_ url: String, report: inout Report, _ push: () async throws(SyncError) -> Void)
        async throws(SyncError) -> Bool
    {
        do throws(SyncError) {
            try await push()
            return true
        } catch {
            guard case .unsupported(let service, let operation) = error else { throw error }
            report.refused.append(Messages.syncUnsupported(service, operation, url: url))
            return false
        }
    }

    /// The account's feed at `url` (a feed of another source with that URL is not it).
    static func feed(_ url: String, in scope: AccountScope) -> ObjectPredicate {
        .comparison(.keyPath("url"), .equalTo, .constant(.string(url))) && scope.feeds
    }

    func dropChange(_ id: ObjectID) throws {
        try withContext { context in
            if let object = try? context.existingObject(with: id) { context.delete(object) }
            try context.save()
        }
    }

    /// Pushes read/unread and flag/unflag changes in chunks; a chunk's pending marks are
    /// cleared once the server accepted it, only on items still in the state pushed (a
    /// change made meanwhile stays pending).
    func pushItemStates(_ client: any SyncService, report: inout Report) async throws {
        struct Pending {
            var read: [String] = []
            var unread: [String] = []
            var flagged: [String] = []
            var unflagged: [String] = []
        }
        let scope = try self.scope()
        let pending: Pending = try withContext { context in
            var pending = Pending()
            for item in try context.fetch(FetchRequest<FeedItem>(predicate: SyncQueue.pendingItems && scope.items)) {
                guard let id = item.syncID else { continue }
                if item.syncReadPending {
                    if item.read { pending.read.append(id) } else { pending.unread.append(id) }
                }
                if item.syncFlagPending {
                    if item.flagged { pending.flagged.append(id) } else { pending.unflagged.append(id) }
                }
            }
            return pending
        }
        let groups: [(ids: [String], state: SyncItemState, on: Bool, key: String, pendingKey: String)] = [
            (pending.read, .read, true, "read", "syncReadPending"),
            (pending.unread, .read, false, "read", "syncReadPending"),
            (pending.flagged, .starred, true, "flagged", "syncFlagPending"),
            (pending.unflagged, .starred, false, "flagged", "syncFlagPending"),
        ]
        for group in groups {
            var start = 0
            while start < group.ids.count {
                let chunk = Array(group.ids[start..<min(start + chunkSize * 4, group.ids.count)])
                start += chunk.count
                try await client.mark(group.state, group.on, ids: chunk.compactMap { UInt64($0) })
                try withContext { context in
                    let predicate =
                        ObjectPredicate.comparison(
                            .keyPath("syncID"), .in, .aggregate(chunk.map { .constant(.string($0)) }))
                        && .comparison(.keyPath(group.key), .equalTo, .constant(.bool(group.on))) && scope.items
                    _ = try context.execute(
                        BatchUpdateRequest(
                            entityName: "FeedItem", predicate: predicate, propertiesToUpdate: [group.pendingKey: .bool(false)]))
                }
                report.pushed += chunk.count
            }
        }
    }
}
