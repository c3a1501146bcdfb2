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
    /// Items of feeds left out (``skipped`` or ``rejected``), not stored.
    public var itemsSkipped = 0
    /// Command and file feeds left out because the restore was not allowed to subscribe to
    /// them (`--allow-commands`), one line each naming the feed and what it would run.
    public var skipped: [String] = []
    /// Feeds whose URL Zeader cannot subscribe to (not http or https), one line each:
    /// `zeader import` exits non-zero when there are any.
    public var rejected: [String] = []
    /// Feeds whose settings that reach the network (a proxy, a header, a program…) were not
    /// restored, one line each naming the feed, the settings and the option that allows them.
    public var withheld: [String] = []

    /// An empty report.
    public init() {}
}
