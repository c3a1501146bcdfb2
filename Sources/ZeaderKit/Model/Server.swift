import Feeds
import Foundation
import ObjectGraph

/// A subscription: one feed URL and what Zeader knows about it.
///
/// ```swift
/// let server = context.insert(Server.self)
/// server.url = "https://example.org/feed.xml"
/// ```
public final class Server: ManagedObject {
    @Managed("title") public var title: String?
    /// The feed's URL (unique).
    @Managed("url") public var url: String
    /// The site the feed belongs to.
    @Managed("siteLink") public var siteLink: String?
    /// Kept equal to the number of unread items by ObjectGraph (a derived count).
    @Managed("unreadCount") public var unreadCount: Int64
    /// Kept equal to the number of items (a derived count).
    @Managed("totalCount") public var totalCount: Int64
    /// Position in the user's feed list.
    @Managed("displayOrder") public var displayOrder: Int64
    @Managed("lastRefresh") public var lastRefresh: Date?
    /// The last refresh's error, or nil when it went well.
    @Managed("lastError") public var lastError: String?
    @Managed("etag") public var etag: String?
    @Managed("lastModified") public var lastModified: String?
    /// Set when the server answered 410 Gone: the feed is no longer refreshed.
    @Managed("disabled") public var disabled: Bool
    /// Not before this date (a 429/503 Retry-After).
    @Managed("retryAfter") public var retryAfter: Date?
    /// The feed's tags, normalised by ``FeedTags`` (`"linux,news"`), nil when it has none
    /// (model version 2).
    @Managed("tags") public var tags: String?
    @ToMany("feedItems") public var feedItems: [FeedItem]

    /// The title to show: the feed's title, else its URL with any password masked
    /// (``RedactedURL``), since screens and listings show it.
    public var displayTitle: String { (title?.isEmpty == false ? title : nil) ?? RedactedURL.text(url) }
}

/// One article of a feed.
///
/// ```swift
/// item.read = true
/// ```
public final class FeedItem: ManagedObject {
    /// The feed's id for the item (unique within its server).
    @Managed("guid") public var guid: String
    @Managed("title") public var title: String?
    @Managed("link") public var link: String?
    @Managed("author") public var author: String?
    /// Plain text: the parser's preview of the item's description, else of its content
    /// (searched, with the title and author: ``ZeaderModel/searchIndex``).
    @Managed("summary") public var summary: String?
    /// The item's HTML content, in its own row (model version 4; read it as ``content``).
    @ToOne("body") public var body: FeedItemBody?
    @Managed("published") public var published: Date?
    @Managed("updated") public var updated: Date?
    @Managed("read") public var read: Bool
    /// Flagged (starred) by the user to keep or come back to (model version 2).
    @Managed("flagged") public var flagged: Bool
    /// When Zeader first stored the item.
    @Managed("firstSeen") public var firstSeen: Date?
    /// `published`, else `updated`, else `firstSeen`: the date items are listed by.
    @Managed("sortDate") public var sortDate: Date?
    /// newsboat's flag letters (A–Z, a–z) of an item imported from its cache, nil otherwise
    /// (model version 3).
    @Managed("flagLetters") public var flagLetters: String?
    @ToOne("server") public var server: Server?
}

/// A saved search: a predicate in the ObjectGraph language over FeedItem.
///
/// ```swift
/// let smart = context.insert(SmartFeed.self)
/// smart.predicateFormat = "read == NO AND title CONTAINS[cd] \"swift\""
/// ```
public final class SmartFeed: ManagedObject {
    @Managed("title") public var title: String
    @Managed("predicateFormat") public var predicateFormat: String
    @Managed("displayOrder") public var displayOrder: Int64
}

/// Zeader's object model. Its entity and attribute names are part of the user interface
/// (`--where`, smart feeds), so they do not change.
public enum ZeaderModel {
    /// The model name recorded in every store.
    public static let name = "Zeader"

