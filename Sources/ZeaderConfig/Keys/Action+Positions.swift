/// newsboat's digit actions (`one` … `zero`): in a list, a digit opens the command line with
/// that digit typed, and ENTER goes to the entry of that number.
extension Action {
    /// The digit a position action types, nil for every other action.
    ///
    /// ```swift
    /// Action.three.positionDigit   // "3"
    /// ```
    public var positionDigit: Character? {
        switch self {
        case .one: return "1"
        case .two: return "2"
        case .three: return "3"
        case .four: return "4"
        case .five: return "5"
        case .six: return "6"
        case .seven: return "7"
        case .eight: return "8"
        case .nine: return "9"
        case .zero: return "0"
        default: return nil
        }
    }
}

extension KeyMap {
    /// newsboat's default keys for its digit actions: each digit types itself (merged into ``default``).
    static let newsboatPositionKeys: [Key: Action] = Dictionary(
        uniqueKeysWithValues: Action.allCases.compactMap { action in action.positionDigit.map { (Key.character($0), action) } })
}
