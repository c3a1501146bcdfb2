/// newsboat's remaining actions (delete, flags, command line, dialogs, source view, URL
/// number): their help lines and default keys.
extension Action {
    /// The help line of the actions of ReaderApp+Commands.swift and ReaderApp+Dialogs.swift.
    var commandSummary: String {
        switch self {
        case .deleteArticle: return "Delete the item (a refresh does not bring it back; u undoes)"
        case .deleteAllArticles: return "Delete every item of the list (asks first; u undoes)"
        case .editFlags: return "Edit the item's flag letters (A-Z, a-z; any letter flags it)"
        case .cmdline: return "Command line: quit, save, set, tag, goto, exec, a number"
        case .viewDialogs: return "List the open screens (ENTER goes back to one, ^X closes it)"
        case .closeDialog: return "Close the screen on top"
        case .nextDialog: return "Go forward to the screen ^G stepped back from"
        case .prevDialog: return "Step back to the screen below, keeping this one for ^V"
        case .toggleSourceView: return "Show the article's HTML source, or its rendering"
        case .gotoURL: return "Open the article's link number N (asks for N)"
        case .selectFilter: return "Filter the item list by a smart feed's predicate (asks which)"
        case .editURLs: return "Edit the feeds as a urls file in $VISUAL/$EDITOR (u undoes)"
        default: return rawValue
        }
    }
}

extension KeyMap {
    /// newsboat's default keys for the actions of Action+Commands.swift (merged into ``default``).
    static let newsboatCommandKeys: [Key: Action] = [
        .character("D"): .deleteArticle, .control("d"): .deleteAllArticles, .control("e"): .editFlags,
        .character(":"): .cmdline, .character("v"): .viewDialogs, .control("x"): .closeDialog,
        .control("v"): .nextDialog, .control("g"): .prevDialog, .control("u"): .toggleSourceView,
        .character("#"): .gotoURL, .character("E"): .editURLs,
        .character("f"): .selectFilter,
    ]
}
