import Feeds
import Foundation
import ObjectGraph
import Synchronization

/// The refresh pipeline (docs/ARCHITECTURE.md, "From `zeader refresh` to the store"): fetch N feeds at a time (conditional GET), parse each
/// body on guarded threads, upsert its items by guid in an import context on a background
/// queue, saving several ready feeds per transaction (``SaveGrouping``); every save's DidSave
/// is merged into the view context by the container. One feed's failure is recorded on that
/// feed (`Server.lastError`) and touches no other.
///
/// ```swift
/// let refresher = FeedRefresher(store: store, options: RefreshOptions(jobs: 8))
/// let summary = try await refresher.refresh { event in print(event.progress.completed) }
/// print(summary.line)
/// ```
///
/// The command line names feeds by URL (``refresh(urls:progress:)``), the reader by object
/// ID (``refresh(servers:progress:)``); both run the same pipeline and report the same
/// ``RefreshEvent``s, whose results carry the Server's ID and URL.
public final class FeedRefresher: Sendable {
    public let store: ZeaderStore
    public let options: RefreshOptions
    private let fetcher: FeedFetcher

    public init(store: ZeaderStore, options: RefreshOptions = RefreshOptions()) {
        self.store = store
        self.options = options
        var configuration = options.fetcherConfiguration
        configuration.knownHostShares = HostShareMemory.shares(in: store.container.store)
        fetcher = FeedFetcher(configuration: configuration)
    }

    /// One feed to fetch, read from the store before the fetches start.
    struct Target: Sendable {
        var serverID: ObjectID
        var url: String
        var request: FeedRequest?
        /// Set for a command or file feed no origin vouches for: it fails with this, unrun.
        var refusal: RefreshFailure?
        /// The feed's `password-command` (``FeedPasswordCommand``), run before its fetch.
        var passwordCommand: String? = nil
    }

    /// Refreshes the feeds whose URLs are given (all enabled feeds when `urls` is empty;
    /// a disabled feed named here is tried again). Throws only when a named URL is not
    /// subscribed or the store cannot be read; feed failures are in the summary.
    ///
    /// ```swift
    /// let summary = try await refresher.refresh(urls: ["https://example.org/feed"])
    /// ```
    public func refresh(
        urls: [String] = [], progress: (@Sendable (RefreshEvent) -> Void)? = nil
    ) async throws(ZeaderError) -> RefreshSummary {
        let context = store.container.newBackgroundContext(name: "import")
        return try Self.stopIfStoreBroken(
            await run(try loadTargets(urls: urls, context: context), context: context, progress: progress))
    }

    /// Refreshes the feeds `servers` (all enabled feeds when empty; a disabled feed named
    /// here is tried again; a feed deleted meanwhile is left out). Throws only when the
    /// store cannot be read.
    ///
    /// ```swift
    /// let summary = try await refresher.refresh(servers: [serverID]) { event in show(event) }
    /// ```
    public func refresh(
        servers: [ObjectID], progress: (@Sendable (RefreshEvent) -> Void)? = nil
    ) async throws(ZeaderError) -> RefreshSummary {
        let context = store.container.newBackgroundContext(name: "import")
        return try Self.stopIfStoreBroken(
            await run(try loadTargets(servers: servers, context: context), context: context, progress: progress))
    }

    /// The store's own failure when a feed could not be stored because the store is damaged
    /// or read-only (the refresh stopped starting feeds then: every other would fail alike);
    /// else the summary.
    static func stopIfStoreBroken(_ summary: RefreshSummary) throws(ZeaderError) -> RefreshSummary {
        for result in summary.results {
            if case .failed(.store(_, let error)) = result.status, let broken = brokenStore(error) { throw broken }
        }
        return summary
    }

    /// `error` when it means no feed can be stored: a damaged or read-only store.
    static func brokenStore(_ error: ZeaderError) -> ZeaderError? {
        switch error {
        case .store(.damaged), .store(.readOnlyStore): return error
        default: return nil
        }
    }

    /// Every feed's items are saved as a bulk write (``PersistentStore/withBulkWritesAsync(_:)``:
    /// statement journals in memory), then the `-wal` is checkpointed.
    private func run(
        _ targets: [Target], context: ManagedObjectContext, progress: (@Sendable (RefreshEvent) -> Void)?
    ) async -> RefreshSummary {
        let summary = await store.container.store.withBulkWritesAsync {
            await runFeeds(targets, context: context, progress: progress)
        }
        store.checkpoint()  // a refresh can write tens of megabytes to the `-wal`
        HostShareMemory.remember(await fetcher.learntHostShares(), in: store.container.store)
        return summary
    }

