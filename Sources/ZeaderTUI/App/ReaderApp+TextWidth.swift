import ZeaderConfig

/// newsboat's `set text-width N` (`:set` and a macro's `set` step): the article wraps at N
/// columns (0: the terminal's width) until set again; `&` is the config's width.
extension ReaderApp {
    func setTextWidth(_ value: String?) {
        if let value, !value.isEmpty {
            if value == "&" {
                state.formats.textWidth = config.formats.textWidth
            } else if value.allSatisfy({ $0.isASCII && $0.isNumber }) {
                // Wider than any terminal means the terminal's width.
                state.formats.textWidth = Int(value) ?? 0
            } else {
                state.say(
                    .reader(.cannotSet("text-width", "needs a number of columns (0 = the terminal's width), not '\(value)'")))
                return
            }
            // The open article is wrapped again at the next redraw.
            state.article?.renderedWidth = 0
        }
        let width = state.formats.textWidth
        state.say(.reader(.variable("text-width", width == 0 ? "0 (the terminal's width)" : String(width))))
    }
}
