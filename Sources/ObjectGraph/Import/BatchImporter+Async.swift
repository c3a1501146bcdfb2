import Foundation
import Synchronization

extension BatchImporter {
    /// An import under way in the background (see ``start(_:insert:)``): its progress as a
    /// stream, then its result.
    ///
    /// ```swift
    /// let running = importer.start(records) { record, context in
    ///     try context.insertObject(entityName: "FeedItem").importValues(from: record)
    /// }
    /// for await saved in running.progress { print("saved", saved) }
    /// let result = try await running.result
    /// ```
    public struct Running: Sendable {
        /// The number of records saved so far, after each batch's save; it ends when the
        /// import ends, whether it finished, threw or was cancelled.
        public let progress: AsyncStream<Int>
        let task: Task<Result, any Error>

        /// What the run did, once it ends; rethrows what stopped it (`CancellationError`
        /// after ``cancel()``). Saved batches stay saved either way, and the next run resumes.
        ///
        /// ```swift
        /// let running = importer.start(records) { record, context in
        ///     try context.insertObject(entityName: "FeedItem").importValues(from: record)
        /// }
        /// let total = try await running.result.total
        /// ```
        public var result: Result {
            get async throws { try await task.value }
        }

        /// Stops the import before its next record: the current batch's unsaved records are
        /// dropped, and the next run resumes after the last saved batch.
        ///
        /// ```swift
        /// let running = importer.start(records) { record, context in
        ///     try context.insertObject(entityName: "FeedItem").importValues(from: record)
        /// }
        /// running.cancel()
        /// ```
        public func cancel() { task.cancel() }
    }

    /// Set when the task awaiting an import is cancelled; read before each record.
    private final class CancelFlag: Sendable {
        let isSet = Atomic(false)
    }

    /// Starts (or resumes) the import without blocking the caller: the same batches, marker
    /// and resumption as ``run(_:progress:insert:)``, on a thread of its own rather than one of
    /// the tasks' threads, since a batch's save blocks.
    ///
    /// ```swift
    /// let running = importer.start(records) { record, context in
    ///     try context.insertObject(entityName: "FeedItem").importValues(from: record)
    /// }
    /// for await saved in running.progress { print(saved) }
    /// ```
    public func start<Records: Sequence & Sendable>(
        _ records: Records, insert: @escaping @Sendable (Records.Element, ManagedObjectContext) throws -> Void
    ) -> Running {
        let (progress, continuation) = AsyncStream<Int>.makeStream()
        let task = Task { () async throws -> Result in
            let cancelled = CancelFlag()
            defer { continuation.finish() }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (done: CheckedContinuation<Result, any Error>) in
                    DispatchQueue.global().async {
                        done.resume(
                            with: Swift.Result {
                                try self.run(records, progress: { continuation.yield($0) }) { record, context in
                                    if cancelled.isSet.load(ordering: .relaxed) { throw CancellationError() }
                                    try insert(record, context)
                                }
                            })
                    }
                }
            } onCancel: {
                cancelled.isSet.store(true, ordering: .relaxed)
            }
        }
        return Running(progress: progress, task: task)
    }
}
