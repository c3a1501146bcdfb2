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
    /// `external-url-viewer`: `U` pipes the article to this command (through `sh -c`) instead
    /// of listing its links in the reader.
    public var externalURLViewer: String?
    /// `pager`: the article is shown by this command (through `sh -c`, `%f` the file it is
    /// written to) instead of in the reader; nil or `internal`: the reader; empty: `$PAGER`.
    public var pager: String?
    /// `html-renderer`: the article's HTML goes to this command's standard input (through
    /// `sh -c`) and its output is the text shown; nil: Zeader renders it (`internal`).
    public var htmlRenderer: String?
    /// `run-on-startup next-unread ; open`: steps run, as a macro's, when the reader starts.
    public var startupSteps: [MacroStep] = []
    /// `macro x open toggle-read`: after the macro prefix, `x` runs those steps in order (any
    /// key newsboat names: `macro ^X …`, `macro ENTER …`).
    public var macros: [Key: [MacroStep]] = [:]

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
        case "bookmark-autopilot", "bookmark-interactive":
            // ^B runs bookmark-cmd at once, the terminal handed to it: what both ask for with yes.
            guard arguments.count == 1, ["yes", "no", "true", "false"].contains(arguments[0].lowercased()) else {
                throw ArticleConfigError("\(directive) needs yes or no")
            }
        case "run-on-startup":
            // One quoted list (`"next-unread; open"`) or several words: the same steps.
            let words = arguments.flatMap { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
            switch MacroLine(words).actions(key: directive) {
            case .success(let steps): startupSteps = steps
            case .failure(let problem):
                var warning = ArticleConfigError(
                    problem.message.replacingOccurrences(of: "macro \(directive): ", with: "\(directive): ")
                        .replacingOccurrences(of: "(macro ignored)", with: "(line ignored)"))
                warning.isWarning = problem.isWarning
                throw warning
            }
        case "external-url-viewer", "pager", "html-renderer":
            guard arguments.count == 1 else { throw ArticleConfigError("\(directive) needs one command (quote it)") }
            let command = arguments[0].trimmingCharacters(in: .whitespaces)
            switch directive {
            case "pager": pager = arguments[0] == "internal" ? nil : arguments[0]
            case "html-renderer": htmlRenderer = command == "internal" || command.isEmpty ? nil : command
            default: externalURLViewer = arguments[0]
            }
        case "notify-program":
            guard arguments.count == 1 else { throw ArticleConfigError("notify-program needs one command (quote it)") }
            notifyProgram = arguments[0]
        case "macro":
            guard arguments.count >= 2, let keyName = arguments.first, !keyName.isEmpty else {
                throw ArticleConfigError("macro needs a key and at least one action")
            }
            guard let key = Key(name: keyName) else {
                var warning = ArticleConfigError("macro: " + ReaderConfig.unknownKey(keyName))
                warning.isWarning = true
                throw warning
            }
            let actions = try MacroLine(arguments.dropFirst()).actions(key: keyName).get()
            macros[key] = actions
        default:
            return false
        }
        return true
    }
}

/// A bad `save-path`, `bookmark-cmd`, `notify-program` or `macro` line; a warning when the
/// line is only ignored (a macro Zeader cannot run).
struct ArticleConfigError: Error {
    let message: String
    var isWarning = false
    init(_ message: String) { self.message = message }

    /// A macro that is left out, with the reason.
    static func macroIgnored(key: String, because reason: String) -> ArticleConfigError {
        var error = ArticleConfigError("macro \(key): \(reason) (macro ignored)")
        error.isWarning = true
        return error
    }
}
