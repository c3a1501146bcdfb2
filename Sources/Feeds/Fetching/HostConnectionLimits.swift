/// How many transfers each host gets at once, learnt from how it answers: the one place
/// the fetcher's politeness to a host is decided (``ConnectionLimiter`` applies it).
///
/// - A host starts at ``start`` transfers (a few: polite to a host we know nothing of).
/// - A host that answers over HTTP/2 or later multiplexes its transfers on one
///   connection: it gets up to ``ceiling`` at once, as one connection costs it no more.
/// - A host that answers slowly but surely (a success that took ``slowAnswerSeconds`` or
///   more) doubles its share, up to ``ceiling``: its answers wait on latency (a feed made
///   on demand, a far server), not on our number of requests, and dozens of feeds on one
///   such host would otherwise take dozens of round trips.
/// - A host that answers 429 or 503 gets one transfer at a time for the rest of the
///   fetcher's life, whatever it answers later: it asked for fewer requests.
/// - A host not heard from yet whose first transfers have all waited ``FetcherConfiguration/hostPatience``
///   without an answer, with more of its feeds queued, doubles its share for now: such a host
///   is likely slow but sure, and waiting for its first answer would cost every later feed
///   that long. Its first answer, whatever it is, ends that share, and the rules here apply.
/// - Any other answer (an error status, no answer at all) changes nothing.
///
/// With a fixed limit (the `max-host-connections` setting) ``start`` and ``ceiling`` are
/// that limit, and only a 429 or 503 lowers it.
///
/// What hosts taught an earlier run can be passed in (`known`): such a host starts at the
/// share it earned then instead of ``start``, so dozens of feeds on a slow host do not wait
/// for its first answers again on every refresh. What this run learnt is ``learnt``.
///
/// ```swift
/// var limits = HostConnectionLimits(start: 4, ceiling: 8)
/// limits.record(.succeeded(seconds: 2, multiplexed: false), for: "feeds.example:443")   // now 8
/// limits.recordUnanswered("slow.example:443")   // 8 until its first answer
/// ```
struct HostConnectionLimits: Sendable, Equatable {
    /// What a finished transfer tells about its host.
    enum Answer: Sendable, Equatable {
        /// A 2xx or 304 answer, after `seconds`, over a protocol that multiplexes
        /// (HTTP/2 or later) or not.
        case succeeded(seconds: Double, multiplexed: Bool)
        /// 429 Too Many Requests or 503 Service Unavailable.
        case throttled
        /// Any other status, or no answer.
        case failed
    }

    /// Transfers at once to a host not heard from yet.
    let start: Int
    /// The most transfers at once to one host.
    let ceiling: Int
    /// An answer that takes this long or longer is slow.
    static let slowAnswerSeconds = 1.0

    private var limits: [String: Int] = [:]
    private var throttled: Set<String> = []
    /// Hosts that have answered at least once in this run.
    private var heardFrom: Set<String> = []
    /// Hosts whose share grew while none of their transfers had answered.
    private var unansweredGrowth: Set<String> = []
    /// The shares this run's answers set, by host: what a later run may start from.
    private(set) var learnt: [String: Int] = [:]

    /// `start` and `ceiling` at least 1, and `start` at most `ceiling`; a host in `known`
    /// (shares an earlier run learnt) starts at its share there, within 1…`ceiling`.
    init(start: Int, ceiling: Int, known: [String: Int] = [:]) {
        self.ceiling = max(1, ceiling)
        self.start = min(max(1, start), self.ceiling)
        limits = known.mapValues { min(max(1, $0), self.ceiling) }
    }

    /// Transfers `host` may have at once now.
    func limit(for host: String) -> Int {
        limits[host] ?? start
    }

    /// Whether ``recordUnanswered(_:)`` would grow `host`'s share: a host not heard from,
    /// below the ceiling, whose share no earlier run set.
    func mayGrowUnanswered(_ host: String) -> Bool {
        !heardFrom.contains(host) && (limits[host] == nil || unansweredGrowth.contains(host))
            && limit(for: host) < ceiling
    }

    /// Doubles the share of `host`, whose transfers have all waited long without any answer,
    /// until its first answer (see the type's rules). Returns whether the share grew.
    @discardableResult
    mutating func recordUnanswered(_ host: String) -> Bool {
        guard mayGrowUnanswered(host) else { return false }
        limits[host] = min(ceiling, limit(for: host) * 2)
        unansweredGrowth.insert(host)
        return true
    }

    /// Learns from `answer`, which `host` gave.
    mutating func record(_ answer: Answer, for host: String) {
        heardFrom.insert(host)
        if unansweredGrowth.remove(host) != nil {
            // The answer, not the wait, decides from now on.
            limits[host] = nil
        }
        guard !throttled.contains(host) else { return }
        switch answer {
        case .throttled:
            throttled.insert(host)
            set(1, for: host)
        case .succeeded(_, multiplexed: true):
            set(ceiling, for: host)
        case .succeeded(let seconds, multiplexed: false) where seconds >= Self.slowAnswerSeconds:
            set(min(ceiling, limit(for: host) * 2), for: host)
        case .succeeded, .failed:
            break
        }
    }

    private mutating func set(_ limit: Int, for host: String) {
        limits[host] = limit
        learnt[host] = limit
    }
}
