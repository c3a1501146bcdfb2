import Foundation

/// What every device's shared changes add up to. Applying an entry is commutative,
/// associative and idempotent, so devices that have applied the same entries — in any
/// order, any number of times — hold equal states. The merge rule:
///
/// - **A value** (a feed's subscription, title and whether it needs a login, an item's read and flagged marks, a smart
///   feed's query, an ignore rule) is the one with the latest ``HybridTimestamp``.
/// - **A feed's tags** add-win: a tag is on the feed while one of its additions has not been
///   seen by a removal. A removal takes off only the additions its device had seen, so a tag
///   added elsewhere at the same time stays.
/// - **An unsubscription** voids the title and tags set before it; later ones count.
/// - **An item's deletion** is final: whatever edits come before or after, it stays deleted.
/// - **A feed's move** (a permanent redirect) is a value of its old URL. A URL resolves by
///   following moves whose stamps rise (so a move back wins over the move it undoes); an
///   item's marks are the latest made under any URL that resolves to its feed's.
///
/// ```swift
/// var state = FolderSyncState()
/// state.apply(entry)                        // true: it changed something
/// state.apply(entry)                        // false: already applied
/// state.feed("https://example.org/feed.xml")?.tags
/// ```
public struct FolderSyncState: Equatable, Sendable {
    /// A value and when it was set.
    public struct Register<Value: Equatable & Sendable>: Equatable, Sendable {
        public var stamp: HybridTimestamp
        public var value: Value
    }

    /// What is known of one feed.
    struct Feed: Equatable, Sendable {
        var subscribed: Register<Bool>?
        /// The latest unsubscription: the title and tags set before it are void.
        var unsubscribed: HybridTimestamp?
        var title: Register<String?>?
        /// Whether the device that last said reads the feed with a login.
        var login: Register<Bool>?
        /// Each tag (by its lower-case form) with its additions and their spellings.
        var tagAdditions: [String: [HybridTimestamp: String]] = [:]
        /// The removals of each tag (by its lower-case form), with the additions each had seen.
        var tagRemovals: [String: [HybridTimestamp: Set<HybridTimestamp>]] = [:]
    }

    /// What is known of one item.
    struct Item: Equatable, Sendable {
        var read: Register<Bool>?
        var flagged: Register<Bool>?
        var deleted: HybridTimestamp?
    }

    var feeds: [String: Feed] = [:]
    var items: [ItemSyncKey: Item] = [:]
    var smartFeeds: [String: Register<String?>] = [:]
    var ignoreRules: [String: Register<Bool>] = [:]
    /// Each old URL with the URL its feed moved to.
    var moves: [String: Register<String>] = [:]

    public init() {}

    /// Applies `entry`; whether the state changed (false for an entry already applied or one
    /// that lost to a later one).
    @discardableResult
    public mutating func apply(_ entry: FolderSyncEntry) -> Bool {
        let stamp = entry.stamp
        switch entry.change {
        case .subscribed(let url, let on):
            var feed = feeds[url, default: Feed()]
            var changed = Self.set(&feed.subscribed, on, at: stamp)
            if !on, feed.unsubscribed.map({ stamp > $0 }) ?? true {
                feed.unsubscribed = stamp
                changed = true
            }
            feeds[url] = feed
            return changed
        case .title(let url, let title):
            return Self.set(&feeds[url, default: Feed()].title, title, at: stamp)
        case .login(let url, let on):
            return Self.set(&feeds[url, default: Feed()].login, on, at: stamp)
        case .moved(let url, let target):
            return Self.set(&moves[url], target, at: stamp)
        case .tagAdded(let url, let tag):
            return feeds[url, default: Feed()].tagAdditions[tag.lowercased(), default: [:]].updateValue(tag, forKey: stamp)
                == nil
        case .tagRemoved(let url, let tag, let seen):
            return feeds[url, default: Feed()].tagRemovals[tag.lowercased(), default: [:]].updateValue(seen, forKey: stamp)
                == nil
        case .read(let key, let on):
            return Self.set(&items[key, default: Item()].read, on, at: stamp)
        case .flagged(let key, let on):
            return Self.set(&items[key, default: Item()].flagged, on, at: stamp)
        case .deleted(let key):
            // The earliest deletion is kept, so every device keeps the same one.
            guard items[key]?.deleted.map({ stamp < $0 }) ?? true else { return false }
            items[key, default: Item()].deleted = stamp
            return true
        case .smartFeed(let name, let query):
            return Self.set(&smartFeeds[name], query, at: stamp)
        case .ignoreRule(let rule, let on):
            return Self.set(&ignoreRules[rule], on, at: stamp)
        }
    }

