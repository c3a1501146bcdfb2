import Foundation
import ZeaderConfig

/// Macros, as in newsboat: `macro x open ; toggle-read` in the config file, then the macro
/// prefix (`,`) and `x` run those actions in order. A macro stops early when one of its
/// actions opens a prompt (save, pipe-to, search…: the prompt waits for the user) or quits.
extension ReaderApp {
    /// The macro prefix: the next key picks the macro.
    func startMacro() {
        guard !config.articleCommands.macros.isEmpty else {
            state.say(.reader(.noMacros))
            return
        }
        state.awaitingMacroKey = true
        let keys = config.articleCommands.macros.keys.sorted().map(String.init).joined(separator: " ")
        state.say(.reader(.pressMacroKey(keys)))
    }

    /// The key after the prefix: runs its macro, or says there is none.
    func runMacro(_ key: Key) {
        state.awaitingMacroKey = false
        state.message = nil
        if key == .escape { return }
        guard case .character(let c) = key, let actions = config.articleCommands.macros[c] else {
            state.say(.reader(.noMacro(key.name)))
            return
        }
        for action in actions {
            perform(action)
            if hasQuit || quitting || state.prompt != nil || state.awaitingMacroKey { return }
        }
    }
}
