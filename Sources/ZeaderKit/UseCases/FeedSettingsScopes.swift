import Feeds
import Foundation

/// The config's `feed SCOPE < key value; …` lines and how a feed's settings are found:
/// from weakest to strongest, `feed *`, `feed tag:NAME` (in file order, a later line over an
/// earlier one), `feed URL`, then the feed's own settings (its urls-file line, `zeader set`).
/// The config's global directives (`proxy`, `user-agent`, `max-items`…) are weaker still.
///
/// ```swift
/// var scopes = FeedSettingsScopes()
/// scopes.add(.tag("slow"), try FeedSettings(parsing: "reload-interval 240"))
/// let settings = scopes.effective(url: url, tags: "slow", stored: server.settings)
/// ```
public struct FeedSettingsScopes: Sendable, Equatable {
    /// One `feed` line.
    public struct Line: Sendable, Equatable {
        public var scope: FeedScope
        public var settings: FeedSettings
    }

    /// The lines in file order.
    public private(set) var lines: [Line] = []

    /// No `feed` line.
    ///
    /// ```swift
    /// let none = FeedSettingsScopes()
    /// ```
    public init() {}

    /// Adds one `feed` line.
    ///
    /// ```swift
    /// scopes.add(.feed("https://example.org/feed"), try FeedSettings(parsing: "timeout 5"))
    /// ```
    public mutating func add(_ scope: FeedScope, _ settings: FeedSettings) {
        lines.append(Line(scope: scope, settings: settings))
    }

    /// The settings in force for the feed with this URL, tags and stored settings (`Server.settings`).
    ///
    /// ```swift
    /// scopes.effective(url: server.url, tags: server.tags, stored: server.settings).number(.maxItems)
    /// ```
    public func effective(url: String, tags: String?, stored: String?) -> FeedSettings {
        var result = FeedSettings()
        for rank in 0...2 {
            for line in lines where line.scope.rank == rank && line.scope.matches(url: url, tags: tags) {
                result = result.overridden(by: line.settings)
            }
        }
        return result.overridden(by: FeedSettings(stored: stored))
    }

    /// Whether a feed refreshed at `lastRefresh` with these settings is due at `now`: it
    /// has no `reload-interval` (or was never refreshed), or its interval has passed.
    ///
    /// ```swift
    /// FeedSettingsScopes.isDue(lastRefresh: server.lastRefresh, settings: settings, now: Date())
    /// ```
    public static func isDue(lastRefresh: Date?, settings: FeedSettings, defaultMinutes: Int? = nil, now: Date) -> Bool {
        guard let lastRefresh, let minutes = settings.number(.reloadInterval) ?? defaultMinutes, minutes > 0 else {
            return true
        }
        // A few seconds early still counts, so a cron line every N minutes refreshes a feed of interval N.
        return now.timeIntervalSince(lastRefresh) >= TimeInterval(minutes * 60) - 30
    }
}
