/// A `macro` line's words as newsboat writes them: `macro KEY STEP [; STEP]… [-- "description"]`,
/// each step an action's name and its arguments. A macro whose steps Zeader cannot all run is
/// ignored whole, with a warning naming the step: its steps depend on each other (a mark before a
/// move, a browser chosen before an open), so running the others alone could act on the wrong
/// item or with the wrong program.
///
/// ```swift
/// MacroLine(["mark-feed-read", ";", "next-unread-feed", "--", "catch up"]).steps   // [["mark-feed-read"], ["next-unread-feed"]]
/// ```
struct MacroLine: Equatable {
    /// Each step's words: the action's name, then its arguments.
    var steps: [[String]] = []
    /// The words after `--` (newsboat shows them in its macro list).
    var description: String?

    init(_ words: some Sequence<String>) {
        var step: [String] = []
        var words = Array(words)[...]
        while let word = words.popFirst() {
            if word == "--" {
                description = words.joined(separator: " ")
                break
            }
            // `;` separates steps, as a word of its own or stuck to one (`reload;`).
            let pieces = word.split(separator: ";", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index > 0, !step.isEmpty {
                    steps.append(step)
                    step = []
                }
                if !piece.isEmpty { step.append(String(piece)) }
            }
        }
        if !step.isEmpty { steps.append(step) }
    }

    /// The actions to run, or the warning that ignores the macro bound to `key`.
    func actions(key: String) -> Result<[Action], ArticleConfigError> {
        var actions: [Action] = []
        for step in steps {
            let name = step[0]
            if name == "set" { return .failure(.macroIgnored(key: key, because: "'set' in a macro is not run")) }
            switch Action.resolve(configName: name) {
            case .failure(let problem): return .failure(.macroIgnored(key: key, because: problem.message))
            case .success(let action):
                // Zeader's actions ask for what newsboat's take as arguments (`pipe-to "cmd"`).
                guard step.count == 1 else {
                    return .failure(
                        .macroIgnored(
                            key: key, because: "'\(name)' takes no arguments in Zeader ('\(step.joined(separator: " "))')"))
                }
                actions.append(action)
            }
        }
        guard !actions.isEmpty else { return .failure(ArticleConfigError("macro needs at least one action")) }
        return .success(actions)
    }
}
