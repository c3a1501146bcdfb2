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
    let options: RefreshOptions

    /// A refresher of `store`'s feeds (with `options`: jobs, limits), or of its sync account
    /// when it has one.
    public init(store: ZeaderStore, options: RefreshOptions = RefreshOptions()) {
        feeds = FeedRefresher(store: store, options: options)
        self.options = options
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
        // A folder the store syncs through, beside any accounts: before, for the feeds other
        // devices subscribed to; after, for the items just stored and the changes made here.
        // What went wrong in either is named with the refresh's outcome.
        let folder = FolderSyncEngine(store: feeds.store)
        var folderProblems = Self.runFolder(folder)
        let outcome: Result<RefreshSummary, ZeaderError>
        do throws(ZeaderError) {
            outcome = .success(try await refreshFeedsAndAccounts(servers: servers, progress: progress))
        } catch {
            outcome = .failure(error)
        }
        for problem in Self.runFolder(folder) where !folderProblems.contains(problem) { folderProblems.append(problem) }
        switch outcome {
        case .success(var summary):
            summary.folderSyncProblems = folderProblems
            return summary
        case .failure(let error):
            guard let problem = folderProblems.first else { throw error }
            throw .withFolderSync(error, problem: problem)
        }
    }

    /// One folder sync run, if the store syncs through a folder: the lines to show of it.
    private static func runFolder(_ folder: FolderSyncEngine) -> [String] {
        do { return try folder.runIfSetUp()?.warnings ?? [] } catch { return [Messages.folderSyncFailed(error.description)] }
    }

    /// The feeds refreshed here, or every account synced then the feeds they do not sync.
    private func refreshFeedsAndAccounts(servers: [ObjectID], progress: (@Sendable (RefreshEvent) -> Void)?)
        async throws(ZeaderError) -> RefreshSummary
    {
        guard (try? sync.hasAccount()) == true else {
            return try await feeds.refresh(servers: servers, progress: progress)
        }
        let started = Date()
        // Every account, one after the other; the status line shows the items fetched so far
        // ("Refreshing 250/1000").
        let (store, options) = (sync.store, options)
        let outcomes = try await SyncAccounts.syncAll(
            store: store,
            makeSync: {
                FeedSync(
                    store: store, ignoreRules: options.ignoreRules, itemRules: options.itemRules,
                    rulesChangeItemsLater: options.rulesChangeItemsLater, account: $0)
            },
            progress: { _, phase in
                guard let progress, case .items(let fetched, let total) = phase else { return }
                var totals = RefreshProgress(total: total)
                totals.completed = fetched
                progress(.started(url: "sync", totals))
            })
        var report = FeedSync.Report()
        var failures: [AccountFailure] = []
        for outcome in outcomes {
            switch outcome.result {
            case .success(let one): report.add(one)
            case .failure(let error): failures.append(AccountFailure(name: outcome.name, error: error))
            }
        }
        // The feeds no account syncs (local ones, refused by a server, commands, files) are
        // refreshed here, as `zeader refresh` does, also when an account failed.
        let local = try sync.localFeeds()
        if !failures.isEmpty {
            if !local.isEmpty { _ = try? await feeds.refresh(servers: local, progress: progress) }
            // Said as `zeader refresh` says it: which account failed and why, and that the
            // changes made here are kept.
            let problem: ZeaderError = outcomes.count == 1 ? failures[0].error : .accountsFailed(failures)
            throw .syncFailed(problem, pending: pendingChanges(), localFeeds: local.count)
        }
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
    public func pendingChanges() -> Int { (try? sync.statuses().reduce(0) { $0 + $1.pending }) ?? 0 }

    /// Pushes the changes made here to every account (``FeedSync/push()``); without an
    /// account there is nothing to push: `let pushed = try await refresher.push()`.
    public func push() async throws(ZeaderError) -> Int {
        guard syncs else { return 0 }
        var pushed = 0
        var failures: [AccountFailure] = []
        for status in try sync.statuses() where status.pending > 0 {
            do {
                pushed += try await FeedSync(store: sync.store, account: status.name).push()
            } catch {
                failures.append(AccountFailure(name: status.name, error: error))
            }
        }
        if let only = failures.first, failures.count == 1, (try? sync.statuses().count) == 1 { throw only.error }
        if !failures.isEmpty { throw .accountsFailed(failures) }
        return pushed
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
