import Foundation
import ObjectGraph

extension FeedSync {
    /// A queued "mark feed read" or "mark all read" as the push sends it.
    private struct QueuedReadMark {
        enum Scope {
            case all
            case feed(String)
        }
        var id: ObjectID
        /// Every feed, or one feed (its service id); nil when the feed is not on the server.
        var scope: Scope?
        /// Microseconds since 1970: the mark's moment, or the newest item it covers here
        /// if that is later (a server clock ahead of this one).
        var olderThan: UInt64
        /// The items of the scope read here with their mark pending: the mark covers them.
        var coveredIDs: [String]
    }

    /// Pushes the queued read marks of whole feeds and of everything, oldest first, each as
    /// one `mark-all-as-read` up to its moment: the server marks every item it had then,
    /// those this device never saw included. Once accepted, the mark leaves the queue and
    /// the items it covered lose their pending read mark (no `edit-tag` for them). A server
    /// that refuses the call (it lacks it) drops the mark and leaves those items pending,
    /// so they go out one by one as before; a server away keeps the mark queued.
    func pushReadMarks(_ client: any SyncService, report: inout Report) async throws {
        let account = try self.scope()
        let marks: [QueuedReadMark] = try withContext { context in
            let request = FetchRequest<SyncChange>(
                predicate: SyncQueue.readMarks && account.changes, sortDescriptors: [ObjectSortDescriptor("created")])
            return try context.fetch(request).map { change in
                var scope: QueuedReadMark.Scope? = .all
                var covered =
                    try ObjectPredicate(format: "syncID != nil AND syncReadPending == YES AND read == YES") && account.items
                if change.kind == SyncChange.ReadMark.feed.rawValue {
                    let server = try Server.findFirst(where: Self.feed(change.feedURL, in: account), in: context)
                    scope = server?.syncID.map { .feed($0) }
                    if let server { covered = covered && .comparison(.keyPath("server"), .equalTo, .object(server.objectID)) }
                }
                var coveredIDs: [String] = []
                var newest: UInt64 = 0
                if scope != nil {
                    for row in try context.fetchValues(FetchRequest<FeedItem>(predicate: covered), keys: ["syncID"]) {
                        guard case .string(let id) = row.values[0] else { continue }
                        coveredIDs.append(id)
                        newest = max(newest, UInt64(id) ?? 0)
                    }
                }
                let moment = UInt64(max(0, (change.created ?? Date()).timeIntervalSince1970) * 1_000_000)
                return QueuedReadMark(id: change.objectID, scope: scope, olderThan: max(moment, newest), coveredIDs: coveredIDs)
            }
        }
        for mark in marks {
            if let scope = mark.scope {
                let feed: String? = if case .feed(let id) = scope { id } else { nil }
                let sent: Result<Void, SyncError>
                do throws(SyncError) {
                    sent = .success(try await client.markAllRead(feed: feed, olderThan: mark.olderThan))
                } catch {
                    sent = .failure(error)
                }
                switch sent {
                case .success:
                    try clearPendingReads(mark.coveredIDs, scope: account)
                    report.pushed += 1
                case .failure(.server(let status, _)) where (400..<500).contains(status):
                    break  // No bulk call here: the items' own pending marks carry the change.
                case .failure(let error):
                    throw error
                }
            }
            try withContext { context in
                if let object = try? context.existingObject(with: mark.id) { context.delete(object) }
                try context.save()
            }
        }
    }

    /// Clears the pending read mark of the items `ids` still read: the server has them read.
    private func clearPendingReads(_ ids: [String], scope: AccountScope) throws {
        try withContext { context in
            for start in stride(from: 0, to: ids.count, by: 500) {
                let chunk = ids[start..<min(start + 500, ids.count)]
                let predicate =
                    ObjectPredicate.comparison(.keyPath("syncID"), .in, .aggregate(chunk.map { .constant(.string($0)) }))
                    && .comparison(.keyPath("read"), .equalTo, .constant(.bool(true))) && scope.items
                _ = try context.execute(
                    BatchUpdateRequest(
                        entityName: "FeedItem", predicate: predicate, propertiesToUpdate: ["syncReadPending": .bool(false)]))
            }
        }
    }
}
