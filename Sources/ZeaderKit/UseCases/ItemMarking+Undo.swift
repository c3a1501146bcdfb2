import Foundation
import ObjectGraph
import Synchronization

extension ItemMarking {
    /// Undoes the context's last step and saves; returns the step's name ("Mark Read"), or
    /// nil when there was nothing to undo. The reader's undo (`z`).
    ///
    /// With a sync account, the items whose read or flag state the undo changed are marked
    /// pending (``SyncQueue/noteReplayed(storeChanges:in:)``), and a feed it brings back,
    /// removes again or retags is queued (``SyncQueue/noteReplayedFeeds(in:)``), as any
    /// other change: the next sync pushes the undone state even when the server already
    /// had the change.
    ///
    /// ```swift
    /// if let name = try ItemMarking.undo(in: viewContext, bus: store.container.bus) { print("undid \(name)") }
    /// ```
    public static func undo(in context: ManagedObjectContext, bus: ChangeBus) throws -> String? {
        try replay(undoing: true, in: context, bus: bus)
    }

    /// Redoes the last undone step and saves; returns its name. Pending marks as ``undo(in:bus:)``.
    ///
    /// ```swift
    /// _ = try ItemMarking.redo(in: viewContext, bus: store.container.bus)
    /// ```
    public static func redo(in context: ManagedObjectContext, bus: ChangeBus) throws -> String? {
        try replay(undoing: false, in: context, bus: bus)
    }

    private static func replay(undoing: Bool, in context: ManagedObjectContext, bus: ChangeBus) throws -> String? {
        guard let manager = context.undoManager, undoing ? manager.canUndo : manager.canRedo else { return nil }
        let name = (undoing ? manager.undoActionName : manager.redoActionName) ?? "Change"
        let syncing = SyncQueue.isActive(in: context)
        // A batch step ("Mark All Read") is undone in the store at once and announced by ID:
        // collect the items it changed from that announcement.
        let contextID = ObjectIdentifier(context)
        let storeChanges = Mutex<[ObjectID: Set<String>]>([:])
        let token =
            syncing
            ? bus.observeDidSave(entities: ["FeedItem"]) { note in
                guard note.contextID == contextID else { return }
                storeChanges.withLock { changes in
                    for (id, keys) in note.updated where id.entity.name == "FeedItem" {
                        changes[id, default: []].formUnion(keys)
                    }
                }
            } : nil
        let replayed = undoing ? context.undo() : context.redo()
        token?.cancel()
        guard replayed else { return nil }
        if syncing {
            SyncQueue.noteReplayed(storeChanges: storeChanges.withLock { $0 }, in: context)
            SyncQueue.noteReplayedFeeds(in: context)
        }
        try context.save()
        return name
    }
}

extension SyncQueue {
    /// After an undo or redo in `context` (store with a sync account): marks pending every
    /// synced item whose read state or flag the step changed, in the context's unsaved
    /// changes and in `storeChanges` (what a batch step wrote to the store, by ID). The
    /// marks are not recorded for undo: they are the queue, not the user's change.
    ///
    /// An undo restores the pending marks as they were before the change, so an item whose
    /// change the server already had would otherwise keep the server's (changed) state at
    /// the next sync. Marking an item whose change never reached the server costs one
    /// `edit-tag` that changes nothing there.
    ///
    /// ```swift
    /// SyncQueue.noteReplayed(storeChanges: [:], in: viewContext)
    /// ```
    public static func noteReplayed(storeChanges: [ObjectID: Set<String>], in context: ManagedObjectContext) {
        var changes = storeChanges
        for box in context.updatedObjects where box.object is FeedItem {
            let keys = box.object.changedValues().keys
            if keys.contains("read") || keys.contains("flagged") {
                changes[box.object.objectID, default: []].formUnion(keys)
            }
        }
        let wasEnabled = context.undoManager?.isEnabled ?? false
        context.undoManager?.isEnabled = false
        defer {
            context.processPendingChanges()
            context.undoManager?.isEnabled = wasEnabled
        }
        for (id, keys) in changes {
            let read = keys.contains("read")
            let flag = keys.contains("flagged")
            guard read || flag, let item = (try? context.existingObject(with: id)) as? FeedItem, item.syncID != nil
            else { continue }
            if read, !item.syncReadPending { item.syncReadPending = true }
            if flag, !item.syncFlagPending { item.syncFlagPending = true }
        }
    }

    /// After an undo or redo in `context` (store with a sync account): queues the
    /// subscription changes the step made to feeds. A feed brought back is subscribed again
    /// (with its tags), a feed deleted again is unsubscribed, a feed whose tags or title
    /// changed has them pushed. Not recorded for undo, as ``noteReplayed(storeChanges:in:)``.
    ///
    /// The step's own queue rows come back with it only while the sync has not pushed
    /// them; once it has, without this the server would keep the state the user undid, and
    /// the next sync would bring that state back here (a feed restored by undo removed again).
    ///
    /// ```swift
    /// SyncQueue.noteReplayedFeeds(in: viewContext)
    /// ```
    public static func noteReplayedFeeds(in context: ManagedObjectContext) {
        let restored = context.insertedObjects.compactMap { $0.object as? Server }
        let removed = context.deletedObjects.compactMap { $0.object as? Server }
        let retagged = context.updatedObjects.compactMap { box -> Server? in
            guard let server = box.object as? Server, server.changedValues().keys.contains("tags") else { return nil }
            return server
        }
        let retitled = context.updatedObjects.compactMap { box -> Server? in
            guard let server = box.object as? Server, server.changedValues().keys.contains("title") else { return nil }
            return server
        }
        guard !restored.isEmpty || !removed.isEmpty || !retagged.isEmpty || !retitled.isEmpty else { return }
        let wasEnabled = context.undoManager?.isEnabled ?? false
        context.undoManager?.isEnabled = false
        defer {
            context.processPendingChanges()
            context.undoManager?.isEnabled = wasEnabled
        }
        for server in removed { queue(.unsubscribe, for: server, in: context) }
        // The step's own unsubscribe coming off the queue: the server never saw the removal.
        let unpushed = Set(
            context.deletedObjects.compactMap { box -> String? in
                guard let change = box.object as? SyncChange, change.kind == SyncChange.Kind.unsubscribe.rawValue else {
                    return nil
                }
                return change.feedURL
            })
        for server in restored {
            if server.syncID != nil, !unpushed.contains(server.url) {
                // The server dropped the feed and its items: subscribed again, it lists them
                // under new ids. Unlinked, the items are matched to those by link as a feed
                // joining an account is, rather than kept beside them under ids gone.
                server.syncID = nil
                for box in context.insertedObjects {
                    if let item = box.object as? FeedItem, item.server?.objectID == server.objectID, item.syncID != nil {
                        item.syncID = nil
                    }
                }
            }
            queue(.subscribe, for: server, in: context)
        }
        for server in retagged { queue(.tags, for: server, in: context) }
        for server in retitled { queue(.title, for: server, in: context) }
    }
}