    /// Version 1 of the model's entities: the record of what stores of version 1 hold.
    static func version1Entities() -> [EntityDescription] {
        [
            EntityDescription(
                "Server", managedClass: Server.self,
                attributes: [
                    .string("title"), .string("url", optional: false), .string("siteLink"),
                    .derivedCount("unreadCount", of: "feedItems", where: "read == NO"),
                    .derivedCount("totalCount", of: "feedItems"),
                    .integer("displayOrder", defaultValue: 0), .date("lastRefresh"), .string("lastError"),
                    .string("etag"), .string("lastModified"), .bool("disabled", defaultValue: false),
                    .date("retryAfter"),
                ],
                relationships: [
                    .toMany("feedItems", destination: "FeedItem", inverse: "server", deleteRule: .cascade)
                ],
                indexes: [["displayOrder"]], uniquenessConstraints: [["url"]]),
            EntityDescription(
                "FeedItem", managedClass: FeedItem.self,
                attributes: [
                    .string("guid", optional: false), .string("title"), .string("link"), .string("author"),
                    .string("summary"), .string("content"), .date("published"), .date("updated"),
                    .bool("read", defaultValue: false), .date("firstSeen"), .date("sortDate", indexed: true),
                ],
                relationships: [.toOne("server", destination: "Server", inverse: "feedItems")],
                indexes: [["server", "read"]], uniquenessConstraints: [["server", "guid"]]),
            EntityDescription(
                "SmartFeed", managedClass: SmartFeed.self,
                attributes: [
                    .string("title", optional: false), .string("predicateFormat", optional: false),
                    .integer("displayOrder", defaultValue: 0),
                ]),
        ]
    }

    /// Version 1 of the model.
    public static let version1 = olderModel(version: 1, entities: version1Entities())

    /// Version 2 of the model: version 1 plus tags on feeds (`Server.tags`, a normalised
    /// string, since ObjectGraph has no many-to-many relationships and feeds have few tags)
    /// and flagged items (`FeedItem.flagged`, indexed). Both are additive, so
    /// ``migrationPlan`` infers the step from version 1.
    ///
    /// FeedItem also carries the full-text index of search (``searchIndex``). The index is
    /// not part of a store's stored shape (ObjectGraph builds it when a store without it is
    /// opened, and keeps it by triggers), so it needs no model version of its own.
    public static let version2 = olderModel(version: 2, entities: version2Entities())

    /// Version 2's entities, FeedItem with `fullTextIndex` (the stored shape is the same
    /// without it: what builds before the index wrote).
    static func version2Entities(fullTextIndex: FullTextIndexDescription? = titleSearchIndex) -> [EntityDescription] {
        var entities = version1Entities()
        entities[0].attributes.append(.string("tags"))
        entities[1].attributes.append(.bool("flagged", defaultValue: false, indexed: true))
        entities[1].fullTextIndex = fullTextIndex
        return entities
    }

    /// The full-text index of versions 2 to 8: an item's title, author and summary — the
    /// plain-text extract the parser makes of the item's description (else of its content),
    /// not the HTML content, whose tag and attribute names would match too. Version 9's
    /// ``searchIndex`` adds the plain text of the item's body.
    ///
    /// Its table is named `ZSEARCH`, the name of the index the reader kept by hand before
    /// ObjectGraph had full-text indexes (title, author, summary and content, with triggers
    /// `ZSEARCH_insert`, `_delete` and `_update`): when ObjectGraph first opens such a store
    /// it finds no index of its own recorded under that name, so it drops that table and
    /// its triggers and builds the index afresh — one index, one set of triggers.
    ///
    /// Of the summary (up to 300 characters) it takes the first ``searchExtractLength``:
    /// every indexed word costs a refresh and bytes in the store, and a search finds an
    /// article by its title, author and opening words. A change of the length rebuilds the index when a store is next opened for
    /// writing (ObjectGraph compares the index's recorded description).
    public static let titleSearchIndex: FullTextIndexDescription = {
        var index = FullTextIndexDescription(attributes: ["title", "author", "summary"], tableName: "ZSEARCH")
        index.extractLengths = ["summary": searchExtractLength]
        return index
    }()

    /// The current model without ``searchIndex``: what storing costs without the index
    /// (`zeader-bench refresh-index`). Never open a user's store with it (it drops the index).
    public static let currentWithoutSearchIndex = model(
        version: current.version,
        entities: currentEntities().map { entity in
            var e = entity
            e.fullTextIndex = nil
            return e
        })

    /// Characters of an item's summary the search index takes (``searchIndex``): enough for
    /// a summary's opening words, and the index stays cheap to build and small
    /// (docs/PERFORMANCE.md, "Tuning in the code").
    public static let searchExtractLength = 100

    /// Version 3 of the model: version 2 plus additive entities, attributes and indexes (each
    /// attribute optional or defaulted), so ``migrationPlan`` infers the step from version 2:
    /// sync's (``syncAdditions(to:)``, Model/SyncModel.swift), FeedItem's enclosure
    /// (``enclosureAttributes()``, Model/FeedItem+Enclosure.swift), and newsboat's
    /// (``newsboatVersion3Additions(to:)``: RemovedItem tombstones, IgnoreRule, FeedItem.flagLetters),
    /// and the item lists' indexes (``itemListIndexes``, Model/ItemListIndexes.swift).
    public static let version3 = olderModel(version: 3, entities: version3Entities())

