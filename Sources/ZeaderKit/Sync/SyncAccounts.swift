import Feeds
import Foundation
import ObjectGraph

/// A store's sync accounts side by side with its local feeds: their names, a store of one
/// unnamed account brought to the named form, a feed moved from one source to another, and
/// a sync of every account in which one that fails never stops the others.
///
/// ```swift
/// let outcomes = try await SyncAccounts.syncAll(store: store, makeSync: { FeedSync(store: store, account: $0) })
/// for outcome in outcomes { print(outcome.name, outcome.result) }
/// ```
public enum SyncAccounts {
    /// The accounts' names, sorted.
    ///
    /// ```swift
    /// let names = try context.performAndWait { try SyncAccounts.names(in: context) }
    /// ```
    public static func names(in context: ManagedObjectContext) throws -> [String] {
        try SyncAccount.findAll(in: context).compactMap(\.name).sorted()
    }

    /// Whether `name` may name an account: 1 to 64 letters, digits, `.`, `_` or `-`, not
    /// starting with `.` or `-`, and not `local` (the local feeds' name) nor `folder` (what
    /// `sync remove folder` and `sync status folder` mean). It becomes part of a file name
    /// (the account's token file) and of a command line.
    ///
    /// ```swift
    /// SyncAccounts.isValidName("rss.example.org")   // true
    /// SyncAccounts.isValidName("../x")              // false
    /// ```
    public static func isValidName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count), ![localName, folderName].contains(name.lowercased()),
            let first = name.unicodeScalars.first, first != ".", first != "-"
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".contains(Character($0)))
        }
    }

    /// What names the local feeds where an account's name is asked for (`zeader sync move FEED local`).
    public static let localName = "local"

    /// What names folder sync where an account's name could stand (`zeader sync remove folder`):
    /// no account takes it; one named so before is reached with `--account folder`.
    public static let folderName = "folder"

    /// The name an account at `apiURL` gets when none is given: the server's host (lower
    /// case), else `account`, followed by `-2`, `-3`… when `taken` has it.
    ///
    /// ```swift
    /// SyncAccounts.defaultName(apiURL: "https://RSS.example.org/api/greader.php", taken: [])  // "rss.example.org"
    /// ```
    public static func defaultName(apiURL: String, taken: [String]) -> String {
        let host = URL(string: apiURL)?.host?.lowercased() ?? ""
        let base = isValidName(host) ? host : "account"
        var name = base
        var number = 2
        while taken.contains(name) {
            name = "\(base)-\(number)"
            number += 1
        }
        return name
    }

    // MARK: - A store of one unnamed account

    /// Store metadata of a store with one account, before accounts had names: the keys a
    /// sync kept, moved under the account's name when it is named.
    static let unnamedKeys = ["zeader.sync.unread", "zeader.sync.starred", "zeader.sync.labels"]

    /// Names the account a store kept before accounts had names (by its server's host), and
    /// puts in it what was its: the synced feeds (a server id, or items with one) and those queued for it, its queued changes,
    /// its protocol and kept lists (from store metadata) and its token file (renamed to the
    /// account's). Nothing when every account has a name: one count query. Called when a
    /// store is opened for writing.
    ///
    /// ```swift
    /// try SyncAccounts.nameUnnamedAccount(in: container, storeURL: url)
    /// ```
    public static func nameUnnamedAccount(in container: PersistentContainer, storeURL: URL?) throws {
        let context = container.newBackgroundContext(name: "accounts")
        let unnamed = try ObjectPredicate(format: "name == nil")
        let store = container.store
        try context.performAndWait {
            guard try SyncAccount.count(where: unnamed, in: context) > 0 else { return }
            for account in try SyncAccount.findAll(where: unnamed, in: context) {
                let name = defaultName(apiURL: account.apiURL, taken: try names(in: context))
                account.name = name
                account.service =
                    try store.metadata(forKey: FeedSync.serviceKey)
                    ?? SyncServiceKind(apiURL: account.apiURL).rawValue
                let queued = try SyncChange.findAll(where: try ObjectPredicate(format: "account == nil"), in: context)
                let queuedURLs = Set(queued.filter { $0.kind == SyncChange.Kind.subscribe.rawValue }.map(\.feedURL))
                for change in queued { change.account = name }
                for server in try Server.findAll(where: try ObjectPredicate(format: "account == nil"), in: context)
                where try server.syncID != nil || queuedURLs.contains(server.url) || hasSyncedItems(server, in: context) {
                    server.account = name
                }
                for key in unnamedKeys {
                    if let value = try store.metadata(forKey: key) { try store.setMetadata(value, forKey: key + "." + name) }
                }
                if let storeURL {
                    // The token moves with the account; a store without one logs in again.
                    _ = rename(
                        SyncTokenFile(storeURL: storeURL).url.path, SyncTokenFile(storeURL: storeURL, account: name).url.path)
                }
            }
            try context.save()
            for key in unnamedKeys + [FeedSync.serviceKey] { try store.setMetadata(nil, forKey: key) }
        }
    }

    /// Whether some item of `server` has a server id (a feed the account synced).
    private static func hasSyncedItems(_ server: Server, in context: ManagedObjectContext) throws -> Bool {
        var request = FetchRequest<FeedItem>(
            predicate: .comparison(.keyPath("server"), .equalTo, .object(server.objectID))
                && .comparison(.keyPath("syncID"), .notEqualTo, .constant(.null)))
        request.fetchLimit = 1
        return try context.count(for: request) > 0
    }

    // MARK: - Moving a feed

    /// Moves the feed at `feedURL` to the account `account` (nil: the local feeds). Leaving
    /// an account queues its unsubscribe there (with the server's id of the feed) and forgets
    /// the server's ids of the feed and its items; joining one queues its subscribe, and the
    /// next sync matches the feed's items to the server's. Returns false when the feed is in
    /// that source already. Throws ``SyncError/unknownAccount(_:)`` for an account the store
    /// lacks, and ``ZeaderError/notSubscribed(_:)`` for a URL it does not subscribe to.
    ///
    /// ```swift
    /// try context.performAndWait { try SyncAccounts.move(feedURL: url, to: "work", in: context) }
    /// ```
    @discardableResult
    public static func move(feedURL: String, to account: String?, in context: ManagedObjectContext) throws -> Bool {
        if let account, !(try names(in: context)).contains(account) { throw ZeaderError.sync(.unknownAccount(account)) }
        guard let server = try Server.findFirst(byAttribute: "url", value: .string(feedURL), in: context) else {
            throw ZeaderError.notSubscribed(feedURL)
        }
        guard server.account != account else { return false }
        if server.account != nil {
            SyncQueue.queue(.unsubscribe, for: server, in: context)
            if server.syncID != nil { server.syncID = nil }
        }
        server.account = account
        try context.save()
        _ = try context.execute(
            BatchUpdateRequest(
                entityName: "FeedItem",
                predicate: .comparison(.keyPath("server"), .equalTo, .object(server.objectID))
                    && .comparison(.keyPath("syncID"), .notEqualTo, .constant(.null)),
                propertiesToUpdate: ["syncID": .null, "syncReadPending": .bool(false), "syncFlagPending": .bool(false)]))
        if account != nil {
            SyncQueue.queue(.subscribe, for: server, in: context)
            try context.save()
        }
        return true
    }

    /// Moves every local feed a sync can carry (http or https, ``SyncQueue/isSyncable(_:)``)
    /// into the account `account`, as ``move(feedURL:to:in:)`` moves one; command and file
    /// feeds stay local. Returns the URLs moved, sorted.
    ///
    /// ```swift
    /// let moved = try context.performAndWait { try SyncAccounts.moveAllLocal(to: "work", in: context) }
    /// ```
    @discardableResult
    public static func moveAllLocal(to account: String, in context: ManagedObjectContext) throws -> [String] {
        if !(try names(in: context)).contains(account) { throw ZeaderError.sync(.unknownAccount(account)) }
        let urls = try movableLocalFeeds(in: context)
        for url in urls { try move(feedURL: url, to: account, in: context) }
        return urls
    }

    /// The URLs of the local feeds ``moveAllLocal(to:in:)`` would move, sorted.
    ///
    /// ```swift
    /// let waiting = try context.performAndWait { try SyncAccounts.movableLocalFeeds(in: context) }
    /// ```
    public static func movableLocalFeeds(in context: ManagedObjectContext) throws -> [String] {
        let local = try ObjectPredicate(format: "account == nil")
        return try Server.findAll(where: local, in: context).map(\.url).filter(SyncQueue.isSyncable).sorted()
    }

    // MARK: - Syncing every account

    /// One account's sync: its name and what it did, or why it failed.
    ///
    /// ```swift
    /// if case .failure(let error) = outcome.result { print("\(outcome.name): \(error)") }
    /// ```
    public struct Outcome: Sendable {
        public var name: String
        public var result: Result<FeedSync.Report, ZeaderError>
    }

    /// Syncs every account of `store` (or only `only`), one after the other: an account
    /// that fails (its server away, its login refused) is reported and the next one syncs
    /// all the same. `makeSync` makes each account's engine (the config's rules, a test's
    /// service); `progress` hears each account's phases. Throws only when `only` names no account, or the store has none.
    ///
    /// ```swift
    /// let outcomes = try await SyncAccounts.syncAll(store: store, makeSync: { FeedSync(store: store, account: $0) })
    /// ```
    public static func syncAll(
        store: ZeaderStore, only: String? = nil, missingFeeds: FeedSync.MissingFeeds = .stop,
        makeSync: @Sendable (String) -> FeedSync, progress: (@Sendable (String, FeedSync.Phase) -> Void)? = nil
    ) async throws(ZeaderError) -> [Outcome] {
        let context = store.container.newBackgroundContext(name: "accounts")
        let all: [String]
        do {
            all = try context.performAndWait { try names(in: context) }
        } catch {
            throw ZeaderError.wrapping(error)
        }
        guard !all.isEmpty else { throw .sync(.noAccount) }
        if let only, !all.contains(only) { throw .sync(.unknownAccount(only)) }
        var outcomes: [Outcome] = []
        for name in all where only == nil || only == name {
            let result: Result<FeedSync.Report, ZeaderError>
            do {
                result = .success(
                    try await makeSync(name).sync(missingFeeds: missingFeeds) { phase in progress?(name, phase) })
            } catch {
                result = .failure(error)
            }
            outcomes.append(Outcome(name: name, result: result))
        }
        return outcomes
    }
}
