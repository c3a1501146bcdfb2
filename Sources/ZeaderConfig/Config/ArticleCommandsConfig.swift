import Foundation

/// The config directives of saving, piping and bookmarking articles, with newsboat's names:
/// `save-path DIR`, `bookmark-cmd COMMAND`, `notify-program COMMAND`, `macro KEY ACTION…`.
///
/// ```swift
/// let config = try ReaderConfig.parse("save-path ~/articles\nbookmark-cmd \"bm add\"", file: "test")
/// config.articleCommands.savePath   // "~/articles"
/// ```
public struct ArticleCommandsConfig: Equatable, Sendable {
    /// Where `s` proposes to save (default: the current directory).
    public var savePath: String?
    /// Run by `^B` with the URL, title, description and feed title as its last four arguments.
    public var bookmarkCommand: String?
    /// Run after a refresh that stored new items, the message as its last argument (``RefreshNotifier``).
    public var notifyProgram: String?
    /// `macro x open toggle-read`: after the macro prefix, `x` runs those actions in order.
    public var macros: [Character: [Action]] = [:]

    public init() {}

    /// Applies `directive` when it is one of these; false when it is not.
    mutating func apply(_ directive: String, _ arguments: [String]) throws(ArticleConfigError) -> Bool {
        switch directive {
        case "save-path":
            guard arguments.count == 1 else { throw ArticleConfigError("save-path needs one folder") }
            savePath = arguments[0]
        case "bookmark-cmd":
            guard arguments.count == 1 else { throw ArticleConfigError("bookmark-cmd needs one command (quote it)") }
            bookmarkCommand = arguments[0]
        case "notify-program":
            guard arguments.count == 1 else { throw ArticleConfigError("notify-program needs one command (quote it)") }
            notifyProgram = arguments[0]
        case "macro":
            guard arguments.count >= 2, arguments[0].count == 1, let key = arguments[0].first else {
                throw ArticleConfigError("macro needs one key character and at least one action")
            }
            var actions: [Action] = []
            // newsboat separates a macro's commands with ';'.
            for word in arguments.dropFirst().flatMap({ $0.split(separator: ";").map(String.init) }) {
                let name = word.trimmingCharacters(in: .whitespaces)
                if name.isEmpty { continue }
                guard let action = Action(rawValue: name) else { throw ArticleConfigError("macro: unknown action '\(name)'") }
                actions.append(action)
            }
            guard !actions.isEmpty else { throw ArticleConfigError("macro needs at least one action") }
            macros[key] = actions
        default:
            return false
        }
        return true
    }
}

/// A bad `save-path`, `bookmark-cmd`, `notify-program` or `macro` line.
struct ArticleConfigError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
