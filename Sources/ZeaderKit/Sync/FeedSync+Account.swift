import Feeds
import Foundation
import ObjectGraph

// The account: log in, keep the token, add, renew, remove.
extension FeedSync {
    /// Whether the store has a sync account.
    ///
    /// ```swift
    /// if try sync.hasAccount() { … }
    /// ```
    public func hasAccount() throws(ZeaderError) -> Bool {
        try withContext { SyncQueue.isActive(in: $0) }
    }

    /// Logs in to `apiURL` as `user` through `service` (by default the one the URL names:
    /// ``SyncServiceKind/init(apiURL:)``) and returns the token (Google Reader API's
    /// ClientLogin) or key (Fever's); nothing is stored. Call before opening the store, so
    /// that a refused login leaves no file behind.
    ///
    /// ```swift
    /// let token = try await FeedSync.login(apiURL: url, user: "alice", password: password)
    /// ```
    public static func login(
        apiURL: String, user: String, password: String, service: SyncServiceKind? = nil, fetcher: FeedFetcher? = nil
    )
        async throws(ZeaderError) -> String
    {
        do {
            return try await (service ?? SyncServiceKind(apiURL: apiURL)).login(
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

    /// Keeps the account logged in with `token` (from ``login(apiURL:user:password:service:fetcher:)``):
    /// the token in ``SyncTokenFile`` (never the password), the account in the store, and
    /// the protocol it speaks (`service`, by default the one the URL names). The
    /// feeds already in the store are queued for subscription on the server. The same
    /// account again (API URL and user) is logged in again, its queue kept; another account
    /// is refused (``SyncError/accountExists(url:user:)``).
    ///
    /// ```swift
    /// try sync.addAccount(apiURL: url, user: "alice", token: token)
    /// ```
    @discardableResult
    public func addAccount(apiURL: String, user: String, token: String, service: SyncServiceKind? = nil)
        throws(ZeaderError) -> AccountChange
    {
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
            try setServiceKind(service ?? SyncServiceKind(apiURL: apiURL))
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
            let token = try await status.service.login(
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
                pending: try SyncQueue.pendingCount(in: context) + Self.pendingItemLabels(in: context, store: store),
                service: try serviceKind(apiURL: account.apiURL))
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
            let pending = try SyncQueue.pendingCount(in: context) + Self.pendingItemLabels(in: context, store: store)
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
            try store.container.store.setMetadata(nil, forKey: Self.serviceKey)
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
    func forgetKeptLists() throws(ZeaderError) {
        do {
            try store.container.store.setMetadata(nil, forKey: Self.unreadListKey)
            try store.container.store.setMetadata(nil, forKey: Self.starredListKey)
            try store.container.store.setMetadata(nil, forKey: Self.labelsKey)
            try store.container.store.setMetadata(nil, forKey: ItemLabels.keptKey)
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

    /// Store metadata: the protocol the account speaks (``SyncServiceKind``'s raw value).
    static let serviceKey = "zeader.sync.service"

    /// The protocol of the account at `apiURL`: as kept when it was added, else the one
    /// its URL names.
    func serviceKind(apiURL: String) throws -> SyncServiceKind {
        try store.container.store.metadata(forKey: Self.serviceKey).flatMap(SyncServiceKind.init(rawValue:))
            ?? SyncServiceKind(apiURL: apiURL)
    }

    private func setServiceKind(_ kind: SyncServiceKind) throws(ZeaderError) {
        do {
            try store.container.store.setMetadata(kind.rawValue, forKey: Self.serviceKey)
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }
}
