import ObjectGraph
import Synchronization
import ZeaderKit

/// What a refresh reports while it runs, in order: `started`, one `feedFinished` per
/// feed, then `finished`.
///
/// ```swift
/// progress(.feedFinished(serverID, error: nil, newItems: 3))
/// ```
public enum ReaderRefreshEvent: Sendable, Equatable {
    case started(total: Int)
    case feedFinished(ObjectID, error: String?, newItems: Int)
    case finished(failed: Int)
}

/// Refreshes feeds in the background and saves what it finds through the store's
/// background contexts (the reader sees the results through ObjectsDidChange). The
/// refresh pipeline of ZeaderKit conforms to it; tests use a fake.
///
/// ```swift
/// await refresher.refresh(servers: ids) { event in print(event) }
/// ```
public protocol ReaderRefresher: Sendable {
    /// Refreshes `servers` (all feeds when empty), reporting `progress` from any thread.
    func refresh(servers: [ObjectID], progress: @escaping @Sendable (ReaderRefreshEvent) -> Void) async
}

/// The refresh pipeline as the reader sees it: feeds named by object ID, one event per feed.
///
/// ```swift
/// let refresher: ReaderRefresher = FeedRefresher(store: store)
/// ```
extension FeedRefresher: ReaderRefresher {
    public func refresh(servers: [ObjectID], progress: @escaping @Sendable (ReaderRefreshEvent) -> Void) async {
        // Map URLs to IDs (and IDs to URLs) once, from the store.
        let context = store.container.newBackgroundContext(name: "refresh-targets")
        let idByURL: [String: ObjectID] =
            (try? context.performAndWait { () throws in
                var map: [String: ObjectID] = [:]
                for server in try Server.findAll(in: context) { map[server.url] = server.objectID }
                return map
            }) ?? [:]
        let wanted = Set(servers)
        let urls = servers.isEmpty ? [] : idByURL.filter { wanted.contains($0.value) }.map(\.key)
        if !servers.isEmpty && urls.isEmpty {
            progress(.started(total: 0))
            progress(.finished(failed: 0))
            return
        }
        let announced = Mutex(false)
        do {
            let summary = try await refresh(urls: urls) { event in
                if announced.withLock({ done in defer { done = true }; return !done }) {
                    progress(.started(total: event.progress.total))
                }
                switch event {
                case .started:
                    break
                case .finished(let result, _), .failed(let result, _):
                    guard let id = idByURL[result.url] else { return }
                    var newItems = 0
                    var error: String?
                    switch result.status {
                    case .updated(let new, _): newItems = new
                    case .failed(let message): error = message
                    case .gone: error = "gone (410): no longer refreshed"
                    case .notModified, .deferred: break
                    }
                    progress(.feedFinished(id, error: error, newItems: newItems))
                }
            }
            if announced.withLock({ !$0 }) { progress(.started(total: summary.progress.total)) }
            progress(.finished(failed: summary.progress.failed))
        } catch {
            if announced.withLock({ !$0 }) { progress(.started(total: 0)) }
            progress(.finished(failed: max(1, servers.count)))
        }
    }
}
