import Foundation

/// When ``ManagedObjectContext/perform(schedule:_:)`` runs its block.
public enum ScheduledTaskType: Sendable {
    /// At once when already on the context's queue, else queued.
    case immediate
    /// Always queued after the work already on the context's queue.
    case enqueued
}

extension ManagedObjectContext {
    /// Runs `block` on the context's queue and returns its result to the awaiting task,
    /// rethrowing what it throws (Core Data's `perform(schedule:_:)`); ObjectsDidChange is
    /// posted afterwards. In async code a plain `await context.perform { … }` resolves here; the
    /// fire-and-forget form is ``enqueue(_:)`` (or ``perform(_:)`` from synchronous code).
    ///
    /// ```swift
    /// let count = try await context.perform { try context.count(for: FetchRequest<Note>()) }
    /// let name = await context.perform(schedule: .enqueued) { context.name }   // no try: the block cannot throw
    /// ```
    public func perform<T: Sendable, Failure: Error>(
        schedule: ScheduledTaskType = .immediate, _ block: @escaping @Sendable () throws(Failure) -> T
    ) async throws(Failure) -> T {
        if schedule == .immediate && isOnQueue {
            let value = try block()
            processPendingChanges()
            return value
        }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
            enqueue { continuation.resume(returning: Result { () throws(Failure) -> T in try block() }) }
        }
        return try result.get()
    }

    /// Queues `block` on the context's queue and returns at once (fire and forget), from
    /// synchronous or async code alike; ObjectsDidChange is posted after it.
    ///
    /// ```swift
    /// context.enqueue { try? context.save() }
    /// ```
    public func enqueue(_ block: @escaping @Sendable () -> Void) {
        perform(block)
    }

    /// Saves on the context's queue from async code.
    ///
    /// ```swift
    /// try await context.save(schedule: .enqueued)
    /// ```
    public func save(schedule: ScheduledTaskType = .immediate) async throws(ObjectGraphError) {
        try await perform(schedule: schedule) { () throws(ObjectGraphError) in try self.save() }
    }

    /// Turns every registered object without unsaved changes back into a fault, so that
    /// its next use reads the current stored values (Core Data's `refreshAllObjects()`);
    /// objects with unsaved changes keep them, on top of the stored values.
    ///
    /// ```swift
    /// context.refreshAllObjects()
    /// ```
    public func refreshAllObjects() {
        assertOnQueue()
        for object in registeredObjects where !object.isInserted {
            refresh(object, mergeChanges: object.hasChanges)
        }
    }
}
