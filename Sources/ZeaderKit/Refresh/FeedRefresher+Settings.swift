import Foundation
import ObjectGraph

extension RetentionPolicy {
    /// This policy with the `max-items` and `keep-days` of each feed's own settings and the
    /// config's `feed` lines put first, so they win over the config's lines of the same
    /// feed or tag (``FeedSettingsScopes``). Reads `servers` on `context`'s queue.
    ///
    /// ```swift
    /// let policy = options.retention.including(options.feedSettings, for: grown, in: context)
    /// ```
    public func including(_ scopes: FeedSettingsScopes, for servers: [ObjectID], in context: ManagedObjectContext)
        -> RetentionPolicy
    {
        var policy = self
        var maxItems: [Setting] = []
        var keepDays: [Setting] = []
        for id in servers {
            guard let server = try? context.existingObject(with: id) as? Server else { continue }
            let settings = scopes.effective(url: server.url, tags: server.tags, stored: server.settings)
            if let n = settings.number(.maxItems) { maxItems.append(Setting(scope: .feed(server.url), value: n)) }
            if let n = settings.number(.keepDays) { keepDays.append(Setting(scope: .feed(server.url), value: n)) }
        }
        policy.maxItems = maxItems + policy.maxItems
        policy.keepDays = keepDays + policy.keepDays
        return policy
    }
}

extension FeedSettingsScopes {
    /// The scopes of the `feed` lines that turn `full-article` on, for ``FullArticles``
    /// beside the config's `full-article` lines (a feed's own setting is `Server.fullArticle`).
    ///
    /// ```swift
    /// let scopes = options.fullArticleScopes + options.feedSettings.fullArticleScopes
    /// ```
    public var fullArticleScopes: [FeedScope] {
        lines.filter { $0.settings.flag(.fullArticle) == true }.map(\.scope)
    }
}
