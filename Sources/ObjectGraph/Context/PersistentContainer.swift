import Dispatch
import Foundation
import GRDB
import Synchronization

/// The stack in one object: a model, its store, the change bus, a view context for the
/// UI, background contexts, and one serial queue for background saves.
///
/// ```swift
/// let container = try PersistentContainer(model: model, store: .file(url))
/// container.saveInBackground({ ctx in let n = ctx.insert(Note.self); n.text = "hi" }, completion: { result in
///     print(result)   // runs on the view context's queue, after the merge
/// })
/// ```
public final class PersistentContainer: Sendable {
    public let model: ManagedObjectModel
    public let store: PersistentStore
    /// The one notification bus of this stack.
    public let bus: ChangeBus
    /// The context for the user interface, on `viewQueue`. It merges every other
    /// context's saves automatically (and, for file stores, other processes' commits once
    /// ``startWatchingOtherProcesses(interval:)`` is called).
    public let viewContext: ManagedObjectContext
    /// The dedicated serial queue of ``saveInBackground(_:completion:)``.
    public let backgroundSaveQueue = DispatchQueue(label: "ObjectGraph.backgroundSave")

    private let autoMergeToken = Mutex<ObservationToken?>(nil)
    private let watcher = Mutex<TimerBox?>(nil)
    private let lastDataVersion = Mutex<Int64?>(nil)
    /// The last history transaction the watch of other processes has seen.
    let lastSeenHistory = Mutex<HistoryToken?>(nil)

    /// Checks that the model's classes match it (``ManagedObjectModel/checkClassesMatch()``),
    /// opens the store and builds the stack. `viewQueue` is the view context's queue
    /// (a private serial queue unless you pass one, e.g. `.main`). With `readOnly` (or a
    /// file this process may not write) contexts can fetch, and saving throws
    /// ``ObjectGraphError/readOnlyStore(path:)``. With `history`, the store records
    /// persistent history (``PersistentHistoryTracking``).
    ///
    /// ```swift
    /// let reader = try PersistentContainer(model: model, store: .file(url), readOnly: true)
    /// let count = try reader.viewContext.performAndWait { try reader.viewContext.count(for: FetchRequest<Note>()) }
    /// ```
    public init(
        model: ManagedObjectModel, store location: StoreLocation, migrator: StoreMigrator? = nil,
        viewQueue: DispatchQueue? = nil, readOnly: Bool = false, history: PersistentHistoryTracking? = nil
    ) throws(ObjectGraphError) {
        try model.checkClassesMatch()
        self.model = model
        self.store = try PersistentStore(model: model, location: location, migrator: migrator, readOnly: readOnly)
        if let history, store.historyTracking.withLock({ $0 }) != history { try store.startRecordingHistory(history) }
        self.bus = ChangeBus()
        let queue = viewQueue ?? DispatchQueue(label: "ObjectGraph.view")
        let placeholder = ContextBox()
        self.viewContext = ManagedObjectContext(containerBox: placeholder, queue: queue, name: "view")
        placeholder.container = self
        viewContext.bindContainer()
        automaticallyMergesChangesIntoViewContext = true
    }

    /// Whether every other context's save (and, once watched, other processes' commits) is
    /// merged into the view context on its queue. On by default; turn it off for a stack
    /// without a user interface (a batch tool, a benchmark).
    ///
    /// ```swift
    /// container.automaticallyMergesChangesIntoViewContext = false
    /// ```
    public var automaticallyMergesChangesIntoViewContext: Bool {
        get { autoMergeToken.withLock { $0 != nil } }
        set {
            let view = viewContext
            let token: ObservationToken? =
                newValue
                ? bus.observeDidSave(excluding: viewContext) { note in
                    view.perform { view.mergeChanges(fromDidSave: note) }
                } : nil
            let old = autoMergeToken.withLock { current -> ObservationToken? in
                if (current != nil) == newValue { return nil }
                defer { current = token }
                return current
            }
            old?.cancel()
        }
    }

    deinit {
        watcher.withLock { $0?.timer.cancel() }
    }

    /// A new context on its own serial queue, for work off the view context's queue.
    /// Undo is off on background contexts. It keeps the container alive while it lives.
    ///
    /// ```swift
    /// let importer = container.newBackgroundContext(name: "import")
    /// ```
    public func newBackgroundContext(name: String? = nil) -> ManagedObjectContext {
        newContext(queue: DispatchQueue(label: "ObjectGraph.context.\(name ?? "background")"), name: name ?? "background")
    }

