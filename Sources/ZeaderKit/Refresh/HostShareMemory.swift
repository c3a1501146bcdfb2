import Feeds
import Foundation
import ObjectGraph

/// The transfers at once each host earned in earlier refreshes (``FeedFetcher/learntHostShares()``),
/// kept in the store's metadata, so a refresh starts dozens of feeds on one slow host at the
/// share that host earned before instead of waiting on its first answers again.
///
/// A share is forgotten ``lifetime`` after the last refresh whose answers set it: a host that
/// stopped being slow, or stopped answering 429, goes back to the fetcher's starting share.
///
/// ```swift
/// var configuration = options.fetcherConfiguration
/// configuration.knownHostShares = HostShareMemory.shares(in: store.container.store, now: Date())
/// ```
public enum HostShareMemory {
    /// The store metadata key holding the shares (JSON: host → share and when it was learnt).
    static let metadataKey = "zeader.refresh.hostShares"
    /// How long a share is remembered after its host last confirmed it.
    public static let lifetime: TimeInterval = 7 * 24 * 3600

    struct Entry: Codable, Equatable {
        var share: Int
        var learnt: Date
    }

    /// The shares remembered and still in force at `now`; none when the store cannot be read.
    public static func shares(in store: PersistentStore, now: Date = Date()) -> [String: Int] {
        entries(in: store, now: now).mapValues(\.share)
    }

    /// Remembers `learnt` (this run's shares, by host) at `now`, beside what earlier runs
    /// taught about other hosts. A store that cannot be written keeps what it had: the shares
    /// are only a head start.
    public static func remember(_ learnt: [String: Int], in store: PersistentStore, now: Date = Date()) {
        guard !learnt.isEmpty, !store.isReadOnly else { return }
        var kept = entries(in: store, now: now)
        for (host, share) in learnt { kept[host] = Entry(share: share, learnt: now) }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(kept) else { return }
        try? store.setMetadata(String(decoding: data, as: UTF8.self), forKey: metadataKey)
    }

    /// The entries not expired at `now`; an unreadable or damaged value counts as none.
    static func entries(in store: PersistentStore, now: Date) -> [String: Entry] {
        guard let text = try? store.metadata(forKey: metadataKey) else { return [:] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let all = try? decoder.decode([String: Entry].self, from: Data(text.utf8)) else { return [:] }
        return all.filter { _, entry in
            entry.share > 0 && entry.learnt <= now.addingTimeInterval(60) && now.timeIntervalSince(entry.learnt) < lifetime
        }
    }
}
