/// Hands out transfer slots: at most `maxConcurrent` in all, and per host what
/// ``HostConnectionLimits`` allows it, learnt from its answers (``release(host:answer:)``).
///
/// Waiters are served in arrival order, skipping those whose host is still full, so one busy
/// host never holds up the others.
actor ConnectionLimiter {
    private struct Waiter {
        let id: UInt64
        let host: String
        let continuation: CheckedContinuation<Bool, Never>
    }

    private let maxConcurrent: Int
    private var hostLimits: HostConnectionLimits
    /// How long a full host not heard from may keep everything waiting before it gets more;
    /// `nil`: only answers change a share.
    nonisolated let patience: Duration?
    /// Hosts with a patience timer running.
    private var waitingOn: Set<String> = []
    private var active = 0
    private var activePerHost: [String: Int] = [:]
    private var waiters: [Waiter] = []
    private var nextWaiterID: UInt64 = 0

    /// `maxPerHost` transfers to a host at first (or its share in `known`, learnt by an
    /// earlier run); up to `hostCeiling` as it answers, or when it has kept its transfers
    /// and more waiting `patience` without answering.
    init(
        maxConcurrent: Int, maxPerHost: Int, hostCeiling: Int? = nil, known: [String: Int] = [:],
        patience: Duration? = nil
    ) {
        self.maxConcurrent = max(1, maxConcurrent)
        hostLimits = HostConnectionLimits(start: maxPerHost, ceiling: hostCeiling ?? maxPerHost, known: known)
        self.patience = patience
    }

    /// Transfers `host` may have at once now.
    func limit(for host: String) -> Int {
        hostLimits.limit(for: host)
    }

    /// The shares hosts' answers set so far, by host (``HostConnectionLimits/learnt``).
    func learnt() -> [String: Int] {
        hostLimits.learnt
    }

    /// Waits for a slot for `host`. Returns `false` (holding no slot) if the task was cancelled.
    func acquire(host: String) async -> Bool {
        if Task.isCancelled { return false }
        if hasRoom(for: host) {
            take(host)
            return true
        }
        let id = nextWaiterID
        nextWaiterID += 1
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Runs on this actor: a cancellation that arrives later finds the waiter
                // queued; one that came earlier is seen here.
                if Task.isCancelled {
                    continuation.resume(returning: false)
                } else {
                    waiters.append(Waiter(id: id, host: host, continuation: continuation))
                    waitPatiently(on: host)
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    /// Gives back the slot taken for `host`, learns from its `answer` and wakes whoever can
    /// use the room.
    func release(host: String, answer: HostConnectionLimits.Answer = .failed) {
        hostLimits.record(answer, for: host)
        active -= 1
        let remaining = (activePerHost[host] ?? 1) - 1
        activePerHost[host] = remaining > 0 ? remaining : nil
        wakeWaiters()
    }

    /// Hands free room to waiters, in arrival order.
    private func wakeWaiters() {
        var index = 0
        while index < waiters.count, active < maxConcurrent {
            if hasRoom(for: waiters[index].host) {
                let waiter = waiters.remove(at: index)
                take(waiter.host)
                waiter.continuation.resume(returning: true)
            } else {
                index += 1
            }
        }
    }

    /// Starts a patience timer for `host` if it is full, has waiters and may still grow
    /// before its first answer (``HostConnectionLimits/recordUnanswered(_:)``).
    private func waitPatiently(on host: String) {
        guard let patience, !waitingOn.contains(host), hostLimits.mayGrowUnanswered(host),
            activePerHost[host, default: 0] >= hostLimits.limit(for: host)
        else { return }
        waitingOn.insert(host)
        Task {
            try? await Task.sleep(for: patience)
            self.patienceRanOut(on: host)
        }
    }

    private func patienceRanOut(on host: String) {
        waitingOn.remove(host)
        guard waiters.contains(where: { $0.host == host }), hostLimits.recordUnanswered(host) else { return }
        wakeWaiters()
        if waiters.contains(where: { $0.host == host }) { waitPatiently(on: host) }
    }

    private func cancelWaiter(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: false)
    }

    private func hasRoom(for host: String) -> Bool {
        active < maxConcurrent && activePerHost[host, default: 0] < hostLimits.limit(for: host)
    }

    private func take(_ host: String) {
        active += 1
        activePerHost[host, default: 0] += 1
    }
}
