import Feeds
import Foundation

/// The protocol a sync account speaks, chosen when it is added: by the API URL
/// (`…/fever.php` is Fever, `…/api/` Tiny Tiny RSS) or by name (`zeader sync add --service
/// fever`), kept in store metadata.
///
/// ```swift
/// SyncServiceKind(apiURL: "https://rss.example.org/api/fever.php")   // .fever
/// SyncServiceKind(apiURL: "https://rss.example.org/tt-rss/api/")     // .ttrss
/// SyncServiceKind(rawValue: "greader")                              // .googleReader
/// ```
public enum SyncServiceKind: String, Sendable, CaseIterable {
    /// The Google Reader API (FreshRSS, Miniflux, Inoreader, The Old Reader, BazQux).
    case googleReader = "greader"
    /// The Fever API (FreshRSS, Miniflux, Tiny Tiny RSS's plugin): items and states only.
    case fever
    /// Tiny Tiny RSS's JSON API: items, states, subscribe and unsubscribe.
    case ttrss

    /// The protocol an API URL names: Fever for a `fever.php` path (any case), Tiny Tiny RSS
    /// for a path ending in `/api` or `/api/index.php` (TT-RSS's API is a directory; FreshRSS's
    /// and Miniflux's Google Reader APIs are not at `/api`), else the Google Reader API.
    public init(apiURL: String) {
        let path = URL(string: GReaderClient.normalizedBase(apiURL))?.path.lowercased() ?? ""
        if path.hasSuffix("/fever.php") || path == "fever.php" {
            self = .fever
        } else if path.hasSuffix("/api") || path.hasSuffix("/api/index.php") {
            self = .ttrss
        } else {
            self = .googleReader
        }
    }

    /// What this protocol cannot push, each refused with ``SyncError/unsupported(service:_:)``.
    public var unsupported: Set<SyncOperation> {
        switch self {
        case .googleReader: return []
        case .fever: return Set(SyncOperation.allCases)
        case .ttrss: return [.rename, .move, .tagItems]
        }
    }

    /// Logs in to `apiURL` as `user`; returns what the account keeps (a token, a key).
    func login(apiURL: String, user: String, password: String, fetcher: FeedFetcher) async throws(SyncError) -> String {
        switch self {
        case .googleReader: return try await GReaderClient.login(apiURL: apiURL, user: user, password: password, fetcher: fetcher)
        case .fever: return try await FeverClient.login(apiURL: apiURL, user: user, password: password, fetcher: fetcher)
        case .ttrss: return try await TTRSSClient.login(apiURL: apiURL, user: user, password: password, fetcher: fetcher)
        }
    }

    /// The service of an account at `apiURL` logged in with `token`.
    func service(apiURL: String, token: String, fetcher: FeedFetcher) -> any SyncService {
        switch self {
        case .googleReader: return GReaderClient(apiURL: apiURL, token: token, fetcher: fetcher)
        case .fever: return FeverClient(apiURL: apiURL, apiKey: token, fetcher: fetcher)
        case .ttrss: return TTRSSClient(apiURL: apiURL, token: token, fetcher: fetcher)
        }
    }
}

/// A change to the account's feeds that some services cannot make (``SyncServiceKind/unsupported``).
///
/// ```swift
/// SyncServiceKind.fever.unsupported.contains(.subscribe)   // true
/// ```
public enum SyncOperation: String, Sendable, CaseIterable {
    case subscribe
    case unsubscribe
    case rename
    /// Filing a feed in folders (tags).
    case move
    /// Labels on items (an item's own tags, ``ItemLabels``).
    case tagItems
}
