import Foundation
import ObjectGraph

/// One episode of the podcast queue: plain values, safe to pass between queues.
///
/// ```swift
/// for episode in try library.podcasts() { print(episode.isDownloaded ? "done" : "queued", episode.title ?? "") }
/// ```
public struct PodcastEpisode: Sendable, Equatable {
    /// The feed's URL.
    public var feed: String
    /// The feed's title as the feed list shows it.
    public var feedTitle: String
    /// The item's id as `zeader items --json` prints it (``ItemID``).
    public var id: String
    public var title: String?
    public var enclosure: EnclosureSummary
    /// The item, to write back to.
    public var objectID: ObjectID
    /// The item's guid, when it differs from ``id`` (a synced item).
    public var guid: String? = nil
    /// When the item was published (podboat's dates in `download-filename-format`).
    public var published: Date? = nil

    /// Whether `name` names this episode, as the commands that take item ids read it (``ItemID``).
    ///
    /// ```swift
    /// let episode = try library.podcasts().first { $0.isNamed(by: "greader:42") }
    /// ```
    public func isNamed(by name: String) -> Bool {
        if name == id || name == guid { return true }
        return ItemID.serverID(name).map { ItemID.syncPrefix + $0 == id } ?? false
    }

    /// Downloaded, and the file is still there.
    public var isDownloaded: Bool {
        enclosure.file.map { FileManager.default.fileExists(atPath: $0) } ?? false
    }
}

/// The podcast queue (newsboat's `e` and podboat): items whose enclosure is to be downloaded,
/// kept as `FeedItem.enclosureQueued`. The reader's `e` and `zeader podcasts add` share
/// ``enqueue(_:in:)``.
///
/// ```swift
/// try PodcastQueue.enqueue([item.objectID], in: context)
/// try context.save()
/// ```
public enum PodcastQueue {
    /// Puts the items' enclosures in the queue; returns how many were not queued before.
    /// An item without an enclosure is an error naming it, and nothing changes.
    public static func enqueue(_ itemIDs: [ObjectID], in context: ManagedObjectContext) throws -> Int {
        try setQueued(true, itemIDs, in: context)
    }

    /// Takes the items out of the queue (a downloaded file stays where it is).
    public static func dequeue(_ itemIDs: [ObjectID], in context: ManagedObjectContext) throws -> Int {
        try setQueued(false, itemIDs, in: context)
    }

    private static func setQueued(_ queued: Bool, _ itemIDs: [ObjectID], in context: ManagedObjectContext) throws -> Int {
        let items = try itemIDs.compactMap { try context.existingObject(with: $0) as? FeedItem }
        if queued, let bare = items.first(where: { $0.enclosureURL == nil }) {
            throw ZeaderError.noEnclosure(id: bare.guid)
        }
        var changed = 0
        for item in items where item.enclosureQueued != queued {
            item.enclosureQueued = queued
            changed += 1
        }
        return changed
    }

    /// The queue, oldest first (the order downloads run in).
    public static func episodes(in context: ManagedObjectContext) throws -> [PodcastEpisode] {
        let request = FetchRequest<FeedItem>(
            predicate: try ObjectPredicate(format: "enclosureQueued == YES"),
            sortDescriptors: [ObjectSortDescriptor("sortDate"), ObjectSortDescriptor("guid")])
        return try context.fetch(request).compactMap { item in
            guard let enclosure = EnclosureSummary(item) else { return nil }
            let server = item.server
            return PodcastEpisode(
                feed: server?.url ?? "", feedTitle: server?.displayTitle ?? "",
                id: ItemID.printed(guid: item.guid, syncID: item.syncID), title: item.title, enclosure: enclosure,
                objectID: item.objectID, guid: item.syncID == nil ? nil : item.guid, published: item.published)
        }
    }
}

extension FeedLibrary {
    /// The podcast queue, oldest first.
    ///
    /// ```swift
    /// let queue = try library.podcasts()
    /// ```
    public func podcasts() throws(ZeaderError) -> [PodcastEpisode] {
        try withContext { context in try PodcastQueue.episodes(in: context) }
    }

    /// Queues (or, with `queued: false`, unqueues) the items these ids name (``ItemID``) (in `feed`
    /// when given); returns how many changed. An unknown id is an error naming it.
    ///
    /// ```swift
    /// try library.setQueued(true, ids: ["episode-42"])
    /// ```
    @discardableResult
    public func setQueued(_ queued: Bool, ids: [String], feed: String? = nil) throws(ZeaderError) -> Int {
        defer { store.checkpoint() }
        return try withContext { context in
            let items = try Self.items(ids: ids, feed: feed, in: context)
            let changed =
                queued
                ? try PodcastQueue.enqueue(items.map(\.objectID), in: context)
                : try PodcastQueue.dequeue(items.map(\.objectID), in: context)
            try context.save()
            return changed
        }
    }

    /// The items these ids name (``ItemID``), in `feed` when given; an id that matches none is an
    /// error naming it.
    static func items(ids: [String], feed: String?, in context: ManagedObjectContext) throws -> [FeedItem] {
        var predicate = ItemID.predicate(ids)
        if let feed {
            guard try Server.findFirst(byAttribute: "url", value: .string(feed), in: context) != nil else {
                throw ZeaderError.missingFeed(feed)
            }
            predicate = .comparison(.keyPath("server.url"), .equalTo, .constant(.string(feed))) && predicate
        }
        let items = try context.fetch(FetchRequest<FeedItem>(predicate: predicate))
        if let missing = ItemID.firstUnmatched(ids, in: items) { throw ZeaderError.missingItem(missing, feed: feed) }
        return items
    }

    /// Records a finished download: the item's `enclosureFile`.
    func recordDownload(of itemID: ObjectID, at path: String) throws(ZeaderError) {
        try withContext { context in
            guard let item = try context.existingObject(with: itemID) as? FeedItem else { return }
            item.enclosureFile = path
            try context.save()
        }
    }
}
