import Feeds
import Foundation
import ObjectGraph

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
    /// Anything else: the typed reason (its description, also stored in `Server.lastError`,
    /// names the URL).
    case failed(RefreshFailure)

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

/// Why one feed's refresh failed: the fetcher's, the parser's or the store's typed error,
/// or one of the refresh's own reasons. Words in `Messages/Messages.swift`.
///
/// ```swift
/// if case .failed(.fetch(let error)) = result.status, error.httpStatus == 404 { … }
/// ```
public enum RefreshFailure: Error, Sendable, Equatable {
    /// Fetching failed (HTTP status, timeout, size cap, transport, file).
    case fetch(FetchError)
    /// The body is not a feed Zeader can read.
    case parse(FeedParseError)
    /// The store refused the feed's items (the save was rolled back).
    case store(url: String, ZeaderError)
    /// The stored URL is not a URL.
    case invalidURL(String)
    /// A permanent redirect points at a feed that is subscribed already.
    case movedToSubscribedFeed(url: String, target: String)
    /// The feed was deleted while it was being refreshed.
    case removedDuringRefresh
    /// A command or file feed whose origin does not vouch for it (``FeedTrust``): not run.
    case notVouched(url: String, origin: FeedOrigin)
    /// The feed's `password-command` gave no password (``FeedPasswordCommand``): not fetched.
    case passwordCommand(url: String, ZeaderError.PasswordProblem)
}

/// The outcome of refreshing one feed.
///
/// ```swift
/// print(result.serverID, result.url, result.status)
/// ```
public struct FeedRefreshResult: Sendable, Equatable {
    /// The Server refreshed: the reader finds its row by this ID.
    public var serverID: ObjectID
    /// The feed's URL as stored before the refresh.
    public var url: String
    /// Set when a permanent redirect moved the feed: the URL now stored.
    public var movedTo: String?
    public var status: FeedRefreshStatus
    /// The rules that acted on the feed's new items (``ItemRules``), in order: what is left
    /// to do once they are stored (notify, exec, full-article), and each firing's log line.
    public var firings: [ItemRules.Firing] = []

    public init(serverID: ObjectID, url: String, movedTo: String? = nil, status: FeedRefreshStatus) {
        self.serverID = serverID
        self.url = url
        self.movedTo = movedTo
        self.status = status
    }

    /// The one line that says what went wrong (nil when nothing did): the text of
    /// `Server.lastError`, the CLI's warnings and the reader's status line.
    ///
    /// ```swift
    /// if let problem = result.problem { warn(problem) }
    /// ```
    public var problem: String? {
        switch status {
        case .failed(let failure): return failure.description
        case .gone: return Messages.gone(url: url)
        case .updated, .notModified, .deferred: return nil
        }
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

/// What a refresh reports while it runs, the one event type of a refresh (the command
/// line's progress bar and the reader's status line both read it): one `started` and then
/// one `finished` or `failed` per feed. Events may arrive from several threads, never two
/// at once; the ``RefreshSummary`` returned at the end has the totals.
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
    /// print(event.progress.completed, "of", event.progress.total)
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
    /// When the refresh was a sync (the server fetched the feeds), what the sync did; nil
    /// for a refresh of the feeds themselves: `summary.sync?.newItems`.
    public var sync: FeedSync.Report?
    /// Items the config's `max-items` and `keep-days` removed from the refreshed feeds
    /// (``RefreshOptions/retention``).
    public var trimmedItems = 0
    /// Full articles fetched for the feeds marked for them, and pages that gave none
    /// (``FullArticles``; each item records why).
    public var fullArticles = FullArticleCount()
    /// What went wrong with the folder sync run around the refresh (``FolderSyncEngine``),
    /// one line each: the run failed, another device's entry was refused, a line was damaged.
    public var folderSyncProblems: [String] = []

    public init(
        progress: RefreshProgress, results: [FeedRefreshResult], duration: TimeInterval, sync: FeedSync.Report? = nil
    ) {
        self.progress = progress
        self.results = results
        self.duration = duration
        self.sync = sync
    }

    /// The feeds that failed.
    public var failures: [FeedRefreshResult] { results.filter(\.status.isFailure) }
}

/// Full articles a refresh fetched (``RefreshSummary/fullArticles``).
///
/// ```swift
/// print(summary.fullArticles.fetched, summary.fullArticles.failed)
/// ```
public struct FullArticleCount: Sendable, Equatable {
    /// Pages that gave an article.
    public var fetched = 0
    /// Pages that gave none (each item records why).
    public var failed = 0

    public init(fetched: Int = 0, failed: Int = 0) {
        self.fetched = fetched
        self.failed = failed
    }
}
