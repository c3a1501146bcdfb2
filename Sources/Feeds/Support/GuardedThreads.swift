import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Zeader's own threads for work over untrusted input (parsing a fetched feed, laying out
/// an article's HTML): each has a known stack (``stackSize``) and an alternate signal
/// stack, so that if such work ever overflows its stack the reader's fatal-signal handler
/// still runs and puts the terminal back.
///
/// Why not Dispatch's or the Swift concurrency pool's threads: their stack size is not
/// ours to choose, and a signal caused by an overflow can only be handled on an alternate
/// stack, which a thread must install for itself; those threads have none, so an overflow
/// there ends the process at once. The parsers bound their own depth (entity chains,
/// nesting, predicates) and do not recurse on it; these threads are the second line.
///
/// ```swift
/// let feed = await GuardedThreads.run { Result { try FeedParser.parse(data: body) } }
/// let page = GuardedThreads.runAndWait { HTMLText.render(html, width: 72) }
/// ```
public enum GuardedThreads {
    /// Each thread's stack: the size of the main thread's by default on Linux.
    public static let stackSize = 8 << 20
    /// How many threads there are; they start on first use and live as long as the process.
    static let threadCount = max(2, ProcessInfo.processInfo.activeProcessorCount)

    /// Runs `work` on a guarded thread and returns its result to the awaiting task, without
    /// blocking one of the task pool's threads meanwhile.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        if isCurrentThreadGuarded { return work() }
        return await withCheckedContinuation { continuation in
            jobs.submit { continuation.resume(returning: work()) }
        }
    }

    /// Runs `work` on a guarded thread and waits for it: for callers that are on a queue
    /// of their own (the reader's), never on the task pool. On a guarded thread, runs it
    /// right there.
    public static func runAndWait<T>(_ work: () -> T) -> T {
        if isCurrentThreadGuarded { return work() }
        return withoutActuallyEscaping(work) { work in
            let handoff = Handoff(work)
            // Someone is waiting on this (the reader, to show an article): it goes before
            // the refresh's queued parses.
            jobs.submit(first: true) { handoff.run() }
            return handoff.wait()
        }
    }

    /// Whether the calling thread is one of these.
    public static var isCurrentThreadGuarded: Bool { pthread_getspecific(guardedKey) != nil }

    // MARK: - Non public

    private static let guardedKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static let jobs: JobQueue = {
        let queue = JobQueue()
        for index in 0..<threadCount {
            let thread = Thread {
                AlternateSignalStack.prepareCurrentThread()
                pthread_setspecific(guardedKey, UnsafeRawPointer(bitPattern: 1))
                queue.serve()
            }
            thread.name = "zeader.guarded.\(index)"
            thread.stackSize = stackSize
            thread.start()
        }
        return queue
    }()
}

/// The jobs waiting for a guarded thread, first come first served, except that a job
/// someone waits for synchronously (`first`) goes before the others.
final class JobQueue: Sendable {
    private let pending = Mutex<[@Sendable () -> Void]>([])
    private let available = DispatchSemaphore(value: 0)

    func submit(first: Bool = false, _ job: @escaping @Sendable () -> Void) {
        pending.withLock { first ? $0.insert(job, at: 0) : $0.append(job) }
        available.signal()
    }

    /// The next job, waiting for one.
    func take() -> @Sendable () -> Void {
        available.wait()
        return pending.withLock { $0.removeFirst() }
    }

    /// A thread's loop: runs jobs for ever.
    func serve() -> Never {
        while true { take()() }
    }
}

/// Carries a synchronous caller's closure to a guarded thread and its result back. The
/// compiler cannot check this (the caller's closure is not Sendable: it crosses to the
/// guarded thread while the caller is blocked in `wait()`; a Mutex does not help, since
/// sending the closure in is what it refuses).
// Safe to share across threads: the guarded thread touches `work` and `result` only between `submit` and `done.signal()`, the caller only after `done.wait()` returns, so the semaphore orders every use, and the caller's closure outlives the wait.
private final class Handoff<T>: @unchecked Sendable {
    /// Dropped before the caller wakes: it is the caller's non-escaping closure.
    private var work: (() -> T)?
    private var result: T?
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping () -> T) { self.work = work }

    func run() {
        result = work?()
        work = nil
        done.signal()
    }

    func wait() -> T {
        done.wait()
        return result!
    }
}
