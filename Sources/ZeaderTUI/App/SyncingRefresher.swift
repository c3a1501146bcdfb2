import Foundation
import ObjectGraph
import ZeaderKit

/// The reader's refresh when the store may have a sync account: with one, a refresh is a
/// two-way sync (``FeedSync``: the server fetches the feeds; local changes are pushed,
/// other devices' pulled and merged into the open lists through the change bus; then the
/// feeds it does not sync, ``FeedSync/localFeeds()``, refreshed here); without one, the
/// plain ``FeedRefresher``. It runs in the background like any refresh (the status line
/// shows it running and how it ended) and, with an account, once when the reader starts.
///
/// ```swift
/// let refresher = SyncingRefresher(store: store)
/// try await ReaderTerminal.run(store: store, config: config, refresher: refresher, fetcher: fetcher)
/// ```
public struct SyncingRefresher: ReaderRefresher {
    let feeds: FeedRefresher
    let sync: FeedSync

    /// A refresher of `store`'s feeds (with `options`: jobs, limits), or of its sync account
    /// when it has one.
    public init(store: ZeaderStore, options: RefreshOptions = RefreshOptions()) {
        feeds = FeedRefresher(store: store, options: options)
        sync = FeedSync(
            store: store, ignoreRules: options.ignoreRules, itemRules: options.itemRules,
            rulesChangeItemsLater: options.rulesChangeItemsLater)
    }

    /// Whether the store has a sync account (then the reader syncs when it starts).
    public var refreshesOnStart: Bool { (try? sync.hasAccount()) == true }

    /// Whether the store has a sync account (then a refresh is a sync).
    public var syncs: Bool { (try? sync.hasAccount()) == true }

    public func refresh(servers: [ObjectID], progress: (@Sendable (RefreshEvent) -> Void)?) async throws(ZeaderError)
        -> RefreshSummary
    {
        guard (try? sync.hasAccount()) == true else {
            // Before, for the feeds other devices subscribed to; after, for the items just stored.
            let folder = FolderSyncEngine(store: feeds.store)
            _ = try? folder.runIfSetUp()
            defer { _ = try? folder.runIfSetUp() }
            return try await feeds.refresh(servers: servers, progress: progress)
        }
        let started = Date()
        // The status line shows the items fetched so far ("Refreshing 250/1000").
        let report: FeedSync.Report
        do {
            report = try await sync.sync { phase in
                guard let progress, case .items(let fetched, let total) = phase else { return }
                var totals = RefreshProgress(total: total)
                totals.completed = fetched
                progress(.started(url: "sync", totals))
            }
        } catch {
            // The feeds the server does not fetch do not wait for it; then the failure is said
            // as `zeader refresh` says it: what failed, and that the changes made here are kept.
            let local = (try? sync.localFeeds()) ?? []
            if !local.isEmpty { _ = try? await feeds.refresh(servers: local, progress: progress) }
            throw .syncFailed(error, pending: pendingChanges(), localFeeds: local.count)
        }
        // The feeds the account does not sync (refused by the server, commands, files) are
        // refreshed here, as `zeader refresh` does.
        let local = try sync.localFeeds()
        let localSummary = local.isEmpty ? nil : try await feeds.refresh(servers: local, progress: progress)
        var summary = RefreshProgress(total: max(report.feedsAdded, 1) + (localSummary?.progress.total ?? 0))
        summary.completed = summary.total
        summary.newItems = report.newItems + (localSummary?.progress.newItems ?? 0)
        return RefreshSummary(
            progress: summary, results: localSummary?.results ?? [], duration: Date().timeIntervalSince(started),
            sync: report)
    }
}

extension SyncingRefresher {
    /// The changes the sync server does not have yet: `refresher.pendingChanges()`.
    public func pendingChanges() -> Int { (try? sync.status()?.pending) ?? 0 }

    /// Pushes the changes made here (``FeedSync/push()``); without an account there is
    /// nothing to push: `let pushed = try await refresher.push()`.
    public func push() async throws(ZeaderError) -> Int {
        guard syncs else { return 0 }
        return try await sync.push()
    }
}

extension ReaderRefresher {
    /// A plain refresher has nothing to push: `refresher.pendingChanges()  // 0`.
    public func pendingChanges() -> Int { 0 }

    /// A plain refresher has nothing to push: `_ = try await refresher.push()  // 0`.
    public func push() async throws(ZeaderError) -> Int { 0 }

    /// A plain refresher does not refresh when the reader starts.
    public var refreshesOnStart: Bool { false }

    /// A plain refresher fetches the feeds themselves.
    public var syncs: Bool { false }
}
