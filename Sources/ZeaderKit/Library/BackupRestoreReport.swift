/// What ``FeedLibrary/restoreBackup(from:batchSize:progress:)`` did.
///
/// ```swift
/// let report = try library.restoreBackup(from: url)
/// print("\(report.itemsAdded) items added, \(report.itemsUpdated) updated")
/// ```
public struct BackupRestoreReport: Sendable, Equatable {
    /// Feeds the store did not have.
    public var feedsAdded = 0
    /// Feeds already subscribed, updated from the backup.
    public var feedsUpdated = 0
    /// Items the store did not have.
    public var itemsAdded = 0
    /// Items already stored (same feed and guid), updated from the backup.
    public var itemsUpdated = 0
    /// Items skipped because an earlier, interrupted restore of the same file had saved them.
    public var resumedAfter = 0

    /// An empty report.
    public init() {}
}
