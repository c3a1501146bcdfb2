/// How a cell is drawn: a colour role and attributes. Views name roles, not colours, so
/// that `NO_COLOR` and monochrome terminals only change the backend's palette.
///
/// ```swift
/// buffer.write("3 unread", x: 0, y: 0, style: Style(role: .unread, bold: true))
/// ```
public struct Style: Hashable, Sendable {
    /// What the text is, for the backend's palette.
    public enum Role: Int, Sendable, CaseIterable {
        case normal, title, unread, dim, error, selected, statusBar, link, heading, selectedUnread
    }

    public var role: Role
    public var bold: Bool
    public var reverse: Bool
    public var underline: Bool
    /// A config `highlight` rule's 1-based index when the text matched it (``HighlightRule``); 0: none.
    public var highlight = 0

    public init(role: Role = .normal, bold: Bool = false, reverse: Bool = false, underline: Bool = false) {
        self.role = role
        self.bold = bold
        self.reverse = reverse
        self.underline = underline
    }

    /// Plain text.
    public static let normal = Style()
}
