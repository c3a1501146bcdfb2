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

    /// What ``addAccount(apiURL:user:token:service:name:localFeeds:)`` did.
    ///
    /// ```swift
    /// if try sync.addAccount(apiURL: url, user: "alice", token: token) == .loggedInAgain { print("logged in again") }
    /// ```
    public enum AccountChange: Sendable, Equatable {
        /// A new account.
        case added(name: String)
        /// The store had this account (same API URL and user): its token is replaced, its
        /// queue of changes not yet pushed kept.
        case loggedInAgain(name: String)
    }

    /// What a new account does with the store's local feeds.
    ///
    /// ```swift
    /// try sync.addAccount(apiURL: url, user: "alice", token: token, localFeeds: .keep)
    /// ```
    public enum LocalFeeds: Sendable, Equatable {
        /// They stay local (`zeader sync add`; `zeader sync move` moves one).
        case keep
        /// They join the account: queued for subscription, their items matched to the server's.
        case join
    }

    /// Keeps a new account logged in with `token` (from ``login(apiURL:user:password:service:fetcher:)``):
    /// the token in the account's ``SyncTokenFile`` (never the password), the account in the
    /// store under `name` (by default the server's host, ``SyncAccounts/defaultName(apiURL:taken:)``),
    /// and the protocol it speaks (`service`, by default the one the URL names). The local
    /// feeds stay local or join it (`localFeeds`); other accounts' feeds are never touched.
    /// An account the store has (API URL and user) is logged in again, its queue kept; a name
    /// another account has is refused (``SyncError/accountNameTaken(_:)``).
    ///
    /// ```swift
    /// try sync.addAccount(apiURL: url, user: "alice", token: token, name: "home", localFeeds: .keep)
    /// ```
    @discardableResult
    public func addAccount(
        apiURL: String, user: String, token: String, service: SyncServiceKind? = nil, name: String? = nil,
        localFeeds: LocalFeeds = .join
    ) throws(ZeaderError) -> AccountChange {
        guard store.url != nil else { throw .sync(.inMemoryStore) }
        if let name, !SyncAccounts.isValidName(name) { throw .sync(.invalidAccountName(name)) }
        let base = GReaderClient.normalizedBase(apiURL)
        let (same, taken): (String?, [String]) = try withContext { context in
            let accounts = try SyncAccount.findAll(in: context)
            let same = accounts.first { GReaderClient.normalizedBase($0.apiURL) == base && $0.user == user }
            return (same?.name, accounts.compactMap(\.name))
        }
        if let same, name == nil || name == same {
            do { try tokenFile(AccountScope(name: same)).write(token) } catch { throw .sync(error) }
            return .loggedInAgain(name: same)
        }
        let chosen = name ?? SyncAccounts.defaultName(apiURL: base, taken: taken)
        guard !taken.contains(chosen) else { throw .sync(.accountNameTaken(chosen)) }
        let scope = AccountScope(name: chosen)
        let file: SyncTokenFile
        do {
            file = try tokenFile(scope)
            try file.write(token)
        } catch {
            throw .sync(error)
        }
        do {
            try forgetKeptLists(scope)
            let kind = service ?? SyncServiceKind(apiURL: apiURL)
            try withContext { context in
                let account = context.insert(SyncAccount.self)
                account.apiURL = base
                account.user = user
                account.name = chosen
                account.service = kind.rawValue
                if localFeeds == .join {
                    let local = try ObjectPredicate(format: "account == nil")
                    for server in try Server.findAll(where: local, in: context) where SyncQueue.isSyncable(server.url) {
                        server.account = chosen
                        SyncQueue.queue(.subscribe, for: server, in: context)
                    }
                }
                try context.save()
            }
        } catch {
            file.remove()
            throw error
        }
        return .added(name: chosen)
    }

    /// Logs in and keeps the account: ``login(apiURL:user:password:service:fetcher:)`` then
    /// ``addAccount(apiURL:user:token:service:name:localFeeds:)``.
    ///
    /// ```swift
    /// try await sync.addAccount(apiURL: url, user: "alice", password: password)
    /// ```
    public func addAccount(apiURL: String, user: String, password: String) async throws(ZeaderError) {
        let token = try await Self.login(apiURL: apiURL, user: user, password: password, fetcher: fetcher)
        try addAccount(apiURL: apiURL, user: user, token: token)
    }

    /// The enabled feeds no account syncs (local ones, a feed the server refused, a command
    /// or file feed, one detached): refreshed here, beside the accounts' syncs.
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
            try tokenFile(AccountScope(name: status.name)).write(token)
        } catch {
            throw .sync(error)
        }
    }

    /// The account (``scope()``), or nil when the store has none.
    ///
    /// ```swift
    /// if let status = try sync.status() { print(status.pending) }
    /// ```
    public func status() throws(ZeaderError) -> Status? {
        let scope: AccountScope
        do {
            scope = try self.scope()
        } catch .sync(.noAccount) {
            return nil
        }
        return try withContext { context in
            guard let account = try accountRow(scope, in: context) else { return nil }
            return Status(
                name: scope.name, apiURL: account.apiURL, user: account.user, lastSync: account.lastSync,
                pending: try SyncQueue.pendingCount(scope, in: context)
                    + Self.pendingItemLabels(scope, in: context, store: store),
                service: Self.serviceKind(of: account))
        }
    }

    /// Every account of the store, by name.
    ///
    /// ```swift
    /// for status in try sync.statuses() { print(status.name, status.pending) }
    /// ```
    public func statuses() throws(ZeaderError) -> [Status] {
        try withContext { context in
            try SyncAccount.findAll(in: context).compactMap { account -> Status? in
                guard let name = account.name else { return nil }
                let scope = AccountScope(name: name)
                return Status(
                    name: name, apiURL: account.apiURL, user: account.user, lastSync: account.lastSync,
                    pending: try SyncQueue.pendingCount(scope, in: context)
                        + Self.pendingItemLabels(scope, in: context, store: store),
                    service: Self.serviceKind(of: account))
            }
            .sorted { $0.name < $1.name }
        }
    }

    /// Forgets the account (``scope()``): its token file, its queue and the server ids of its
    /// feeds, which stay as local feeds with their items and states. Changes made here and not
    /// yet pushed are refused (``SyncError/unpushedChanges(count:)``) unless `force` drops
    /// them; returns how many were dropped. Other accounts are not touched.
    ///
    /// ```swift
    /// try sync.removeAccount()
    /// let dropped = try sync.removeAccount(force: true)
    /// ```
    @discardableResult
    public func removeAccount(force: Bool = false) throws(ZeaderError) -> Int {
        let scope = try self.scope()
        let dropped = try withContext { context in
            let pending =
                try SyncQueue.pendingCount(scope, in: context) + Self.pendingItemLabels(scope, in: context, store: store)
            guard pending == 0 || force else { throw ZeaderError.sync(.unpushedChanges(count: pending)) }
            let synced = try ObjectPredicate(format: "syncID != nil") && scope.items
            _ = try context.execute(
                BatchUpdateRequest(
                    entityName: "FeedItem", predicate: synced,
                    propertiesToUpdate: ["syncID": .null, "syncReadPending": .bool(false), "syncFlagPending": .bool(false)]))
            for account in try SyncAccount.findAll(where: scope.account, in: context) { context.delete(account) }
            for change in try SyncChange.findAll(where: scope.changes, in: context) { context.delete(change) }
            for server in try Server.findAll(where: scope.feeds, in: context) {
                server.account = nil
                if server.syncID != nil { server.syncID = nil }
            }
            try context.save()
            return pending
        }
        if let file = try? tokenFile(scope) { file.remove() }
        try forgetKeptLists(scope)
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

    /// Drops the server's id lists and labels the account's last sync kept (the next sync
    /// compares every item).
    func forgetKeptLists(_ scope: AccountScope) throws(ZeaderError) {
        do {
            try store.container.store.setMetadata(nil, forKey: scope.key(Self.unreadListKey))
            try store.container.store.setMetadata(nil, forKey: scope.key(Self.starredListKey))
            try store.container.store.setMetadata(nil, forKey: scope.key(Self.labelsKey))
            try store.container.store.setMetadata(nil, forKey: scope.key(ItemLabels.keptKey))
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

    /// Store metadata of a store whose one account had no name: the protocol it spoke
    /// (``SyncServiceKind``'s raw value), moved to ``SyncAccount/service`` when it is named.
    static let serviceKey = "zeader.sync.service"

    /// The protocol `account` speaks: as kept when it was added, else the one its URL names.
    static func serviceKind(of account: SyncAccount) -> SyncServiceKind {
        account.service.flatMap(SyncServiceKind.init(rawValue:)) ?? SyncServiceKind(apiURL: account.apiURL)
    }
}
