import Foundation

/// Which feeds a config setting or an ignore rule applies to: all of them, one feed by its
/// URL, or the feeds carrying a tag (ignoring case).
///
/// ```swift
/// FeedScope(parsing: "tag:linux")                 // .tag("linux")
/// FeedScope.tag("linux").matches(url: u, tags: "Linux,news")   // true
/// ```
public enum FeedScope: Sendable, Hashable, CustomStringConvertible {
    case all
    case feed(String)
    case tag(String)

    /// `*` (or nothing) is every feed, `tag:NAME` a tag, anything else a feed URL.
    public init(parsing word: String?) {
        guard let word, !word.isEmpty, word != "*" else {
            self = .all
            return
        }
        if word.lowercased().hasPrefix("tag:") {
            self = .tag(String(word.dropFirst(4)))
        } else {
            self = .feed(word)
        }
    }

    /// Whether a feed with this URL and these stored tags (``FeedTags``) is in scope.
    public func matches(url: String, tags: String?) -> Bool {
        switch self {
        case .all: return true
        case .feed(let feed): return feed == url
        case .tag(let tag): return FeedTags.contains(tags, tag)
        }
    }

    /// How specific the scope is: a feed beats a tag beats all.
    var rank: Int {
        switch self {
        case .all: return 0
        case .tag: return 1
        case .feed: return 2
        }
    }

    /// As the config writes it: `*`, `tag:NAME` or the URL.
    public var description: String {
        switch self {
        case .all: return "*"
        case .feed(let url): return url
        case .tag(let tag): return "tag:\(tag)"
        }
    }
}

/// How many items Zeader keeps: the config's `max-items`, `keep-days`, `cleanup-keeps` and
/// `cleanup-on-quit` directives. `zeader cleanup` (and the reader on quit, when
/// `cleanupOnQuit`) applies it through ``RetentionCleanup``.
///
/// ```text
/// max-items 500                  # every feed keeps its 500 newest items
/// max-items 50 tag:busy          # feeds tagged busy keep 50
/// keep-days 30 https://example.org/feed.xml
/// cleanup-keeps flagged unread   # (the default) flagged and unread items are never removed
/// cleanup-on-quit yes
/// ```
///
/// ```swift
/// var policy = RetentionPolicy()
/// try policy.apply(directive: "max-items", arguments: ["500"])
/// policy.limits(url: "https://example.org/feed", tags: nil)   // (maxItems: 500, keepDays: nil)
/// ```
public struct RetentionPolicy: Sendable, Equatable {
    /// One `max-items` or `keep-days` line.
    public struct Setting: Sendable, Equatable {
        public var scope: FeedScope
        /// 0 means no limit (it overrides a wider setting).
        public var value: Int

        public init(scope: FeedScope, value: Int) {
            self.scope = scope
            self.value = value
        }
    }

    public var maxItems: [Setting] = []
    public var keepDays: [Setting] = []
    /// Unread items are never removed (`cleanup-keeps … unread`, the default).
    public var keepsUnread = true
    /// Flagged items are never removed (`cleanup-keeps flagged …`, the default).
    public var keepsFlagged = true
    /// The reader cleans up when it quits.
    public var cleanupOnQuit = false

    /// Tombstones not seen in their feed for this many days are dropped by a cleanup: the
    /// feed no longer carries those items, so nothing can bring them back.
    public static let tombstoneDays = 90

    public init() {}

    /// The config directives this type reads.
    public static let directives: Set<String> = ["max-items", "keep-days", "cleanup-keeps", "cleanup-on-quit"]

    /// Applies one config line; a bad one throws a message (the config names file and line).
    public mutating func apply(directive: String, arguments: [String]) throws(RetentionPolicyError) {
        switch directive {
        case "max-items", "keep-days":
            guard (1...2).contains(arguments.count), let value = Int(arguments[0]), value >= 0 else {
                throw RetentionPolicyError(
                    "\(directive) needs a number (0 = no limit) and optionally a feed URL or tag:NAME")
            }
            let setting = Setting(scope: FeedScope(parsing: arguments.count == 2 ? arguments[1] : nil), value: value)
            if directive == "max-items" { maxItems.append(setting) } else { keepDays.append(setting) }
        case "cleanup-keeps":
            let words = Set(arguments)
            guard !words.isEmpty, words.isSubset(of: ["flagged", "unread", "none"]), !(words.contains("none") && words.count > 1)
            else {
                throw RetentionPolicyError("cleanup-keeps needs flagged, unread, both, or none")
            }
            keepsFlagged = words.contains("flagged")
            keepsUnread = words.contains("unread")
        case "cleanup-on-quit":
            guard arguments.count == 1, ["yes", "no"].contains(arguments[0]) else {
                throw RetentionPolicyError("cleanup-on-quit needs yes or no")
            }
            cleanupOnQuit = arguments[0] == "yes"
        default:
            throw RetentionPolicyError("unknown directive '\(directive)'")
        }
    }

    /// The limits of the feed with this URL and tags: for each of `max-items` and
    /// `keep-days`, its own line, else the first line of a tag it carries, else the last
    /// line for every feed; nil (or 0) means no limit.
    public func limits(url: String, tags: String?) -> (maxItems: Int?, keepDays: Int?) {
        func pick(_ settings: [Setting]) -> Int? {
            var best: Setting?
            for setting in settings where setting.scope.matches(url: url, tags: tags) {
                guard let current = best else {
                    best = setting
                    continue
                }
                // More specific wins; among lines for every feed, the last; among tags, the first.
                if setting.scope.rank > current.scope.rank || (setting.scope.rank == 0 && current.scope.rank == 0) {
                    best = setting
                }
            }
            return best.flatMap { $0.value > 0 ? $0.value : nil }
        }
        return (pick(maxItems), pick(keepDays))
    }

    /// Whether any limit is set at all.
    public var isEmpty: Bool { !(maxItems + keepDays).contains { $0.value > 0 } }
}

/// A bad retention line in the config.
public struct RetentionPolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
