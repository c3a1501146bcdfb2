/// A mouse report from the terminal, decoded by the backend: what the mouse did and in which
/// cell (counted from 0, the title bar being row 0).
///
/// ```swift
/// let click = MouseEvent(kind: .press(.left), column: 4, row: 2)
/// let key = Key.mouse(click)
/// ```
public struct MouseEvent: Hashable, Sendable {
    /// What the mouse did.
    public enum Kind: Hashable, Sendable {
        /// A button went down.
        case press(MouseButton)
        /// A button came up.
        case release
        /// The wheel turned away from the user (the text moves down).
        case wheelUp
        /// The wheel turned towards the user.
        case wheelDown
        /// The mouse moved with a button held, or another report the reader has no use for
        /// (a sideways wheel, buttons past the third).
        case other
    }

    public var kind: Kind
    /// The cell's column, from 0.
    public var column: Int
    /// The cell's row, from 0.
    public var row: Int

    public init(kind: Kind, column: Int, row: Int) {
        self.kind = kind
        self.column = column
        self.row = row
    }
}

/// The button of a ``MouseEvent/Kind/press(_:)``.
///
/// ```swift
/// if case .press(.left) = event.kind { … }
/// ```
public enum MouseButton: Hashable, Sendable {
    case left, middle, right
}
