import Foundation
import ZeaderConfig

/// Macros, as in newsboat: `macro x open ; toggle-read` in the config file, then the macro
/// prefix (`,`) and `x` run those steps in order; a `set browser "mpv %u"` step changes the
/// browser until it is set again (newsboat's idiom sets it back as the macro's last step). A macro stops early when one of its
/// actions opens a prompt (save, pipe-to, search…: the prompt waits for the user) or quits.
extension ReaderApp {
    /// The macro prefix: the next key picks the macro.
    func startMacro() {
        guard !config.articleCommands.macros.isEmpty else {
            state.say(.reader(.noMacros))
            return
        }
        state.awaitingMacroKey = true
        let keys = config.articleCommands.macros.keys.map(\.name).sorted().joined(separator: " ")
        state.say(.reader(.pressMacroKey(keys)))
    }

    /// The key after the prefix: runs its macro, or says there is none.
    func runMacro(_ key: Key) {
        state.awaitingMacroKey = false
        state.message = nil
        if key == .escape { return }
        guard let steps = config.articleCommands.macros[key] else {
            state.say(.reader(.noMacro(key.name)))
            return
        }
        run(steps)
    }

    /// `run-on-startup`'s steps, once the reader shows its feeds.
    func runStartupSteps() {
        if !config.articleCommands.startupSteps.isEmpty { run(config.articleCommands.startupSteps) }
    }

    /// Runs `steps` in order, until one opens a prompt or quits.
    func run(_ steps: [MacroStep]) {
        for step in steps {
            switch step {
            case .action(let action): perform(action)
            case .set(let variable, let value): set(variable, to: value)
            case .pipe(let command):
                guard currentItemID() != nil else {
                    state.say(.reader(.needsItem))
                    return
                }
                pipe(to: command)
            case .markRead(let read):
                guard let id = currentItemID() else {
                    state.say(.reader(.needsItem))
                    return
                }
                if model.isRead(id) != read { attempt { try model.setRead(id, read) } }
            case .filter(let text): applyFilter(text)
            }
            if hasQuit || quitting || state.prompt != nil || state.awaitingMacroKey { return }
        }
    }
}
