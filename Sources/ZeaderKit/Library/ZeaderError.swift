import Feeds
import Foundation
import ObjectGraph

/// What went wrong in one of Zeader's operations, in one line that names the feed, file or
/// argument at fault.
///
/// ```swift
/// do { try library.remove(url: "https://example.org/feed") }
/// catch { print("zeader remove: \(error)") }   // "not subscribed: https://example.org/feed"
/// ```
/// Its wording lives with every other message in `Messages/Messages.swift`.
public enum ZeaderError: Error, Sendable, Equatable {
    /// The URL is not one Zeader can subscribe to (no scheme, no host, not http/https/file).
    case invalidURL(String, reason: String)
    /// `add` of a URL already in the store.
    case alreadySubscribed(String)
    /// A command named a feed URL that is not in the store.
    case notSubscribed(String)
    /// A file could not be read or understood.
    case unreadableFile(path: String, reason: String)
    /// A file named on the command line that is not of the kind the command reads (`import`
    /// of a file that is neither OPML, a urls file, a backup nor a newsboat cache): the
    /// user's argument, not a failure to read it (that is ``unreadableFile(path:reason:)``).
    case notTheFileAsked(path: String, reason: String)
    /// `--db` naming a folder, not the store's file.
    case storeIsAFolder(path: String)
    /// A `--where` predicate that does not parse or does not fit FeedItem.
    case invalidPredicate(String)
    /// A `--where` predicate whose query ran past ``UserPredicate/timeLimit`` and was stopped.
    case predicateTimedOut(seconds: Double)
    /// The store refused an operation.
    case store(ObjectGraphError)
    /// The store's folder could not be created (`path` is the folder, `reason` the system's words).
    case cannotCreateFolder(path: String, reason: String)
    /// A podcast feed's download folder could not be created (`path` is the folder, `reason`
    /// the system's words): that feed's episodes fail, the others download.
    case cannotCreateDownloadFolder(path: String, reason: String)
    /// A smart feed's predicate that does not parse or does not fit FeedItem.
    case invalidSmartPredicate(String)
    /// A smart feed without a title.
    case smartFeedNeedsTitle
    /// A smart feed whose title is taken.
    case smartFeedExists(String)
    /// `flag`/`unflag` with neither ids nor a feed.
    case noItemsNamed(flagging: Bool)
    /// An item id (guid) that matches no item (in `feed`, when given).
    case noSuchItem(id: String, feed: String?)
    /// An item id that can name no item (``ItemID/problem(with:)``): a typing error, not an
    /// item missing from the store.
    case invalidItemID(String, ItemID.Problem)
    /// `ignore remove N` with N below 1: rule numbers start at 1.
    case invalidIgnoreRuleNumber(Int)
    /// A backup names a feed that is not in the store.
    case notAFeedInStore(String)
    /// A feed could not be fetched or read (adding a feed with a preview).
    indirect case feedUnavailable(RefreshFailure)
    /// An ignore rule whose predicate does not parse or does not fit FeedItem.
    case invalidIgnoreRule(String)
    /// `zeader ignore remove N` with no stored rule N.
    case noSuchIgnoreRule(Int)
    /// A rule that acts (``ItemRules``) that cannot be read: its text and why.
    case invalidRule(String, ItemRules.Problem)
    /// `zeader rule remove N` with no stored rule N.
    case noSuchRule(Int)
    /// A newsboat sort order (`article-sort-order`, `:set`) whose field is not one of
    /// ``ItemSortOrder/Field`` (`text` is the whole order as given).
    case unknownSortField(String)
    /// A newsboat sort order whose direction (after the `-`) is neither `asc` nor `desc`.
    case unknownSortDirection(String, order: String)
    /// `import -` of a JSON backup: a backup is read in place (and resumed), so it is named
    /// as a file.
    case backupFromStandardInput
    /// `import --urls FILE` of something that is not a newsboat cache (`path`).
    case urlsWithoutNewsboatCache(path: String)
    /// The sync account or its server: ``SyncError`` says which.
    case sync(SyncError)
    /// A sync that failed (`problem`), with the count of changes made here and kept for the
    /// next sync, and (for a refresh) how many feeds not synced are refreshed here all the same.
    indirect case syncFailed(ZeaderError, pending: Int, localFeeds: Int?)
    /// The sync of some of the store's accounts failed, each with why (the others synced).
    case accountsFailed([AccountFailure])
    /// A refresh that failed (`error`) whose folder sync went wrong too (`problem`, one line):
    /// the reader names both.
    indirect case withFolderSync(ZeaderError, problem: String)
    /// The sync password could not be had: ``PasswordProblem`` says why.
    case password(PasswordProblem)
    /// `podcasts add` of an item (`id`, its guid) without an enclosure.
    case noEnclosure(id: String)
    /// An id that names no episode of the podcast queue.
    case notQueued(id: String)
    /// `podcasts play` with no `player` in the config.
    case noPlayer
    /// `podcasts play` of an episode not downloaded yet.
    case notDownloaded(id: String)
    /// A program (the player) that could not be started: ``Subprocess/Failure`` says why.
    case cannotRun(Subprocess.Failure)
    /// The operation was cancelled (the reader quit, a task was cancelled).
    case cancelled
    /// A feed setting (`zeader set`, a urls-file line) that cannot be used.
    case feedSetting(FeedSettingsError)
    /// Folder sync: its folder, its files or its set-up (``FolderSyncError``).
    case folderSync(FolderSyncError)
    /// An error of a kind no operation expects, named by its type: a bug to report.
    case unexpected(type: String, detail: String)

