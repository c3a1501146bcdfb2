/// A `macro` line's words as newsboat writes them: `macro KEY STEP [; STEP]… [-- "description"]`,
/// each step an action's name and its arguments, or `set VARIABLE VALUE` (``MacroStep``). A macro whose steps Zeader cannot all run is
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

    /// The steps to run, or the warning that ignores the macro bound to `key`.
    func actions(key: String) -> Result<[MacroStep], ArticleConfigError> {
        var actions: [MacroStep] = []
        for step in steps {
            let name = step[0]
            if name == "set" {
                // newsboat's idiom: `set browser "mpv %u"; open-in-browser; set browser …`.
                guard step.count >= 3, MacroStep.settableVariables.contains(step[1]) else {
                    let variable = step.count > 1 ? "'\(step[1])'" : "nothing"
                    return .failure(.macroIgnored(key: key, because: "'set' of \(variable) cannot run in a macro"))
                }
                actions.append(.set(variable: step[1], value: step.dropFirst(2).joined(separator: " ")))
                continue
            }
            switch Action.resolve(configName: name) {
            case .failure(let problem): return .failure(.macroIgnored(key: key, because: problem.message))
            case .success(let action):
                // newsboat's actions that take an argument in a macro: the command to pipe to,
                // the state to set (`toggle-article-read "read"`) and the filter to show.
                if step.count > 1, let argued = MacroStep.argued(action, step.dropFirst().joined(separator: " ")) {
                    actions.append(argued)
                    continue
                }
                // Zeader's other actions ask for what they need when they run.
                guard step.count == 1 else {
                    return .failure(
                        .macroIgnored(
                            key: key, because: "'\(name)' takes no arguments in Zeader ('\(step.joined(separator: " "))')"))
                }
                actions.append(.action(action))
            }
        }
        guard !actions.isEmpty else { return .failure(ArticleConfigError("macro needs at least one action")) }
        return .success(actions)
    }
}

/// One step of a macro: an action, or newsboat's `set VARIABLE VALUE` of a setting the reader
/// changes while it runs (the browser, the lists' views), which holds until set again.
///
/// ```swift
/// config.articleCommands.macros[.character("v")]   // [.set(variable: "browser", value: "mpv %u"), .action(.openInBrowser), …]
/// ```
public enum MacroStep: Equatable, Sendable {
    case action(Action)
    case set(variable: String, value: String)
    /// `pipe-to "COMMAND"`: the item's text through the command, without asking.
    case pipe(command: String)
    /// `toggle-article-read "read"` (or `"unread"`): the item marked so, whatever it was.
    case markRead(Bool)
    /// `set-filter "unread = yes"`: the list shown filtered so, without asking.
    case filter(String)

    /// The step of `action` given `argument` in a macro, nil when it takes none.
    static func argued(_ action: Action, _ argument: String) -> MacroStep? {
        switch action {
        case .pipeTo where !argument.isEmpty: return .pipe(command: argument)
        case .setFilter where !argument.isEmpty: return .filter(argument)
        case .toggleRead where argument.lowercased() == "read": return .markRead(true)
        case .toggleRead where argument.lowercased() == "unread": return .markRead(false)
        default: return nil
        }
    }

    /// The variables a macro (and the `:` command line) may set.
    public static let settableVariables: Set<String> = [
        "browser", "show-read-feeds", "show-read-articles", "feed-sort-order", "article-sort-order", "mouse",
        "text-width",
    ]
}
