import Foundation

/// newsboat's regular expressions (POSIX extended, as glibc's `regcomp` reads them) written
/// for ICU, so that a pattern newsboat accepts in a `highlight` line or a filter's `=~` means
/// the same here instead of failing to compile: a `)` with no `(` is a plain character, as
/// are a `{` that starts no repeat count and a `*`, `+` or `?` with nothing before it; inside
/// a bracket expression a backslash and a `[` are plain and a `]` first in it is a member;
/// GNU's `\<` and `\>` (start and end of a word) become ICU's word boundaries.
///
/// ```swift
/// POSIXPattern.icu(".*(0/0))")    // ".*(0/0)\\)"
/// POSIXPattern.icu("\\<rust\\>")  // "\\b(?=\\w)rust\\b(?<=\\w)"
/// ```
public enum POSIXPattern {
    /// `pattern` in ICU's syntax, matching what glibc matches with it.
    public static func icu(_ pattern: String) -> String {
        let characters = Array(pattern)
        var result = ""
        var open = 0
        var index = 0
        // Whether a repeat (`*`, `+`, `?`, `{n}`) here has something before it to repeat.
        var repeatable = false
        while index < characters.count {
            let c = characters[index]
            index += 1
            switch c {
            case "\\":
                guard index < characters.count else {
                    result += "\\\\"
                    continue
                }
                let next = characters[index]
                index += 1
                switch next {
                case "<": result += "\\b(?=\\w)"
                case ">": result += "\\b(?<=\\w)"
                case "`": result += "\\A"
                case "'": result += "\\z"
                default: result += "\\" + String(next)
                }
                repeatable = !["<", ">", "`", "'", "b", "B"].contains(next)
            case "[":
                let (set, end) = bracketExpression(characters, from: index)
                result += set
                index = end
                repeatable = true
            case "(":
                open += 1
                result.append(c)
                repeatable = false
            case ")":
                if open > 0 {
                    open -= 1
                    result.append(c)
                } else {
                    result += "\\)"
                }
                repeatable = true
            case "|", "^":
                result.append(c)
                repeatable = false
            case "*", "+", "?":
                result += repeatable ? String(c) : "\\" + String(c)
            case "{":
                if repeatable, let count = repeatCount(characters, from: index) {
                    result += "{" + count + "}"
                    index += count.count + 1
                } else {
                    result += "\\{"
                    repeatable = true
                }
            case "}":
                result += "\\}"
                repeatable = true
            default:
                result.append(c)
                repeatable = true
            }
        }
        return result
    }

    /// A repeat count's text after its `{` (`2`, `2,`, `2,5`), nil when none closes there.
    private static func repeatCount(_ characters: [Character], from start: Int) -> String? {
        var text = ""
        var index = start
        while index < characters.count, characters[index] != "}" {
            text.append(characters[index])
            index += 1
        }
        guard index < characters.count, !text.isEmpty else { return nil }
        let parts = text.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, !first.isEmpty, first.allSatisfy(\.isASCII), first.allSatisfy(\.isNumber),
            parts.dropFirst().allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        else { return nil }
        return text
    }

    /// The bracket expression opened just before `start`, as an ICU set, and the index after
    /// its `]`; one with no `]` is left as written, for ICU to refuse.
    private static func bracketExpression(_ characters: [Character], from start: Int) -> (String, Int) {
        var set = "["
        var index = start
        if index < characters.count, characters[index] == "^" {
            set += "^"
            index += 1
        }
        // A `]` first in the expression is one of its members.
        if index < characters.count, characters[index] == "]" {
            set += "\\]"
            index += 1
        }
        while index < characters.count {
            let c = characters[index]
            index += 1
            switch c {
            case "]": return (set + "]", index)
            case "[":
                // `[:alpha:]` (ICU has the same classes); any other `[` is a member.
                if index < characters.count, characters[index] == ":",
                    let close = (index + 1..<characters.count).first(where: {
                        characters[$0] == ":" && $0 + 1 < characters.count && characters[$0 + 1] == "]"
                    })
                {
                    set += "[" + String(characters[index...(close + 1)])
                    index = close + 2
                } else {
                    set += "\\["
                }
            case "\\", "&", "{", "}", "$": set += "\\" + String(c)
            default: set.append(c)
            }
        }
        return (String(characters[(start - 1)...]), characters.count)
    }
}
