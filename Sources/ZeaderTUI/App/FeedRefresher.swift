import ObjectGraph

/// What a refresh reports while it runs, in order: `started`, one `feedFinished` per
/// feed, then `finished`.
///
/// ```swift
/// progress(.feedFinished(serverID, error: nil, newItems: 3))
/// ```
public enum RefreshEvent: Sendable, Equatable {
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
public protocol FeedRefresher: Sendable {
    /// Refreshes `servers` (all feeds when empty), reporting `progress` from any thread.
    func refresh(servers: [ObjectID], progress: @escaping @Sendable (RefreshEvent) -> Void) async
}