    private func runFeeds(
        _ targets: [Target], context: ManagedObjectContext, progress: (@Sendable (RefreshEvent) -> Void)?
    ) async -> RefreshSummary {
        let start = Date()
        let rules = killfileRules(context: context)
        let actionRules = ItemRules.acting(
            options.itemRules + ItemRules.stored(in: store.container.store), changingItems: !options.rulesChangeItemsLater)
        let matchingLinks = FeedSync.mayHoldItemsStoredByLink(store, context: context)
        let contexts =
            [context]
            + (1..<max(1, options.saveGrouping.savers)).map { _ in
                store.container.newBackgroundContext(name: "import")
            }
        let grouping = SaveGrouping(
            importers: contexts.map {
                FeedImporter(context: $0, ignoreRules: rules, matchingLinks: matchingLinks, actionRules: actionRules)
            },
            limits: options.saveGrouping)
        let state = Mutex(State(progress: RefreshProgress(total: targets.count)))
        // Called from several tasks; the lock keeps the totals exact and the events in order.
        let report: @Sendable (String, FeedRefreshResult?) -> Void = { url, result in
            state.withLock { state in
                let event: RefreshEvent
                if let result {
                    if case .failed(.store(_, let error)) = result.status, Self.brokenStore(error) != nil {
                        state.storeBroken = true
                    }
                    state.progress.record(result.status)
                    state.results.append(result)
                    event = result.status.isFailure ? .failed(result, state.progress) : .finished(result, state.progress)
                } else {
                    state.progress.started += 1
                    event = .started(url: url, state.progress)
                }
                progress?(event)
            }
        }
        let jobs = max(1, options.jobs)
        let passwords = FeedPasswordCommand.Cache()
        await withTaskGroup(of: Void.self) { group in
            var pending = targets.makeIterator()
            var running = 0
            while true {
                // A damaged or read-only store fails every feed alike: start no more.
                while running < jobs, !state.withLock({ $0.storeBroken }), let target = pending.next() {
                    running += 1
                    group.addTask {
                        report(target.url, nil)
                        // The feed's place in the fetches is free once it waits to be saved.
                        await grouping.submit(await self.fetchAndParse(target, passwords: passwords), for: target.serverID) {
                            result in
                            report(target.url, result)
                        }
                    }
                }
                guard running > 0, await group.next() != nil else { break }
                running -= 1
            }
        }
        await grouping.finish()
        let (finalProgress, results) = state.withLock { ($0.progress, $0.results) }
        var summary = RefreshSummary(progress: finalProgress, results: results, duration: Date().timeIntervalSince(start))
        summary.trimmedItems = await trim(results, in: context)
        summary.fullArticles = await fetchFullArticles(results, in: context)
        summary.duration = Date().timeIntervalSince(start)
        return summary
    }

    /// Fetches the full articles of the refreshed feeds marked for them (``FullArticles``),
    /// once every feed is stored, so a slow page never delays a feed. Returns how many
    /// pages gave an article and how many did not.
    private func fetchFullArticles(
        _ results: [FeedRefreshResult], in context: ManagedObjectContext
    ) async -> FullArticleCount {
        let refreshed = results.compactMap { result -> ObjectID? in
            if case .updated = result.status { return result.serverID }
            return nil
        }
        guard !refreshed.isEmpty else { return FullArticleCount() }
        let scopes = options.fullArticleScopes + options.feedSettings.fullArticleScopes
        let selectors = options.articleSelectors
        let asked = results.flatMap { result in result.firings.map { (result.serverID, $0) } }
        let targets = await context.run {
            defer { context.reset() }
            let pending = (try? FullArticles.pending(of: refreshed, scopes: scopes, selectors: selectors, in: context)) ?? []
            return ItemRules.fullArticleTargets(asked, besides: pending, selectors: selectors, in: context)
        }
        return await FullArticles.fetchAndStore(targets, with: fetcher, in: context)
    }

    /// Applies the retention policy to the feeds that got new items, as newsboat applies
    /// `max-items` on reload; a failure leaves the items for the next refresh or cleanup.
    private func trim(_ results: [FeedRefreshResult], in context: ManagedObjectContext) async -> Int {
        let grown = results.compactMap { result -> ObjectID? in
            if case .updated(let new, _) = result.status, new > 0 { return result.serverID }
            return nil
        }
        guard !grown.isEmpty else { return 0 }
        let (retention, scopes) = (options.retention, options.feedSettings)
        return await context.run {
            defer { context.reset() }
            let policy = retention.including(scopes, for: grown, in: context)
            do { return try RetentionCleanup.trim(grown, by: policy, in: context).removedItems } catch {
                context.rollback()
                return 0
            }
        }
    }

