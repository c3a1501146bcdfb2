import Foundation
import ObjectGraph

/// Which items "mark read" covers: one feed, a smart feed's predicate, or everything.
///
/// ```swift
/// try ItemMarking.markRead(.feed(serverID), in: context)
/// ```
public enum ItemScope: Sendable, Equatable {
    /// The items of one Server.
    case feed(ObjectID)
    /// The items matching a predicate over FeedItem (a smart feed's), in the ObjectGraph format.
    case matching(predicateFormat: String)
    /// Every item.
    case all
}

/// Marking items read, unread, flagged and unflagged: the one implementation the reader's
/// keys and `zeader mark-read` / `flag` / `unflag` share. Each call is one save, and one
/// named undo step when the context has an undo manager (the reader's view context has
/// one; the command line's background contexts do not). On failure the context is
/// rolled back. Call on `context`'s queue.
///
/// ```swift
/// let changed = try ItemMarking.markRead(.all, in: viewContext)   // "Mark All Read"; undo restores it
/// try ItemMarking.setRead([id], true, in: viewContext)
/// ```
public enum ItemMarking {
    /// Runs `edit` as one undo step named `name` (when the context has an undo manager),
    /// then saves; rolls the context back if either fails.
    ///
    /// ```swift
    /// try ItemMarking.undoable("Move Feed", in: context) { server.displayOrder = 3 }
    /// ```
    public static func undoable<T>(_ name: String, in context: ManagedObjectContext, _ edit: () throws -> T) throws -> T {
        context.undoManager?.beginUndoGrouping(named: name)
        defer { context.undoManager?.endUndoGrouping() }
        do {
            let result = try edit()
            try context.save()
            return result
        } catch {
            context.rollback()
            throw error
        }
    }

    /// Marks the items `ids` read (or unread); returns how many changed. Items already so,
    /// or gone, are left alone.
    ///
    /// ```swift
    /// try ItemMarking.setRead([id], false, in: context)   // "Mark Unread"
    /// ```
    @discardableResult
    public static func setRead(_ ids: [ObjectID], _ read: Bool, in context: ManagedObjectContext) throws -> Int {
        try set(\.read, to: read, for: ids, named: read ? "Mark Read" : "Mark Unread", in: context)
    }

    /// Flags (or unflags) the items `ids`; returns how many changed.
    ///
    /// ```swift
    /// try ItemMarking.setFlagged([id], true, in: context)   // "Flag"
    /// ```
    @discardableResult
    public static func setFlagged(_ ids: [ObjectID], _ flagged: Bool, in context: ManagedObjectContext) throws -> Int {
        try set(\.flagged, to: flagged, for: ids, named: flagged ? "Flag" : "Unflag", in: context)
    }

    private static func set(
        _ keyPath: ReferenceWritableKeyPath<FeedItem, Bool>, to value: Bool, for ids: [ObjectID], named name: String,
        in context: ManagedObjectContext
    ) throws -> Int {
        let items = ids.compactMap { (try? context.existingObject(with: $0)) as? FeedItem }.filter {
            $0[keyPath: keyPath] != value
        }
        guard !items.isEmpty else { return 0 }
        return try undoable(name, in: context) {
            for item in items { item[keyPath: keyPath] = value }
            SyncQueue.noteChanged(items, flag: keyPath == \FeedItem.flagged, in: context)
            return items.count
        }
    }

    /// Marks every unread item of `scope` read, as one undo step ("Mark Feed Read" or
    /// "Mark All Read"), and returns how many items it changed.
    ///
    /// One batch update (ObjectGraph's ``BatchUpdateRequest``): one SQL statement over the
    /// items as stored, none of them loaded. The feeds' unread counts are kept exact, the
    /// change is announced on the bus by object ID (the reader's lists redraw from it, other
    /// contexts merge it), and undo puts back exactly the items it changed, also in one
    /// statement. It runs on the store as committed: the context's unsaved changes are
    /// neither saved nor matched (the reader and the command line have none at this point).
    ///
    /// With a sync account, a feed or everything is also queued as one mark up to now
    /// (``SyncQueue/queueMarkRead(feedURL:in:)``, saved first), which the next sync pushes
    /// for the items other devices have too; a smart feed's items go one by one.
    ///
    /// A context without an undo manager (the command line's) marks the items in
    /// transactions of at most `batchSize` (``BatchUpdateRequest/batchSize``), so that
    /// `zeader mark-read --all` needs the same memory at 10,000 unread items as at
    /// 1,000,000; each batch keeps the counts exact and the sync marks set, as one would.
    ///
    /// ```swift
    /// let count = try ItemMarking.markRead(.matching(predicateFormat: "title CONTAINS[cd] \"swift\""), in: context)
    /// ```
    @discardableResult
    public static func markRead(_ scope: ItemScope, in context: ManagedObjectContext, batchSize: Int = 20_000) throws -> Int {
        let unreadOnly = ObjectPredicate.comparison(.keyPath("read"), .equalTo, .constant(.bool(false)))
        let predicate: ObjectPredicate
        switch scope {
        case .feed(let id): predicate = unreadOnly && (try ObjectPredicate(format: "server == %@", id))
        case .matching(let format): predicate = unreadOnly && (try ZeaderModel.itemPredicate(format: format))
        case .all: predicate = unreadOnly
        }
        var request = BatchUpdateRequest(
            entityName: "FeedItem", predicate: predicate,
            propertiesToUpdate: ["read": .bool(true)].merging(SyncQueue.batchMarkReadProperties(in: context)) { $1 })
        request.batchSize = batchSize
        request.resultType = .count
        // A feed or everything goes to the server as one mark up to now, queued before the
        // items change so that a crash in between still marks them (at the next sync).
        var queued: ObjectID?
        switch scope {
        case .feed(let id):
            if let server = try? context.existingObject(with: id) as? Server {
                queued = try SyncQueue.queueMarkRead(feedURL: server.url, in: context)
            }
        case .all: queued = try SyncQueue.queueMarkRead(feedURL: nil, in: context)
        case .matching: break
        }
        context.undoManager?.beginUndoGrouping(named: scope == .all ? "Mark All Read" : "Mark Feed Read")
        defer { context.undoManager?.endUndoGrouping() }
        do {
            return try context.execute(request).changedCount
        } catch {
            SyncQueue.dropQueued(queued, in: context)
            throw error
        }
    }
}
