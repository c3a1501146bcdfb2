import ObjectGraph
import ZeaderKit

/// Refreshes feeds in the background and saves what it finds through the store's
/// background contexts (the reader sees the results through ObjectsDidChange). ZeaderKit's
/// ``FeedRefresher`` is the one implementation; tests use a fake. Progress comes as the
/// refresh's one event type, ``RefreshEvent``, whose results carry each Server's ID.
///
/// ```swift
/// let summary = try await refresher.refresh(servers: ids) { event in print(event.progress.completed) }
/// ```
public protocol ReaderRefresher: Sendable {
    /// Refreshes `servers` (all enabled feeds when empty), reporting `progress` from any
    /// thread; throws only when the store cannot be read.
    func refresh(servers: [ObjectID], progress: (@Sendable (RefreshEvent) -> Void)?) async throws(ZeaderError)
        -> RefreshSummary
    /// Whether the reader refreshes once when it starts (a sync account's refresher does:
    /// ``SyncingRefresher``).
    var refreshesOnStart: Bool { get }
    /// Whether a refresh is a sync with a server (the status line says "Syncing"):
    /// `if refresher.syncs { … }`.
    var syncs: Bool { get }
    /// The changes made here that the sync server does not have yet (0 without an account):
    /// `if refresher.pendingChanges() > 0 { … }`.
    func pendingChanges() -> Int
    /// Pushes the changes made here and pulls nothing (``FeedSync/push()``); returns how many
    /// were pushed: `let pushed = try await refresher.push()`.
    func push() async throws(ZeaderError) -> Int
}

extension FeedRefresher: ReaderRefresher {}
