import Foundation
import ObjectGraph
import Synchronization

/// How a refresh stores its feeds: several feeds per transaction, saved on the import
/// context's queue while the next feeds are still being fetched and parsed.
///
/// Why: one transaction per feed made a refresh's cost grow faster than its feed count. An
/// item's rows go into indexes ordered by date (or by other keys that are random across
/// feeds), so each feed's commit rewrote scattered pages of those indexes, a few more with
/// every feed already stored (docs/PERFORMANCE.md, "Tuning in the code"). A transaction of
/// many feeds writes each of those pages once.
///
/// The policy: feeds ready to be stored wait in one group; the group is saved when
/// - it holds ``Limits/items`` items (a feed counts its items plus one),
/// - its oldest feed has waited ``Limits/window`` (so a feed reaches the reader's screen soon,
///   and a slow feed never holds others back), or
/// - the refresh has no more feeds to hand over (``finish()``).
/// While a group is being saved the next one fills, and is saved at once by a second
/// import context when there are two cores (``Limits/savers``); a feed handed over while a
/// full group already waits is held back (``submit(_:for:then:)`` suspends), so memory stays
/// bounded by one group per saver plus the one filling.
///
/// A group is saved by ``FeedImporter/applyTogether(_:now:)``: should its transaction fail,
/// each of its feeds is applied and saved alone, so one hostile feed costs the others one
/// attempt, never their items, and gets its own error. A feed's result is handed to its
/// `then` only once its group is committed, so a feed reported finished is stored (a SIGKILL
/// loses at most the groups not yet reported).
///
/// ```swift
/// let grouping = SaveGrouping(importers: [importer])
/// await grouping.submit(input, for: serverID) { result in report(result) }
/// await grouping.finish()   // every submitted feed saved and reported
/// ```
final class SaveGrouping: Sendable {
    /// When a group is saved, and how many are saved at once: larger groups cost no less CPU
    /// but more memory (`scripts/bench-refresh.sh`; docs/PERFORMANCE.md, "Tuning in the code").
    struct Limits: Sendable {
        /// A group is saved once it holds this many items (each feed counts its items plus one).
        var items = 512
        /// ... or once its oldest feed has waited this long.
        var window: Duration = .milliseconds(250)
        /// How many groups are built and saved at once, each on its own context: two when
        /// there are two cores (one group's items are looked up and built while another's
        /// rows are written).
        var savers = min(2, max(1, ProcessInfo.processInfo.activeProcessorCount))
    }

    /// One per group saved at once, each with its own context: while one group's rows are
    /// written (the store has one writer), the next group's items are looked up and
    /// built on another context's queue.
    let importers: [FeedImporter]
    let limits: Limits
    private let state: Mutex<State>

    init(importers: [FeedImporter], limits: Limits = Limits()) {
        precondition(!importers.isEmpty, "a grouping needs an importer")
        self.importers = importers
        self.limits = limits
        state = Mutex(State(idleSavers: Array(importers.indices)))
    }

    /// Hands over one feed's outcome; `then` gets its result once it is saved (on an import
    /// context's queue). Returns as soon as the feed has a place in a group.
    func submit(
        _ input: FeedImporter.Input, for serverID: ObjectID,
        then done: @escaping @Sendable (FeedRefreshResult) -> Void
    ) async {
        let entry = Entry(input: input, serverID: serverID, weight: input.itemCount + 1, done: done)
        while true {
            let accepted: Bool = await withCheckedContinuation { continuation in
                let (accepted, saver) = state.withLock { state -> (Bool, Int?) in
                    guard state.waitingWeight < limits.items else {
                        state.heldBack.append(continuation)
                        return (false, nil)
                    }
                    state.waiting.append(entry)
                    state.waitingWeight += entry.weight
                    return (true, state.startSaving(limits: limits))
                }
                if let saver { saveGroups(on: saver) }
                if accepted { continuation.resume(returning: true) }
            }
            if accepted { break }
        }
        armTimer()
    }

