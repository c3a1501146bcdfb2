import ZeaderConfig

/// The colours and attributes each ``Style/Role`` is drawn with: the built-in palette, with
/// the config's newsboat `color` lines laid over it, fitted to what the terminal can show.
/// Pure, so the mapping from config to colour pairs is tested without a terminal; the curses
/// backend only turns the result into `init_pair` calls and attribute bits.
///
/// - A role named by a `color` line takes that line's colours *and* attributes, as in newsboat
///   (`color listnormal_unread red default` is red and not bold); underline (links) stays.
/// - `background`, `listnormal` and `article` set the colours of plain text (``plainPair``)
///   and of the screen's empty cells.
/// - Colour numbers the terminal lacks fall back: 8–15 to 0–7 on an 8-colour terminal, others
///   to the default colour; without default colours (`use_default_colors` refused) `default` is
///   white on black.
/// - Without colours (`NO_COLOR`, `color no`, a monochrome terminal) reverse and bold carry the
///   meaning as before, and a `color` line's attributes are added to them.
///
/// ```swift
/// let palette = Palette(rules: [rule], hasColor: true, colorCount: 256)
/// let (pair, attributes) = palette.look(Style(role: .selected, bold: true, reverse: true))
/// ```
public struct Palette: Equatable, Sendable {
    /// A foreground and background colour number; -1 is the terminal's default.
    public struct Colors: Equatable, Sendable {
        public var foreground: Int16
        public var background: Int16
        public init(_ foreground: Int16, _ background: Int16) {
            self.foreground = foreground
            self.background = background
        }
    }

    /// The built-in pairs (ncurses' colour numbers: 0 black, 1 red … 4 blue … 7 white).
    public static let builtIn: [Style.Role: Colors] = [
        .title: Colors(7, 4), .unread: Colors(6, -1), .dim: Colors(7, -1), .error: Colors(1, -1),
        .selected: Colors(7, 4), .selectedUnread: Colors(7, 4), .statusBar: Colors(0, 7), .link: Colors(4, -1),
        .heading: Colors(3, -1),
    ]

    public let hasColor: Bool
    /// Each role's colour pair but `.normal`'s; the pair's number is the role's raw value.
    public private(set) var pairs: [Style.Role: Colors] = [:]
    /// The terminal's default colours from `background`/`listnormal`/`article`; nil keeps them.
    public private(set) var defaultColors: Colors?
    /// The attributes of the roles a `color` line names.
    public private(set) var configured: [Style.Role: TextAttributes] = [:]
    /// The `highlight` rules' colours and attributes, in the config's order; rule `i` (0-based)
    /// is pair ``firstHighlightPair`` + `i`. Rules past the terminal's colour pairs are left out.
    public private(set) var highlights: [(colors: Colors, attributes: TextAttributes)] = []
    public static let firstHighlightPair = 16
    /// The pair of plain text when `background`, `listnormal` or `article` name its colours:
    /// curses draws pair 0 in the terminal's own colours once default colours are on, so a
    /// colour of plain text needs a pair of its own.
    public static let plainPair: Int16 = 15

    public static func == (lhs: Palette, rhs: Palette) -> Bool {
        lhs.hasColor == rhs.hasColor && lhs.pairs == rhs.pairs && lhs.defaultColors == rhs.defaultColors
            && lhs.configured == rhs.configured && lhs.highlights.map(\.colors) == rhs.highlights.map(\.colors)
            && lhs.highlights.map(\.attributes) == rhs.highlights.map(\.attributes)
    }

    /// - Parameters:
    ///   - colorCount: the terminal's number of colours (curses' `COLORS`).
    ///   - hasDefaultColors: whether -1 (the terminal's own colour) can be used.
    ///   - colorPairs: the terminal's number of colour pairs (curses' `COLOR_PAIRS`).
    public init(
        rules: [ColorRule], highlights highlightRules: [HighlightRule] = [], hasColor: Bool, colorCount: Int = 8,
        hasDefaultColors: Bool = true, colorPairs: Int = 64
    ) {
        self.hasColor = hasColor
        func fit(_ color: Int16, background: Bool) -> Int16 {
            let fallback: Int16 = hasDefaultColors ? -1 : (background ? 0 : 7)
            if color < 0 { return fallback }
            if Int(color) < colorCount { return color }
            if colorCount >= 8 && color < 16 { return color - 8 }
            return fallback
        }
        func fit(_ colors: Colors) -> Colors {
            Colors(fit(colors.foreground, background: false), fit(colors.background, background: true))
        }
        for (role, colors) in Self.builtIn { pairs[role] = fit(colors) }
        for rule in rules {
            let colors = fit(Colors(rule.foreground, rule.background))
            let attributes = rule.attributes.reduce(into: TextAttributes()) { $0.formUnion(TextAttributes(named: $1) ?? []) }
            for role in rule.roles {
                if role == .normal { defaultColors = colors } else { pairs[role] = colors }
                configured[role] = attributes
            }
        }
        for rule in highlightRules.prefix(max(0, min(colorPairs, 256) - Self.firstHighlightPair)) {
            let attributes = rule.attributes.reduce(into: TextAttributes()) { $0.formUnion(TextAttributes(named: $1) ?? []) }
            highlights.append((fit(Colors(rule.foreground, rule.background)), attributes))
        }
    }

    /// The colour pair (0 for the default colours) and attributes to draw `style` with.
    public func look(_ style: Style) -> (pair: Int16, attributes: TextAttributes) {
        let isSelection = style.role == .selected || style.role == .selectedUnread
        var attributes = TextAttributes()
        if style.underline { attributes.insert(.underline) }
        if style.highlight > 0, highlights.indices.contains(style.highlight - 1) {
            let highlight = highlights[style.highlight - 1]
            // Without colours a highlight with no attributes of its own stands out in bold.
            guard hasColor else { return (0, attributes.union(highlight.attributes.isEmpty ? .bold : highlight.attributes)) }
            return (Int16(Self.firstHighlightPair + style.highlight - 1), attributes.union(highlight.attributes))
        }
        guard hasColor else {
            if style.bold { attributes.insert(.bold) }
            if style.reverse || isSelection || style.role == .title || style.role == .statusBar {
                attributes.insert(.reverse)
            }
            if style.role == .error || style.role == .heading { attributes.insert(.bold) }
            return (0, attributes.union(configured[style.role] ?? []))
        }
        let plain: Int16 = defaultColors == nil ? 0 : Self.plainPair
        let pair = style.role == .normal ? plain : Int16(style.role.rawValue)
        // Plain text keeps the bold its HTML gives it (an article's `<strong>`), as links keep
        // their underline, whatever colour `article` gives it.
        if style.role == .normal, style.bold { attributes.insert(.bold) }
        if let own = configured[style.role] { return (pair, attributes.union(own)) }
        if style.bold { attributes.insert(.bold) }
        if style.role == .dim { attributes.insert(.dim) }
        if style.reverse && !isSelection { attributes.insert(.reverse) }
        // A selection drawn without reverse is a plain row (no colour pair).
        return (isSelection && !style.reverse ? plain : pair, attributes)
    }
}
