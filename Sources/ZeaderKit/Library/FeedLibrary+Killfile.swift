import Foundation
import ObjectGraph

extension FeedLibrary {
    /// Stores an ignore rule and applies the rules in force to the stored items at once;
    /// returns how many items it removed.
    ///
    /// ```swift
    /// let removed = try library.addIgnoreRule(Killfile.Rule(scope: .tag("news"), predicateFormat: "title CONTAINS[cd] \"ad\""))
    /// ```
    @discardableResult
    public func addIgnoreRule(_ rule: Killfile.Rule, configRules: [Killfile.Rule] = []) throws(ZeaderError) -> Int {
        let removed = try withContext { context in
            try Killfile.add(rule, in: context)
            try context.save()
            return try Killfile.reconcile(configRules: configRules, in: context, store: store.container.store)
        }
        store.checkpoint()
        return removed
    }

    /// The stored ignore rules, numbered from 1 in their order (what `remove` takes).
    ///
    /// ```swift
    /// for (number, rule) in try library.ignoreRules() { print(number, rule.line) }
    /// ```
    public func ignoreRules() throws(ZeaderError) -> [(number: Int, rule: Killfile.Rule)] {
        try withContext { context in
            try Killfile.stored(in: context).enumerated().map { index, stored in
                (index + 1, Killfile.Rule(scope: FeedScope(parsing: stored.scope), predicateFormat: stored.predicateFormat))
            }
        }
    }

    /// Removes stored rule `number` (as ``ignoreRules()`` numbers them); the items it hid
    /// come back with the next refresh if their feed still carries them. Returns the rule.
    ///
    /// ```swift
    /// try library.removeIgnoreRule(number: 1)
    /// ```
    @discardableResult
    public func removeIgnoreRule(number: Int, configRules: [Killfile.Rule] = []) throws(ZeaderError) -> Killfile.Rule {
        try withContext { context in
            let stored = try Killfile.stored(in: context)
            guard number >= 1 else { throw ZeaderError.invalidIgnoreRuleNumber(number) }
            guard number <= stored.count else { throw ZeaderError.noSuchIgnoreRule(number) }
            let rule = stored[number - 1]
            let removed = Killfile.Rule(scope: FeedScope(parsing: rule.scope), predicateFormat: rule.predicateFormat)
            context.delete(rule)
            try context.save()
            try Killfile.reconcile(configRules: configRules, in: context, store: store.container.store)
            return removed
        }
    }
}