    /// Saves what still waits, at once, and returns when every feed handed over is saved and
    /// reported.
    func finish() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (saver, idle) = state.withLock { state -> (Int?, Bool) in
                state.finished = true
                let saver = state.startSaving(limits: limits)
                if state.isIdle(saverCount: importers.count) { return (saver, true) }
                state.idleWaiters.append(continuation)
                return (saver, false)
            }
            if let saver { saveGroups(on: saver) }
            if idle { continuation.resume() }
        }
    }

    // MARK: - Non public

    private struct Entry: Sendable {
        var input: FeedImporter.Input
        var serverID: ObjectID
        /// Its items plus one.
        var weight: Int
        var arrived = ContinuousClock.now
        var done: @Sendable (FeedRefreshResult) -> Void
    }

    private struct State {
        /// The next group, oldest first.
        var waiting: [Entry] = []
        var waitingWeight = 0
        /// The importers not saving a group now.
        var idleSavers: [Int]
        /// No more feeds will be handed over.
        var finished = false
        /// When the armed timer fires, if one is armed.
        var timerDue: ContinuousClock.Instant?
        /// Submitters waiting for room (a full group waits already).
        var heldBack: [CheckedContinuation<Bool, Never>] = []
        /// ``finish()`` callers waiting for the last save.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []

        /// Whether the waiting feeds are to be saved now (see the type's policy).
        func isDue(limits: Limits, now: ContinuousClock.Instant = .now) -> Bool {
            guard let oldest = waiting.first else { return false }
            return finished || waitingWeight >= limits.items || now >= oldest.arrived + limits.window
        }

        /// An idle saver, now marked busy, when the waiting group is due.
        mutating func startSaving(limits: Limits) -> Int? {
            guard !idleSavers.isEmpty, isDue(limits: limits) else { return nil }
            return idleSavers.removeLast()
        }

        func isIdle(saverCount: Int) -> Bool { waiting.isEmpty && idleSavers.count == saverCount }

        /// Takes the oldest feeds up to the item limit (at least one) and wakes the held-back submitters.
        mutating func takeGroup(limits: Limits) -> (group: [Entry], wake: [CheckedContinuation<Bool, Never>]) {
            var weight = 0
            var count = 0
            for entry in waiting {
                if count > 0 && weight + entry.weight > limits.items { break }
                weight += entry.weight
                count += 1
            }
            let group = Array(waiting.prefix(count))
            waiting.removeFirst(count)
            waitingWeight -= weight
            let wake = heldBack
            heldBack = []
            return (group, wake)
        }
    }

    /// Saves groups with `importers[saver]`, on its context's queue, for as long as one is due.
    private func saveGroups(on saver: Int) {
        let importer = importers[saver]
        importer.context.perform { [self] in
            var (group, wake) = state.withLock { $0.takeGroup(limits: limits) }
            while true {
                for continuation in wake { continuation.resume(returning: false) }  // they try again
                let results = importer.applyTogether(group.map { ($0.input, $0.serverID) })
                for (entry, result) in zip(group, results) { entry.done(result) }
                let next = state.withLock { state -> (group: [Entry], wake: [CheckedContinuation<Bool, Never>])? in
                    if state.isDue(limits: limits) { return state.takeGroup(limits: limits) }
                    state.idleSavers.append(saver)
                    return nil
                }
                guard let next else { break }
                (group, wake) = next
            }
            let idle = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                guard state.isIdle(saverCount: importers.count) else { return [] }
                defer { state.idleWaiters = [] }
                return state.idleWaiters
            }
            for continuation in idle { continuation.resume() }
            armTimer()
        }
    }

    /// Makes sure a waiting group is saved when its oldest feed's window ends.
    private func armTimer() {
        let due = state.withLock { state -> ContinuousClock.Instant? in
            guard !state.idleSavers.isEmpty, let oldest = state.waiting.first else { return nil }
            let due = oldest.arrived + limits.window
            if let armed = state.timerDue, armed <= due { return nil }
            state.timerDue = due
            return due
        }
        guard let due else { return }
        // On a Dispatch thread, not a task: the window holds even while the task pool is busy.
        let (seconds, attoseconds) = max(.zero, due - .now).components
        let delay = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            let saver = state.withLock { state -> Int? in
                if state.timerDue == due { state.timerDue = nil }
                return state.startSaving(limits: limits)
            }
            if let saver { saveGroups(on: saver) } else { armTimer() }
        }
    }
}
