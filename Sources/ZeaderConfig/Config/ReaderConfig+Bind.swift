/// newsboat's newer `bind KEY CONTEXTS OPERATION` form: `bind o articlelist,article open`
/// binds `o` in each context named (comma-separated; `everywhere` or `all` is every view), as
/// `bind-key KEY OPERATION CONTEXT` lines would. Zeader binds one action to a key: a line
/// with several operations (`open; next`) is a warning pointing at `macro`.
///
/// ```swift
/// let config = try ReaderConfig.parse("bind o articlelist,article open-in-browser", file: "config")
/// config.keyMap.action(for: .character("o"), in: .article)   // .openInBrowser
/// ```
extension ReaderConfig {
    mutating func applyBind(_ arguments: [String], fail: (String) -> ReaderConfigError) throws {
        guard arguments.count >= 3 else { throw fail("bind needs a key, its contexts and an operation") }
        guard let key = Key(name: arguments[0]) else {
            warnings.append(fail("bind: unknown key '\(arguments[0])' (line ignored)"))
            return
        }
        let steps = MacroLine(arguments.dropFirst(2)).steps
        guard steps.count == 1, let step = steps.first, step.count == 1 else {
            warnings.append(
                fail("bind: Zeader binds one action to a key; write several as a macro (line ignored)"))
            return
        }
        let action: Action
        switch Action.resolve(configName: step[0]) {
        case .success(let resolved): action = resolved
        case .failure(let problem):
            warnings.append(fail("\(problem.message) (line ignored)"))
            return
        }
        for context in arguments[1].split(separator: ",").map(String.init) {
            let word = context == "everywhere" ? "all" : context
            guard let scope = try Self.bindingScope(word, warnings: &warnings, fail: fail) else { continue }
            keyMap.bind(key, to: action, in: Action.podboatView(for: action, in: scope.view))
        }
    }
}
