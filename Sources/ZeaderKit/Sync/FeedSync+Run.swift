import Feeds
import Foundation
import ObjectGraph

// A sync and a push: the steps in order, over the account's service.
extension FeedSync {
    // MARK: - Sync

    /// What a sync does with the synced feeds the server no longer lists, when they are most
    /// of this device's (``FeedSync/mostFeedsWouldGo(missing:synced:)``): an account reset or
    /// recreated empty looks like that, and removing them would delete every item and star.
    ///
    /// ```swift
    /// let report = try await sync.sync(missingFeeds: .upload)
    /// ```
    public enum MissingFeeds: Sendable, Equatable {
        /// Stop before changing anything (``SyncError/serverForgotFeeds(listed:synced:)``).
        case stop
        /// Subscribe the account to them again; their items and states stay here.
        case upload
        /// Keep them here as local feeds, no longer synced.
        case detach
        /// Remove them here, as the server did.
        case remove
    }

    /// Whether a sync that would remove `missing` of this device's `synced` feeds removes
    /// most of them: at least two, and more than half. One feed removed elsewhere always goes.
    ///
    /// ```swift
    /// FeedSync.mostFeedsWouldGo(missing: 3, synced: 3)  // true
    /// ```
    public static func mostFeedsWouldGo(missing: Int, synced: Int) -> Bool {
        missing >= 2 && missing * 2 > synced
    }

    /// Runs one two-way sync (see the type's documentation). On failure, what was done is
    /// kept, the queue keeps what was not pushed, and the error says what went wrong. When
    /// the server no longer lists most of this device's synced feeds, `missingFeeds` says
    /// what to do (``MissingFeeds``); by default the sync stops before changing anything.
    ///
    /// ```swift
    /// let report = try await sync.sync { phase in print(phase) }
    /// ```
    public func sync(missingFeeds: MissingFeeds = .stop, progress: (@Sendable (Phase) -> Void)? = nil)
        async throws(ZeaderError) -> Report
    {
        let client = try client()
        var report = Report()
        defer { store.checkpoint() }
        defer { keepRenewedToken(of: client) }
        // Saved as a bulk write, as a refresh is (statement journals in memory).
        let outcome: Result<Void, any Error> = await store.container.store.withBulkWritesAsync {
            do {
                try await run(client, missingFeeds: missingFeeds, report: &report, progress: progress ?? { _ in })
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        do {
            try outcome.get()
        } catch let error as SyncError {
            throw .sync(error)
        } catch {
            throw ZeaderError.wrapping(error)
        }
        report.requests = client.requestCount
        return report
    }

    /// Pushes the changes made here (steps 1-3 of a sync) and pulls nothing: what the reader
    /// does shortly after a change and when it quits. Stops, as a sync does, when the server
    /// no longer lists most of this device's feeds. Returns how many changes were pushed.
    ///
    /// ```swift
    /// let pushed = try await sync.push()
    /// ```
    public func push() async throws(ZeaderError) -> Int {
        guard let status = try status() else { throw .sync(.noAccount) }
        guard status.pending > 0 else { return 0 }
        let client = try client()
        defer { keepRenewedToken(of: client) }
        var report = Report()
        do {
            _ = try await pushChanges(client, missingFeeds: .stop, report: &report, progress: { _ in })
        } catch let error as SyncError {
            throw .sync(error)
        } catch {
            throw ZeaderError.wrapping(error)
        }
        return report.pushed
    }

    /// The account's service, logged in with the kept token.
    func client() throws(ZeaderError) -> any SyncService {
        guard let status = try status() else { throw .sync(.noAccount) }
        let file: SyncTokenFile
        do { file = try tokenFile(AccountScope(name: status.name)) } catch { throw .sync(error) }
        guard let token = file.read() else { throw .sync(.noToken(path: file.url.path)) }
        return makeService?(status.apiURL, token)
            ?? status.service.service(apiURL: status.apiURL, token: token, fetcher: fetcher)
    }

    func run(
        _ client: any SyncService, missingFeeds: MissingFeeds, report: inout Report, progress: @Sendable (Phase) -> Void
    ) async throws {
        let (subscriptions, unlinked) = try await pushChanges(
            client, missingFeeds: missingFeeds, report: &report, progress: progress)
        progress(.subscriptions)
        let newFeeds = try applySubscriptions(subscriptions, report: &report)
        let rules = try killfileRules()
        let joined = try streamIDs(of: unlinked)
        let pulled = try await pullNewItems(
            client, joined: joined, newFeeds: newFeeds, rules: rules, report: &report, progress: progress)
        progress(.states)
        try await pullStates(client, pulled: pulled, report: &report)
        // The state of items matched to a feed's history, which the server lacked, and the
        // tags rules gave new items: pushed now, so that the server has them when this sync returns.
        try await pushItemStates(client, report: &report)
        try await pushItemLabels(client, report: &report)
    }

    /// The feeds not synced that have items of their own (stored by a refresh): those that
    /// join the account in this sync have this history matched to the server's items.
    func feedsWithHistory() throws -> [ObjectID] {
        let scope = try self.scope()
        return try withContext { context in
            let unsynced = try ObjectPredicate(format: "syncID == nil") && scope.feeds
            return try Server.findAll(where: unsynced, in: context).compactMap { server in
                var request = FetchRequest<FeedItem>(
                    predicate: .comparison(.keyPath("server"), .equalTo, .object(server.objectID))
                        && .comparison(.keyPath("syncID"), .equalTo, .constant(.null)))
                request.fetchLimit = 1
                return try context.fetch(request).isEmpty ? nil : server.objectID
            }
        }
    }

    /// The server's ids (`feed/12`) of those of `feeds` that are synced now.
    func streamIDs(of feeds: [ObjectID]) throws -> [String] {
        guard !feeds.isEmpty else { return [] }
        return try withContext { context in
            feeds.compactMap { ((try? context.existingObject(with: $0)) as? Server)?.syncID }
        }
    }

    /// Steps 1–3 of a sync: the server's subscriptions (checked for feeds it forgot, ``MissingFeeds``),
    /// then the queued changes pushed. Returns the subscriptions as the server lists them after
    /// the push, and the feeds with a history of their own that were not synced before it
    /// (``feedsWithHistory()``: those made local by the check included).
    func pushChanges(
        _ client: any SyncService, missingFeeds: MissingFeeds, report: inout Report, progress: @Sendable (Phase) -> Void
    ) async throws -> (subscriptions: [SyncSubscription], unlinked: [ObjectID]) {
        progress(.subscriptions)
        var subscriptions = try await client.subscriptions()
        let stale = try await resolveMissingFeeds(client, subscriptions, missingFeeds, report: &report)
        let unlinked = try feedsWithHistory()
        progress(.pushing)
        if try await pushSubscriptionChanges(client, subscriptions: subscriptions, stale: stale, report: &report) {
            subscriptions = try await client.subscriptions()
        }
        try await pushReadMarks(client, report: &report)
        try await pushItemStates(client, report: &report)
        try await pushItemLabels(client, report: &report)
        return (subscriptions, unlinked)
    }
}
