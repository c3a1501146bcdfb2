import Feeds
import Foundation
import ZeaderKit

/// What the rules that act do once their items are stored (``ItemRules/Firing``): `notify`
/// shows each item's title through the notifier (`notify-program`, ``RefreshNotifier``),
/// `exec` runs the rule's program (``ItemRules/runPrograms(_:)``). `full-article` is the
/// refresh's own (``FeedRefresher``).
///
/// ```swift
/// for problem in await RuleEffects.perform(firings, notifyProgram: config.articleCommands.notifyProgram) { warn(problem) }
/// ```
public enum RuleEffects {
    /// The most notifications one refresh or sync shows one by one; past it, one says how
    /// many items the notify rules matched (`RuleEffects.notificationLimit   // 5`).
    public static let notificationLimit = 5

    /// Performs the firings' `notify` and `exec` actions, in order; returns a line for each
    /// that did not end well.
    ///
    /// ```swift
    /// let problems = await RuleEffects.perform(report.firings, notifyProgram: "notify-send")
    /// ```
    public static func perform(_ firings: [ItemRules.Firing], notifyProgram: String?) async -> [String] {
        var problems: [String] = []
        let titles = firings.filter { $0.rule.actions.contains(.notify) }.map {
            DisplayWidth.sanitizeForTerminal($0.item.title ?? $0.item.link ?? $0.item.id)
        }
        let messages =
            titles.count <= notificationLimit ? titles : [RefreshNotifier.ruleMatches(count: titles.count)]
        for message in messages {
            if let problem = await RefreshNotifier.notify(configured: notifyProgram, message: message) {
                problems.append(problem.description)
            }
        }
        problems += await ItemRules.runPrograms(firings)
        return problems
    }
}

extension RefreshNotifier {
    /// The one notification for more items than ``RuleEffects/notificationLimit``.
    static func ruleMatches(count: Int) -> String { "Zeader: \(count) new items matched notify rules" }
}
