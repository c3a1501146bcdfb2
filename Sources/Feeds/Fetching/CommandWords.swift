/// A command line a user wrote (a feed's `exec:`, the `player`, a pipe, `bookmark-cmd`,
/// `notify-program`) split into its words as a shell would split them, without any of a
/// shell's expansions, so the words are run as argv and never through a shell: blanks
/// separate words, single and double quotes group (a backslash escapes inside double
/// quotes and outside quotes).
///
/// ```swift
/// CommandWords.split(#"mpv --title "a b" 'c d'"#)   // ["mpv", "--title", "a b", "c d"]
/// ```
public enum CommandWords {
    /// The words of `text`; an unclosed quote runs to the end.
    public static func split(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character? = nil
        var escaped = false
        for c in text {
            if escaped {
                current.append(c)
                escaped = false
            } else if let open = quote {
                if c == open {
                    quote = nil
                } else if c == "\\" && open == "\"" {
                    escaped = true
                } else {
                    current.append(c)
                }
            } else if c == "\\" {
                escaped = true
                inWord = true
            } else if c == "\"" || c == "'" {
                quote = c
                inWord = true
            } else if c.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(c)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }
}
