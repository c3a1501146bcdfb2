import Feeds
import Foundation
import ObjectGraph

extension ItemRules {
    // MARK: - Stored rules

    /// Store metadata holding the rules `zeader rule add` stored, one line each, in order.
    /// The rule whose one action is `ignore` is stored as the killfile's (``IgnoreRule``).
    static let storedRulesKey = "zeader.rules"

    /// The rules `zeader rule add` stored, in order; none when the store cannot be read, and
    /// a line that no longer reads as a rule is left out.
    ///
    /// ```swift
    /// for rule in ItemRules.stored(in: store.container.store) { print(rule.text) }
    /// ```
    public static func stored(in store: PersistentStore) -> [Rule] {
        let text = (try? store.metadata(forKey: storedRulesKey)) ?? nil
        return (text ?? "").split(separator: "\n").compactMap { try? parse(String($0)) }
    }

    /// Replaces the stored rules by `rules`.
    static func setStored(_ rules: [Rule], in store: PersistentStore) throws {
        try store.setMetadata(rules.isEmpty ? nil : rules.map(\.text).joined(separator: "\n"), forKey: storedRulesKey)
    }

    // MARK: - After the save

    /// The items of `firings` (with their feeds' IDs) whose rules ask for the full article,
    /// not already among `pending`, as ``FullArticles/Target``s. Call on `context`'s queue.
    ///
    /// ```swift
    /// let targets = ItemRules.fullArticleTargets(asked, besides: pending, selectors: [], in: context)
    /// ```
    public static func fullArticleTargets(
        _ firings: [(server: ObjectID, firing: Firing)], besides pending: [FullArticles.Target],
        selectors: [ArticleSelectorRule], in context: ManagedObjectContext
    ) -> [FullArticles.Target] {
        var targets = pending
        var seen = Set(pending.map(\.item))
        for (serverID, firing) in firings where firing.rule.actions.contains(.fullArticle) {
            guard let url = FullArticles.pageURL(firing.item.link),
                let item = try? context.fetch(
                    FetchRequest<FeedItem>(
                        predicate: .comparison(.keyPath("server"), .equalTo, .object(serverID))
                            && .comparison(.keyPath("guid"), .equalTo, .constant(.string(firing.item.id))),
                        fetchLimit: 1)
                ).first,
                seen.insert(item.objectID).inserted
            else { continue }
            let selector = ArticleSelectorRule.selector(
                in: selectors, forPage: url, feedURL: firing.item.feed, tags: item.server?.tags)
            targets.append(FullArticles.Target(item: item.objectID, url: url, selector: selector))
        }
        return targets
    }

    /// The most programs one refresh or sync runs for its rules: a feed of thousands of
    /// matching items does not start thousands of processes (`ItemRules.execLimit   // 100`).
    public static let execLimit = 100
    /// How long a rule's program may run (`ItemRules.execTimeout   // 10 s`).
    public static let execTimeout: Duration = .seconds(10)
    /// How much of a rule's program's output is read, and dropped (`ItemRules.execOutputLimit   // 64 KiB`).
    public static let execOutputLimit = 64 * 1024

    /// Runs the `exec` actions of `firings`, in order, one program at a time, at most
    /// ``execLimit``: the rule's argv with the item's fields in its arguments, or the item as
    /// JSON on its standard input (`exec --json`). Returns one problem line for each program
    /// that could not run, failed, ran too long or wrote too much, and one for those left out.
    ///
    /// ```swift
    /// for problem in await ItemRules.runPrograms(summary.firings) { warn(problem) }
    /// ```
    public static func runPrograms(_ firings: [Firing]) async -> [String] {
        var problems: [String] = []
        var runs = 0
        var skipped = 0
        for firing in firings {
            for case .exec(let exec) in firing.rule.actions {
                guard runs < execLimit else {
                    skipped += 1
                    continue
                }
                runs += 1
                let argv = [HomePath.expanding(exec.argv[0])] + exec.argv.dropFirst().map { fill($0, with: firing.item) }
                let input = exec.json ? json(firing.item) : nil
                let nullDevice = open("/dev/null", O_WRONLY | O_CLOEXEC)
                defer { if nullDevice >= 0 { close(nullDevice) } }
                do {
                    let outcome = try await Subprocess.run(
                        argv, input: input, standardError: nullDevice >= 0 ? nullDevice : 2,
                        outputLimit: execOutputLimit, timeout: execTimeout)
                    if let problem = Messages.ruleProgram(exec.argv[0], outcome) { problems.append(problem) }
                } catch {
                    problems.append(error.description)
                }
            }
        }
        if skipped > 0 { problems.append(Messages.rulePrograms(skipped: skipped, limit: execLimit)) }
        return problems
    }

    /// `argument` with its fields (`%t`, `%l`…) replaced by the item's: each as one whole
    /// value inside the argument, nothing a shell would read. NUL, which no argument can
    /// hold, is dropped.
    static func fill(_ argument: String, with item: Fields) -> String {
        var result = ""
        var iterator = argument.makeIterator()
        while let c = iterator.next() {
            guard c == "%", let letter = iterator.next() else {
                result.append(c)
                continue
            }
            switch letter {
            case "t": result += item.title ?? ""
            case "l": result += item.link ?? ""
            case "a": result += item.author ?? ""
            case "f": result += item.feed
            case "i": result += item.id
            case "d": result += item.published.map(JSONText.timestamp) ?? ""
            case "%": result += "%"
            default: result += "%\(letter)"
            }
        }
        return result.replacingOccurrences(of: "\u{0}", with: "")
    }

    /// The item as `exec --json` gives it: `{"feed", "id", "title", "link", "author", "published"}`,
    /// the keys of `zeader items --json`.
    static func json(_ item: Fields) -> Data {
        let object: [String: Any] = [
            "feed": item.feed, "id": item.id, "title": item.title ?? NSNull(), "link": item.link ?? NSNull(),
            "author": item.author ?? NSNull(), "published": item.published.map(JSONText.timestamp) ?? NSNull(),
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
    }
}