    /// Applies every entry; whether any changed the state.
    @discardableResult
    public mutating func apply<Entries: Sequence<FolderSyncEntry>>(_ entries: Entries) -> Bool {
        entries.reduce(false) { changed, entry in apply(entry) || changed }
    }

    /// Keeps the later of the register's value and `value` set at `stamp`.
    private static func set<Value>(_ register: inout Register<Value>?, _ value: Value, at stamp: HybridTimestamp) -> Bool {
        if let current = register, current.stamp >= stamp { return false }
        register = Register(stamp: stamp, value: value)
        return true
    }
}

extension FolderSyncState {
    /// A feed as the shared changes leave it.
    public struct FeedView: Equatable, Sendable {
        /// Whether it is subscribed to; nil when no device said.
        public var subscribed: Bool?
        /// The title a device gave it (nil: the feed's own).
        public var title: String?
        /// Its tags, as ``FeedTags/normalized(_:)`` sorts them.
        public var tags: [String]
        /// Whether another device reads it with a login, which it does not share: this
        /// device needs its own (``FolderSyncFeedURL``).
        public var needsLogin = false
        /// Where the feed moved (``resolved(_:)``); nil while it is at this URL.
        public var movedTo: String?
    }

    /// An item as the shared changes leave it; nil fields are ones no device changed.
    public struct ItemView: Equatable, Sendable {
        public var read: Bool?
        public var flagged: Bool?
        public var deleted: Bool
    }

    /// The URLs of the feeds some device changed or moved.
    public var feedURLs: [String] { Set(feeds.keys).union(moves.keys).sorted() }

    /// The keys of the items some device changed.
    public var itemKeys: [ItemSyncKey] { items.keys.sorted() }

    /// The feed at `url` as the changes leave it; nil when no device changed it.
    public func feed(_ url: String) -> FeedView? {
        let target = resolved(url)
        guard let feed = feeds[url] else {
            return target == url ? nil : FeedView(subscribed: nil, title: nil, tags: [], movedTo: target)
        }
        let voidBefore = feed.unsubscribed
        func counts(_ stamp: HybridTimestamp) -> Bool { voidBefore.map { stamp > $0 } ?? true }
        var tags: [String] = []
        for (tag, additions) in feed.tagAdditions {
            let removed = feed.tagRemovals[tag]?.values.reduce(into: Set<HybridTimestamp>()) { $0.formUnion($1) } ?? []
            let live = additions.filter { counts($0.key) && !removed.contains($0.key) }
            if let spelling = live.max(by: { $0.key < $1.key })?.value { tags.append(spelling) }
        }
        let title = feed.title.flatMap { counts($0.stamp) ? $0.value : nil }
        return FeedView(
            subscribed: feed.subscribed?.value, title: title, tags: FeedTags.list(FeedTags.normalized(tags)),
            needsLogin: feed.login?.value ?? false, movedTo: target == url ? nil : target)
    }

    /// The item with `key` as the changes leave it; nil when no device changed it.
    public func item(_ key: ItemSyncKey) -> ItemView? {
        guard let item = items[key] else { return nil }
        if item.deleted != nil { return ItemView(read: nil, flagged: nil, deleted: true) }
        return ItemView(read: item.read?.value, flagged: item.flagged?.value, deleted: false)
    }

    /// One item named by several keys (its guid under each URL its feed had, ``aliases(of:)``):
    /// the latest of each mark under any of them; deleted when deleted under one.
    public func item(merging keys: [ItemSyncKey]) -> ItemView? {
        if keys.count == 1 { return item(keys[0]) }
        var read: Register<Bool>?
        var flagged: Register<Bool>?
        var found = false
        for key in keys {
            guard let item = items[key] else { continue }
            if item.deleted != nil { return ItemView(read: nil, flagged: nil, deleted: true) }
            found = true
            if let mark = item.read, read.map({ mark.stamp > $0.stamp }) ?? true { read = mark }
            if let mark = item.flagged, flagged.map({ mark.stamp > $0.stamp }) ?? true { flagged = mark }
        }
        return found ? ItemView(read: read?.value, flagged: flagged?.value, deleted: false) : nil
    }

