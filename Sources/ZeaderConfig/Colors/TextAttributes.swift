/// Attributes of a cell, apart from curses: what a view asks for (bold, underline, reverse)
/// and what a newsboat `color` line names (`standout`, `blink`, `dim`, `invis`…).
///
/// ```swift
/// #expect(TextAttributes(named: "invisible") == .invisible)
/// ```
public struct TextAttributes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let bold = TextAttributes(rawValue: 1 << 0)
    public static let underline = TextAttributes(rawValue: 1 << 1)
    public static let reverse = TextAttributes(rawValue: 1 << 2)
    public static let standout = TextAttributes(rawValue: 1 << 3)
    public static let blink = TextAttributes(rawValue: 1 << 4)
    public static let dim = TextAttributes(rawValue: 1 << 5)
    public static let invisible = TextAttributes(rawValue: 1 << 6)
    public static let protect = TextAttributes(rawValue: 1 << 7)

    /// newsboat's attribute names (`invis`, and `invisible` as an alias).
    static let names: [String: TextAttributes] = [
        "bold": .bold, "underline": .underline, "reverse": .reverse, "standout": .standout, "blink": .blink,
        "dim": .dim, "invis": .invisible, "invisible": .invisible, "protect": .protect,
    ]

    /// The attribute a `color` line names, nil for an unknown word.
    public init?(named name: String) {
        guard let value = Self.names[name] else { return nil }
        self = value
    }
}