    /// A new context on `queue`.
    public func newContext(queue: DispatchQueue, name: String? = nil) -> ManagedObjectContext {
        let box = ContextBox()
        box.container = self
        let context = ManagedObjectContext(containerBox: box, queue: queue, name: name, retaining: self)
        context.bindContainer()
        return context
    }

    /// A scratch context (on the view queue) whose unsaved objects simply vanish when it is
    /// dropped or reset: previews, "add feed" before the user decides.
    ///
    /// ```swift
    /// let scratch = container.newScratchContext()
    /// ```
    public func newScratchContext() -> ManagedObjectContext {
        newContext(queue: viewContext.queue, name: "scratch")
    }

    /// Runs `changes` in a fresh context on the dedicated background-save queue, saves it,
    /// merges the save into the view context, then calls `completion` on the view
    /// context's queue with the outcome.
    ///
    /// ```swift
    /// container.saveInBackground({ ctx in for s in try ctx.fetch(FetchRequest<Server>()) { s.title = "x" } },
    ///                            completion: { result in if case .failure(let e) = result { print(e) } })
    /// ```
    public func saveInBackground(
        _ changes: @escaping @Sendable (ManagedObjectContext) throws -> Void,
        completion: (@Sendable (Result<Void, ObjectGraphError>) -> Void)? = nil
    ) {
        let context = newContext(queue: backgroundSaveQueue, name: "backgroundSave")
        let view = viewContext
        backgroundSaveQueue.async {
            let result: Result<Void, ObjectGraphError>
            do {
                try changes(context)
                context.processPendingChanges()
                try context.save()
                result = .success(())
            } catch {
                context.rollback()
                result = .failure(ObjectGraphError.wrapping(error))
            }
            // The auto-merge observer queued the merge on the view queue already; this runs after it.
            view.perform { completion?(result) }
        }
    }

    // MARK: Other processes

    /// Polls the store for commits made by other processes (SQLite's `PRAGMA data_version`
    /// on the writer connection, which changes only for other connections' commits) and,
    /// when one is seen, posts a DidSave with ``DidSaveNotification/isFromOtherProcess``
    /// set; the view context merges it.
    ///
    /// ```swift
    /// container.startWatchingOtherProcesses(interval: 0.25)
    /// ```
    public func startWatchingOtherProcesses(interval: TimeInterval = 0.25) {
        guard case .file = store.location else { return }
        lastDataVersion.withLock { $0 = writerDataVersion() }
        let token = try? store.currentHistoryToken()
        lastSeenHistory.withLock { $0 = token }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "ObjectGraph.watch"))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(20))
        timer.setEventHandler { [weak self] in self?.checkForOtherProcessCommits() }
        let box = TimerBox(timer)
        let previous = watcher.withLock { old -> TimerBox? in
            defer { old = box }
            return old
        }
        previous?.timer.cancel()
        timer.resume()
    }

    /// Stops ``startWatchingOtherProcesses(interval:)``.
    public func stopWatchingOtherProcesses() {
        let previous = watcher.withLock { old -> TimerBox? in
            defer { old = nil }
            return old
        }
        previous?.timer.cancel()
    }

    /// Checks once for another process's commit; returns true when one was seen (and posted).
    @discardableResult
    public func checkForOtherProcessCommits() -> Bool {
        guard let version = writerDataVersion() else { return false }
        let changed = lastDataVersion.withLock { last -> Bool in
            defer { last = version }
            return last != nil && last != version
        }
        if changed { bus.postDidSave(otherProcessNotification()) }
        return changed
    }

    private func writerDataVersion() -> Int64? {
        try? store.writer.writeWithoutTransaction { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") }
    }
}

/// Lets a context refer to its container (weakly) before the container's initialiser finishes.
final class ContextBox: Sendable {
    private struct WeakContainer {
        weak var container: PersistentContainer?
    }
    private let storage = Mutex(WeakContainer())

    var container: PersistentContainer? {
        get { storage.withLock { $0.container } }
        set { storage.withLock { $0.container = newValue } }
    }
}

/// Holds a dispatch timer.
// Unchecked sendability is sound: DispatchSource objects are thread-safe (cancel, resume and the
// handler setters may be called from any thread) and the reference never changes.
final class TimerBox: @unchecked Sendable {
    let timer: DispatchSourceTimer
    init(_ timer: DispatchSourceTimer) { self.timer = timer }
}
