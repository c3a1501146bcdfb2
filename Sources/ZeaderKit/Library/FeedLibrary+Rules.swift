import Feeds
import Foundation
import ObjectGraph

extension FeedLibrary {
    /// A stored rule as `zeader rule list` shows it: the killfile's (``IgnoreRule``, what
    /// `zeader ignore add` stores too) or one that acts (``ItemRules``).
    ///
    /// ```swift
    /// for (number, rule) in try library.rules() { print(number, rule.line) }
    /// ```
    public enum StoredRule: Sendable, Equatable {
        case ignore(Killfile.Rule)
        case acting(ItemRules.Rule)

        /// As the config writes it: `PREDICATE -> ACTION…`, or `ignore SCOPE PREDICATE` for an
        /// ignore rule kept to one feed or tag.
        ///
        /// ```swift
        /// FeedLibrary.StoredRule.acting(rule).line   // "read == NO -> flag"
        /// ```
        public var line: String {
            switch self {
            case .ignore(let rule) where rule.scope == .all: "\(rule.predicateFormat) -> ignore"
            case .ignore(let rule): rule.line
            case .acting(let rule): rule.text
            }
        }
    }

    /// Stores a rule (`PREDICATE -> ACTION…`) last in its list: one whose only action is
    /// `ignore` is the killfile's (``addIgnoreRule(_:configRules:)``, which removes the
    /// stored items it matches now); the others act on the new items of later refreshes and
    /// syncs. Returns how many stored items it removed.
    ///
    /// ```swift
    /// try library.addRule(#"title CONTAINS[cd] "release" -> flag notify"#)
    /// ```
    @discardableResult
    public func addRule(_ text: String, configIgnoreRules: [Killfile.Rule] = []) throws(ZeaderError) -> Int {
        let rule = try ItemRules.parse(text)
        _ = try ItemRules.compile(rule)
        if rule.isIgnore {
            return try addIgnoreRule(
                Killfile.Rule(scope: .all, predicateFormat: rule.predicateFormat), configRules: configIgnoreRules)
        }
        let metadata = store.container.store
        do {
            try ItemRules.setStored(ItemRules.stored(in: metadata) + [rule], in: metadata)
        } catch {
            throw ZeaderError.wrapping(error)
        }
        return 0
    }

    /// The stored rules, numbered from 1 (what ``removeRule(number:configIgnoreRules:)``
    /// takes) in the order they apply: the ignore rules first (an ignored item is never
    /// stored, so no other rule sees it), then those that act.
    ///
    /// ```swift
    /// for (number, rule) in try library.rules() { print(number, rule.line) }
    /// ```
    public func rules() throws(ZeaderError) -> [(number: Int, rule: StoredRule)] {
        let ignore = try ignoreRules().map { StoredRule.ignore($0.rule) }
        let acting = ItemRules.stored(in: store.container.store).map(StoredRule.acting)
        return (ignore + acting).enumerated().map { ($0.offset + 1, $0.element) }
    }

    /// Removes stored rule `number` (as ``rules()`` numbers them) and returns it.
    ///
    /// ```swift
    /// try library.removeRule(number: 2)
    /// ```
    @discardableResult
    public func removeRule(number: Int, configIgnoreRules: [Killfile.Rule] = []) throws(ZeaderError) -> StoredRule {
        let ignoreCount = try ignoreRules().count
        guard number >= 1 else { throw ZeaderError.noSuchRule(number) }
        if number <= ignoreCount {
            return .ignore(try removeIgnoreRule(number: number, configRules: configIgnoreRules))
        }
        let metadata = store.container.store
        var acting = ItemRules.stored(in: metadata)
        guard number - ignoreCount <= acting.count else { throw ZeaderError.noSuchRule(number) }
        let removed = acting.remove(at: number - ignoreCount - 1)
        do {
            try ItemRules.setStored(acting, in: metadata)
        } catch {
            throw ZeaderError.wrapping(error)
        }
        return .acting(removed)
    }
}

extension FeedLibrary {
    /// Fetches and stores the full articles the `full-article` actions of `firings` ask for
    /// (a sync's: a refresh fetches its own, ``FeedRefresher``), each item's page once, with
    /// the site's selector of `selectors`. Returns how many pages gave an article and how
    /// many did not (each item records why).
    ///
    /// ```swift
    /// let count = await library.fetchFullArticles(for: report.firings, with: fetcher)
    /// ```
    public func fetchFullArticles(
        for firings: [ItemRules.Firing], selectors: [ArticleSelectorRule] = [], with fetcher: FeedFetcher
    ) async -> FullArticleCount {
        let asked = firings.filter { $0.rule.actions.contains(.fullArticle) }
        guard !asked.isEmpty else { return FullArticleCount() }
        let context = store.container.newBackgroundContext(name: "rules")
        let targets = await context.run {
            defer { context.reset() }
            var servers: [String: ObjectID] = [:]
            let withServers = asked.compactMap { firing -> (server: ObjectID, firing: ItemRules.Firing)? in
                if servers[firing.item.feed] == nil {
                    servers[firing.item.feed] =
                        (try? Server.findFirst(byAttribute: "url", value: .string(firing.item.feed), in: context))?.objectID
                }
                return servers[firing.item.feed].map { ($0, firing) }
            }
            return ItemRules.fullArticleTargets(withServers, besides: [], selectors: selectors, in: context)
        }
        return await FullArticles.fetchAndStore(targets, with: fetcher, in: context)
    }
}
