import Foundation
import ObjectGraph

/// The queue of local changes a sync pushes: the use cases that change what the server
/// keeps (``ItemMarking``, ``FeedSubscription``, ``FeedEditing``, subscription import)
/// call it inside the same save as the change, and only when the store has a
/// ``SyncAccount`` (one count query; a store without sync pays nothing more).
///
/// Read and flag changes are kept on the items themselves (``FeedItem/syncReadPending``,
/// ``FeedItem/syncFlagPending``), so that "mark all read" sets them in the same SQL
/// statement as `read`; subscription changes are ``SyncChange`` rows.
///
/// ```swift
/// let syncing = SyncQueue.isActive(in: context)
/// if syncing { SyncQueue.queue(.subscribe, for: server, in: context) }
/// ```
public enum SyncQueue {
    /// Whether the store has a sync account.
    ///
    /// ```swift
    /// if SyncQueue.isActive(in: context) { … }
    /// ```
    public static func isActive(in context: ManagedObjectContext) -> Bool {
        ((try? SyncAccount.count(in: context)) ?? 0) > 0
    }

    /// Queues a subscription change of `server` for the account it belongs to
    /// (``Server/account``); a local feed queues nothing, except a subscribe in a store of
    /// one account, which the feed joins. An unsubscribe of a feed whose subscribe was never
    /// pushed drops both. A feed that is not http(s) with a host (a command, a file) is never
    /// queued: it stays local (``isSyncable(_:)``).
    ///
    /// ```swift
    /// SyncQueue.queue(.unsubscribe, for: server, in: context)
    /// ```
    public static func queue(_ kind: SyncChange.Kind, for server: Server, in context: ManagedObjectContext) {
        guard isActive(in: context), isSyncable(server.url) else { return }
        if server.account == nil, kind == .subscribe, let names = try? SyncAccounts.names(in: context), names.count == 1 {
            server.account = names[0]
        }
        guard let account = server.account else { return }
        let url = server.url
        // A queued "mark feed read" of the same feed is no subscription change: left alone;
        // nor is a change queued for another account the feed was in.
        let earlier =
            ((try? SyncChange.findAll(
                where: .comparison(.keyPath("feedURL"), .equalTo, .constant(.string(url))), in: context)) ?? [])
            .filter { SyncChange.Kind(rawValue: $0.kind) != nil && $0.account == account }
        switch kind {
        case .unsubscribe:
            if earlier.contains(where: { $0.kind == SyncChange.Kind.subscribe.rawValue }), server.syncID == nil {
                for change in earlier { context.delete(change) }
                return
            }
            for change in earlier { context.delete(change) }
        case .tags, .title:
            // One pending change of each per feed (a subscribe carries both): the push sends
            // the tags or the title as they are then.
            let covering = [SyncChange.Kind.subscribe.rawValue, kind.rawValue]
            if earlier.contains(where: { covering.contains($0.kind) }) { return }
        case .subscribe:
            if earlier.contains(where: { $0.kind == SyncChange.Kind.subscribe.rawValue }) { return }
        }
        let change = context.insert(SyncChange.self)
        change.kind = kind.rawValue
        change.feedURL = url
        change.feedSyncID = server.syncID
        change.account = account
        change.created = Date()
    }

    /// Whether a feed's URL may go to a sync server: only http(s) with a host. A command
    /// line or a file path is the user's own and means nothing to a server (DESIGN's trust rule).
    ///
    /// ```swift
    /// SyncQueue.isSyncable("exec:~/bin/feed")  // false
    /// ```
    public static func isSyncable(_ url: String) -> Bool {
        FeedTrust.webURL(url) != nil
    }

    /// Notes that the items' read state (or flag) changed here: sets the pending mark the
    /// next sync pushes (when the store syncs).
    ///
    /// ```swift
    /// SyncQueue.noteChanged(items, flag: false, in: context)
    /// ```
    public static func noteChanged(_ items: [FeedItem], flag: Bool, in context: ManagedObjectContext) {
        guard isActive(in: context) else { return }
        for item in items {
            if flag { item.syncFlagPending = true } else { item.syncReadPending = true }
        }
    }

    /// Queues "mark read" of the feed at `feedURL` (nil: of everything) as one change,
    /// saved at once, for the next sync to push as "everything up to now on the server"
    /// (``GReaderClient/markAllAsRead(stream:olderThan:)``): items this device never saw are
    /// marked too, in one request. It replaces an earlier mark it covers (of the same feed,
    /// or any when it marks everything). Returns the change, or nil when the store does not
    /// sync or the feed is local. Everything marked is one change per account. Not recorded for undo: an undone mark is pushed as the items it made unread
    /// again (``noteReplayed(storeChanges:in:)``), after the mark.
    ///
    /// ```swift
    /// let queued = try SyncQueue.queueMarkRead(feedURL: server.url, in: context)
    /// ```
    @discardableResult
    public static func queueMarkRead(feedURL: String?, in context: ManagedObjectContext) throws -> ObjectID? {
        guard isActive(in: context) else { return nil }
        let kind: SyncChange.ReadMark = feedURL == nil ? .all : .feed
        let accounts: [String]
        if let feedURL {
            let account = try Server.findFirst(byAttribute: "url", value: .string(feedURL), in: context)?.account
            guard let account else { return nil }
            accounts = [account]
        } else {
            accounts = try SyncAccounts.names(in: context)
        }
        let wasEnabled = context.undoManager?.isEnabled ?? false
        context.undoManager?.isEnabled = false
        defer { context.undoManager?.isEnabled = wasEnabled }
        for earlier in try SyncChange.findAll(where: readMarks, in: context)
        where kind == .all || (earlier.kind == kind.rawValue && earlier.feedURL == feedURL) {
            context.delete(earlier)
        }
        var first: SyncChange?
        for account in accounts {
            let change = context.insert(SyncChange.self)
            change.kind = kind.rawValue
            change.feedURL = feedURL ?? ""
            change.account = account
            change.created = Date()
            first = first ?? change
        }
        context.processPendingChanges()
        try context.save()
        return first?.objectID
    }

