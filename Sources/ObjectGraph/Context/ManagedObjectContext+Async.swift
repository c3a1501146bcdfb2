import Foundation

/// When ``ManagedObjectContext/perform(schedule:_:)`` runs its block.
public enum ScheduledTaskType: Sendable {
    /// At once when already on the context's queue, else queued.
    case immediate
    /// Always queued after the work already on the context's queue.
    case enqueued
}

extension ManagedObjectContext {
    /// Runs `block` on the context's queue and returns its result to the awaiting task
    /// (Core Data's `perform(schedule:_:)`); ObjectsDidChange is posted afterwards.
    ///
    /// ```swift
    /// let count = try await context.perform(schedule: .enqueued) { try context.count(for: FetchRequest<Note>()) }
    /// ```
    public func perform<T: Sendable>(
        schedule: ScheduledTaskType, _ block: @escaping @Sendable () throws -> T
    ) async throws -> T {
        if schedule == .immediate && isOnQueue { return try performAndWait(block) }
        return try await withCheckedThrowingContinuation { continuation in
            perform { continuation.resume(with: Result { try block() }) }
        }
    }

    /// Saves on the context's queue from async code.
    ///
    /// ```swift
    /// try await context.save(schedule: .enqueued)
    /// ```
    public func save(schedule: ScheduledTaskType) async throws {
        try await perform(schedule: schedule) { try self.save() }
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
