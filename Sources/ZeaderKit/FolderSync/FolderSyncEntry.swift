import Foundation

/// One change a device shares through a sync folder: what changed and when
/// (``HybridTimestamp``). Items are named by ``ItemSyncKey``, feeds by their URL.
///
/// ```swift
/// let entry = FolderSyncEntry(stamp: clock.stamp(), change: .read(key, true))
/// let line = entry.line                         // one line of JSON, no newline
/// FolderSyncEntry(line: line) == entry          // true
/// ```
public struct FolderSyncEntry: Hashable, Sendable {
    public var stamp: HybridTimestamp
    public var change: FolderSyncChange

    public init(stamp: HybridTimestamp, change: FolderSyncChange) {
        self.stamp = stamp
        self.change = change
    }
}

/// What a ``FolderSyncEntry`` changed. The merge rule of each is in ``FolderSyncState``.
public enum FolderSyncChange: Hashable, Sendable {
    /// The feed at this URL was subscribed to (true) or unsubscribed from (false).
    case subscribed(feed: String, Bool)
    /// The feed at `feed` moved to `to` (a permanent redirect its device followed): its
    /// items there are the same items, their marks made under either URL.
    case moved(feed: String, to: String)
    /// The feed's title was set (nil: back to the feed's own).
    case title(feed: String, String?)
    /// The device that set this reads the feed with a login (true), which stays on that
    /// device (``FolderSyncFeedURL``): the others need their own.
    case login(feed: String, Bool)
    /// A tag was put on the feed; the entry's stamp names this addition.
    case tagAdded(feed: String, tag: String)
    /// A tag was taken off the feed: the additions of it the device had seen.
    case tagRemoved(feed: String, tag: String, seen: Set<HybridTimestamp>)
    /// The item was marked read (true) or unread.
    case read(ItemSyncKey, Bool)
    /// The item was flagged (true) or unflagged.
    case flagged(ItemSyncKey, Bool)
    /// The item was deleted; final, whatever edits come later.
    case deleted(ItemSyncKey)
    /// The smart feed of this name was saved with a query (nil: removed).
    case smartFeed(name: String, query: String?)
    /// The ignore rule was added (true) or removed.
    case ignoreRule(String, Bool)
}

extension FolderSyncEntry {
    /// The longest text an entry may carry (a URL, a title, a query, a rule); longer is damage.
    static let longestText = 4096
    /// The most tag additions one removal may name.
    static let mostSeen = 10_000