    /// Takes back a mark ``queueMarkRead(feedURL:in:)`` queued, when the marking itself failed.
    ///
    /// ```swift
    /// SyncQueue.dropQueued(queued, in: context)
    /// ```
    public static func dropQueued(_ id: ObjectID?, in context: ManagedObjectContext) {
        guard let id, let change = try? context.existingObject(with: id) else { return }
        let wasEnabled = context.undoManager?.isEnabled ?? false
        context.undoManager?.isEnabled = false
        defer { context.undoManager?.isEnabled = wasEnabled }
        context.delete(change)
        context.processPendingChanges()
        try? context.save()
    }

    /// The queued read marks (``SyncChange/ReadMark``).
    ///
    /// ```swift
    /// let marks = try SyncChange.findAll(where: SyncQueue.readMarks, in: context)
    /// ```
    public static let readMarks: ObjectPredicate = .comparison(
        .keyPath("kind"), .in,
        .aggregate([.constant(.string(SyncChange.ReadMark.feed.rawValue)), .constant(.string(SyncChange.ReadMark.all.rawValue))]))

    /// The extra properties a batch "mark read" writes when the store syncs.
    ///
    /// ```swift
    /// properties.merge(SyncQueue.batchMarkReadProperties(in: context)) { $1 }
    /// ```
    public static func batchMarkReadProperties(in context: ManagedObjectContext) -> [String: Value] {
        isActive(in: context) ? ["syncReadPending": .bool(true)] : [:]
    }

    /// How many local changes the server has not accepted yet: queued subscription
    /// changes and items with a pending read or flag change.
    ///
    /// ```swift
    /// print(try SyncQueue.pendingCount(in: context))
    /// ```
    public static func pendingCount(in context: ManagedObjectContext) throws -> Int {
        try SyncChange.count(in: context) + FeedItem.count(where: pendingItems, in: context)
    }

    /// How many local changes the account of `scope` has not accepted yet.
    ///
    /// ```swift
    /// print(try SyncQueue.pendingCount(FeedSync.AccountScope(name: "work"), in: context))
    /// ```
    public static func pendingCount(_ scope: FeedSync.AccountScope, in context: ManagedObjectContext) throws -> Int {
        try SyncChange.count(where: scope.changes, in: context) + FeedItem.count(where: pendingItems && scope.items, in: context)
    }

    /// The enabled feeds a sync does not cover: those with no server id and no subscription
    /// queued for the server (a feed the server refused, a command or file feed, one
    /// detached). With an account they are refreshed here, after the sync or when it fails;
    /// a feed still queued is left to the sync, which would otherwise find it twice.
    ///
    /// ```swift
    /// let local = try SyncQueue.localFeeds(in: context)
    /// ```
    public static func localFeeds(in context: ManagedObjectContext) throws -> [ObjectID] {
        let queued = Set(try SyncChange.findAll(in: context).map(\.feedURL))
        return try Server.findAll(where: try ObjectPredicate(format: "syncID == nil"), in: context)
            .filter { !$0.disabled && !queued.contains($0.url) }.map(\.objectID)
    }

    /// The synced items with a read or flag change the server does not have yet. Written so
    /// that each branch of the OR is an equality on a prefix of the index
    /// `(syncReadPending, syncFlagPending)` (model version 5, ``ZeaderModel/syncVersion5Additions(to:)``;
    /// since version 6 it holds only the marked items, and each branch implies its condition):
    /// SQLite reads the marked entries of the index, not the item table. (The marks are
    /// never NULL: both attributes default to false and are only ever set to a boolean.)
    ///
    /// ```swift
    /// let items = try context.fetch(FetchRequest<FeedItem>(predicate: SyncQueue.pendingItems))
    /// ```
    public static let pendingItems: ObjectPredicate = {
        do {
            return try ObjectPredicate(
                format: "syncID != nil AND (syncReadPending == YES OR (syncReadPending == NO AND syncFlagPending == YES))")
        } catch {
            fatalError("SyncQueue.pendingItems does not parse: \(error)")
        }
    }()
}

extension SyncChange {
    /// A queued "mark read" of a whole feed or of everything (stored in ``kind``, next to the
    /// subscription changes' ``Kind``): ``feedURL`` is the feed's (empty for everything) and
    /// ``created`` the moment up to which the server marks its items read.
    ///
    /// ```swift
    /// if change.kind == SyncChange.ReadMark.all.rawValue { … }
    /// ```
    public enum ReadMark: String, Sendable {
        /// The items of one feed.
        case feed = "markFeedRead"
        /// Every item of the account.
        case all = "markAllRead"
    }
}
