import Foundation
import ObjectGraph

/// What went wrong in one of Zeader's operations, in one line that names the feed, file or
/// argument at fault.
///
/// ```swift
/// do { try library.remove(url: "https://example.org/feed") }
/// catch { print("zeader remove: \(error)") }   // "not subscribed: https://example.org/feed"
/// ```
public enum ZeaderError: Error, Sendable, Equatable, CustomStringConvertible {
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
    /// The store refused an operation.
    case store(ObjectGraphError)
    /// Anything else, described.
    case other(String)

    /// True for errors in what the user typed (exit status 2 on the command line).
    ///
    /// ```swift
    /// exit(error.isUsageError ? 2 : 1)
    /// ```
    public var isUsageError: Bool {
        switch self {
        case .invalidURL, .invalidPredicate: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): return "invalid feed URL '\(url)': \(reason)"
        case .alreadySubscribed(let url): return "already subscribed: \(url)"
        case .notSubscribed(let url): return "not subscribed: \(url)"
        case .unreadableFile(let path, let reason): return "\(path): \(reason)"
        case .invalidPredicate(let message): return "invalid --where predicate: \(message)"
        case .store(let error): return "store: \(error)"
        case .other(let message): return message
        }
    }

    /// Wraps any error: ZeaderErrors pass through, ObjectGraph's become `.store`.
    static func wrapping(_ error: any Error) -> ZeaderError {
        if let zeader = error as? ZeaderError { return zeader }
        if let graph = error as? ObjectGraphError { return .store(graph) }
        return .other(String(describing: error))
    }
}
