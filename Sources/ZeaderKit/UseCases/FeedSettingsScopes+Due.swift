import Foundation
import ObjectGraph

extension FeedSettingsScopes {
    /// The enabled feeds whose interval has passed, in the user's order: a feed's own
    /// `reload-interval`, else `defaultMinutes` (the reader's `refresh-interval`); a feed with
    /// neither is due only when `defaultMinutes` is nil and `withoutInterval` is true.
    ///
    /// ```swift
    /// let due = try config.feedSettings.dueServers(defaultMinutes: 30, in: context)
    /// ```
    public func dueServers(
        defaultMinutes: Int?, withoutInterval: Bool = true, in context: ManagedObjectContext, now: Date = Date()
    ) throws -> [ObjectID] {
        try Server.findAll(sortedBy: "displayOrder", in: context).filter { server in
            guard !server.disabled else { return false }
            let settings = effective(url: server.url, tags: server.tags, stored: server.settings)
            if settings.number(.reloadInterval) == nil && defaultMinutes == nil && !withoutInterval { return false }
            return Self.isDue(lastRefresh: server.lastRefresh, settings: settings, defaultMinutes: defaultMinutes, now: now)
        }.map(\.objectID)
    }

    /// The shortest `reload-interval` of the stored feeds and the config's `feed` lines, in
    /// minutes; nil when none has one.
    ///
    /// ```swift
    /// let minutes = try config.feedSettings.shortestInterval(in: context)
    /// ```
    public func shortestInterval(in context: ManagedObjectContext) throws -> Int? {
        let stored = try Server.findAll(in: context).compactMap { FeedSettings(stored: $0.settings).number(.reloadInterval) }
        return (stored + lines.compactMap { $0.settings.number(.reloadInterval) }).min()
    }
}