    /// The entry as one line of JSON (without its newline).
    public var line: String {
        var wire = Wire(t: stamp.text, op: "")
        switch change {
        case .subscribed(let feed, let on): (wire.op, wire.feed, wire.v) = ("sub", feed, .flag(on))
        case .title(let feed, let title): (wire.op, wire.feed, wire.v) = ("title", feed, title.map(Wire.Value.text) ?? .null)
        case .login(let feed, let on): (wire.op, wire.feed, wire.v) = ("login", feed, .flag(on))
        case .moved(let feed, let target): (wire.op, wire.feed, wire.v) = ("move", feed, .text(target))
        case .tagAdded(let feed, let tag): (wire.op, wire.feed, wire.tag) = ("tag+", feed, tag)
        case .tagRemoved(let feed, let tag, let seen):
            (wire.op, wire.feed, wire.tag, wire.seen) = ("tag-", feed, tag, seen.sorted().map(\.text))
        case .read(let item, let on): (wire.op, wire.item, wire.v) = ("read", item.text, .flag(on))
        case .flagged(let item, let on): (wire.op, wire.item, wire.v) = ("flag", item.text, .flag(on))
        case .deleted(let item): (wire.op, wire.item) = ("del", item.text)
        case .smartFeed(let name, let query): (wire.op, wire.name, wire.v) = ("smart", name, query.map(Wire.Value.text) ?? .null)
        case .ignoreRule(let rule, let on): (wire.op, wire.rule, wire.v) = ("ignore", rule, .flag(on))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, booleans and arrays of strings cannot fail.
        return (try? encoder.encode(wire)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// Reads one line of a sync file; nil for a line that is not a whole, valid entry (cut off
    /// by a sync tool, or damaged), which the reader counts and skips.
    public init?(line: Substring) {
        guard line.hasPrefix("{"), line.hasSuffix("}"),
            let wire = try? JSONDecoder().decode(Wire.self, from: Data(line.utf8)),
            let stamp = HybridTimestamp(text: wire.t)
        else { return nil }
        func text(_ value: String?) -> String? {
            guard let value, !value.isEmpty, value.utf8.count <= Self.longestText else { return nil }
            return value
        }
        var optionalText: String?? {
            switch wire.v {
            case .null?: .some(nil)
            case .text(let value)?: text(value).map { .some($0) }
            default: nil
            }
        }
        var flag: Bool? { if case .flag(let on)? = wire.v { on } else { nil } }
        let item = text(wire.item).flatMap(ItemSyncKey.init(text:))
        let feed = text(wire.feed)
        let tag = text(wire.tag).flatMap(FeedTags.clean)
        let change: FolderSyncChange
        switch wire.op {
        case "sub":
            guard let feed, let flag else { return nil }
            change = .subscribed(feed: feed, flag)
        case "title":
            guard let feed, let title = optionalText else { return nil }
            change = .title(feed: feed, title)
        case "login":
            guard let feed, let flag else { return nil }
            change = .login(feed: feed, flag)
        case "move":
            guard let feed, case .text(let written)? = wire.v, let target = text(written), target != feed else { return nil }
            change = .moved(feed: feed, to: target)
        case "tag+":
            guard let feed, let tag else { return nil }
            change = .tagAdded(feed: feed, tag: tag)
        case "tag-":
            guard let feed, let tag, let seenTexts = wire.seen, seenTexts.count <= Self.mostSeen else { return nil }
            let seen = seenTexts.compactMap(HybridTimestamp.init(text:))
            guard seen.count == seenTexts.count else { return nil }
            change = .tagRemoved(feed: feed, tag: tag, seen: Set(seen))
        case "read":
            guard let item, let flag else { return nil }
            change = .read(item, flag)
        case "flag":
            guard let item, let flag else { return nil }
            change = .flagged(item, flag)
        case "del":
            guard let item else { return nil }
            change = .deleted(item)
        case "smart":
            guard let name = text(wire.name), let query = optionalText else { return nil }
            change = .smartFeed(name: name, query: query)
        case "ignore":
            guard let rule = text(wire.rule), let flag else { return nil }
            change = .ignoreRule(rule, flag)
        default:
            return nil
        }
        self.init(stamp: stamp, change: change)
    }

    /// An entry as written: short keys, the value `v` a boolean, a string or null.
    private struct Wire: Codable {
        var t: String
        var op: String
        var feed: String?
        var item: String?
        var tag: String?
        var seen: [String]?
        var name: String?
        var rule: String?
        var v: Value?

        enum CodingKeys: String, CodingKey { case t, op, feed, item, tag, seen, name, rule, v }

        enum Value: Codable {
            case flag(Bool)
            case text(String)
            case null

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if container.decodeNil() {
                    self = .null
                } else if let flag = try? container.decode(Bool.self) {
                    self = .flag(flag)
                } else {
                    self = .text(try container.decode(String.self))
                }
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case .flag(let flag): try container.encode(flag)
                case .text(let text): try container.encode(text)
                case .null: try container.encodeNil()
                }
            }
        }

        init(t: String, op: String) {
            self.t = t
            self.op = op
        }

        // A present `v: null` is a value (`.null`), told apart from a missing `v`.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            t = try container.decode(String.self, forKey: .t)
            op = try container.decode(String.self, forKey: .op)
            feed = try container.decodeIfPresent(String.self, forKey: .feed)
            item = try container.decodeIfPresent(String.self, forKey: .item)
            tag = try container.decodeIfPresent(String.self, forKey: .tag)
            seen = try container.decodeIfPresent([String].self, forKey: .seen)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            rule = try container.decodeIfPresent(String.self, forKey: .rule)
            v = container.contains(.v) ? try container.decode(Value.self, forKey: .v) : nil
        }

        // `v: null` is written out: it is what resets a title or removes a smart feed.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(t, forKey: .t)
            try container.encode(op, forKey: .op)
            try container.encodeIfPresent(feed, forKey: .feed)
            try container.encodeIfPresent(item, forKey: .item)
            try container.encodeIfPresent(tag, forKey: .tag)
            try container.encodeIfPresent(seen, forKey: .seen)
            try container.encodeIfPresent(name, forKey: .name)
            try container.encodeIfPresent(rule, forKey: .rule)
            try container.encodeIfPresent(v, forKey: .v)
        }
    }
}
