import Foundation
import ObjectGraph

/// Killfiles: `ignore` rules, each a predicate over FeedItem in the smart-feed language,
/// optionally scoped to one feed (URL) or a tag. Items matching a rule are not stored: a
/// refresh drops them as it parses them (``ItemImport``), and items already stored are
/// removed when a rule is added. Either way the item's guid is kept as a ``RemovedItem``
/// tombstone (reason `ignored`), so it is not downloaded into the store again, never shown
/// and never counted. Flagged items are never removed by a rule.
///
/// When a rule is removed (from the store or the config), every `ignored` tombstone is
/// dropped and the remaining rules are applied again at the next refresh: items the feeds
/// still carry come back, those they dropped meanwhile do not (their text was never kept).
/// A sync (``FeedSync``) applies the rules to the items it pulls the same way; after a rule
/// is removed it lists the server's items from the first again, so those come back too.
///
/// ```swift
/// let rule = Killfile.Rule(scope: .all, predicateFormat: "title CONTAINS[cd] \"sponsored\"")
/// try Killfile.add(rule, in: context)
/// let removed = try Killfile.reconcile(configRules: [], in: context, store: store.container.store)
/// ```
public enum Killfile {
    /// One rule as the user wrote it.
    public struct Rule: Sendable, Hashable {
        public var scope: FeedScope
        public var predicateFormat: String

        public init(scope: FeedScope, predicateFormat: String) {
            self.scope = scope
            self.predicateFormat = predicateFormat
        }

        /// As the config writes it: `ignore SCOPE PREDICATE`.
        public var line: String { "ignore \(scope) \(predicateFormat)" }
    }

    /// A rule with its predicate parsed, ready to test items.
    public struct CompiledRule: Sendable {
        public let rule: Rule
        let predicate: ObjectPredicate
    }

    /// Checks a rule's predicate against FeedItem (syntax, keys, types) and parses it.
    ///
    /// ```swift
    /// let compiled = try Killfile.compile(Killfile.Rule(scope: .all, predicateFormat: "author == \"spam\""))
    /// ```
    public static func compile(_ rule: Rule) throws(ZeaderError) -> CompiledRule {
        do {
            let predicate = try ZeaderModel.itemPredicate(format: rule.predicateFormat)
            try predicate.validate(for: try ZeaderModel.current.entity(named: "FeedItem"), in: ZeaderModel.current)
            return CompiledRule(rule: rule, predicate: predicate)
        } catch {
            throw ZeaderError.invalidIgnoreRule("\(rule.predicateFormat): \(error)")
        }
    }

    /// The stored rules, in their order.
    public static func stored(in context: ManagedObjectContext) throws -> [IgnoreRule] {
        try context.fetch(FetchRequest<IgnoreRule>(sortDescriptors: [ObjectSortDescriptor("displayOrder")]))
    }

    /// Stores `rule` (checked first), last in the list; the caller saves.
    @discardableResult
    public static func add(_ rule: Rule, in context: ManagedObjectContext, now: Date = Date()) throws -> IgnoreRule {
        _ = try compile(rule)
        let stored = context.insert(IgnoreRule.self)
        stored.predicateFormat = rule.predicateFormat
        stored.scope = rule.scope.description
        stored.created = now
        stored.displayOrder = (try Self.stored(in: context).map(\.displayOrder).max() ?? 0) + 1
        return stored
    }

    /// Every rule in force: the config's, then the stored ones (a stored rule that no longer
    /// compiles is left out, so one bad rule cannot stop refreshes).
    public static func activeRules(configRules: [Rule], in context: ManagedObjectContext) throws -> [CompiledRule] {
        var rules: [CompiledRule] = []
        for rule in configRules
            + (try stored(in: context)).map({ Rule(scope: FeedScope(parsing: $0.scope), predicateFormat: $0.predicateFormat) })
        {
            if let compiled = try? compile(rule) { rules.append(compiled) }
        }
        return rules
    }