    /// The ignore rules in force, the store brought in line with them first (a rule added
    /// or removed since the last refresh); none when the store cannot be read or written.
    private func killfileRules(context: ManagedObjectContext) -> [Killfile.CompiledRule] {
        let configRules = options.ignoreRules
        let store = store.container.store
        return context.performAndWait {
            defer { context.reset() }
            if !store.isReadOnly {
                do { try Killfile.reconcile(configRules: configRules, in: context, store: store) } catch { context.rollback() }
            }
            return (try? Killfile.activeRules(configRules: configRules, in: context)) ?? []
        }
    }

    private struct State {
        var progress: RefreshProgress
        var results: [FeedRefreshResult] = []
        /// A feed could not be stored because the store is damaged or read-only.
        var storeBroken = false
    }

    private func loadTargets(urls: [String], context: ManagedObjectContext) throws(ZeaderError) -> [Target] {
        try loadTargets(
            context: context,
            named: urls.isEmpty
                ? nil
                : { () throws -> [Server] in
                    try urls.map { url throws -> Server in
                        guard let server = try Server.findFirst(byAttribute: "url", value: .string(url), in: context) else {
                            throw ZeaderError.missingFeed(url)
                        }
                        return server
                    }
                })
    }

    private func loadTargets(servers ids: [ObjectID], context: ManagedObjectContext) throws(ZeaderError) -> [Target] {
        try loadTargets(
            context: context,
            named: ids.isEmpty
                ? nil
                : {
                    ids.compactMap { (try? context.existingObject(with: $0)) as? Server }
                })
    }

