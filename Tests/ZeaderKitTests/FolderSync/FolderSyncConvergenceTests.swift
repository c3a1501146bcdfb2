import Foundation
import Testing

@testable import ZeaderKit

/// Three devices share a folder through a simulated sync tool that delivers late, in any
/// order, twice, cut off, through temporary files and as conflict copies, while the
/// devices make random changes with clocks that disagree. Once everything is delivered,
/// every device must hold the same state, equal to a reference model that applies every
/// change once, in timestamp order.
@Suite("Folder sync converges")
struct FolderSyncConvergenceTests {
    static let feeds = ["https://a.example/feed", "https://b.example/rss", "https://c.example/atom", "https://d.example/x"]
    static let tags = ["News", "news", "Tech", "linux"]
    static let items = (0..<12).map { ItemSyncKey(feedURL: feeds[$0 % feeds.count], guid: "item-\($0)") }

    /// One device: its copy of the shared folder, its state and its clock.
    struct Device {
        var folder: SyncFolder
        var state = FolderSyncState()
        var clock: HybridClock
        var marks = FolderReadMarks()
        /// How far this device's wall clock is off, in milliseconds.
        var skew: Int64

        mutating func make(_ change: FolderSyncChange, at now: Int64) -> FolderSyncEntry {
            let entry = FolderSyncEntry(stamp: clock.stamp(now: now + skew), change: change)
            state.apply(entry)
            return entry
        }

        mutating func readFolder(now: Int64) throws {
            let result = try folder.read(after: marks, now: Date(timeIntervalSince1970: Double(now + skew) / 1000))
            for entry in result.entries { clock.observe(entry.stamp) }
            state.apply(result.entries)
            marks = result.marks
        }
    }

