/// A command line the user wrote, run as newsboat runs `browser`: by `/bin/sh -c`, with `%u`
/// replaced by a value (a feed's URL) quoted for the shell, or the quoted value appended when
/// the command has no `%u`. The value is data from a feed: whatever quotes the user put around
/// `%u` (none, `'…'`, `"…"`, `$(…)`), the shell reads it as text, never as shell syntax.
///
/// ```swift
/// let line = try ShellCommand.substituting("https://a.example/?q=1;x", in: "firefox %u &")
/// // "firefox 'https://a.example/?q=1;x' &"
/// ```
public enum ShellCommand {
    /// A command whose quotes are not closed: the value could not be placed safely.
    public struct UnbalancedQuotes: Error, Equatable, CustomStringConvertible {
        public let command: String
        public var description: String { "the command '\(command)' has an unclosed quote or parenthesis" }
    }

    /// The program and arguments that run `line` through the shell.
    ///
    /// ```swift
    /// ShellCommand.argv("echo hi | xclip")   // ["/bin/sh", "-c", "echo hi | xclip"]
    /// ```
    public static func argv(_ line: String) -> [String] { ["/bin/sh", "-c", line] }

    /// `command` with each `%u` replaced by `value` quoted for where it stands, or with
    /// ` 'value'` appended when there is no `%u`.
    ///
    /// ```swift
    /// try ShellCommand.substituting("https://a.example/", in: "echo %u | xclip")   // "echo 'https://a.example/' | xclip"
    /// ```
    public static func substituting(_ value: String, in command: String) throws(UnbalancedQuotes) -> String {
        var output = ""
        var scanner = QuoteScanner()
        // What the shell makes of the innermost quoted text so far: the command it may hand on.
        var literal = ""
        var placed = false
        var chars = Array(command)[...]
        while let c = chars.popFirst() {
            let context = scanner.context
            if c == "%", chars.first == "u" {
                chars.removeFirst()
                placed = true
                guard context == .single || context == .double else {
                    // Backquotes are read before quotes: inside them the word's own backslashes,
                    // backquotes and dollars (and double quotes, within double quotes) are escaped.
                    output +=
                        context == .backtick ? escapedInBackquotes(word(value), scanner.backtickInDoubleQuotes) : word(value)
                    continue
                }
                // `'%u'` alone in its quotes is the URL as a word; inside a longer quoted
                // command, the URL is quoted for the shell that command goes to.
                let alone = literal.isEmpty && chars.first == (context == .single ? "'" : "\"")
                let text = alone ? value : quotedForInnerShell(value, after: literal)
                literal += text
                output += context == .single ? text.replacingOccurrences(of: "'", with: #"'\''"#) : escapedInDoubleQuotes(text)
                continue
            }
            output.append(c)
            var escaped: Character?
            if c == "\\", context != .single, let next = chars.popFirst() {
                // Copied as it is: `\%u` is the text `%u`, not a place.
                output.append(next)
                escaped = next
            }
            if c == "#", context == .plain || context == .substitution || context == .backtick,
                output.dropLast().last.map({ $0.isWhitespace || ";&|(".contains($0) }) ?? true
            {
                // A comment runs to the end of its line: its quotes are not quotes.
                while let next = chars.first, next != "\n" { output.append(chars.removeFirst()) }
                continue
            }
            let wasQuoted = context == .single || context == .double
            if escaped == nil, !scanner.read(c) { throw UnbalancedQuotes(command: command) }
            let isQuoted = scanner.context == .single || scanner.context == .double
            if wasQuoted && scanner.context == context {
                if let escaped { literal += context == .double && "$`\"\\\n".contains(escaped) ? "" : "\\" }
                literal.append(escaped ?? c)
            } else if isQuoted != wasQuoted || scanner.context != context {
                literal = ""
            }
        }
        guard scanner.isBalanced else { throw UnbalancedQuotes(command: command) }
        if !placed { output += (output.isEmpty ? "" : " ") + word(value) }
        return output
    }

    /// `value` as one single-quoted shell word.
    private static func word(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// The text that, after `command` (a command another shell will read), gives that shell
    /// `value` as text: quoted, or its quotes closed around the quoted value and reopened.
    private static func quotedForInnerShell(_ value: String, after command: String) -> String {
        var inner = QuoteScanner()
        for c in command { _ = inner.read(c) }
        switch inner.context {
        case .single: return "'" + word(value) + "'"
        case .double: return "\"" + word(value) + "\""
        case .plain, .substitution, .backtick: return word(value)
        }
    }

    /// `text` as it must be written inside backquotes to reach the command within unchanged.
    private static func escapedInBackquotes(_ text: String, _ inDoubleQuotes: Bool) -> String {
        var escaped = ""
        for c in text {
            if "\\`$".contains(c) || (inDoubleQuotes && c == "\"") { escaped.append("\\") }
            escaped.append(c)
        }
        return escaped
    }

    private static func escapedInDoubleQuotes(_ text: String) -> String {
        var escaped = ""
        for c in text {
            if "\\$`\"".contains(c) { escaped.append("\\") }
            escaped.append(c)
        }
        return escaped
    }
}

/// The quotes a POSIX shell is inside of while it reads a command, character by character.
private struct QuoteScanner {
    enum Context: Equatable {
        /// Outside quotes (also inside `$(…)` or backticks, which start a new command).
        case plain
        case single
        case double
        case substitution
        case backtick
    }

    private var stack: [Context] = [.plain]
    private var escaping = false
    private var afterDollar = false

    var context: Context { stack.last ?? .plain }
    /// Whether the backquotes being read are inside double quotes.
    var backtickInDoubleQuotes: Bool { stack.count >= 2 && stack.last == .backtick && stack[stack.count - 2] == .double }
    var isBalanced: Bool { stack == [.plain] && !escaping }

    /// Reads one character; false for a `)` that closes nothing.
    mutating func read(_ c: Character) -> Bool {
        let dollar = afterDollar
        afterDollar = c == "$" && !escaping && context != .single
        if escaping {
            escaping = false
            return true
        }
        switch (context, c) {
        case (.single, "'"): stack.removeLast()
        case (.single, _): break
        case (_, "\\"): escaping = true
        case (_, "(") where dollar: stack.append(.substitution)
        case (.double, "\""): stack.removeLast()
        case (.backtick, "`"): stack.removeLast()
        case (.substitution, ")"): stack.removeLast()
        case (.double, "`"): stack.append(.backtick)
        case (.double, _): break
        case (_, "'"): stack.append(.single)
        case (_, "\""): stack.append(.double)
        case (_, "`"): stack.append(.backtick)
        case (.plain, "("), (.substitution, "("): stack.append(.substitution)
        case (.plain, ")"): return false
        default: break
        }
        return true
    }
}

extension ProgramRun {
    /// The program as the user named it: the first word of a command run through the shell.
    ///
    /// ```swift
    /// ProgramRun(argv: ShellCommand.argv("mpv 'x' &"), purpose: .pipe).commandName   // "mpv"
    /// ```
    public var commandName: String {
        if argv.count == 3, argv[0] == "/bin/sh", argv[1] == "-c" {
            return argv[2].split(whereSeparator: \.isWhitespace).first.map(String.init) ?? argv[2]
        }
        return argv.first ?? ""
    }
}