    /// Version 3's entities.
    static func version3Entities(fullTextIndex: FullTextIndexDescription? = titleSearchIndex) -> [EntityDescription] {
        var entities = version2Entities(fullTextIndex: fullTextIndex)
        syncAdditions(to: &entities)
        entities[1].attributes += enclosureAttributes()  // enclosures
        newsboatVersion3Additions(to: &entities)  // tombstones, ignore rules, flags
        entities[1].indexes += itemListIndexes  // the item lists' indexes
        return entities
    }

    /// A version older than ``current``, made after ``current``: ObjectGraph then knows it is
    /// superseded, so the classes' newer keys that it lacks are allowed (its container is
    /// refused otherwise, when it is the first version a process makes).
    static func olderModel(version: Int, entities: [EntityDescription]) -> ManagedObjectModel {
        precondition(version < current.version)
        return model(version: version, entities: entities)
    }

    static func model(version: Int, entities: [EntityDescription]) -> ManagedObjectModel {
        do {
            return try ManagedObjectModel(name: name, version: version, entities: entities)
        } catch {
            fatalError("Zeader's model version \(version) is invalid: \(error)")
        }
    }

    /// Version 5 of the model: version 4 plus the pending marks' index.
    public static let version5 = olderModel(version: 5, entities: version5Entities())

    /// Version 5's entities.
    static func version5Entities() -> [EntityDescription] {
        var entities = version4Entities()
        syncVersion5Additions(to: &entities)
        return entities
    }

    /// Version 6 of the model: version 5 plus partial indexes of flagged, queued, synced
    /// and pending items.
    public static let version6 = olderModel(version: 6, entities: version6Entities())

    /// Version 6's entities.
    static func version6Entities() -> [EntityDescription] {
        var entities = version5Entities()
        rowsVersion6Additions(to: &entities)
        return entities
    }

    /// Version 7 of the model: version 6 plus each feed's origin (`Server.origin`, Model/FeedOrigin.swift).
    public static let version7 = olderModel(version: 7, entities: version7Entities())

    /// Version 7's entities.
    static func version7Entities() -> [EntityDescription] {
        var entities = version6Entities()
        trustVersion7Additions(to: &entities)
        return entities
    }

    /// Version 8 of the model: version 7 plus full articles (Model/FullArticle.swift).
    public static let version8 = olderModel(version: 8, entities: version8Entities())

    /// Version 8's entities.
    static func version8Entities() -> [EntityDescription] {
        var entities = version7Entities()
        fullArticleVersion8Additions(to: &entities)
        return entities
    }

    /// Version 9 of the model: version 8 plus the plain text of each item's body, searched
    /// with the item (Model/BodySearch.swift).
    public static let version9 = olderModel(version: 9, entities: version9Entities())

    /// Version 10 of the model: version 9 plus each feed's own settings (Model/FeedSettingsModel.swift).
    public static let version10 = olderModel(version: 10, entities: version10Entities())

    /// Version 11 of the model: version 10 plus each item's tags (Model/ItemTagsModel.swift).
    public static let version11 = olderModel(version: 11, entities: version11Entities())

    /// Version 11's entities.
    static func version11Entities() -> [EntityDescription] {
        var entities = version10Entities()
        itemTagsVersion11Additions(to: &entities)
        return entities
    }

    /// Version 12 of the model: version 11 plus several sync accounts beside local feeds
    /// (Model/AccountsModel.swift).
    public static let version12 = model(version: 12, entities: version12Entities())

    /// The model this program writes.
    public static var current: ManagedObjectModel { version12 }
    /// ``current``'s entities (moved on with it).
    static func currentEntities() -> [EntityDescription] { version12Entities() }

    /// Every version, oldest first, and the steps between them: what ``ZeaderStore/open(at:)``
    /// uses to bring an older store up to ``current``. The old file is kept beside the
    /// store as `zeader.sqlite.v1.bak` until the user removes it.
    ///
    /// ```swift
    /// let container = try PersistentContainer(model: ZeaderModel.current, store: .file(url), migrator: ZeaderModel.migrationPlan)
    /// ```
    public static let migrationPlan: MigrationPlan = {
        do {
            return try MigrationPlan(
                versions: [
                    version1, version2, version3, version4, version5, version6, version7, version8, version9, version10,
                    version11, version12,
                ],
                policies: [bodyTextFill], moves: [contentMove])
        } catch {
            fatalError("Zeader's migration plan is invalid: \(error)")
        }
    }()
}
