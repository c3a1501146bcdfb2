/// A key press, decoded from the terminal by the backend.
///
/// ```swift
/// let key = Key(name: "^R")   // .control("r")
/// print(Key.character("j").name)   // "j"
/// ```
public enum Key: Hashable, Sendable {
    case character(Character)
    /// Ctrl plus a letter, lowercased (`^R` is `.control("r")`).
    case control(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, backspace, tab, delete
    /// A function key, `F1` to `F12` (`.function(1)` is F1).
    case function(Int)
    /// The terminal changed size.
    case resize
    /// A mouse report (the `mouse` setting asks the terminal for them).
    case mouse(MouseEvent)

    private static let named: [(String, Key)] = [
        ("UP", .up), ("DOWN", .down), ("LEFT", .left), ("RIGHT", .right), ("PGUP", .pageUp), ("PGDN", .pageDown),
        ("HOME", .home), ("END", .end), ("ENTER", .enter), ("ESC", .escape), ("BACKSPACE", .backspace),
        ("TAB", .tab), ("DEL", .delete), ("SPACE", .character(" ")),
        // newsboat's names of the same keys (curses' KEY_PPAGE and KEY_NPAGE), and the
        // spelled-out ones some configs use.
        ("PPAGE", .pageUp), ("NPAGE", .pageDown), ("PAGEUP", .pageUp), ("PAGEDOWN", .pageDown),
    ]

    /// The function keys a name may give: newsboat's `F1` to `F12`.
    public static let functionKeys = 1...12

    /// The key's name as written in the config file and shown in help: `j`, `^R`, `ENTER`, `SPACE`.
    public var name: String {
        if let (name, _) = Self.named.first(where: { $0.1 == self }) { return name }
        switch self {
        case .character(let c): return String(c)
        case .control(let c): return "^" + c.uppercased()
        case .function(let n): return "F\(n)"
        case .resize: return "RESIZE"
        default: return "?"
        }
    }

    /// Parses a key name (`j`, `^R`, `ENTER`, `PGDN`, newsboat's `NPAGE`, `SPACE`, `F1`); nil
    /// when it names no key.
    public init?(name: String) {
        if let (_, key) = Self.named.first(where: { $0.0 == name.uppercased() }), name.count > 1 {
            self = key
            return
        }
        if name.count > 1, name.uppercased().hasPrefix("F"), let number = Int(name.dropFirst()),
            Self.functionKeys.contains(number), name.dropFirst().allSatisfy(\.isASCII)
        {
            self = .function(number)
            return
        }
        if name.count == 2, name.hasPrefix("^"), let letter = name.last, letter.isLetter, letter.isASCII {
            self = .control(Character(letter.lowercased()))
            return
        }
        guard name.count == 1, let c = name.first, !c.isWhitespace else { return nil }
        self = .character(c)
    }

    /// The key for one byte below 0x20 or 0x7F (what a terminal sends for Ctrl-letters,
    /// Enter, Tab, Escape and Backspace).
    public init?(controlByte byte: UInt32) {
        switch byte {
        case 0x0A, 0x0D: self = .enter
        case 0x09: self = .tab
        case 0x1B: self = .escape
        case 0x7F, 0x08: self = .backspace
        case 0x01...0x1A: self = .control(Character(Unicode.Scalar(byte + 0x60)!))
        default: return nil
        }
    }
}
