import Foundation
import ZeaderKit

extension ReaderConfig {
    /// `rule PREDICATE -> ACTION…` (``ItemRules``): checked whole here, so that a bad rule is
    /// one error naming its line; a rule whose one action is `ignore` joins the killfile's
    /// rules for every feed, as `ignore * PREDICATE` would.
    mutating func applyRule(_ text: String, fail: (String) -> ReaderConfigError) throws {
        let rule: ItemRules.Rule
        do {
            rule = try ItemRules.parse(text)
            _ = try ItemRules.compile(rule)
        } catch {
            throw fail(error.description)
        }
        if rule.isIgnore {
            ignoreRules.append(Killfile.Rule(scope: .all, predicateFormat: rule.predicateFormat))
        } else {
            itemRules.append(rule)
        }
    }
}