    /// Where the feed first at `url` is now: its moves followed while their stamps rise.
    public func resolved(_ url: String) -> String {
        var current = url
        var after: HybridTimestamp?
        while let move = moves[current], after.map({ move.stamp > $0 }) ?? true {
            current = move.value
            after = move.stamp
        }
        return current
    }

    /// The URLs whose feed is now at `url`: `url` first, then every one that moved to it.
    public func aliases(of url: String) -> [String] {
        guard !moves.isEmpty else { return [url] }
        return [url] + moves.keys.filter { $0 != url && resolved($0) == url }.sorted()
    }

    /// The smart feeds saved, by name, with their queries.
    public var smartFeedQueries: [String: String] { smartFeeds.compactMapValues(\.value) }

    /// The ignore rules in force.
    public var ignoreRuleTexts: Set<String> { Set(ignoreRules.filter(\.value.value).keys) }

    /// The additions of `tag` on the feed at `url` that a removal made now must name: those
    /// in force, whoever made them.
    public func tagAdditionsInForce(feed url: String, tag: String) -> Set<HybridTimestamp> {
        guard let feed = feeds[url], let additions = feed.tagAdditions[tag.lowercased()] else { return [] }
        let removed = feed.tagRemovals[tag.lowercased()]?.values.reduce(into: Set<HybridTimestamp>()) { $0.formUnion($1) } ?? []
        return Set(
            additions.keys.filter { stamp in !removed.contains(stamp) && (feed.unsubscribed.map { stamp > $0 } ?? true) })
    }
}

extension FolderSyncState {
    /// The fewest entries that rebuild this state's part made by `devices` (every device's
    /// for nil): the latest value of each register, the latest unsubscription, the tag
    /// additions no removal took off and every removal, each deletion. What a device
    /// writes when it compacts its files, since the entries it leaves out changed nothing.
    public func entries(madeBy devices: Set<String>?) -> [FolderSyncEntry] {
        func mine(_ stamp: HybridTimestamp) -> Bool { devices.map { $0.contains(stamp.device) } ?? true }
        var result: [FolderSyncEntry] = []
        func add(_ stamp: HybridTimestamp, _ change: FolderSyncChange) {
            if mine(stamp) { result.append(FolderSyncEntry(stamp: stamp, change: change)) }
        }
        for (url, feed) in feeds {
            if let subscribed = feed.subscribed { add(subscribed.stamp, .subscribed(feed: url, subscribed.value)) }
            if let unsubscribed = feed.unsubscribed, unsubscribed != feed.subscribed?.stamp {
                add(unsubscribed, .subscribed(feed: url, false))
            }
            if let title = feed.title { add(title.stamp, .title(feed: url, title.value)) }
            if let login = feed.login { add(login.stamp, .login(feed: url, login.value)) }
            var removed = Set<HybridTimestamp>()
            for (tag, removals) in feed.tagRemovals {
                for (stamp, seen) in removals {
                    add(stamp, .tagRemoved(feed: url, tag: tag, seen: seen))
                    removed.formUnion(seen)
                }
            }
            for (_, additions) in feed.tagAdditions {
                for (stamp, spelling) in additions
                where !removed.contains(stamp) && (feed.unsubscribed.map { stamp > $0 } ?? true) {
                    add(stamp, .tagAdded(feed: url, tag: spelling))
                }
            }
        }
        for (key, item) in items {
            if let deleted = item.deleted {
                add(deleted, .deleted(key))
                continue
            }
            if let read = item.read { add(read.stamp, .read(key, read.value)) }
            if let flagged = item.flagged { add(flagged.stamp, .flagged(key, flagged.value)) }
        }
        for (name, query) in smartFeeds { add(query.stamp, .smartFeed(name: name, query: query.value)) }
        for (rule, on) in ignoreRules { add(on.stamp, .ignoreRule(rule, on.value)) }
        for (url, target) in moves { add(target.stamp, .moved(feed: url, to: target.value)) }
        return result.sorted { $0.stamp < $1.stamp }
    }
}
