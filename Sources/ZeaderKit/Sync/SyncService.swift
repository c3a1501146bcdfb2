import Foundation

/// What a sync service offers: the operations ``FeedSync``'s engine (the offline queue, push,
/// pull, the conflict rule) is written over, once for every service, as newsboat keeps one
/// `RemoteApi` with a class per service. ``GReaderClient`` is the Google Reader API's.
///
/// A service gives data only (the engine checks what enters: http(s) feeds, ids in range).
/// Feeds are known by the service's id for them (`feed/12`), items by a number.
///
/// ```swift
/// let service: any SyncService = GReaderClient(apiURL: url, token: token, fetcher: fetcher)
/// let feeds = try await service.subscriptions()
/// ```
public protocol SyncService: Sendable {
    /// How many requests this service has made (a sync's report counts them).
    var requestCount: Int { get }

    // MARK: Subscriptions and folders

    /// The feeds the account is subscribed to, with their folders (labels).
    func subscriptions() async throws(SyncError) -> [SyncSubscription]
    /// Subscribes to the feed at `url`; returns the service's id for it. A feed the service
    /// cannot fetch is refused with ``SyncError/badResponse(request:reason:)``.
    func subscribe(url: String) async throws(SyncError) -> String
    /// Unsubscribes from the feed `feedID`.
    func unsubscribe(_ feedID: String) async throws(SyncError)
    /// Renames the feed `feedID`.
    func rename(_ feedID: String, title: String) async throws(SyncError)
    /// Files the feed `feedID` in the folders `add` (the first one first, where the service
    /// keeps one folder per feed) and out of `remove`, renaming it to `title` when given.
    func move(_ feedID: String, title: String?, add: [String], remove: [String]) async throws(SyncError)

    // MARK: Items and states

    /// The ids of the items the service got after the item `newest` (every item when nil),
    /// each once; it may list older ones too (the engine leaves out those up to `newest`).
    func newItemIDs(after newest: UInt64?) async throws(SyncError) -> [UInt64]
    /// The ids of a list of items (``SyncItemList``), each once.
    func itemIDs(_ list: SyncItemList) async throws(SyncError) -> [UInt64]
    /// The ids of the feed `feedID`'s newest `count` items (one request).
    func newestItemIDs(feed feedID: String, count: Int) async throws(SyncError) -> [UInt64]
    /// The items `ids`, in any order; an id the service does not know is left out.
    func items(_ ids: [UInt64]) async throws(SyncError) -> [SyncItem]
    /// Marks the items `ids` read (or unread, `on` false), or starred (or not).
    func mark(_ state: SyncItemState, _ on: Bool, ids: [UInt64]) async throws(SyncError)
    /// Puts the label `label` on the items `ids` (or, `on` false, takes it off): an item's
    /// own tag (``ItemLabels``). A service without labels on items refuses it with
    /// ``SyncError/unsupported(service:_:)`` (``SyncOperation/tagItems``).
    func setLabel(_ label: String, _ on: Bool, ids: [UInt64]) async throws(SyncError)
    /// Marks read every item of the feed `feedID` (every item when nil) that the service got
    /// up to `olderThan` (microseconds since 1970), in one request. A service without such a
    /// call refuses it with ``SyncError/server(status:request:)`` and a 4xx status: the engine
    /// then pushes the items one by one.
    func markAllRead(feed feedID: String?, olderThan: UInt64) async throws(SyncError)
}

/// A feed the account is subscribed to, as a service lists it (raw: the engine checks the URL
/// and cleans the title).
///
/// ```swift
/// let feed = SyncSubscription(id: "feed/1", title: "News", url: "https://a.example/feed", labels: ["tech"])
/// ```
public struct SyncSubscription: Sendable, Equatable {
    /// The service's id of the feed (`feed/12`).
    public var id: String
    public var title: String?
    /// The feed's URL as the service gives it (not checked yet).
    public var url: String?
    /// The feed's web site.
    public var siteURL: String?
    /// The folders (labels) the feed is in, as plain text.
    public var labels: [String]

    /// A subscription as a service lists it.
    public init(id: String, title: String? = nil, url: String? = nil, siteURL: String? = nil, labels: [String] = []) {
        self.id = id
        self.title = title
        self.url = url
        self.siteURL = siteURL
        self.labels = labels
    }
}