    /// Whether `item` (of a feed with this URL and tags) matches a rule in scope; flagged
    /// items never do.
    static func matches(_ item: FeedItem, url: String, tags: String?, rules: [CompiledRule]) -> Bool {
        guard !item.flagged else { return false }
        return rules.contains { rule in
            rule.rule.scope.matches(url: url, tags: tags) && ((try? rule.predicate.evaluate(with: item)) ?? false)
        }
    }

    /// Store metadata recording the rules last applied (one line each, sorted).
    static let appliedRulesKey = "zeader.killfile.applied"

    /// Brings the store in line with the rules in force (`configRules` and the stored ones):
    /// when a rule was removed since the last time, the `ignored` tombstones are dropped;
    /// when one was added, stored items matching any rule are removed (tombstoned). Saves,
    /// and returns how many items it removed. Cheap when nothing changed (one metadata read).
    ///
    /// ```swift
    /// let removed = try Killfile.reconcile(configRules: config.ignoreRules, in: context, store: store.container.store)
    /// ```
    @discardableResult
    public static func reconcile(
        configRules: [Rule], in context: ManagedObjectContext, store: PersistentStore, now: Date = Date()
    ) throws -> Int {
        let rules = try activeRules(configRules: configRules, in: context)
        let lines = Set(rules.map(\.rule.line))
        let previous = Set((try store.metadata(forKey: appliedRulesKey) ?? "").split(separator: "\n").map(String.init))
        guard lines != previous else { return 0 }
        if !previous.isSubset(of: lines) {
            // The feeds whose items come back are fetched in full once (no 304 on validators).
            try context.execute(
                BatchUpdateRequest(
                    entityName: "Server",
                    predicate: try ObjectPredicate(
                        format: "ANY removedItems.reason == %@", RemovedItem.Reason.ignored.rawValue),
                    propertiesToUpdate: ["etag": .null, "lastModified": .null]))
            // With a sync account, the next sync lists the server's items from the first.
            try context.execute(BatchUpdateRequest(entityName: "SyncAccount", propertiesToUpdate: ["newestItemID": .null]))
            try context.execute(
                BatchDeleteRequest(
                    entityName: "RemovedItem",
                    predicate: try ObjectPredicate(format: "reason == %@", RemovedItem.Reason.ignored.rawValue)))
        }
        var removed = 0
        if !lines.isSubset(of: previous) { removed = try apply(rules, in: context, now: now) }
        try store.setMetadata(lines.isEmpty ? nil : lines.sorted().joined(separator: "\n"), forKey: appliedRulesKey)
        return removed
    }

    /// Removes the stored items matching `rules` (not flagged), a batch at a time, each
    /// leaving an `ignored` tombstone. Returns how many.
    static func apply(_ rules: [CompiledRule], in context: ManagedObjectContext, now: Date, batchSize: Int = 2_000) throws -> Int
    {
        let servers = try Server.findAll(in: context).map { (id: $0.objectID, url: $0.url, tags: $0.tags) }
        var removed = 0
        for rule in rules {
            let inScope = servers.filter { rule.rule.scope.matches(url: $0.url, tags: $0.tags) }.map(\.id)
            guard !inScope.isEmpty else { continue }
            let predicate =
                rule.predicate && (try ObjectPredicate(format: "flagged == NO AND server IN %@", inScope))
            while true {
                let items = try context.fetch(
                    FetchRequest<FeedItem>(predicate: predicate, fetchLimit: batchSize, timeLimit: UserPredicate.timeLimit))
                guard !items.isEmpty else { break }
                for item in items {
                    if let server = item.server { tombstone(item.guid, of: server, in: context, now: now) }
                    context.delete(item)
                }
                try context.save()
                context.reset()
                removed += items.count
            }
        }
        return removed
    }

    /// Inserts an `ignored` tombstone for `guid` (the caller knows there is none).
    static func tombstone(_ guid: String, of server: Server, in context: ManagedObjectContext, now: Date) {
        let removed = context.insert(RemovedItem.self)
        removed.guid = guid
        removed.reason = RemovedItem.Reason.ignored.rawValue
        removed.removed = now
        removed.lastSeen = now
        removed.server = server
    }
}