    /// The feeds `named` returns, each once; every enabled feed when `named` is nil.
    private func loadTargets(context: ManagedObjectContext, named: (() throws -> [Server])?) throws(ZeaderError)
        -> [Target]
    {
        do {
            return try context.performAndWait { () throws -> [Target] in
                let servers = try named?() ?? Server.findAll(sortedBy: "displayOrder", in: context).filter { !$0.disabled }
                var seen = Set<ObjectID>()
                let alwaysDownload = options.alwaysDownload
                let now = Date()
                return servers.filter { seen.insert($0.objectID).inserted }.compactMap { server in
                    let settings = options.feedSettings.effective(url: server.url, tags: server.tags, stored: server.settings)
                    if options.dueOnly, !FeedSettingsScopes.isDue(lastRefresh: server.lastRefresh, settings: settings, now: now) {
                        return nil
                    }
                    let refusal = FeedTrust.refusal(url: server.url, origin: server.origin)
                    let conditional = !alwaysDownload.contains(server.url) && settings.flag(.ignoreHTTPCache) != true
                    return Target(
                        serverID: server.objectID, url: server.url,
                        request: refusal != nil
                            ? nil
                            : CommandFeed.requestURL(server.url).map {
                                var request = FeedRequest(
                                    url: $0, etag: conditional ? server.etag : nil,
                                    lastModified: conditional ? server.lastModified : nil, notBefore: server.retryAfter)
                                request.network = settings.network
                                return request
                            },
                        refusal: refusal, passwordCommand: settings.value(.passwordCommand))
                }
            }
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

    /// Fetch → parse (on a guarded thread, never a context's queue).
    private func fetchAndParse(_ target: Target, passwords: FeedPasswordCommand.Cache) async -> FeedImporter.Input {
        guard var request = target.request else { return .failed(target.refusal ?? .invalidURL(target.url)) }
        if let command = target.passwordCommand {
            switch await passwords.password(command) {
            case .password(let password): request.network.password = password
            case .problem(let problem): return .failed(.passwordCommand(url: target.url, problem))
            }
        }
        var input = await Self.fetchAndParse(request, with: fetcher)
        var attempts = 1
        while attempts < options.downloadAttempts, case .outcome(.failed(let error)) = input, error.isWorthRetrying {
            attempts += 1
            input = await Self.fetchAndParse(request, with: fetcher)
        }
        return input
    }

    /// The fetch's outcome, with a 2xx body parsed; the body itself is released on return,
    /// before the feed waits for the import context. The reader's add-feed preview fetches
    /// through this too.
    ///
    /// ```swift
    /// let input = await FeedRefresher.fetchAndParse(FeedRequest(url: url), with: fetcher)
    /// ```
    public static func fetchAndParse(_ request: FeedRequest, with fetcher: FeedFetcher) async -> FeedImporter.Input {
        let outcome = await fetcher.fetch(request)
        guard case .fetched(let body, let metadata) = outcome else { return .outcome(outcome) }
        // On a guarded thread: see GuardedThreads for why not this task's.
        let parsed = await GuardedThreads.run {
            Result { () throws(FeedParseError) in
                try FeedParser.parse(data: body, url: metadata.finalURL, contentTypeCharset: metadata.charset)
            }
        }
        switch parsed {
        case .success(var feed):
            if let problem = metadata.bodyProblem {
                // A body that is not the one announced: its items are kept, the problem is the feed's error.
                feed.problems.insert(Messages.storedDespite(problem), at: 0)
            }
            return .parsed(feed, metadata)
        case .failure(let error):
            if let problem = metadata.bodyProblem { return .failed(.fetch(problem)) }
            return .failed(.parse(error))
        }
    }
}

/// Settings of a refresh.
///
/// ```swift
/// var options = RefreshOptions(jobs: 16)
/// options.fetcherConfiguration.totalTimeout = 30
/// ```
public struct RefreshOptions: Sendable {
    /// Feeds fetched and processed at once.
    public var jobs: Int
    /// The fetcher's limits (timeouts, size cap, per-host limit, User-Agent version).
    public var fetcherConfiguration: FetcherConfiguration
    /// The config's `ignore` rules (the stored ones are read from the store): ``Killfile``.
    public var ignoreRules: [Killfile.Rule] = []
    /// The config's `rule` lines that act (``ItemRules``); the stored ones are read from the store.
    public var itemRules: [ItemRules.Rule] = []
    /// The reader's: the rules' `mark-read` and `flag` are not stored with the items but made
    /// afterwards on its view context, one undo step (``ItemRules/applyChanges(_:in:)``).
    public var rulesChangeItemsLater = false
    /// The config's `max-items` and `keep-days`, applied to each feed that got new items
    /// (``RetentionCleanup/trim(_:by:in:now:batchSize:)``); empty: every item is kept.
    public var retention = RetentionPolicy()
    /// The config's `full-article` lines: feeds whose new items get their full articles,
    /// besides those marked in the store (``FullArticles``).
    public var fullArticleScopes: [FeedScope] = []
    /// The config's `article-selector` lines (``ArticleSelectorRule``).
    public var articleSelectors: [ArticleSelectorRule] = []
    /// The config's `always-download` feeds (newsboat's): fetched whole at every refresh,
    /// without ETag or Last-Modified, for servers whose answers to those are wrong.
    public var alwaysDownload: Set<String> = []
    /// The config's `feed` lines; each feed's own settings are read from the store
    /// (``FeedSettingsScopes/effective(url:tags:stored:)``).
    public var feedSettings = FeedSettingsScopes()
    /// Only the feeds whose `reload-interval` has passed (`zeader refresh --due`).
    public var dueOnly = false
    /// When the feeds waiting to be stored are saved together (``SaveGrouping``).
    var saveGrouping = SaveGrouping.Limits()
    /// Fetches of a feed before its failure is kept, when the failure may pass (no answer, a
    /// connection cut, a server error: ``FetchError/isWorthRetrying``); newsboat's `download-retries`.
    public var downloadAttempts = 1

    /// `jobs` feeds at a time (default 8), `maxPerHost` to one host at first (default 4;
    /// more to a host whose answers earn them: ``FetcherConfiguration/maxPerHost``).
    public init(jobs: Int = 8, maxPerHost: Int = 4) {
        self.jobs = max(1, jobs)
        fetcherConfiguration = FetcherConfiguration(version: zeaderVersion)
        fetcherConfiguration.maxConcurrent = self.jobs
        fetcherConfiguration.maxPerHost = max(1, min(maxPerHost, self.jobs))
    }
}

extension ManagedObjectContext {
    /// Runs `block` on the context's queue and returns its result to the awaiting task
    /// without blocking a thread while the queue is busy.
    ///
    /// ```swift
    /// let n = await context.run { (try? context.count(for: FetchRequest<Server>())) ?? 0 }
    /// ```
    public func run<T: Sendable>(_ block: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            perform { continuation.resume(returning: block()) }
        }
    }
}
