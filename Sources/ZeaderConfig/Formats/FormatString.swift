import Feeds

/// A newsboat format string (`feedlist-format`, `articlelist-format`, the title formats):
/// text with `%x` fields, widths (`%4i` pads on the left, `%-20t` on the right, `%=9t`
/// centres; a field longer than its width is cut), `%>c` (what follows is pushed to the right
/// edge, the gap filled with `c`), `%?x?then&else?` (`then` when field `x` has other than
/// blanks, else `else`) and `%%`. Parsed once from the config; rendering is pure and counts
/// terminal columns (``DisplayWidth``), so wide characters keep the columns straight.
///
/// ```swift
/// let format = FormatString("%4i %n %-8t|%>.%u")
/// format.render(width: 24) { ["i": "7", "n": "N", "t": "日本語のニュース", "u": "(3/9)"][$0] }
/// // "   7 N 日本語の|......(3/9)"
/// ```
public struct FormatString: Equatable, Sendable {
    /// How a field's value is fitted to its width.
    public enum Alignment: Equatable, Sendable {
        /// As it is, whatever its width.
        case none
        /// Spaces before the value: `%4i`.
        case right(Int)
        /// Spaces after the value: `%-20t`.
        case left(Int)
        /// Spaces on both sides; 0 is the whole line: `%=20t`.
        case center(Int)
    }

    /// A part of a format string.
    public indirect enum Piece: Equatable, Sendable {
        case text(String)
        case field(Character, Alignment)
        /// `%>c`: the rest of the line is pushed to the right edge; the gap is filled with `c`.
        case fill(Character)
        /// `%?x?then&else?`: `then` if field `x` has other than blanks, else `otherwise`.
        case conditional(Character, then: [Piece], otherwise: [Piece])
    }

    /// The widest field Zeader pads to: a larger width in the config is no terminal's line.
    public static let widestField = 1000

    /// The format as the config wrote it.
    public let source: String
    public let pieces: [Piece]
    /// What the parse had to read as plain text (a `%?` conditional without its closing `?`,
    /// a `%` at the end), for the config's warning; empty when the string is well formed.
    public let problems: [String]

    /// Parses `source`; never fails (as in newsboat, what is not a field is text), but notes
    /// what it could not read in ``problems``.
    public init(_ source: String) {
        self.source = source
        var parser = FormatParser(source)
        pieces = parser.pieces(inConditional: false)
        problems = parser.problems
    }

    /// The field letters the format uses (in fields and in conditions), for the config's check.
    ///
    /// ```swift
    /// FormatString("%?T?[%T] ?%t").fields  // ["T", "t"]
    /// ```
    public var fields: Set<Character> {
        func collect(_ pieces: [Piece], into set: inout Set<Character>) {
            for piece in pieces {
                switch piece {
                case .field(let name, _): set.insert(name)
                case .conditional(let name, let then, let otherwise):
                    set.insert(name)
                    collect(then, into: &set)
                    collect(otherwise, into: &set)
                case .text, .fill: break
                }
            }
        }
        var set = Set<Character>()
        collect(pieces, into: &set)
        return set
    }

    /// The line for `value` (a field's text, nil for none: empty), `width` columns wide when
    /// the format has a `%>` fill (0: no fill); longer lines are the caller's to cut.
    public func render(width: Int, value: (Character) -> String?) -> String {
        var segments: [Segment] = []
        expand(pieces, width: width, value: value, into: &segments)
        var head = ""
        var fillCharacter: Character?
        var tail = ""
        for segment in segments {
            switch segment {
            case .text(let text) where fillCharacter == nil: head += text
            case .text(let text): tail += text
            case .fill(let character) where fillCharacter == nil: fillCharacter = character
            case .fill(let character): tail.append(character)
            }
        }
        guard let fillCharacter else { return head }
        let gap = width - DisplayWidth.of(head) - DisplayWidth.of(tail)
        let fillWidth = max(1, DisplayWidth.of(fillCharacter))
        let filler = gap > 0 ? String(repeating: String(fillCharacter), count: gap / fillWidth) : ""
        return head + filler + String(repeating: " ", count: max(0, gap) % fillWidth) + tail
    }

    private enum Segment {
        case text(String)
        case fill(Character)
    }

    private func expand(
        _ pieces: [Piece], width: Int, value: (Character) -> String?, into segments: inout [Segment]
    ) {
        for piece in pieces {
            switch piece {
            case .text(let text): segments.append(.text(text))
            case .fill(let character): segments.append(.fill(character))
            case .field(let name, let alignment):
                segments.append(.text(Self.aligned(value(name) ?? "", alignment, lineWidth: width)))
            case .conditional(let name, let then, let otherwise):
                let isSet = (value(name) ?? "").contains { !$0.isWhitespace }
                expand(isSet ? then : otherwise, width: width, value: value, into: &segments)
            }
        }
    }

