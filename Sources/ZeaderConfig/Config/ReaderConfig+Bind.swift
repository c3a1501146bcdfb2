/// newsboat's newer `bind KEY CONTEXTS OPERATION…` form: `bind o articlelist,article open` binds
/// `o` in each context named (comma-separated; `everywhere` or `all` is every view), as
/// `bind-key KEY OPERATION CONTEXT` lines would; several operations (`open; next`, and what a
/// macro takes, such as `set browser …`) run in order, as a macro's steps, when the key is pressed.
///
/// ```swift
/// let config = try ReaderConfig.parse("bind o articlelist,article open-in-browser; up", file: "config")
/// config.keyMap.steps(for: .character("o"), in: .article)   // [.action(.openInBrowser), .action(.up)]
/// ```
extension ReaderConfig {
    mutating func applyBind(_ arguments: [String], fail: (String) -> ReaderConfigError) throws {
        guard arguments.count >= 3 else { throw fail("bind needs a key, its contexts and an operation") }
        guard let key = Key(name: arguments[0]) else {
            warnings.append(fail("bind: " + Self.unknownKey(arguments[0])))
            return
        }
        let steps: [MacroStep]
        switch MacroLine(arguments.dropFirst(2)).actions(key: arguments[0]) {
        case .success(let resolved): steps = resolved
        case .failure(let problem):
            warnings.append(
                fail(
                    problem.message.replacingOccurrences(of: "macro \(arguments[0]): ", with: "bind \(arguments[0]): ")
                        .replacingOccurrences(of: "(macro ignored)", with: "(line ignored)")))
            return
        }
        for context in arguments[1].split(separator: ",").map(String.init) {
            let word = context == "everywhere" ? "all" : context
            guard let scope = try Self.bindingScope(word, warnings: &warnings, fail: fail) else { continue }
            if steps.count == 1, case .action(let action) = steps[0] {
                keyMap.bind(key, to: action, in: Action.podboatView(for: action, in: scope.view))
            } else {
                keyMap.bind(key, toSteps: steps, in: scope.view)
            }
        }
    }
}
