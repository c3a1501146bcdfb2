import Foundation
import Synchronization

/// The contents of a ``FetchedResultsController`` at one moment, as `Sendable` values: each
/// section's name and the IDs of its objects, in order. The element of
/// ``FetchedResultsController/snapshots()``.
///
/// ```swift
/// let snapshot = controller.snapshot
/// print(snapshot.objectIDs.count, "rows in", snapshot.sections.count, "sections")
/// ```
public struct FetchedResultsSnapshot: Sendable, Equatable {
    /// One section: its name ("" without a section key path) and its objects' IDs, in order.
    public struct Section: Sendable, Equatable {
        public let name: String
        public let objectIDs: [ObjectID]
    }

    /// The sections, in order.
    public let sections: [Section]
    /// Every object's ID, in order.
    public var objectIDs: [ObjectID] { sections.flatMap(\.objectIDs) }
}

extension FetchedResultsController {
    /// The current contents as a ``FetchedResultsSnapshot`` (read on the context's queue).
    ///
    /// ```swift
    /// let ids = controller.snapshot.objectIDs
    /// ```
    public var snapshot: FetchedResultsSnapshot {
        context.assertOnQueue()
        return FetchedResultsSnapshot(
            sections: (0..<numberOfSections).map { s in
                FetchedResultsSnapshot.Section(
                    name: nameOfSection(s),
                    objectIDs: (0..<numberOfObjects(inSection: s)).map {
                        object(at: ResultIndexPath(section: s, item: $0)).objectID
                    })
            })
    }

    /// The live results as an `AsyncSequence` of snapshots: the current contents first, then
    /// the contents after each batch of changes (and after each ``performFetch()``), none
    /// lost. Call it on the context's queue, after ``performFetch()``; it ends when the
    /// controller is released or the reading task is cancelled.
    ///
    /// ```swift
    /// let results = try await viewContext.perform { try controller.performFetch(); return controller.snapshots() }
    /// var rows = results.makeAsyncIterator()   // or: for await snapshot in results { … }
    /// print(await rows.next()?.objectIDs.count ?? 0, "rows")
    /// ```
    public func snapshots() -> AsyncStream<FetchedResultsSnapshot> {
        let (stream, continuation) = AsyncStream<FetchedResultsSnapshot>.makeStream()
        continuation.yield(snapshot)
        let id = snapshotStreams.add(continuation)
        let streams = snapshotStreams
        continuation.onTermination = { [weak streams] _ in streams?.remove(id) }
        return stream
    }

    /// Hands the current contents to every ``snapshots()`` stream (on the context's queue).
    func yieldSnapshots() {
        guard snapshotStreams.isOpen else { return }
        snapshotStreams.yield(snapshot)
    }
}

/// The open ``FetchedResultsController/snapshots()`` streams of a controller, finished when the
/// controller (their only owner) is released.
final class SnapshotStreams: Sendable {
    private let continuations = Mutex<(next: UInt64, open: [UInt64: AsyncStream<FetchedResultsSnapshot>.Continuation])>(
        (0, [:]))

    var isOpen: Bool { continuations.withLock { !$0.open.isEmpty } }

    func add(_ continuation: AsyncStream<FetchedResultsSnapshot>.Continuation) -> UInt64 {
        continuations.withLock { state in
            state.next += 1
            state.open[state.next] = continuation
            return state.next
        }
    }

    func remove(_ id: UInt64) {
        _ = continuations.withLock { $0.open.removeValue(forKey: id) }
    }

    func yield(_ snapshot: FetchedResultsSnapshot) {
        for continuation in continuations.withLock({ Array($0.open.values) }) { continuation.yield(snapshot) }
    }

    deinit {
        let open = continuations.withLock { state in
            defer { state.open = [:] }
            return Array(state.open.values)
        }
        for continuation in open { continuation.finish() }
    }
}
