import Foundation

/// Runs an actor's jobs on a context's queue, so that the actor's isolated code may use the
/// context and its objects directly: being on the actor is being on the context's queue.
///
/// ```swift
/// let executor = ContextExecutor(context: container.newBackgroundContext())
/// ```
public final class ContextExecutor: SerialExecutor {
    /// The context whose queue runs the jobs.
    public let context: ManagedObjectContext

    /// An executor for `context`'s queue.
    ///
    /// ```swift
    /// let executor = ContextExecutor(context: container.newBackgroundContext(name: "import"))
    /// ```
    public init(context: ManagedObjectContext) {
        self.context = context
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        context.enqueue { job.runSynchronously(on: executor) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` succeed in a block the context runs by itself (a `perform`).
    public func checkIsolated() {
        precondition(context.isOnQueue, "not on the queue of \(context)")
    }
}

/// An actor whose isolated code runs on a private-queue context's queue (SwiftData's
/// `ModelActor`): from async code, `await` one of its methods and use ``modelContext`` and its
/// objects inside without `perform`. Declare the executor; the protocol supplies the rest.
///
/// ```swift
/// actor NoteWriter: ModelActor {
///     nonisolated let modelExecutor: ContextExecutor
///     init(container: PersistentContainer) {
///         modelExecutor = ContextExecutor(context: container.newBackgroundContext(name: "writer"))
///     }
///     func add(_ title: String) throws -> ObjectID {
///         let note = modelContext.insert(Note.self)
///         note.title = title
///         try modelContext.save()
///         return note.objectID
///     }
/// }
/// ```
public protocol ModelActor: Actor {
    /// The executor running this actor's jobs on its context's queue.
    nonisolated var modelExecutor: ContextExecutor { get }
}

extension ModelActor {
    /// The context this actor owns: use it, and its objects, only in the actor's isolated code.
    ///
    /// ```swift
    /// let background = BackgroundContextActor(container: container)
    /// let count = try await background.run { context in try context.count(for: FetchRequest<Note>()) }
    /// ```
    public nonisolated var modelContext: ManagedObjectContext { modelExecutor.context }

    /// Runs the actor's jobs on the context's queue.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { modelExecutor.asUnownedSerialExecutor() }

    /// Runs `body` with the actor's context, on its queue, and returns its value.
    ///
    /// ```swift
    /// let background = BackgroundContextActor(container: container)
    /// let titles = try await background.run { context in try context.fetch(FetchRequest<Note>()).map(\.title) }
    /// ```
    public func run<T: Sendable>(_ body: (ManagedObjectContext) throws -> T) rethrows -> T {
        try body(modelContext)
    }
}

/// A ``ModelActor`` with nothing more: a background context to use from async code.
///
/// ```swift
/// let background = BackgroundContextActor(container: container)
/// let id = try await background.run { context in
///     let note = context.insert(Note.self)
///     note.title = "From an actor"
///     try context.save()
///     return note.objectID
/// }
/// ```
public actor BackgroundContextActor: ModelActor {
    public nonisolated let modelExecutor: ContextExecutor

    /// An actor owning a new background context of `container`.
    ///
    /// ```swift
    /// let background = BackgroundContextActor(container: container, name: "sync")
    /// ```
    public init(container: PersistentContainer, name: String? = nil) {
        modelExecutor = ContextExecutor(context: container.newBackgroundContext(name: name))
    }
}
