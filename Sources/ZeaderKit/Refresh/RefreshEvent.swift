import Foundation

/// How one feed's refresh ended.
///
/// ```swift
/// if case .updated(let new, _) = result.status { print("\(new) new items") }
/// ```
public enum FeedRefreshStatus: Sendable, Equatable {
    /// The feed was downloaded and parsed: `newItems` stored, `updatedItems` changed in place.
    case updated(newItems: Int, updatedItems: Int)
    /// 304 Not Modified: nothing parsed, nothing stored but the validators.
    case notModified
    /// Not fetched: the server asked to wait until this date (429/503 Retry-After), now or before.
    case deferred(until: Date)
    /// 410 Gone: the feed is now disabled.
    case gone
    /// Anything else; the message (also stored in `Server.lastError`) names the URL.
    case failed(String)

    /// True for outcomes that count as failures (exit status 1).
    ///
    /// ```swift
    /// let failed = results.filter(\.status.isFailure)
    /// ```
    public var isFailure: Bool {
        switch self {
        case .failed, .gone: return true
        case .updated, .notModified, .deferred: return false
        }
    }
}

/// The outcome of refreshing one feed.
///
/// ```swift
/// print(result.url, result.status)
/// ```
public struct FeedRefreshResult: Sendable, Equatable {
    /// The feed's URL as stored before the refresh.
    public var url: String
    /// Set when a permanent redirect moved the feed: the URL now stored.
    public var movedTo: String?
    public var status: FeedRefreshStatus

    public init(url: String, movedTo: String? = nil, status: FeedRefreshStatus) {
        self.url = url
        self.movedTo = movedTo
        self.status = status
    }
}

/// Running totals of a refresh, carried by every ``RefreshEvent``.
///
/// ```swift
/// print("\(progress.completed)/\(progress.total) feeds, \(progress.failed) failed")
/// ```
public struct RefreshProgress: Sendable, Equatable {
    /// Feeds in this refresh.
    public var total: Int
    /// Feeds started so far.
    public var started = 0
    /// Feeds finished so far (any outcome).
    public var completed = 0
    /// Finished with new or changed items, or no change at all.
    public var updated = 0
    public var notModified = 0
    public var deferred = 0
    /// Failed or gone.
    public var failed = 0
    public var newItems = 0
    public var updatedItems = 0

    public init(total: Int) { self.total = total }

    mutating func record(_ status: FeedRefreshStatus) {
        completed += 1
        switch status {
        case .updated(let new, let changed):
            updated += 1
            newItems += new
            updatedItems += changed
        case .notModified: notModified += 1
        case .deferred: deferred += 1
        case .gone, .failed: failed += 1
        }
    }
}

/// What a refresh reports while it runs: one `started` and then one `finished` or
/// `failed` per feed. Events may arrive from several threads, never two at once.
///
/// ```swift
/// let summary = try await refresher.refresh { event in
///     if case .failed(let result, _) = event { log(result.status) }
/// }
/// ```
public enum RefreshEvent: Sendable, Equatable {
    case started(url: String, RefreshProgress)
    case finished(FeedRefreshResult, RefreshProgress)
    case failed(FeedRefreshResult, RefreshProgress)

    /// The totals at the time of the event.
    ///
    /// ```swift
    /// bar.draw(event.progress)
    /// ```
    public var progress: RefreshProgress {
        switch self {
        case .started(_, let p), .finished(_, let p), .failed(_, let p): return p
        }
    }
}

/// The end of a refresh: totals and every feed's outcome.
///
/// ```swift
/// let summary = try await refresher.refresh()
/// print(summary.line)      // "200 feeds: 195 updated, 3 unchanged, 2 failed; 9750 new items in 2.1 s"
/// ```
public struct RefreshSummary: Sendable, Equatable {
    public var progress: RefreshProgress
    /// One per feed, in completion order.
    public var results: [FeedRefreshResult]
    /// Wall time in seconds.
    public var duration: TimeInterval

    /// The feeds that failed.
    public var failures: [FeedRefreshResult] { results.filter(\.status.isFailure) }

    /// One line for humans.
    public var line: String {
        var parts = ["\(progress.updated) updated", "\(progress.notModified) unchanged"]
        if progress.deferred > 0 { parts.append("\(progress.deferred) deferred") }
        parts.append("\(progress.failed) failed")
        let feeds = progress.total == 1 ? "1 feed" : "\(progress.total) feeds"
        var line = "\(feeds): " + parts.joined(separator: ", ")
        line += "; \(progress.newItems) new item\(progress.newItems == 1 ? "" : "s")"
        if progress.updatedItems > 0 { line += ", \(progress.updatedItems) changed" }
        line += String(format: " in %.1f s", duration)
        return line
    }
}
