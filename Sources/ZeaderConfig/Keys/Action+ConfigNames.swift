/// Resolving the action a `bind-key` or `macro` line names: Zeader's names, newsboat's, and
/// the close matches offered when a name is neither.
extension Action {
    /// Every name a config line may give an action: Zeader's and newsboat's, sorted.
    ///
    /// ```swift
    /// Action.configNames.contains("reload-all")   // true
    /// ```
    public static let configNames: [String] = (allCases.map(\.rawValue) + newsboatNames.keys).sorted()

    /// The action a config line names, or why it names none (``ActionNameProblem``).
    ///
    /// ```swift
    /// Action.resolve(configName: "select-tag")   // .success(.setTag)
    /// ```
    public static func resolve(configName name: String) -> Result<Action, ActionNameProblem> {
        if let action = Action(configName: name) { return .success(action) }
        if case .ignored = NewsboatCompatibility.action(name) { return .failure(.withoutEquivalent(name)) }
        return .failure(.unknown(name, closeMatches: closeNames(to: name)))
    }

    /// Up to `limit` config names nearest to `name` by edit distance, nearest first; none
    /// when even the nearest would need more edits than half the name's length.
    ///
    /// ```swift
    /// Action.closeNames(to: "toogle-read")   // ["toggle-read", …]
    /// ```
    public static func closeNames(to name: String, limit: Int = 3) -> [String] {
        let word = Array(name.lowercased().unicodeScalars)
        guard !word.isEmpty else { return [] }
        let threshold = max(2, word.count / 2)
        var scored: [(name: String, distance: Int)] = []
        // The digits' names (one, nine) are never what a misspelt action meant.
        for candidate in configNames where Action(rawValue: candidate)?.positionDigit == nil {
            let distance = editDistance(word, Array(candidate.unicodeScalars))
            if distance <= threshold { scored.append((candidate, distance)) }
        }
        scored.sort { a, b in a.distance != b.distance ? a.distance < b.distance : a.name < b.name }
        return scored.prefix(limit).map(\.name)
    }

    /// Levenshtein distance: insertions, deletions and substitutions.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = Array(repeating: i + 1, count: b.count + 1)
            for (j, y) in b.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// Why a `bind-key` or `macro` line's action cannot be bound: each a warning, never a stop.
/// The wording of these warnings lives in ``message``.
///
/// ```swift
/// Action.resolve(configName: "fly")   // .failure(.unknown("fly", closeMatches: []))
/// ```
public enum ActionNameProblem: Error, Equatable, Sendable {
    /// Neither Zeader's nor newsboat's name; the nearest names, if any are close.
    case unknown(String, closeMatches: [String])
    /// newsboat's action that Zeader does not have.
    case withoutEquivalent(String)

    /// The warning's words, without the line's fate ("line ignored", "macro ignored").
    ///
    /// ```swift
    /// ActionNameProblem.withoutEquivalent("save-all").message
    /// ```
    public var message: String {
        switch self {
        case .unknown(let name, let matches):
            let guess = matches.isEmpty ? "" : "; did you mean \(matches.joined(separator: ", "))?"
            return "unknown action '\(name)'\(guess) (every action: ? in the reader, or man zeader, KEYS)"
        case .withoutEquivalent(let name):
            guard case .ignored(let why) = NewsboatCompatibility.action(name) else {
                return "newsboat's action '\(name)' has no equivalent in Zeader"
            }
            return "newsboat's action '\(name)' is not used: \(why)"
        }
    }
}