    static func aligned(_ text: String, _ alignment: Alignment, lineWidth: Int) -> String {
        func spaces(_ count: Int) -> String { String(repeating: " ", count: max(0, count)) }
        switch alignment {
        case .none:
            return text
        case .right(let columns):
            let cut = DisplayWidth.prefix(text, columns: columns)
            return spaces(columns - DisplayWidth.of(cut)) + cut
        case .left(let columns):
            return DisplayWidth.padded(text, toColumns: columns)
        case .center(let asked):
            let columns = asked == 0 ? lineWidth : asked
            let cut = DisplayWidth.prefix(text, columns: columns)
            let gap = columns - DisplayWidth.of(cut)
            return spaces(gap / 2) + cut + spaces(gap - gap / 2)
        }
    }
}

/// Reads a format string into ``FormatString/Piece``s: one pass, no backtracking beyond a
/// conditional that turns out to be unclosed (read again as text).
private struct FormatParser {
    let characters: [Character]
    var index = 0
    var problems: [String] = []

    init(_ source: String) { characters = Array(source) }

    mutating func pieces(inConditional: Bool) -> [FormatString.Piece] {
        var result: [FormatString.Piece] = []
        var text = ""
        func flush() {
            if !text.isEmpty { result.append(.text(text)) }
            text = ""
        }
        while index < characters.count {
            let character = characters[index]
            if inConditional && (character == "&" || character == "?") { break }
            guard character == "%" else {
                text.append(character)
                index += 1
                continue
            }
            if inConditional, index + 1 < characters.count, "?&".contains(characters[index + 1]) {
                if characters[index + 1] == "?", let nested = conditional() {
                    flush()
                    result.append(nested)
                    continue
                }
                // Not a nested conditional: newsboat ends the part at its first `?` or `&`, a `%` before it too.
                index += 1
                break
            }
            guard index + 1 < characters.count else {
                problems.append("a '%' at the end is shown as it is")
                text.append("%")
                index += 1
                continue
            }
            let next = characters[index + 1]
            switch next {
            case "%":
                text.append("%")
                index += 2
            case ">":
                // At the end, as in newsboat, the fill is blank.
                flush()
                result.append(.fill(index + 2 < characters.count ? characters[index + 2] : " "))
                index += 3
            case "?":
                let start = index
                if let conditional = conditional() {
                    flush()
                    result.append(conditional)
                } else {
                    problems.append("the conditional '%?' at column \(start + 1) has no closing '?'")
                    index = start + 2
                    text += "%?"
                }
            default:
                if let field = field() {
                    flush()
                    result.append(field)
                } else {
                    problems.append("a '%' at the end is shown as it is")
                    text += String(characters[index...])
                    index = characters.count
                }
            }
        }
        flush()
        return result
    }

    /// `%?x?then&else?` from `index` (at its `%`); nil, `index` unchanged, when unclosed.
    mutating func conditional() -> FormatString.Piece? {
        let start = index
        guard index + 3 < characters.count, characters[index + 3] == "?" else { return nil }
        let name = characters[index + 2]
        index += 4
        let then = pieces(inConditional: true)
        var otherwise: [FormatString.Piece] = []
        if index < characters.count, characters[index] == "&" {
            index += 1
            otherwise = pieces(inConditional: true)
        }
        guard index < characters.count, characters[index] == "?" else {
            index = start
            return nil
        }
        index += 1
        return .conditional(name, then: then, otherwise: otherwise)
    }

    /// `%x`, `%4x`, `%-20x`, `%=9x` from `index` (at its `%`); nil when the string ends first.
    mutating func field() -> FormatString.Piece? {
        var cursor = index + 1
        var isCentered = false
        var isNegative = false
        if characters[cursor] == "=" {
            isCentered = true
            cursor += 1
        } else if characters[cursor] == "-" {
            isNegative = true
            cursor += 1
        }
        var width = 0
        while cursor < characters.count, let digit = characters[cursor].wholeNumberValue, characters[cursor].isASCII {
            width = min(width * 10 + digit, FormatString.widestField)
            cursor += 1
        }
        guard cursor < characters.count else { return nil }
        let name = characters[cursor]
        index = cursor + 1
        let alignment: FormatString.Alignment =
            isCentered ? .center(width) : width == 0 ? .none : isNegative ? .left(width) : .right(width)
        return .field(name, alignment)
    }
}
