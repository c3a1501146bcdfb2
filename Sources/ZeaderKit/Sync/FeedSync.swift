import Feeds
import Foundation
import ObjectGraph

/// Two-way sync of a store through a sync service (``SyncService``: the Google Reader API
/// of FreshRSS, Miniflux, Inoreader, The Old Reader, BazQux): the one engine `zeader sync`
/// and the reader share, written once over the service's operations.
///
/// A sync pushes first, then pulls:
/// 1. the subscriptions' list (one request);
/// 2. queued subscription changes (``SyncChange``: subscribe, unsubscribe, tags), each
///    deleted from the queue once the server accepted it;
/// 3. "mark feed read" and "mark all read", each one `mark-all-as-read` up to the moment
///    it was made (``SyncChange/ReadMark``), then items read, unread, flagged or unflagged here (``FeedItem/syncReadPending``,
///    ``FeedItem/syncFlagPending``), cleared once accepted, then the tags added to or removed
///    from items here as labels on the items (``ItemLabels``);
/// 4. the server's subscriptions and labels (→ tags) into the store: feeds added
///    elsewhere appear, feeds removed elsewhere go;
/// 5. new items since the last sync (their ids, with continuations, then their contents; their
///    labels become their tags);
/// 6. the read and starred state of every item the server has (two id lists);
/// 7. the reads and stars of a feed's history (items stored before the feed was synced,
///    matched to the server's by ``ItemIdentity``) that the server lacked, and the tags the
///    rules gave new items.
///
/// **Conflicts**: a change made on this device and not yet pushed wins over the server's
/// state of the same item or feed (it is pushed first); everything else takes the
/// server's state, which holds the last change any device pushed. An item of a feed's
/// history joining the account is read or starred if it is on either side. A sync that stops
/// part-way keeps in the queue what the server has not accepted, and the next sync goes on.
///
/// ```swift
/// let sync = FeedSync(store: store)
/// try await sync.addAccount(apiURL: "https://rss.example.org/api/greader.php", user: "alice", password: pw)
/// let report = try await sync.sync()
/// print(report.line)
/// ```
public final class FeedSync: Sendable {
    public let store: ZeaderStore
    let fetcher: FeedFetcher
    /// Items fetched per `stream/items/contents` request and ids per `edit-tag`.
    let chunkSize: Int
    /// The config's `ignore` rules (the stored ones are read from the store): ``Killfile``.
    let ignoreRules: [Killfile.Rule]
    /// The config's rules that act on new items (the stored ones are read from the store): ``ItemRules``.
    let itemRules: [ItemRules.Rule]
    /// Whether the rules' changes to items are left to the reader, as one undo step
    /// (``ItemRules/applyChanges(synced:in:)``), as ``RefreshOptions/rulesChangeItemsLater``.
    let rulesChangeItemsLater: Bool
    /// The account's service from its API URL and kept token, when not the protocol's own
    /// client (``SyncServiceKind``).
    let makeService: ServiceMaker?
    /// The name of the account this sync works on; nil: the store's only account (``scope()``).
    public let account: String?

    /// Makes the service an account speaks from its API URL and kept token.
    ///
    /// ```swift
    /// let maker: FeedSync.ServiceMaker = { url, token in GReaderClient(apiURL: url, token: token, fetcher: fetcher) }
    /// ```
    public typealias ServiceMaker = @Sendable (_ apiURL: String, _ token: String) -> any SyncService

    /// A sync of `store` through `fetcher` (a fetcher of its own by default). Pulled items
    /// matching an ignore rule (`ignoreRules`, the config's, and the stored ones) are not
    /// stored, as a refresh does: their guid is kept as a tombstone; flagged ones stay. The
    /// rules that act (`itemRules`, and the stored ones) act on the new ones. `service` makes the account's service (the client of its protocol over `fetcher`
    /// unless given: tests give an in-memory one). `account` names the account it syncs (nil: the
    /// store's only one).
    public init(
        store: ZeaderStore, fetcher: FeedFetcher? = nil, chunkSize: Int = 250, ignoreRules: [Killfile.Rule] = [],
        itemRules: [ItemRules.Rule] = [], rulesChangeItemsLater: Bool = false, service: ServiceMaker? = nil,
        account: String? = nil
    ) {
        self.account = account
        self.store = store
        let fetcher =
            fetcher
            ?? FeedFetcher(configuration: FetcherConfiguration(version: zeaderVersion, maxBodySize: 64 * 1024 * 1024))
        self.fetcher = fetcher
        self.chunkSize = max(1, chunkSize)
        self.ignoreRules = ignoreRules
        self.itemRules = itemRules
        self.rulesChangeItemsLater = rulesChangeItemsLater
        self.makeService = service
    }

    /// One account: its name, the server, the user, the last sync and the pending changes.
    public struct Status: Sendable, Equatable {
        /// The account's name (``SyncAccount/name``).
        public var name = ""
        public var apiURL: String
        public var user: String
        public var lastSync: Date?
        public var pending: Int
        /// The protocol the account speaks.
        public var service: SyncServiceKind = .googleReader
    }

    /// What one sync did.
    public struct Report: Sendable, Equatable {
        public var pushed = 0
        public var feedsAdded = 0
        public var feedsRemoved = 0
        public var newItems = 0
        public var stateChanges = 0
        /// HTTP requests made.
        public var requests = 0
        /// Feeds the server refused to subscribe to (it cannot fetch them, e.g. `file:` URLs),
        /// one line each: they stay local, and are not asked for again.
        public var refused: [String] = []
        /// Feeds the server listed that are not http(s) with a host (`exec:`, `file:`…), one
        /// line each: never stored, so never refreshed nor sent back; and synced feeds kept
        /// here as local ones because their server id now names another feed.
        public var notStored: [String] = []
        /// The rules that acted on the new items (``ItemRules``), in order.
        public var firings: [ItemRules.Firing] = []

        /// A report of nothing done yet: `var total = FeedSync.Report()`.
        public init() {}

        /// Adds what another account's sync did: the reader's one line for every account.
        ///
        /// ```swift
        /// var total = FeedSync.Report()
        /// total.add(report)
        /// ```
        public mutating func add(_ other: Report) {
            pushed += other.pushed
            feedsAdded += other.feedsAdded
            feedsRemoved += other.feedsRemoved
            newItems += other.newItems
            stateChanges += other.stateChanges
            requests += other.requests
            refused += other.refused
            notStored += other.notStored
            firings += other.firings
        }

        /// `sync: 3 changes pushed, 12 new items, 2 feeds added, 0 removed, 5 states changed`.
        public var line: String {
            "synced: \(pushed) changes pushed, \(newItems) new items, \(feedsAdded) feeds added, "
                + "\(feedsRemoved) removed, \(stateChanges) read/flag states changed (\(requests) requests)"
        }
    }

    /// What a sync is doing, for a status line.
    public enum Phase: Sendable, Equatable {
        case pushing
        case subscriptions
        case items(fetched: Int, of: Int)
        case states
    }

    // MARK: - The account

    func tokenFile(_ scope: AccountScope) throws(SyncError) -> SyncTokenFile {
        guard let url = store.url else { throw .inMemoryStore }
        return SyncTokenFile(storeURL: url, account: scope.name)
    }

    func withContext<T>(_ body: (ManagedObjectContext) throws -> T) throws(ZeaderError) -> T {
        let context = store.container.newBackgroundContext(name: "sync")
        context.mergePolicy = .objectTrumps
        do {
            return try context.performAndWait { try body(context) }
        } catch {
            throw ZeaderError.wrapping(error)
        }
    }
}
