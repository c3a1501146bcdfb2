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
    /// A backup names a feed that is not in the store.
    case notAFeedInStore(String)
    /// A feed could not be fetched or read (adding a feed with a preview).
    indirect case feedUnavailable(RefreshFailure)
    /// An ignore rule whose predicate does not parse or does not fit FeedItem.
    case invalidIgnoreRule(String)
    /// `zeader ignore remove N` with no stored rule N.
    case noSuchIgnoreRule(Int)
    /// Anything else, described.
    case other(String)

    /// True for errors in what the user typed (exit status 2 on the command line).
    ///
    /// ```swift
    /// exit(error.isUsageError ? 2 : 1)
    /// ```
    public var isUsageError: Bool {
        switch self {
        case .invalidURL, .invalidPredicate, .invalidIgnoreRule: return true
        default: return false
        }
    }

    /// Wraps any error: ZeaderErrors pass through, ObjectGraph's become `.store`.
    static func wrapping(_ error: any Error) -> ZeaderError {
        if let zeader = error as? ZeaderError { return zeader }
        if let graph = error as? ObjectGraphError { return .store(graph) }
        return .other(String(describing: error))
    }
}
