import ZeaderConfig

/// newsboat's digits in a list: a digit opens the command line with that digit typed, and
/// ENTER goes to the entry of that number (from 1, as the lists' `%i` numbers them).
extension ReaderApp {
    /// A digit key (`one` … `zero`): the command line, prefilled with the digit, where a list
    /// can go to an entry; elsewhere the action does nothing.
    ///
    /// ```swift
    /// app.perform(.three)   // the prompt ":3"
    /// ```
    func startPosition(_ action: Action) {
        guard let digit = action.positionDigit else { return }
        switch state.screen {
        case .feeds, .items, .picker: state.prompt = .cmdline(text: String(digit))
        case .article, .help: notHere(action)
        }
    }

    /// The entry number a command line of digits names (a leading `-` allowed), nil for any
    /// other command; a number too long for `Int` is still a number, out of every list's range.
    static func entryNumber(_ line: String) -> Int? {
        let digits = line.hasPrefix("-") ? line.dropFirst() : Substring(line)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(line) ?? (line.hasPrefix("-") ? Int.min : Int.max)
    }
}
