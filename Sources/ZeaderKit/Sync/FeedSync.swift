import Feeds
import Foundation
import ObjectGraph

/// Two-way sync of a store through a Google Reader API server (FreshRSS, Miniflux,
/// Inoreader, The Old Reader, BazQux): the one implementation `zeader sync` and the
/// reader share.
///
/// A sync pushes first, then pulls:
/// 1. the subscriptions' list (one request);
/// 2. queued subscription changes (``SyncChange``: subscribe, unsubscribe, tags), each
///    deleted from the queue once the server accepted it;
/// 3. "mark feed read" and "mark all read", each one `mark-all-as-read` up to the moment
///    it was made (``SyncChange/ReadMark``), then items read, unread, flagged or unflagged here (``FeedItem/syncReadPending``,
///    ``FeedItem/syncFlagPending``), cleared once accepted;
/// 4. the server's subscriptions and labels (→ tags) into the store: feeds added
///    elsewhere appear, feeds removed elsewhere go;
/// 5. new items since the last sync (their ids, with continuations, then their contents);
/// 6. the read and starred state of every item the server has (two id lists);
/// 7. the reads and stars of a feed's history (items stored before the feed was synced,
///    matched to the server's by ``ItemIdentity``) that the server lacked.
///
/// **Conflicts**: a change made on this device and not yet pushed wins over the server's
/// state of the same item or feed (it is pushed first); everything else takes the
/// server's state, which holds the last change any device pushed. An item of a feed's
/// history joining the account is read or starred if it is on either side. A sync that stops
/// part-way keeps in the queue what the server has not accepted, and the next sync goes on.
///
/// ```swift
/// let sync = FeedSync(store: store)
/// try await sync.addAccount(apiURL: "https://rss.example.org/api/greader.php", user: "alice", password: pw)
/// let report = try await sync.sync()
/// print(report.line)
/// ```
public final class FeedSync: Sendable {
    public let store: ZeaderStore
    let fetcher: FeedFetcher
    /// Items fetched per `stream/items/contents` request and ids per `edit-tag`.
    let chunkSize: Int
    /// The config's `ignore` rules (the stored ones are read from the store): ``Killfile``.
    let ignoreRules: [Killfile.Rule]
    /// The config's rules that act on new items (the stored ones are read from the store): ``ItemRules``.
    let itemRules: [ItemRules.Rule]

    /// A sync of `store` through `fetcher` (a fetcher of its own by default). Pulled items
    /// matching an ignore rule (`ignoreRules`, the config's, and the stored ones) are not
    /// stored, as a refresh does: their guid is kept as a tombstone; flagged ones stay.
    public init(
        store: ZeaderStore, fetcher: FeedFetcher? = nil, chunkSize: Int = 250, ignoreRules: [Killfile.Rule] = [],
        itemRules: [ItemRules.Rule] = []
    ) {
        self.store = store
        self.fetcher =
            fetcher
            ?? FeedFetcher(configuration: FetcherConfiguration(version: zeaderVersion, maxBodySize: 64 * 1024 * 1024))
        self.chunkSize = max(1, chunkSize)
        self.ignoreRules = ignoreRules
        self.itemRules = itemRules
    }

    /// The store's account: the server, the user, the last sync and the pending changes.
    public struct Status: Sendable, Equatable {
        public var apiURL: String
        public var user: String
        public var lastSync: Date?
        public var pending: Int
    }

    /// What one sync did.
    public struct Report: Sendable, Equatable {
        public var pushed = 0
        public var feedsAdded = 0
        public var feedsRemoved = 0
        public var newItems = 0
        public var stateChanges = 0
        /// HTTP requests made.
        public var requests = 0
        /// Feeds the server refused to subscribe to (it cannot fetch them, e.g. `file:` URLs),
        /// one line each: they stay local, and are not asked for again.
        public var refused: [String] = []
        /// Feeds the server listed that are not http(s) with a host (`exec:`, `file:`…), one
        /// line each: never stored, so never refreshed nor sent back; and synced feeds kept
        /// here as local ones because their server id now names another feed.
        public var notStored: [String] = []
        /// The rules that acted on the new items (``ItemRules``), in order.
        public var firings: [ItemRules.Firing] = []

        /// `sync: 3 changes pushed, 12 new items, 2 feeds added, 0 removed, 5 states changed`.
        public var line: String {
            "synced: \(pushed) changes pushed, \(newItems) new items, \(feedsAdded) feeds added, "
                + "\(feedsRemoved) removed, \(stateChanges) read/flag states changed (\(requests) requests)"
        }
    }

    /// What a sync is doing, for a status line.
    public enum Phase: Sendable, Equatable {
        case pushing
        case subscriptions
        case items(fetched: Int, of: Int)
        case states
    }

    // MARK: - The account

    private func tokenFile() throws(SyncError) -> SyncTokenFile {
        guard let url = store.url else { throw .inMemoryStore }
        return SyncTokenFile(storeURL: url)
    }