    /// Where a sync password comes from, and what went wrong there.
    ///
    /// ```swift
    /// throw ZeaderError.password(.commandPrintedNothing)
    /// ```
    public enum PasswordProblem: Sendable, Equatable {
        /// `--password-command` could not be started (`reason`, the system's words).
        case commandCouldNotRun(reason: String)
        /// `--password-command` printed more than `limit` bytes.
        case commandOutputTooLarge(limit: Int)
        /// `--password-command` ended other than with status 0.
        case commandFailed(Subprocess.Termination)
        /// `--password-command`'s first line is empty.
        case commandPrintedNothing
        /// No `$ZEADER_SYNC_PASSWORD`, no `--password-command` and no terminal to ask on.
        case noTerminal
        /// An empty password typed at the prompt.
        case noneGiven
    }

    /// True for errors in what the user typed or left out (exit status 2 on the command
    /// line); false for failures (network, store, server, a file, a program, something
    /// named that is not there: exit status 1). Exhaustive, so that each new kind decides.
    ///
    /// ```swift
    /// exit(error.isUsageError ? 2 : 1)
    /// ```
    public var isUsageError: Bool {
        switch self {
        case .invalidURL, .invalidPredicate, .invalidIgnoreRule, .invalidRule, .invalidSmartPredicate, .smartFeedNeedsTitle,
            .noItemsNamed, .invalidItemID, .invalidIgnoreRuleNumber, .unknownSortField, .unknownSortDirection,
            .backupFromStandardInput, .urlsWithoutNewsboatCache, .notTheFileAsked, .storeIsAFolder, .feedSetting:
            return true
        // A --db that names a file which is no SQLite database at all.
        case .store(.notADatabase): return true
        case .sync(let error): return error.isUsageError
        case .folderSync(let error): return error.isUsageError
        case .password(let problem):
            switch problem {
            case .noTerminal, .noneGiven: return true
            case .commandCouldNotRun, .commandOutputTooLarge, .commandFailed, .commandPrintedNothing: return false
            }
        case .syncFailed, .accountsFailed, .withFolderSync, .alreadySubscribed, .notSubscribed, .unreadableFile,
            .predicateTimedOut, .store, .cannotCreateFolder, .cannotCreateDownloadFolder, .smartFeedExists, .noSuchItem,
            .notAFeedInStore,
            .feedUnavailable, .noSuchIgnoreRule, .noSuchRule, .noEnclosure, .notQueued, .noPlayer, .notDownloaded, .cannotRun,
            .cancelled, .unexpected:
            return false
        }
    }

    /// A feed URL named on the command line that is not in the store: ``invalidURL(_:reason:)``
    /// when the text could never be a feed's URL (a typing error, exit 2), else
    /// ``notSubscribed(_:)``.
    static func missingFeed(_ url: String) -> ZeaderError {
        do { _ = try FeedSubscription.validatedURL(url) } catch { return error }
        return .notSubscribed(url)
    }

    /// An item id that matched no item: ``invalidItemID(_:_:)`` when it could never match
    /// one (exit 2), else ``noSuchItem(id:feed:)``.
    static func missingItem(_ id: String, feed: String?) -> ZeaderError {
        ItemID.problem(with: id).map { .invalidItemID(id, $0) } ?? .noSuchItem(id: id, feed: feed)
    }

    /// Wraps any error: ZeaderErrors pass through, ObjectGraph's become `.store`, a sync's
    /// `.sync`, a fetch's `.feedUnavailable`.
    static func wrapping(_ error: any Error) -> ZeaderError {
        switch error {
        case let zeader as ZeaderError: return zeader
        case let graph as ObjectGraphError: return .store(graph)
        case let sync as SyncError: return .sync(sync)
        case let setting as FeedSettingsError: return .feedSetting(setting)
        case let folder as FolderSyncError: return .folderSync(folder)
        case let fetch as FetchError: return .feedUnavailable(.fetch(fetch))
        case is CancellationError: return .cancelled
        default: return .unexpected(type: String(reflecting: type(of: error)), detail: String(describing: error))
        }
    }
}

/// One account whose sync failed: its name and why (``ZeaderError/accountsFailed(_:)``).
///
/// ```swift
/// let failure = AccountFailure(name: "work", error: .sync(.noAccount))
/// ```
public struct AccountFailure: Sendable, Equatable {
    public var name: String
    public var error: ZeaderError

    /// The account `name` failed with `error`.
    public init(name: String, error: ZeaderError) {
        self.name = name
        self.error = error
    }
}
