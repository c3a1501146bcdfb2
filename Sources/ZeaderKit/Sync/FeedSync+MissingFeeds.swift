import Feeds
import Foundation
import ObjectGraph

extension FeedSync {
    // MARK: Feeds the server forgot

    /// Checked before anything is pushed or pulled: when the server no longer lists most of
    /// this device's synced feeds, stops (``MissingFeeds/stop``) or makes them local,
    /// re-queued for subscription (``MissingFeeds/upload``) or not (``MissingFeeds/detach``).
    ///
    /// The URL decides which feed a listed id is: a synced feed whose id the server lists
    /// with another URL (an account reset and filled again from another device gives old ids
    /// to other feeds) is the same feed moved (the server followed a redirect) only when
    /// that stream holds an item this device stored in the feed (``sameFeed(_:_:syncID:)``);
    /// otherwise its id is stale. Stale feeds count with the missing ones; when they are not
    /// most of the synced feeds, each is kept here as a local feed, never joined to the feed
    /// that now has its id. Returns the stale ids, which the push must not use.
    func resolveMissingFeeds(
        _ client: any SyncService, _ subscriptions: [SyncSubscription], _ choice: MissingFeeds,
        report: inout Report
    ) async throws -> Set<String> {
        let scope = try self.scope()
        let syncedFeeds = try ObjectPredicate(format: "syncID != nil") && scope.feeds
        var urlByID: [String: String] = [:]
        var urls = Set<String>()
        for subscription in subscriptions {
            // As applySubscriptions matches them: the URL made what the store keeps.
            let url = subscription.url.flatMap(FeedTrust.webURL)
            urlByID[subscription.id] = url ?? ""
            if let url { urls.insert(url) }
        }
        // A stored URL compared as the server's are (a feed typed with an upper-case host).
        func listedForm(_ url: String) -> String { FeedTrust.webURL(url) ?? url }
        // The synced feeds whose id the server lists with another URL, and how many are gone.
        let (moved, synced, missing): ([(syncID: String, url: String)], Int, Int) = try withContext { context in
            let synced = try Server.findAll(where: syncedFeeds, in: context)
            var moved: [(syncID: String, url: String)] = []
            var missing = 0
            for server in synced {
                guard let id = server.syncID, !urls.contains(listedForm(server.url)) else { continue }
                guard let listed = urlByID[id] else {
                    missing += 1
                    continue
                }
                if !listed.isEmpty { moved.append((id, server.url)) }
            }
            return (moved, synced.count, missing)
        }
        var stale = Set<String>()
        for (index, feed) in moved.enumerated() where try await !sameFeed(client, feed.url, syncID: feed.syncID) {
            stale.insert(feed.syncID)
            // The sync stops anyway: the rest are counted as listed with other URLs, unasked.
            if choice == .stop, Self.mostFeedsWouldGo(missing: missing + stale.count, synced: synced) {
                stale.formUnion(moved[(index + 1)...].map(\.syncID))
                break
            }
        }
        let staleIDs = stale
        let (unlinked, removed): ([String], Int) = try withContext { context in
            let synced = try Server.findAll(where: syncedFeeds, in: context)
            // A feed listed under another id but the same URL is kept (applySubscriptions relinks it).
            let missing = synced.filter { urlByID[$0.syncID ?? ""] == nil && !urls.contains(listedForm($0.url)) }
            let renamed = synced.filter { staleIDs.contains($0.syncID ?? "") && !urls.contains(listedForm($0.url)) }
            let most = Self.mostFeedsWouldGo(missing: missing.count + renamed.count, synced: synced.count)
            if most, choice == .stop {
                let listed = synced.count - missing.count - renamed.count
                throw renamed.isEmpty
                    ? SyncError.serverForgotFeeds(listed: listed, synced: synced.count)
                    : SyncError.serverRenamedFeeds(renamed: renamed.count, listed: listed, synced: synced.count)
            }
            // Accepted removals: the feeds the server dropped go in applySubscriptions, and
            // those whose ids name other feeds now go here.
            if most, choice == .remove {
                for server in renamed { context.delete(server) }
                try context.save()
                return ([], renamed.count)
            }
            var unlink = renamed
            if most { unlink += missing }
            if unlink.isEmpty { return ([], 0) }
            let unlinkedURLs = Set(unlink.map(\.url))
            for change in try SyncChange.findAll(where: scope.changes, in: context)
            where change.feedSyncID != nil && unlinkedURLs.contains(change.feedURL) {
                change.feedSyncID = nil
            }
            for server in unlink {
                server.syncID = nil
                _ = try context.execute(
                    BatchUpdateRequest(
                        entityName: "FeedItem",
                        predicate: .comparison(.keyPath("server"), .equalTo, .object(server.objectID)),
                        propertiesToUpdate: ["syncID": .null, "syncReadPending": .bool(false), "syncFlagPending": .bool(false)]))
                // Kept here as a local feed, unless it goes back to the account.
                if most, choice == .upload { SyncQueue.queue(.subscribe, for: server, in: context) } else { server.account = nil }
            }
            if most {
                // The account's item ids start again: the next pull looks at every item.
                if let account = try accountRow(scope, in: context) { account.newestItemID = nil }
            }
            try context.save()
            return (most ? [] : renamed.map(\.url), 0)
        }
        report.feedsRemoved += removed
        report.notStored += unlinked.map(Messages.syncFeedIDTaken(url:))
        if !stale.isEmpty { try forgetKeptLists(scope) }
        return stale
    }

    /// Whether the server's stream `syncID` is this device's feed `url` moved: its newest
    /// items (one page) include one stored here in that feed. A feed with none stored here
    /// cannot be told from another one, and is not taken for it.
    func sameFeed(_ client: any SyncService, _ url: String, syncID: String) async throws -> Bool {
        let ids = try await client.newestItemIDs(feed: syncID, count: 100)
        guard !ids.isEmpty else { return false }
        let scope = try self.scope()
        return try withContext { context in
            guard let server = try Server.findFirst(where: Self.feed(url, in: scope), in: context) else { return false }
            let request = FetchRequest<FeedItem>(
                predicate: .comparison(.keyPath("server"), .equalTo, .object(server.objectID))
                    && .comparison(.keyPath("syncID"), .in, .aggregate(ids.map { .constant(.string(String($0))) })))
            return try context.count(for: request) > 0
        }
    }
}
