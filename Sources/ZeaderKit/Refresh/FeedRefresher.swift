import Feeds
import Foundation
import ObjectGraph
import Synchronization

/// The refresh pipeline of DESIGN.md: fetch N feeds at a time (conditional GET), parse each
/// body off the view queue, upsert its items by guid in an import context on a background
/// queue, save per feed; every save's DidSave is merged into the view context by the
/// container. One feed's failure is recorded on that feed (`Server.lastError`) and touches
/// no other.
///
/// ```swift
/// let refresher = FeedRefresher(store: store, options: RefreshOptions(jobs: 8))
/// let summary = try await refresher.refresh { event in print(event.progress.completed) }
/// print(summary.line)
/// ```
public final class FeedRefresher: Sendable {
    public let store: ZeaderStore
    public let options: RefreshOptions
    private let fetcher: FeedFetcher

    public init(store: ZeaderStore, options: RefreshOptions = RefreshOptions()) {
        self.store = store
        self.options = options
        fetcher = FeedFetcher(configuration: options.fetcherConfiguration)
    }

    /// One feed to fetch, read from the store before the fetches start.
    struct Target: Sendable {
        var serverID: ObjectID
        var url: String
        var request: Feeds.FetchRequest?
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
        let start = Date()
        let context = store.container.newBackgroundContext(name: "import")
        let targets = try loadTargets(urls: urls, context: context)
        let importer = FeedImporter(context: context)
        let state = Mutex(State(progress: RefreshProgress(total: targets.count)))
        // Called from several tasks; the lock keeps the totals exact and the events in order.
        let report: @Sendable (String, FeedRefreshResult?) -> Void = { url, result in
            state.withLock { state in
                let event: RefreshEvent
                if let result {
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
        await withTaskGroup(of: Void.self) { group in
            var pending = targets.makeIterator()
            var running = 0
            while true {
                while running < jobs, let target = pending.next() {
                    running += 1
                    group.addTask {
                        report(target.url, nil)
                        let result = await self.refresh(target, importer: importer)
                        report(target.url, result)
                    }
                }
                guard running > 0, await group.next() != nil else { break }
                running -= 1
            }
        }
        await context.run { importer.flush() }
        let (finalProgress, results) = state.withLock { ($0.progress, $0.results) }
        return RefreshSummary(progress: finalProgress, results: results, duration: Date().timeIntervalSince(start))
    }

    private struct State {
        var progress: RefreshProgress
        var results: [FeedRefreshResult] = []
    }

    private func loadTargets(urls: [String], context: ManagedObjectContext) throws(ZeaderError) -> [Target] {
        do {
            return try context.performAndWait { () throws -> [Target] in
                let servers: [Server]
                if urls.isEmpty {
                    servers = try Server.findAll(sortedBy: "displayOrder", in: context).filter { !$0.disabled }
                } else {
                    servers = try urls.map { url throws -> Server in
                        guard let server = try Server.findFirst(byAttribute: "url", value: .string(url), in: context) else {
                            throw ZeaderError.notSubscribed(url)
                        }
                        return server
                    }
                }
                var seen = Set<ObjectID>()
                return servers.filter { seen.insert($0.objectID).inserted }.map { server in
                    Target(
                        serverID: server.objectID, url: server.url,
                        request: URL(string: server.url).map {
                            Feeds.FetchRequest(
                                url: $0, etag: server.etag, lastModified: server.lastModified, notBefore: server.retryAfter)
                        })
                }
            }
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }

    /// Fetch → parse (on this task's thread, never the view queue) → import (on the import
    /// context's queue, awaited without blocking a thread).
    private func refresh(_ target: Target, importer: FeedImporter) async -> FeedRefreshResult {
        guard let request = target.request else {
            let input = FeedImporter.Input.failed("\(target.url): invalid URL")
            return await importer.context.run { importer.apply(input, to: target.serverID) }
        }
        let input = await fetchAndParse(request)
        return await importer.context.run { importer.apply(input, to: target.serverID) }
    }

    /// The fetch's outcome, with a 2xx body parsed; the body itself is released on return,
    /// before the feed waits for the import context.
    private func fetchAndParse(_ request: Feeds.FetchRequest) async -> FeedImporter.Input {
        let outcome = await fetcher.fetch(request)
        guard case .fetched(let body, let metadata) = outcome else { return .outcome(outcome) }
        do {
            return .parsed(
                try FeedParser.parse(data: body, url: metadata.finalURL, contentTypeCharset: metadata.charset), metadata)
        } catch {
            return .failed(error.description)
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

    /// `jobs` feeds at a time (default 8), at most `maxPerHost` to one host (default 4).
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
