import Foundation
import Synchronization

/// The one notification bus of a ``PersistentContainer``: ObjectsDidChange, WillSave and
/// DidSave. Observers run synchronously on the queue of the context that posts (for
/// DidSave, the saving context's queue: hop to your own context with `perform`). An
/// observation lasts as long as its ``ObservationToken``.
///
/// ```swift
/// let token = container.bus.observeDidSave { note in print(note.inserted.count, "inserted") }
/// ```
public final class ChangeBus: Sendable {
    typealias DidChangeHandler = @Sendable (ObjectsDidChangeNotification) -> Void
    typealias WillSaveHandler = @Sendable (WillSaveNotification) -> Void
    typealias DidSaveHandler = @Sendable (DidSaveNotification) -> Void

    private struct Observers {
        var nextID: UInt64 = 0
        var didChange: [UInt64: (context: ObjectIdentifier?, entities: Set<String>?, handler: DidChangeHandler)] = [:]
        var willSave: [UInt64: (context: ObjectIdentifier?, handler: WillSaveHandler)] = [:]
        var didSave: [UInt64: (exclude: ObjectIdentifier?, entities: Set<String>?, handler: DidSaveHandler)] = [:]
    }

    private let observers = Mutex(Observers())
    /// Advanced by every DidSave before its observers run (see ``RelationshipClock``).
    let relationshipClock = RelationshipClock()

    init() {}

    /// Adds `entry` to one of the observer tables; the token removes it again.
    private func addObserver<Entry>(
        _ table: WritableKeyPath<Observers, [UInt64: Entry]> & Sendable, _ entry: Entry
    ) -> ObservationToken {
        let id = observers.withLock { o in
            o.nextID += 1
            o[keyPath: table][o.nextID] = entry
            return o.nextID
        }
        return ObservationToken { [weak self] in _ = self?.observers.withLock { $0[keyPath: table].removeValue(forKey: id) } }
    }

    /// Observes ObjectsDidChange, optionally only of `context` and only when objects of
    /// `entities` (or of their sub-entities) are involved (the notification is then narrowed to them).
    ///
    /// ```swift
    /// let t = bus.observeObjectsDidChange(in: viewContext, entities: ["Server"]) { note in print(note.updated.count) }
    /// ```
    public func observeObjectsDidChange(
        in context: ManagedObjectContext? = nil, entities: Set<String>? = nil,
        _ handler: @escaping @Sendable (ObjectsDidChangeNotification) -> Void
    ) -> ObservationToken {
        addObserver(\.didChange, (context.map(ObjectIdentifier.init), entities, handler))
    }

    /// Observes WillSave, optionally of one context.
    ///
    /// ```swift
    /// let t = bus.observeWillSave(of: importContext) { _ in print("about to save") }
    /// ```
    public func observeWillSave(
        of context: ManagedObjectContext? = nil, _ handler: @escaping @Sendable (WillSaveNotification) -> Void
    ) -> ObservationToken {
        addObserver(\.willSave, (context.map(ObjectIdentifier.init), handler))
    }

    /// Observes DidSave from every context except `excluding` (typically the observer's own),
    /// optionally only when objects of `entities` are involved.
    ///
    /// ```swift
    /// let t = bus.observeDidSave(excluding: viewContext) { note in viewContext.perform { viewContext.mergeChanges(fromDidSave: note) } }
    /// ```
    public func observeDidSave(
        excluding context: ManagedObjectContext? = nil, entities: Set<String>? = nil,
        _ handler: @escaping @Sendable (DidSaveNotification) -> Void
    ) -> ObservationToken {
        addObserver(\.didSave, (context.map(ObjectIdentifier.init), entities, handler))
    }

    func postObjectsDidChange(_ note: ObjectsDidChangeNotification) {
        let contextID = ObjectIdentifier(note.context)
        let handlers = observers.withLock { $0.didChange.sorted { $0.key < $1.key }.map(\.value) }
        for h in handlers where h.context == nil || h.context == contextID {
            if let entities = h.entities {
                let narrowed = ObjectsDidChangeNotification(
                    context: note.context, inserted: note.inserted.filter { $0.entity.isNamed(in: entities) },
                    insertedObjectIDs: note.insertedIDsFromMerges.filter { $0.entity.isNamed(in: entities) },
                    ownInsertedIDs: note.ownInsertedIDs.filter { $0.entity.isNamed(in: entities) },
                    updated: note.updated.filter { $0.entity.isNamed(in: entities) },
                    updatedIDsFromMerges: note.updatedObjectIDsFromMerges.filter { $0.entity.isNamed(in: entities) },
                    deleted: note.deleted.filter { $0.entity.isNamed(in: entities) },
                    changedKeysByID: note.changedKeysByID.filter { $0.key.entity.isNamed(in: entities) },
                    isMerge: note.isMerge)
                if narrowed.inserted.isEmpty && narrowed.insertedIDsFromMerges.isEmpty && narrowed.ownInsertedIDs.isEmpty
                    && narrowed.updated.isEmpty && narrowed.updatedObjectIDsFromMerges.isEmpty
                    && narrowed.deleted.isEmpty
                {
                    continue
                }
                h.handler(narrowed)
            } else {
                h.handler(note)
            }
        }
    }

    func postWillSave(_ note: WillSaveNotification) {
        let contextID = ObjectIdentifier(note.context)
        let handlers = observers.withLock { $0.willSave.sorted { $0.key < $1.key }.map(\.value) }
        for h in handlers where h.context == nil || h.context == contextID { h.handler(note) }
    }

    func postDidSave(_ note: DidSaveNotification) {
        relationshipClock.advance(for: note)
        let handlers = observers.withLock { $0.didSave.sorted { $0.key < $1.key }.map(\.value) }
        for h in handlers {
            if let exclude = h.exclude, exclude == note.contextID { continue }
            if let entities = h.entities, !entities.contains(where: { note.involves(entity: $0) }) { continue }
            h.handler(note)
        }
    }
}

/// Keeps an observation alive; dropping it (or calling ``cancel()``) ends it.
///
/// ```swift
/// var token: ObservationToken? = bus.observeDidSave { _ in }
/// token = nil   // no more notifications
/// ```
public final class ObservationToken: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    init(_ onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Mutex(onCancel)
    }

    /// Ends the observation now.
    public func cancel() {
        let action = onCancel.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { cancel() }
}