    @Test("3 devices, random changes and deliveries, 100 seeds: one state, the reference model's", arguments: 0..<100)
    func converges(seed: Int) throws {
        var rng = SplitMix64(state: UInt64(seed) &* 7919 &+ 1)
        let base = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: base) }
        let ids = ["dev-a", "dev-b", "dev-c"]
        var devices = try ids.map { id in
            let root = base.appendingPathComponent(id)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            return Device(
                folder: try SyncFolder(root: root, device: id), clock: HybridClock(device: id),
                skew: Int64.random(in: -3_600_000...3_600_000, using: &rng))
        }
        var made: [FolderSyncEntry] = []
        var now: Int64 = 1_765_000_000_000
        for _ in 0..<Int.random(in: 20...70, using: &rng) {
            now += Int64.random(in: 0...5_000, using: &rng)
            let index = Int.random(in: 0..<devices.count, using: &rng)
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<6:
                made.append(devices[index].make(Self.randomChange(on: devices[index].state, using: &rng), at: now))
            case 6..<8:
                try devices[index].folder.publish(devices[index].state)
            case 8:
                try Self.deliver(from: devices[Int.random(in: 0..<3, using: &rng)], to: devices[index], using: &rng)
                try devices[index].readFolder(now: now)
            default:
                try devices[index].readFolder(now: now)
                if Bool.random(using: &rng) {
                    try devices[index].folder.compact(devices[index].state)
                }
            }
        }
        // Everything delivered in the end, whole, in a random order.
        for index in devices.indices { try devices[index].folder.publish(devices[index].state) }
        for _ in 0..<2 {
            for target in devices.indices.shuffled(using: &rng) {
                for source in devices.indices.shuffled(using: &rng) where source != target {
                    try Self.deliver(from: devices[source], to: devices[target], using: &rng, whole: true)
                }
                try devices[target].readFolder(now: now)
            }
        }
        let reference = ReferenceModel(entries: made)
        for device in devices {
            #expect(
                View(device.state) == reference.view, "seed \(seed): \(device.folder.device) differs from the reference model")
        }
    }

    /// A change a user could make on `state`: a tag removal names the additions it sees.
    static func randomChange(on state: FolderSyncState, using rng: inout SplitMix64) -> FolderSyncChange {
        let feed = feeds.randomElement(using: &rng)!
        let item = items.randomElement(using: &rng)!
        switch Int.random(in: 0..<9, using: &rng) {
        case 0: return .read(item, Bool.random(using: &rng))
        case 1: return .flagged(item, Bool.random(using: &rng))
        case 2: return Int.random(in: 0..<4, using: &rng) == 0 ? .deleted(item) : .read(item, true)
        case 3: return .subscribed(feed: feed, Int.random(in: 0..<3, using: &rng) > 0)
        case 4 where Int.random(in: 0..<4, using: &rng) == 0: return .login(feed: feed, Bool.random(using: &rng))
        case 4 where Int.random(in: 0..<3, using: &rng) == 0:
            return .moved(feed: feed, to: feeds.filter { $0 != feed }.randomElement(using: &rng)!)
        case 4: return .title(feed: feed, Bool.random(using: &rng) ? "Title \(Int.random(in: 0..<5, using: &rng))" : nil)
        case 5, 6: return .tagAdded(feed: feed, tag: tags.randomElement(using: &rng)!)
        case 7:
            let tag = tags.randomElement(using: &rng)!
            return .tagRemoved(feed: feed, tag: tag, seen: state.tagAdditionsInForce(feed: feed, tag: tag))
        default:
            return Bool.random(using: &rng)
                ? .smartFeed(name: "s\(Int.random(in: 0..<2, using: &rng))", query: Bool.random(using: &rng) ? "read == NO" : nil)
                : .ignoreRule("title CONTAINS 'x\(Int.random(in: 0..<2, using: &rng))'", Bool.random(using: &rng))
        }
    }

    /// Copies `source`'s own files into `target`'s copy of the folder as a sync tool might:
    /// some late, some cut off, some through a temporary file, some twice or as conflict
    /// copies; files `source` removed are removed. `whole` delivers every file as it is.
    static func deliver(from source: Device, to target: Device, using rng: inout SplitMix64, whole: Bool = false) throws {
        guard source.folder.device != target.folder.device else { return }
        let from = source.folder.ownDirectory
        let to = target.folder.devicesDirectory.appendingPathComponent(source.folder.device)
        try FileManager.default.createDirectory(at: to, withIntermediateDirectories: true)
        let names = SyncFolder.names(in: from)
        for name in SyncFolder.names(in: to) where !names.contains(name) {
            if whole || Bool.random(using: &rng) { try FileManager.default.removeItem(at: to.appendingPathComponent(name)) }
        }
        for name in names {
            let data = try Data(contentsOf: from.appendingPathComponent(name))
            if whole {
                try data.write(to: to.appendingPathComponent(name))
                continue
            }
            switch Int.random(in: 0..<6, using: &rng) {
            case 0:
                continue
            case 1:
                let cut = data.prefix(Int.random(in: 0...data.count, using: &rng))
                try cut.write(to: to.appendingPathComponent(name))
            case 2:
                let cut = data.prefix(Int.random(in: 0...data.count, using: &rng))
                try cut.write(to: to.appendingPathComponent(".syncthing.\(name).tmp"))
            case 3:
                try data.write(to: to.appendingPathComponent(name))
                let stem = name.dropLast(".jsonl".count)
                let copy =
                    Bool.random(using: &rng)
                    ? "\(stem).sync-conflict-20261206-101010-ABCDEFG.jsonl" : "\(stem) (conflicted copy).jsonl"
                try data.write(to: to.appendingPathComponent(copy))
            default:
                try data.write(to: to.appendingPathComponent(name))
            }
        }
    }

    /// What a state shows: every feed, item, smart feed and ignore rule that was changed.
    struct View: Equatable, CustomStringConvertible {
        var feeds: [String: FolderSyncState.FeedView] = [:]
        var items: [ItemSyncKey: FolderSyncState.ItemView] = [:]
        var smartFeeds: [String: String] = [:]
        var ignoreRules: Set<String> = []

        init() {}

        init(_ state: FolderSyncState) {
            for url in state.feedURLs { feeds[url] = state.feed(url) }
            for key in state.itemKeys { items[key] = state.item(key) }
            smartFeeds = state.smartFeedQueries
            ignoreRules = state.ignoreRuleTexts
        }

        var description: String { "feeds \(feeds) items \(items) smart \(smartFeeds) ignore \(ignoreRules)" }
    }

    /// The merge rule written the simplest way: every change once, in timestamp order, on
    /// plain values. An unsubscription clears the feed; a deletion is final; a tag removal
    /// takes off the additions it names.
    struct ReferenceModel {
        var view = View()

        init(entries: [FolderSyncEntry]) {
            var tagAdditions: [String: [String: [HybridTimestamp: String]]] = [:]
            var deleted = Set<ItemSyncKey>()
            var smart: [String: String?] = [:]
            var ignore: [String: Bool] = [:]
            var moves: [String: (to: String, stamp: HybridTimestamp)] = [:]
            func touch(_ url: String) {
                if view.feeds[url] == nil { view.feeds[url] = .init(subscribed: nil, title: nil, tags: []) }
            }
            for entry in entries.sorted(by: { $0.stamp < $1.stamp }) {
                switch entry.change {
                case .subscribed(let url, let on):
                    touch(url)
                    view.feeds[url]?.subscribed = on
                    if !on {
                        view.feeds[url]?.title = nil
                        tagAdditions[url] = [:]
                    }
                case .title(let url, let title):
                    touch(url)
                    view.feeds[url]?.title = title
                case .login(let url, let on):
                    touch(url)
                    view.feeds[url]?.needsLogin = on
                case .moved(let url, let target):
                    moves[url] = (target, entry.stamp)
                case .tagAdded(let url, let tag):
                    touch(url)
                    tagAdditions[url, default: [:]][tag.lowercased(), default: [:]][entry.stamp] = tag
                case .tagRemoved(let url, let tag, let seen):
                    touch(url)
                    for stamp in seen { tagAdditions[url]?[tag.lowercased()]?[stamp] = nil }
                case .read(let key, let on):
                    if !deleted.contains(key) {
                        view.items[key, default: .init(read: nil, flagged: nil, deleted: false)].read = on
                    }
                case .flagged(let key, let on):
                    if !deleted.contains(key) {
                        view.items[key, default: .init(read: nil, flagged: nil, deleted: false)].flagged = on
                    }
                case .deleted(let key):
                    deleted.insert(key)
                    view.items[key] = .init(read: nil, flagged: nil, deleted: true)
                case .smartFeed(let name, let query): smart[name] = query
                case .ignoreRule(let rule, let on): ignore[rule] = on
                }
            }
            for (url, tags) in tagAdditions {
                let spellings = tags.values.compactMap { additions in additions.max(by: { $0.key < $1.key })?.value }
                view.feeds[url]?.tags = FeedTags.list(FeedTags.normalized(spellings))
            }
            // A URL resolves through moves whose stamps rise.
            for url in moves.keys {
                var current = url
                var after: HybridTimestamp?
                while let move = moves[current], after.map({ move.stamp > $0 }) ?? true {
                    current = move.to
                    after = move.stamp
                }
                touch(url)
                view.feeds[url]?.movedTo = current == url ? nil : current
            }
            view.smartFeeds = smart.compactMapValues { $0 }
            view.ignoreRules = Set(ignore.filter(\.value).keys)
        }
    }
}
