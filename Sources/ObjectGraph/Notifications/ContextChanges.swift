import Foundation
import Synchronization

/// One ObjectsDidChange of a context as `Sendable` values: the IDs of the objects inserted,
/// updated (with their changed keys) and deleted. The element of ``ManagedObjectContext/changes``.
///
/// ```swift
/// var changes = context.changes.makeAsyncIterator()   // or: for await change in context.changes { … }
/// await context.perform { (context.object(with: noteID) as! Note).title = "Changed" }
/// print(await changes.next()?.updated[noteID] ?? [])   // ["title"]
/// ```
public struct ContextChanges: Sendable, Equatable {
    /// Objects inserted in the context, or by a merged save (IDs only).
    public let inserted: Set<ObjectID>
    /// Objects changed, with the keys that changed (empty when a merge announced the ID only).
    public let updated: [ObjectID: Set<String>]
    /// Objects deleted.
    public let deleted: Set<ObjectID>
    /// True when the change came from merging another context's or process's save.
    public let isMerge: Bool
    /// True when the context was reset: every object it held left it (``invalidated``).
    public let invalidatedAll: Bool
    /// The objects the context held before a reset.
    public let invalidated: Set<ObjectID>

    init(_ note: ObjectsDidChangeNotification) {
        inserted = note.insertedObjectIDs
        var updated: [ObjectID: Set<String>] = [:]
        for object in note.updated { updated[object.objectID] = note.changedKeysByID[object.objectID] ?? [] }
        for id in note.updatedObjectIDsFromMerges { updated[id, default: []].formUnion(note.changedKeysByID[id] ?? []) }
        self.updated = updated
        deleted = Set(note.deleted.map(\.objectID))
        isMerge = note.isMerge
        invalidatedAll = note.invalidatedAll
        invalidated = note.invalidatedObjectIDs
    }
}

extension ManagedObjectContext {
    /// The context's change notifications as an `AsyncSequence`: one ``ContextChanges`` per
    /// ObjectsDidChange (the end of a `perform` block, a save, a merge), in order, none lost
    /// (buffered until read). A new stream starts with the next change; it ends when the context
    /// is released, or when the reading task is cancelled.
    ///
    /// ```swift
    /// Task { for await change in viewContext.changes { print(change.updated.count, "updated") } }
    /// ```
    public var changes: AsyncStream<ContextChanges> {
        let (stream, continuation) = AsyncStream<ContextChanges>.makeStream()
        guard let bus else {
            continuation.finish()
            return stream
        }
        let token = bus.observeObjectsDidChange(in: self) { note in continuation.yield(ContextChanges(note)) }
        let id = changeStreams.add(continuation)
        let streams = changeStreams
        continuation.onTermination = { [weak streams] _ in
            token.cancel()
            streams?.remove(id)
        }
        return stream
    }
}

/// The open ``ManagedObjectContext/changes`` streams of a context, finished when the context
/// (their only owner) is released.
final class ChangeStreams: Sendable {
    private let continuations = Mutex<(next: UInt64, open: [UInt64: AsyncStream<ContextChanges>.Continuation])>((0, [:]))

    func add(_ continuation: AsyncStream<ContextChanges>.Continuation) -> UInt64 {
        continuations.withLock { state in
            state.next += 1
            state.open[state.next] = continuation
            return state.next
        }
    }

    /// How many streams are open.
    var openCount: Int { continuations.withLock { $0.open.count } }

    func remove(_ id: UInt64) {
        _ = continuations.withLock { $0.open.removeValue(forKey: id) }
    }

    deinit {
        let open = continuations.withLock { state in
            defer { state.open = [:] }
            return Array(state.open.values)
        }
        for continuation in open { continuation.finish() }
    }
}