/// One item as a service gives it: the engine stores it through ``ItemImport``.
///
/// ```swift
/// let item = SyncItem(id: 7, feedID: "feed/1", title: "Hello", link: "https://a.example/1")
/// ```
public struct SyncItem: Sendable, Equatable {
    /// The service's number for the item.
    public var id: UInt64
    /// The service's id of the item's feed (nil when it gave none: the item is not stored).
    public var feedID: String?
    /// The entry's own guid, where the service sends one: the first identity a feed's history
    /// is matched by (``ItemIdentity``).
    public var guid: String?
    /// The title as the service sent it (it may be HTML-escaped).
    public var title: String?
    public var link: String?
    public var author: String?
    /// The body, HTML.
    public var html: String?
    public var published: Date?
    public var updated: Date?
    public var isRead: Bool
    public var isStarred: Bool
    /// The item's categories as the service lists them (the Google Reader API's
    /// `user/-/label/NAME` and `user/-/state/…`; not checked yet): its labels, the item's own
    /// tags, are read from them (``ItemLabels/labels(inCategories:folders:)``).
    public var categories: [String]

    /// An item as a service gives it.
    public init(
        id: UInt64, feedID: String?, guid: String? = nil, title: String? = nil, link: String? = nil,
        author: String? = nil, html: String? = nil, published: Date? = nil, updated: Date? = nil,
        isRead: Bool = false, isStarred: Bool = false, categories: [String] = []
    ) {
        self.id = id
        self.feedID = feedID
        self.guid = guid
        self.title = title
        self.link = link
        self.author = author
        self.html = html
        self.published = published
        self.updated = updated
        self.isRead = isRead
        self.isStarred = isStarred
        self.categories = categories
    }
}

extension SyncItem {
    /// How many bytes of items a service that lists new items with their contents (Fever,
    /// Tiny Tiny RSS) keeps from that listing for ``SyncService/items(_:)``, which then asks
    /// only for the others again: most accounts' new items whole, and memory bounded for any.
    static let listedBudget = 16 << 20

    /// About how many bytes the item holds: its text, and a share for the rest.
    var approximateSize: Int {
        128 + (title?.utf8.count ?? 0) + (link?.utf8.count ?? 0) + (author?.utf8.count ?? 0)
            + (html?.utf8.count ?? 0) + (guid?.utf8.count ?? 0) + categories.reduce(0) { $0 + $1.utf8.count }
    }
}

/// The items a service listed with their contents while listing new ids (Fever, Tiny Tiny
/// RSS), kept up to ``SyncItem/listedBudget`` bytes for ``SyncService/items(_:)``, which takes
/// each out once. The items stay in listing order where they were added: only the index of
/// ids grows and rehashes, never the items.
///
/// ```swift
/// var listed = ListedItems()
/// listed.keep(item)
/// let item = listed.take(id)
/// ```
struct ListedItems: Sendable {
    private var items: [SyncItem?] = []
    private var positions: [UInt64: Int] = [:]
    private(set) var bytes = 0

    /// Whether the budget is spent: what is listed after is not kept.
    var isFull: Bool { bytes >= SyncItem.listedBudget }

    /// Keeps `item`, unless its id is kept already.
    mutating func keep(_ item: SyncItem) {
        guard positions[item.id] == nil else { return }
        positions[item.id] = items.count
        items.append(item)
        bytes += item.approximateSize
    }

    /// The item kept under `id`, which is no longer kept.
    mutating func take(_ id: UInt64) -> SyncItem? {
        guard let position = positions.removeValue(forKey: id) else { return nil }
        defer { items[position] = nil }
        return items[position]
    }
}

/// Which item ids ``SyncService/itemIDs(_:)`` lists.
///
/// ```swift
/// let unread = try await service.itemIDs(.unread)
/// ```
public enum SyncItemList: Sendable, Equatable {
    /// The unread items.
    case unread
    /// The starred items.
    case starred
    /// Every item of one feed (the service's id).
    case feed(String)
}

/// The item states a service keeps.
///
/// ```swift
/// try await service.mark(.read, true, ids: [7])
/// ```
public enum SyncItemState: Sendable, Equatable {
    case read
    case starred
}