    func withContext<T>(_ body: (ManagedObjectContext) throws -> T) throws(ZeaderError) -> T {
        let context = store.container.newBackgroundContext(name: "sync")
        context.mergePolicy = .objectTrumps
        do {
            return try context.performAndWait { try body(context) }
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

    /// Whether the store has a sync account.
    ///
    /// ```swift
    /// if try sync.hasAccount() { … }
    /// ```
    public func hasAccount() throws(ZeaderError) -> Bool {
        try withContext { SyncQueue.isActive(in: $0) }
    }

    /// Logs in to `apiURL` as `user` (ClientLogin) and returns the token; nothing is stored.
    /// Call before opening the store, so that a refused login leaves no file behind.
    ///
    /// ```swift
    /// let token = try await FeedSync.login(apiURL: url, user: "alice", password: password)
    /// ```
    public static func login(apiURL: String, user: String, password: String, fetcher: FeedFetcher? = nil)
        async throws(ZeaderError) -> String
    {
        do {
            return try await GReaderClient.login(
                apiURL: apiURL, user: user, password: password,
                fetcher: fetcher ?? FeedFetcher(configuration: FetcherConfiguration(version: zeaderVersion)))
        } catch {
            throw .sync(error)
        }
    }

    /// What ``addAccount(apiURL:user:token:)`` did.
    ///
    /// ```swift
    /// if try sync.addAccount(apiURL: url, user: "alice", token: token) == .loggedInAgain { print("logged in again") }
    /// ```
    public enum AccountChange: Sendable, Equatable {
        /// A new account; the store's feeds are queued for subscription.
        case added
        /// The store had this account (same API URL and user): its token is replaced, its
        /// queue of changes not yet pushed kept.
        case loggedInAgain
    }

    /// Keeps the account logged in with `token` (from ``login(apiURL:user:password:fetcher:)``):
    /// the token in ``SyncTokenFile`` (never the password), the account in the store. The
    /// feeds already in the store are queued for subscription on the server. The same
    /// account again (API URL and user) is logged in again, its queue kept; another account
    /// is refused (``SyncError/accountExists(url:user:)``).
    ///
    /// ```swift
    /// try sync.addAccount(apiURL: url, user: "alice", token: token)
    /// ```
    @discardableResult
    public func addAccount(apiURL: String, user: String, token: String) throws(ZeaderError) -> AccountChange {
        let file: SyncTokenFile
        do { file = try tokenFile() } catch { throw .sync(error) }
        let base = GReaderClient.normalizedBase(apiURL)
        if let existing = try withContext({ try SyncAccount.findFirst(where: .true, in: $0) }).map({ ($0.apiURL, $0.user) }) {
            guard GReaderClient.normalizedBase(existing.0) == base, existing.1 == user else {
                throw .sync(.accountExists(url: existing.0, user: existing.1))
            }
            do { try file.write(token) } catch { throw .sync(error) }
            return .loggedInAgain
        }
        do { try file.write(token) } catch { throw .sync(error) }
        do {
            try forgetKeptLists()
            try withContext { context in
                let account = context.insert(SyncAccount.self)
                account.apiURL = base
                account.user = user
                for server in try Server.findAll(in: context) { SyncQueue.queue(.subscribe, for: server, in: context) }
                try context.save()
            }
        } catch {
            file.remove()
            throw error
        }
        return .added
    }

    /// Logs in and keeps the account: ``login(apiURL:user:password:fetcher:)`` then
    /// ``addAccount(apiURL:user:token:)``.
    ///
    /// ```swift
    /// try await sync.addAccount(apiURL: url, user: "alice", password: password)
    /// ```
    public func addAccount(apiURL: String, user: String, password: String) async throws(ZeaderError) {
        let token = try await Self.login(apiURL: apiURL, user: user, password: password, fetcher: fetcher)
        try addAccount(apiURL: apiURL, user: user, token: token)
    }

    /// The enabled feeds the account does not sync (a feed the server refused, a command or
    /// file feed, one detached): with an account a refresh is a sync, and these are
    /// refreshed here after it.
    ///
    /// ```swift
    /// let local = try sync.localFeeds()
    /// if !local.isEmpty { _ = try await FeedRefresher(store: store).refresh(servers: local) }
    /// ```
    public func localFeeds() throws(ZeaderError) -> [ObjectID] {
        try withContext { context in try SyncQueue.localFeeds(in: context) }
    }

    /// Logs in again with a new password, keeping the account and its queue.
    ///
    /// ```swift
    /// try await sync.renewLogin(password: password)
    /// ```
    public func renewLogin(password: String) async throws(ZeaderError) {
        guard let status = try status() else { throw .sync(.noAccount) }
        do throws(SyncError) {
            let token = try await GReaderClient.login(
                apiURL: status.apiURL, user: status.user, password: password, fetcher: fetcher)
            try tokenFile().write(token)
        } catch {
            throw .sync(error)
        }
    }

    /// The account, or nil when the store has none.
    ///
    /// ```swift
    /// if let status = try sync.status() { print(status.pending) }
    /// ```
    public func status() throws(ZeaderError) -> Status? {
        try withContext { context in
            guard let account = try SyncAccount.findFirst(where: .true, in: context) else { return nil }
            return Status(
                apiURL: account.apiURL, user: account.user, lastSync: account.lastSync,
                pending: try SyncQueue.pendingCount(in: context))
        }
    }

    /// Forgets the account: its token file, the queue and the server ids. The feeds, items
    /// and their states stay. Changes made here and not yet pushed are refused
    /// (``SyncError/unpushedChanges(count:)``) unless `force` drops them; returns how many
    /// were dropped.
    ///
    /// ```swift
    /// try sync.removeAccount()
    /// let dropped = try sync.removeAccount(force: true)
    /// ```
    @discardableResult
    public func removeAccount(force: Bool = false) throws(ZeaderError) -> Int {
        let dropped = try withContext { context in
            guard SyncQueue.isActive(in: context) else { throw ZeaderError.sync(.noAccount) }
            let pending = try SyncQueue.pendingCount(in: context)
            guard pending == 0 || force else { throw ZeaderError.sync(.unpushedChanges(count: pending)) }
            for account in try SyncAccount.findAll(in: context) { context.delete(account) }
            for change in try SyncChange.findAll(in: context) { context.delete(change) }
            for server in try Server.findAll(in: context) where server.syncID != nil { server.syncID = nil }
            try context.save()
            let synced = try ObjectGraph.Predicate(format: "syncID != nil")
            _ = try context.execute(
                BatchUpdateRequest(
                    entityName: "FeedItem", predicate: synced,
                    propertiesToUpdate: ["syncID": .null, "syncReadPending": .bool(false), "syncFlagPending": .bool(false)]))
            return pending
        }
        if let file = try? tokenFile() { file.remove() }
        try forgetKeptLists()
        do {
            try store.container.store.setMetadata("1", forKey: Self.itemsStoredByLinkKey)
        } catch {
            throw ZeaderError.wrapping(error)
        }
        store.checkpoint()
        return dropped
    }

    /// Whether items a sync stored under their links may be in `store` (read through
    /// `context`): it has a sync account, or had one. A refresh then also matches stored items by link
    /// (``ItemImport/upsert(_:into:in:now:ignoring:matchingLinks:)``), so a feed no longer
    /// synced keeps its items instead of storing them twice.
    ///
    /// ```swift
    /// let matchingLinks = FeedSync.mayHoldItemsStoredByLink(store, context: context)
    /// ```
    public static func mayHoldItemsStoredByLink(_ store: ZeaderStore, context: ManagedObjectContext) -> Bool {
        if context.performAndWait({ ((try? SyncAccount.count(in: context)) ?? 0) > 0 }) { return true }
        return (try? store.container.store.metadata(forKey: itemsStoredByLinkKey)) != nil
    }

    /// Store metadata set when an account is removed: its items keep the links a sync stored.
    static let itemsStoredByLinkKey = "zeader.sync.itemsStoredByLink"

    /// Drops the server's id lists kept by the last sync (the next sync compares every item).
    private func forgetKeptLists() throws(ZeaderError) {
        do {
            try store.container.store.setMetadata(nil, forKey: Self.unreadListKey)
            try store.container.store.setMetadata(nil, forKey: Self.starredListKey)
            try store.container.store.setMetadata(nil, forKey: Self.labelsKey)
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

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

    /// A client of the account's server with the kept token.
    private func client() throws(ZeaderError) -> GReaderClient {
        guard let status = try status() else { throw .sync(.noAccount) }
        let file: SyncTokenFile
        do { file = try tokenFile() } catch { throw .sync(error) }
        guard let token = file.read() else { throw .sync(.noToken(path: file.url.path)) }
        return GReaderClient(apiURL: status.apiURL, token: token, fetcher: fetcher)
    }

    private func run(
        _ client: GReaderClient, missingFeeds: MissingFeeds, report: inout Report, progress: @Sendable (Phase) -> Void
    ) async throws {
        let (subscriptions, unlinked) = try await pushChanges(
            client, missingFeeds: missingFeeds, report: &report, progress: progress)
        progress(.subscriptions)
        try applySubscriptions(subscriptions, report: &report)
        let rules = try killfileRules()
        let joined = try streamIDs(of: unlinked)
        let pulled = try await pullNewItems(client, joined: joined, rules: rules, report: &report, progress: progress)
        progress(.states)
        try await pullStates(client, pulled: pulled, report: &report)
        // The state of items matched to a feed's history, which the server lacked: pushed now,
        // so that the server has it when this sync returns.
        try await pushItemStates(client, report: &report)
    }

    /// The feeds not synced that have items of their own (stored by a refresh): those that
    /// join the account in this sync have this history matched to the server's items.
    private func feedsWithHistory() throws -> [ObjectID] {
        try withContext { context in
            try Server.findAll(where: try ObjectGraph.Predicate(format: "syncID == nil"), in: context).compactMap { server in
                var request = FetchRequest<FeedItem>(
                    predicate: .comparison(.keyPath("server"), .equalTo, .object(server.objectID))
                        && .comparison(.keyPath("syncID"), .equalTo, .constant(.null)))
                request.fetchLimit = 1
                return try context.fetch(request).isEmpty ? nil : server.objectID
            }
        }
    }

    /// The server's ids (`feed/12`) of those of `feeds` that are synced now.
    private func streamIDs(of feeds: [ObjectID]) throws -> [String] {
        guard !feeds.isEmpty else { return [] }
        return try withContext { context in
            feeds.compactMap { ((try? context.existingObject(with: $0)) as? Server)?.syncID }
        }
    }

    /// Steps 1–3 of a sync: the server's subscriptions (checked for feeds it forgot, ``MissingFeeds``),
    /// then the queued changes pushed. Returns the subscriptions as the server lists them after
    /// the push, and the feeds with a history of their own that were not synced before it
    /// (``feedsWithHistory()``: those made local by the check included).
    private func pushChanges(
        _ client: GReaderClient, missingFeeds: MissingFeeds, report: inout Report, progress: @Sendable (Phase) -> Void
    ) async throws -> (subscriptions: [GReaderClient.Subscription], unlinked: [ObjectID]) {
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
        return (subscriptions, unlinked)
    }

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
    private func resolveMissingFeeds(
        _ client: GReaderClient, _ subscriptions: [GReaderClient.Subscription], _ choice: MissingFeeds,
        report: inout Report
    ) async throws -> Set<String> {
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
            let synced = try Server.findAll(where: try ObjectGraph.Predicate(format: "syncID != nil"), in: context)
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
            let synced = try Server.findAll(where: try ObjectGraph.Predicate(format: "syncID != nil"), in: context)
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
            for change in try SyncChange.findAll(in: context)
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
                if most, choice == .upload { SyncQueue.queue(.subscribe, for: server, in: context) }
            }
            if most {
                // The account's item ids start again: the next pull looks at every item.
                if let account = try SyncAccount.findFirst(where: .true, in: context) { account.newestItemID = nil }
            }
            try context.save()
            return (most ? [] : renamed.map(\.url), 0)
        }
        report.feedsRemoved += removed
        report.notStored += unlinked.map(Messages.syncFeedIDTaken(url:))
        if !stale.isEmpty { try forgetKeptLists() }
        return stale
    }

    /// Whether the server's stream `syncID` is this device's feed `url` moved: its newest
    /// items (one page) include one stored here in that feed. A feed with none stored here
    /// cannot be told from another one, and is not taken for it.
    private func sameFeed(_ client: GReaderClient, _ url: String, syncID: String) async throws -> Bool {
        let ids = try await client.newestItemIDs(stream: syncID, count: 100)
        guard !ids.isEmpty else { return false }
        return try withContext { context in
            guard let server = try Server.findFirst(byAttribute: "url", value: .string(url), in: context) else { return false }
            let request = FetchRequest<FeedItem>(
                predicate: .comparison(.keyPath("server"), .equalTo, .object(server.objectID))
                    && .comparison(.keyPath("syncID"), .in, .aggregate(ids.map { .constant(.string(String($0))) })))
            return try context.count(for: request) > 0
        }
    }

    // MARK: Push

    private struct QueuedChange {
        var id: ObjectID
        var kind: SyncChange.Kind
        var url: String
        var feedSyncID: String?
        var title: String?
        var tags: [String]
    }

    /// Pushes the queued subscription changes, oldest first, deleting each from the queue
    /// once the server has it. Returns whether the server's list changed.
    private func pushSubscriptionChanges(
        _ client: GReaderClient, subscriptions: [GReaderClient.Subscription], stale: Set<String>, report: inout Report
    ) async throws -> Bool {
        let queued: [QueuedChange] = try withContext { context in
            let servers = Dictionary(try Server.findAll(in: context).map { ($0.url, $0) }, uniquingKeysWith: { a, _ in a })
            return try context.fetch(FetchRequest<SyncChange>(sortDescriptors: [SortDescriptor("created")])).compactMap {
                change in
                guard let kind = SyncChange.Kind(rawValue: change.kind) else { return nil }
                let server = servers[change.feedURL]
                return QueuedChange(
                    id: change.objectID, kind: kind, url: change.feedURL, feedSyncID: change.feedSyncID ?? server?.syncID,
                    title: server?.title, tags: FeedTags.list(server?.tags))
            }
        }
        guard !queued.isEmpty else { return false }
        let keptLabels = try store.container.store.metadata(forKey: Self.labelsKey).flatMap(SyncLabels.decode) ?? [:]
        var byURL: [String: GReaderClient.Subscription] = [:]
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
                        try await client.editLabels(known.id, add: SyncLabels.ordered(change.tags, held: known.labels))
                        changed = true
                    }
                } else {
                    let added: Result<String, SyncError>
                    do throws(SyncError) {
                        added = .success(try await client.quickAdd(change.url))
                    } catch {
                        added = .failure(error)
                    }
                    if case .failure(.badResponse(_, let reason)) = added {
                        // The server's final answer (it cannot fetch the feed): keep the feed
                        // here only, rather than retrying it at every sync.
                        report.refused.append(Messages.syncRefused(url: change.url, reason: reason))
                        try dropChange(change.id)
                        try withContext { context in
                            let refused = try Server.findFirst(byAttribute: "url", value: .string(change.url), in: context)
                            refused?.lastError = Messages.syncRefusedFeedError(reason: reason)
                            try context.save()
                        }
                        continue
                    }
                    let id = try added.get()
                    if !change.tags.isEmpty {
                        try await client.editLabels(id, title: change.title, add: change.tags)
                    } else if let title = change.title {
                        try await client.editSubscription(id, action: "edit", title: title)
                    }
                    linkTo = id
                    changed = true
                }
            case .unsubscribe:
                if let known {
                    try await client.editSubscription(known.id, action: "unsubscribe")
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
                        try await client.editLabels(
                            known.id, add: SyncLabels.ordered(change.tags, held: known.labels), remove: removed)
                        changed = true
                    }
                }
            }
            try withContext { context in
                if let object = try? context.existingObject(with: change.id) { context.delete(object) }
                if let linkTo, let server = try Server.findFirst(byAttribute: "url", value: .string(change.url), in: context),
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

    private func dropChange(_ id: ObjectID) throws {
        try withContext { context in
            if let object = try? context.existingObject(with: id) { context.delete(object) }
            try context.save()
        }
    }

    /// Pushes read/unread and flag/unflag changes in chunks; a chunk's pending marks are
    /// cleared once the server accepted it, only on items still in the state pushed (a
    /// change made meanwhile stays pending).
    private func pushItemStates(_ client: GReaderClient, report: inout Report) async throws {
        struct Pending {
            var read: [String] = []
            var unread: [String] = []
            var flagged: [String] = []
            var unflagged: [String] = []
        }
        let pending: Pending = try withContext { context in
            var pending = Pending()
            for item in try context.fetch(FetchRequest<FeedItem>(predicate: SyncQueue.pendingItems)) {
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
        let groups: [(ids: [String], state: GReaderClient.State, on: Bool, key: String, pendingKey: String)] = [
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
                try await client.setState(group.state, group.on, ids: chunk)
                try withContext { context in
                    let predicate =
                        ObjectGraph.Predicate.comparison(
                            .keyPath("syncID"), .in, .aggregate(chunk.map { .constant(.string($0)) }))
                        && .comparison(.keyPath(group.key), .equalTo, .constant(.bool(group.on)))
                    _ = try context.execute(
                        BatchUpdateRequest(
                            entityName: "FeedItem", predicate: predicate, propertiesToUpdate: [group.pendingKey: .bool(false)]))
                }
                report.pushed += chunk.count
            }
        }
    }

    // MARK: Pull

    /// The server's feeds into the store: new ones inserted, known ones updated (title,
    /// site, tags from labels), synced ones the server no longer has deleted.
    private func applySubscriptions(_ subscriptions: [GReaderClient.Subscription], report: inout Report) throws {
        let metadata = store.container.store
        let keptLabels = try metadata.metadata(forKey: Self.labelsKey).flatMap(SyncLabels.decode) ?? [:]
        var seenLabels: [String: [String]] = [:]
        try withContext { context in
            let servers = try Server.findAll(in: context)
            var bySyncID: [String: Server] = [:]
            var byURL: [String: Server] = [:]
            for server in servers {
                if let id = server.syncID { bySyncID[id] = server }
                // As the server's URLs are compared: a stored URL written another way is the same.
                byURL[FeedTrust.webURL(server.url) ?? server.url] = server
            }
            var order = try FeedSubscription.nextDisplayOrder(in: context)
            var listed = Set<String>()
            let listedURLs = Set(subscriptions.compactMap { $0.url.flatMap(FeedTrust.webURL) })
            for subscription in subscriptions {
                // A server gives data only (FeedTrust): an http(s) feed with a host, nothing
                // that runs or reads here; a feed already synced under this id is kept as it is.
                guard let url = subscription.url.flatMap(FeedTrust.webURL) else {
                    if subscription.url?.isEmpty == false || bySyncID[subscription.id] == nil {
                        report.notStored.append(Messages.syncFeedNotStored(id: subscription.id, url: subscription.url))
                    }
                    if bySyncID[subscription.id] != nil { listed.insert(subscription.id) }
                    continue
                }
                listed.insert(subscription.id)
                let server: Server
                if let known = byURL[url] {
                    server = known
                } else if let moved = bySyncID[subscription.id],
                    !listedURLs.contains(FeedTrust.webURL(moved.url) ?? moved.url)
                {
                    // The URL decides; a feed under its id with a URL no longer listed is the
                    // same feed moved (resolveMissingFeeds unlinked those it is not).
                    byURL[FeedTrust.webURL(moved.url) ?? moved.url] = nil
                    moved.url = url
                    byURL[url] = moved
                    server = moved
                } else {
                    server = context.insert(Server.self)
                    server.url = url
                    server.origin = .syncServer
                    server.displayOrder = order
                    order += 1
                    byURL[url] = server
                    report.feedsAdded += 1
                }
                if server.syncID != subscription.id { server.syncID = subscription.id }
                if let title = subscription.title.map(Self.displayText), !title.isEmpty, server.title != title {
                    server.title = title
                }
                if let site = subscription.htmlUrl.flatMap(FeedTrust.webURL), server.siteLink != site { server.siteLink = site }
                let labels = subscription.labels.filter { !Self.defaultFolders.contains($0) }
                let tags = SyncLabels.merge(local: FeedTags.list(server.tags), labels: labels, kept: keptLabels[url])
                if tags != server.tags { server.tags = tags }
                seenLabels[url] = labels
            }
            for server in servers where server.syncID != nil && !listed.contains(server.syncID!) {
                context.delete(server)
                report.feedsRemoved += 1
            }
            try context.save()
        }
        let seen = SyncLabels.encode(seenLabels)
        if seen != (try metadata.metadata(forKey: Self.labelsKey)) { try metadata.setMetadata(seen, forKey: Self.labelsKey) }
    }

    /// Store metadata: each synced feed's labels as the last sync saw them on the server
    /// (``SyncLabels``), so that a pull removes only the tags the server held and dropped.
    static let labelsKey = "zeader.sync.labels"

    /// The ignore rules in force, the store brought in line with them first (a rule added
    /// since the last sync or refresh: the stored items it matches are removed; a rule
    /// removed: the next pull starts from the beginning again, ``Killfile/reconcile``).
    private func killfileRules() throws -> [Killfile.CompiledRule] {
        let configRules = ignoreRules
        let store = store.container.store
        return try withContext { context in
            try Killfile.reconcile(configRules: configRules, in: context, store: store)
            context.reset()
            return try Killfile.activeRules(configRules: configRules, in: context)
        }
    }

    /// Folder names servers give feeds that are in no folder of the user's: not tags.
    static let defaultFolders: Set<String> = ["Uncategorized"]

    static let readingList = "user/-/state/com.google/reading-list"
    private static let starredList = "user/-/state/com.google/starred"

    /// New items: the ids the server got since the newest one pulled (all on the first
    /// sync; all of the `joined` feeds, streams with history that joined the account in this
    /// sync), those newer than it and not in the store fetched in chunks and stored, each
    /// chunk one save. The ids are numbers (8 bytes each); a chunk's items are released once
    /// saved, so memory does not grow with the number of items. Returns what it fetched.
    private func pullNewItems(
        _ client: GReaderClient, joined: [String], rules: [Killfile.CompiledRule], report: inout Report,
        progress: @Sendable (Phase) -> Void
    ) async throws -> Pulled {
        let stored = try withContext { try SyncAccount.findFirst(where: .true, in: $0)?.newestItemID }.flatMap(UInt64.init)
        // A marker out of range (kept before ids were checked where they enter) would hide
        // every later item: the pull starts over, and the ids already stored are skipped.
        let newest = stored.flatMap { GReaderClient.isPlausibleItemID($0, now: Date()) ? $0 : nil }
        let since = newest.map { Int64($0 / 1_000_000) }
        var ids = try await client.itemIDs(stream: Self.readingList, newerThan: since)
        let top = ids.max()
        // `ot` is in seconds: the ids up to the newest pulled were seen by an earlier sync
        // (an item an ignore rule dropped included, which is then not fetched again).
        if let newest { ids.removeAll { $0 <= newest } }
        if newest != nil, !joined.isEmpty {
            // Feeds with history that joined since the first sync: their items older than the
            // newest pulled were never fetched, and the history is matched to them.
            var listed = Set(ids)
            for stream in joined {
                for id in try await client.itemIDs(stream: stream) where listed.insert(id).inserted { ids.append(id) }
            }
        }
        var pulled = Pulled()
        let unknown = try withContext { context in
            var known = Set<UInt64>()
            for start in stride(from: 0, to: ids.count, by: 500) {
                let chunk = ids[start..<min(start + 500, ids.count)]
                let request = FetchRequest<FeedItem>(
                    predicate: .comparison(.keyPath("syncID"), .in, .aggregate(chunk.map { .constant(.string(String($0))) })))
                for item in try context.fetch(request) { if let id = item.syncID.flatMap(UInt64.init) { known.insert(id) } }
                context.reset()
            }
            if newest == nil { pulled.known = Array(known) }
            return known.isEmpty ? ids : ids.filter { !known.contains($0) }
        }
        ids = []
        // The synced feeds by their server id, for every chunk.
        let servers: [String: ObjectID] = try withContext { context in
            var servers: [String: ObjectID] = [:]
            for server in try Server.findAll(in: context) { if let id = server.syncID { servers[id] = server.objectID } }
            return servers
        }
        var fetched = 0
        var history: [ObjectID: FeedHistory] = [:]
        for start in stride(from: 0, to: unknown.count, by: chunkSize) {
            let chunk = unknown[start..<min(start + chunkSize, unknown.count)].map { String($0) }
            let items = try await client.items(chunk)
            for item in items {
                guard let id = GReaderClient.number(item.id) else { continue }
                if item.isRead { pulled.read.insert(id) }
                if item.isStarred { pulled.starred.insert(id) }
            }
            var firings: [ItemRules.Firing] = []
            report.newItems += try store(items, servers: servers, rules: rules, firings: &firings, history: &history)
            report.firings += firings
            fetched += chunk.count
            progress(.items(fetched: fetched, of: unknown.count))
        }
        try withContext { context in
            guard let account = try SyncAccount.findFirst(where: .true, in: context) else { return }
            if let top, top > newest ?? 0 { account.newestItemID = String(top) }
            try context.save()
        }
        pulled.ids = unknown
        return pulled
    }

    /// What ``pullNewItems(_:joined:rules:report:progress:)`` fetched: the ids, and the states their
    /// contents gave (the read and the starred ones: few, where most new items are unread).
    private struct Pulled {
        var ids: [UInt64] = []
        var read = Set<UInt64>()
        var starred = Set<UInt64>()
        /// In a pull from the first item (the first sync): the ids already in the store.
        var known: [UInt64]?
    }

    /// Stores items pulled from the server. An item of a feed's own history (stored before
    /// the feed was synced) is matched by the identities both sides compute
    /// (``ItemIdentity``) and gains the server's id, its read and starred state merged
    /// (``merge(_:into:now:)``); others are inserted with the link as guid (else the server's
    /// id), unless removed on purpose before (a ``RemovedItem`` tombstone: cleanup, an ignore
    /// rule) or matching an ignore rule now (then not stored, its guid kept as a tombstone; a
    /// flagged item stays), as a refresh does (``ItemImport``). Returns how many were stored anew.
    private func store(
        _ items: [GReaderClient.Item], servers: [String: ObjectID], rules: [Killfile.CompiledRule],
        firings: inout [ItemRules.Firing], history: inout [ObjectID: FeedHistory]
    ) throws -> Int {
        let acting = ItemRules.acting(itemRules + ItemRules.stored(in: store.container.store))
        var pulledFirings: [ItemRules.Firing] = []
        let inserted = try withContext { context in
            // Each feed's items as (decimal id, index): an item is a dozen references, not copied.
            var byFeed: [ObjectID: [(id: String, index: Int)]] = [:]
            // One server item is one FeedItem: an id listed twice in the answer is taken
            // once, and one stored by an earlier pull is not inserted again.
            var listed = Set<String>()
            for (index, item) in items.enumerated() {
                guard let feed = item.origin?.streamId, let server = servers[feed], let id = item.decimalID,
                    listed.insert(id).inserted
                else { continue }
                byFeed[server, default: []].append((id, index))
            }
            let stored = try Self.storedSyncIDs(Array(listed), in: context)
            byFeed = byFeed.mapValues { $0.filter { !stored.contains($0.id) } }
            var inserted = 0
            let now = Date()
            for (serverID, feedItems) in byFeed {
                guard let server = try context.existingObject(with: serverID) as? Server else { continue }
                let links = feedItems.compactMap { items[$0.index].link }
                let inFeed = ObjectGraph.Predicate.comparison(.keyPath("server"), .equalTo, .object(serverID))
                let matches = try Self.historyMatches(
                    feedItems.map { items[$0.index] }, of: server, history: &history, in: context)
                // The feed's guids these links would take as new items' guids.
                var guids = Set<String>()
                if !links.isEmpty {
                    let request = FetchRequest<FeedItem>(
                        predicate: inFeed
                            && .comparison(.keyPath("guid"), .in, .aggregate(links.map { .constant(.string($0)) })))
                    for item in try context.fetch(request) { guids.insert(item.guid) }
                }
                var tombstones: [String: RemovedItem] = [:]
                let candidates = links + feedItems.map { "greader:" + $0.id }
                let removed = FetchRequest<RemovedItem>(
                    predicate: inFeed
                        && .comparison(.keyPath("guid"), .in, .aggregate(candidates.map { .constant(.string($0)) })))
                for tombstone in try context.fetch(removed) { tombstones[tombstone.guid] = tombstone }
                for (position, (id, index)) in feedItems.enumerated() {
                    let pulled = items[index]
                    if let match = matches[position] {
                        match.syncID = id
                        Self.merge(pulled, into: match, now: now)
                        continue
                    }
                    let guid = pulled.link.flatMap { guids.contains($0) ? nil : $0 } ?? "greader:" + id
                    if let tombstone = tombstones[guid] {
                        RetentionCleanup.sawTombstone(tombstone, now: now)  // removed on purpose: not stored again
                        continue
                    }
                    guids.insert(guid)
                    let item = context.insert(FeedItem.self)
                    item.guid = guid
                    item.server = server
                    item.firstSeen = now
                    item.syncID = id
                    Self.copy(pulled, into: item, now: now)
                    guard
                        ItemImport.admit(item, of: server, ignoring: rules, acting: acting, firings: &pulledFirings, now: now)
                    else { continue }
                    inserted += 1
                }
            }
            try context.save()
            return inserted
        }
        firings += pulledFirings  // only once saved
        return inserted
    }

    /// A feed's history (its items with no server id), indexed by the first chunk of a pull
    /// that has items of the feed, and matched against each chunk after it.
    struct FeedHistory {
        var items: [ObjectID]
        var index: ItemIdentity.Index
    }

    /// The items of `server`'s own history (no server id yet) that `pulled` items are, by
    /// position in `pulled` (``ItemIdentity``). Most feeds have none: one fetch per feed and pull.
    private static func historyMatches(
        _ pulled: [GReaderClient.Item], of server: Server, history: inout [ObjectID: FeedHistory],
        in context: ManagedObjectContext
    ) throws -> [Int: FeedItem] {
        let feed = server.objectID
        if history[feed] == nil {
            let stored = try context.fetch(
                FetchRequest<FeedItem>(
                    predicate: .comparison(.keyPath("server"), .equalTo, .object(feed))
                        && .comparison(.keyPath("syncID"), .equalTo, .constant(.null))))
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
                guid: item.guid, link: item.link, title: item.title.map(displayText),
                published: item.published.flatMap { DateBounds.date(secondsSince1970: TimeInterval($0)) })
        }
        let pairs = history[feed]!.index.match(pulledIdentities)
        guard let items = history[feed]?.items else { return [:] }
        return pairs.compactMapValues { (try? context.existingObject(with: items[$0])) as? FeedItem }
    }

    /// Which of `ids` (server item ids, decimal) some stored item has already, looked up
    /// 500 at a time by the syncID index.
    private static func storedSyncIDs(_ ids: [String], in context: ManagedObjectContext) throws -> Set<String> {
        var stored = Set<String>()
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = ids[start..<min(start + 500, ids.count)]
            let request = FetchRequest<FeedItem>(
                predicate: .comparison(.keyPath("syncID"), .in, .aggregate(chunk.map { .constant(.string($0)) })))
            for item in try context.fetch(request) { if let id = item.syncID { stored.insert(id) } }
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

    /// ``copy(_:into:now:)`` for an item of a feed's history that joins the account: read or
    /// starred on either side, it ends read or starred on both. What this device has and the
    /// server lacks is marked pending, pushed by the same sync; the server's read or star is
    /// taken here. Nothing made on this device before the join is overwritten.
    static func merge(_ pulled: GReaderClient.Item, into item: FeedItem, now: Date) {
        let read = item.read
        let flagged = item.flagged
        copy(pulled, into: item, now: now)
        if read && !pulled.isRead {
            item.read = true
            item.syncReadPending = true
        }
        if flagged && !pulled.isStarred {
            item.flagged = true
            item.syncFlagPending = true
        }
    }

    static func copy(_ pulled: GReaderClient.Item, into item: FeedItem, now: Date) {
        if let title = pulled.title.map(displayText), item.title != title { item.title = title }
        if let link = pulled.link, item.link != link { item.link = link }
        if let author = pulled.author.map(displayText), item.author != author { item.author = author }
        let html = pulled.content?.content ?? pulled.summary?.content
        if let html, item.content != html {
            item.content = html
            // The bounded preview a refresh stores: it reads only the HTML's beginning.
            item.summary = HTMLText.summary(ofHTML: html)
        }
        let published = pulled.published.flatMap { DateBounds.date(secondsSince1970: TimeInterval($0)) }
        if let published, item.published != published { item.published = published }
        let sortDate = published ?? item.firstSeen ?? now
        if item.sortDate != sortDate { item.sortDate = sortDate }
        if item.read != pulled.isRead { item.read = pulled.isRead }
        if item.flagged != pulled.isStarred { item.flagged = pulled.isStarred }
    }

    /// Store metadata: the server's unread and starred id lists as the last sync saw them
    /// (``SyncIDList``), so that a sync looks up only the items whose state changed there.
    static let unreadListKey = "zeader.sync.unread"
    static let starredListKey = "zeader.sync.starred"

    /// The read and starred state of synced items from the server's unread and starred id
    /// lists; an item with a change not yet pushed keeps its own.
    ///
    /// Only the ids whose state changed on the server since the last sync (the lists' set
    /// differences from the ones kept in the store) are looked up, 500 at a time by the
    /// syncID index: a sync with nothing new reads no item, whatever the store's size. Every
    /// local read or flag change is pushed (a pending mark) before this, so the items not
    /// looked up already have the server's state. The items `pulled` by this sync are looked
    /// up where the lists disagree with their contents (changed on the server since). Without
    /// lists kept: after a pull from the first item (the first sync), the items that were
    /// already stored are looked up too; else every synced item is compared, a page at a
    /// time. The lists are kept after the states are saved: a sync stopped in between looks
    /// the same ids up again.
    private func pullStates(_ client: GReaderClient, pulled: Pulled, report: inout Report) async throws {
        // Large pages: the whole list in one request where the server allows it.
        let unread = Set(try await client.itemIDs(stream: Self.readingList, excludeRead: true, pageSize: 100_000))
        let starred = Set(try await client.itemIDs(stream: Self.starredList, pageSize: 100_000))
        let metadata = store.container.store
        let keptUnread = try metadata.metadata(forKey: Self.unreadListKey).flatMap(SyncIDList.decode)
        let keptStarred = try metadata.metadata(forKey: Self.starredListKey).flatMap(SyncIDList.decode)
        let changed = try withContext { context in
            var changed = 0
            func apply(_ page: [FeedItem]) {
                for item in page {
                    guard let id = item.syncID.flatMap(UInt64.init) else { continue }
                    if !item.syncReadPending {
                        let read = !unread.contains(id)
                        if item.read != read {
                            item.read = read
                            changed += 1
                        }
                    }
                    if !item.syncFlagPending {
                        let flagged = starred.contains(id)
                        if item.flagged != flagged {
                            item.flagged = flagged
                            changed += 1
                        }
                    }
                }
            }
            var lookUp = Set<UInt64>()
            for id in pulled.ids
            where unread.contains(id) == pulled.read.contains(id) || starred.contains(id) != pulled.starred.contains(id) {
                lookUp.insert(id)
            }
            if let keptUnread, let keptStarred {
                lookUp.formUnion(unread.symmetricDifference(keptUnread))
                lookUp.formUnion(starred.symmetricDifference(keptStarred))
            } else if let known = pulled.known {
                lookUp.formUnion(known)
            }
            if (keptUnread != nil && keptStarred != nil) || pulled.known != nil {
                let moved = Array(lookUp)
                for start in stride(from: 0, to: moved.count, by: 500) {
                    let chunk = moved[start..<min(start + 500, moved.count)]
                    apply(
                        try context.fetch(
                            FetchRequest<FeedItem>(
                                predicate: .comparison(
                                    .keyPath("syncID"), .in, .aggregate(chunk.map { .constant(.string(String($0))) })))))
                    try context.save()
                    context.reset()
                }
            } else {
                // Page through the synced items (by their id, which a sync never changes),
                // each page one save and a context reset: memory stays bounded.
                var after = ""
                while true {
                    var request = FetchRequest<FeedItem>(
                        predicate: try ObjectGraph.Predicate(format: "syncID != nil AND syncID > %@", after),
                        sortDescriptors: [SortDescriptor("syncID")])
                    request.fetchLimit = 500
                    let page = try context.fetch(request)
                    guard let last = page.last?.syncID else { break }
                    after = last
                    apply(page)
                    try context.save()
                    context.reset()
                    if page.count < request.fetchLimit { break }
                }
            }
            if let account = try SyncAccount.findFirst(where: .true, in: context) { account.lastSync = Date() }
            try context.save()
            return changed
        }
        if keptUnread != unread { try metadata.setMetadata(SyncIDList.encode(unread), forKey: Self.unreadListKey) }
        if keptStarred != starred { try metadata.setMetadata(SyncIDList.encode(starred), forKey: Self.starredListKey) }
        report.stateChanges += changed
    }
}

/// A set of server item ids as compact text for store metadata: sorted, each the
/// difference from the one before, in base 36, comma-separated (FreshRSS's ids are
/// microsecond times, so 20,000 of them take about 120 KB).
///
/// ```swift
/// let text = SyncIDList.encode([31, 7])          // "7,o"
/// let ids = SyncIDList.decode(text)              // [7, 31]
/// ```
public enum SyncIDList {
    public static func encode(_ ids: Set<UInt64>) -> String {
        var text = ""
        text.reserveCapacity(ids.count * 8)
        var previous: UInt64 = 0
        for id in ids.sorted() {
            if !text.isEmpty { text += "," }
            text += String(id - previous, radix: 36)
            previous = id
        }
        return text
    }

    /// The ids, or nil when `text` is not such a list.
    public static func decode(_ text: String) -> Set<UInt64>? {
        var ids = Set<UInt64>()
        var previous: UInt64 = 0
        for part in text.split(separator: ",", omittingEmptySubsequences: false) where !text.isEmpty {
            guard let delta = UInt64(part, radix: 36) else { return nil }
            let (id, overflow) = previous.addingReportingOverflow(delta)
            if overflow { return nil }
            ids.insert(id)
            previous = id
        }
        return ids
    }
}
